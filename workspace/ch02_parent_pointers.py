"""第 02 章练习：认父不认子 / Chapter 02 exercises: parent pointers only.

笔记本 notebooks/zh/02-parent-pointers.ipynb 讲了 Pi 会话里的每个条目只记得自己的
父节点（``parentId``），从不记录孩子：因为孩子列表每长一个分支就得重写父节点那一行，
而只追加的文件从不重写。所以“分支”“根”“叶子”都要在读取时从父指针推出来。
这两个函数就是最基本的两步。

The notebook notebooks/en/02-parent-pointers.ipynb shows that every entry in a Pi session
knows only its parent (``parentId``) and never its children: a child list would force
rewriting the parent's line each time a branch grows, and an append-only file never rewrites
a line. So branches, roots and leaves are derived at read time from parent pointers. These
two functions are the two basic moves.

条目是 ``TranscriptEntry(id, parent_id, text="", kind="message", payload=...)``：
第三个位置参数是 ``text``，``kind`` 和 ``payload`` 要用关键字给；根的 ``parent_id`` 是 ``None``。
错误类型都来自 ``learn_pi_lab.session_tree``，请直接抛它们（测试会检查类型和字段）。
Entries are ``TranscriptEntry(id, parent_id, text="", kind="message", payload=...)``: the
third positional field is ``text``, and ``kind`` and ``payload`` are given by keyword; a root
has ``parent_id`` None.
Raise the error classes imported below (the tests check their type and fields).

检查 / check:  make verify EX=path-to    make verify EX=validate
"""

from __future__ import annotations

from typing import Iterable, Mapping

from learn_pi_lab.session_tree import (  # noqa: F401  (the errors your code should raise)
    DuplicateEntryId,
    ParentCycle,
    SelfParent,
    TranscriptEntry,
    UnknownTranscriptEntry,
)


def path_to(entries_by_id: Mapping[str, TranscriptEntry],
            leaf_id: str) -> tuple[TranscriptEntry, ...]:
    """从 ``leaf_id`` 沿父指针走到根，返回从根到叶的分支（tuple）。
    Walk parent pointers from ``leaf_id`` up to the root; return the branch, root first.

    例子 / Example: 条目 / entries ``r(root), a->r, b->a``::

        path_to({"r": r, "a": a, "b": b}, "b")  ->  (r, a, b)

    * 叶子不存在 / unknown leaf: ``raise UnknownTranscriptEntry(leaf_id)``
    * 父节点不存在 / a missing parent:
      ``raise UnknownTranscriptEntry(missing_id, referenced_by=child_id)``
    * 走回到已经走过的 id（环，包括自己当父节点）/ the walk meets an id again (a cycle,
      a self-parent included): ``raise ParentCycle(ids_on_the_loop)``，按父节点顺序，
      只含环上的 id / in parent order, only the ids on the loop.
    * 要经得起一百万层：用循环，不用递归 / a million levels deep must work: a loop,
      not recursion.
    * 返回映射里原来的条目对象 / return the entry objects from the mapping itself.
    """
    raise NotImplementedError(
        "练习 path-to 还没有完成 / exercise path-to is not implemented yet: "
        "write path_to in workspace/ch02_parent_pointers.py")


def validate(entries: Iterable[TranscriptEntry]) -> None:
    """检查条目能否组成一片森林；能就返回 None，否则抛出第一个结构错误。
    Check that the entries form a forest; return None, or raise the first structural error.

    检查顺序是固定的 / the checks run in this fixed order:

    1. 重复的 id（按文件顺序第一个重复的）/ a duplicate id (the first repeat in file
       order): ``DuplicateEntryId(entry_id)``
    2. 自己当父节点 / an entry that is its own parent: ``SelfParent(entry_id)``
    3. 父节点不存在（文件顺序第一个）/ a missing parent (first in file order):
       ``UnknownTranscriptEntry(parent_id, referenced_by=entry_id)``
    4. 环 / a cycle: ``ParentCycle(ids_on_the_loop)``（按父节点顺序 / in parent order）

    例子 / Example::

        validate([TranscriptEntry("a", None), TranscriptEntry("b", "a")])   # -> None
        validate([TranscriptEntry("a", "b"), TranscriptEntry("b", "a")])    # ParentCycle

    ``entries`` 可能是只能读一遍的迭代器；一百万个条目也要在线性时间内完成。
    ``entries`` may be an iterator you can read only once; a million entries must take
    linear time.
    """
    raise NotImplementedError(
        "练习 validate 还没有完成 / exercise validate is not implemented yet: "
        "write validate in workspace/ch02_parent_pointers.py")
