"""第 03 章练习：回退与分支 / Chapter 03 exercises: rewind and branch.

笔记本 notebooks/zh/03-rewind-and-branch.ipynb 讲了：回退就是移动 leaf（叶子指针），
什么都不删；分支就是“回退 + 追加”，不是一个单独的功能。Pi 的三个命令都建立在这上面：
``/tree`` 在原文件里移动叶子，``/fork`` 和 ``/clone`` 把一条路径复制到一个新文件
（头部写上 ``parentSession``）。

The chapter 03 notebook (notebooks/en/03-rewind-and-branch.ipynb) shows that rewinding moves
the leaf and deletes nothing, and that a branch is rewind + append, not a feature of its
own. Pi's three commands build on that: ``/tree`` moves the leaf inside the same file;
``/fork`` and ``/clone`` copy one path into a new file whose header names the source in
``parentSession``.

这里用的树是 ``learn_pi_lab.session_tree.TranscriptTree``：它是不可变的，``move_leaf`` 和
``append`` 都返回新树。用户消息是 ``kind == "message"`` 且
``entry.payload["message"]["role"] == "user"`` 的条目。
The tree is ``learn_pi_lab.session_tree.TranscriptTree``: immutable; ``move_leaf`` and
``append`` return a new tree. A user message is an entry with ``kind == "message"`` and
``entry.payload["message"]["role"] == "user"``.

检查 / check:  make verify EX=branch-from   EX=navigate-target   EX=fork-path
"""

from __future__ import annotations

from typing import Any, Mapping

from learn_pi_lab.session_tree import (  # noqa: F401  (what your code works with and raises)
    TranscriptEntry,
    TranscriptTree,
    UnknownTranscriptEntry,
)
from learn_pi_lab.pi.navigation import fork_leaf, is_user_message


def branch_from(tree: TranscriptTree, entry_id: str, new_id: str, kind: str = "message",
                payload: Mapping[str, Any] | None = None) -> TranscriptTree:
    """从较早的条目 ``entry_id`` 继续对话：返回一棵新树，新条目 ``new_id`` 挂在它下面并成为叶子。
    Continue from the earlier entry ``entry_id``: return a new tree in which ``new_id`` hangs
    under it and is the new leaf.

    例子 / Example: ``m -> u1 -> a1 -> u2 -> a2``（叶子 / leaf ``a2``）::

        branch_from(tree, "a1", "u2b")   # a1 now has two children: u2 and u2b; leaf u2b

    旧树不变，什么都不删；未知的 ``entry_id`` 抛 ``UnknownTranscriptEntry``，
    重复的 ``new_id`` 抛 ``ValueError``（``DuplicateEntryId`` 就是）。
    The old tree is unchanged and nothing is deleted; an unknown ``entry_id`` raises
    ``UnknownTranscriptEntry``; a ``new_id`` already in the tree raises a ``ValueError``
    (``DuplicateEntryId`` is one).
    """
    return tree.move_leaf(entry_id).append(new_id, kind, payload)


def navigate_target(tree: TranscriptTree, target_id: str) -> str | None:
    """在 ``/tree`` 里选中 ``target_id`` 之后，叶子落在哪里？返回新叶子的 id。
    Where does the leaf go when you pick ``target_id`` in ``/tree``? Return the new leaf id.

    * 用户消息或 ``custom_message``：它的文字回到编辑器让你重新发送，所以叶子落在它的
      **父节点**（根上的则是 ``None``：下一次追加会开始一个新根）。
      A user message or a ``custom_message``: its text goes back to the editor to be sent
      again, so the leaf goes to its **parent** (``None`` for a root: the next append starts
      a new root).
    * 其他任何条目：叶子就是它自己 / any other entry: the target itself.
    * 未知 id / unknown id: ``UnknownTranscriptEntry``.

    例子 / Example: ``m -> u1 -> a1 -> u2 -> a2``::

        navigate_target(tree, "u2")  ->  "a1"
        navigate_target(tree, "a1")  ->  "a1"
    """
    entry = tree[target_id]
    return entry.parent_id if is_user_message(entry) or entry.kind == "custom_message" else entry.id


def fork_path(tree: TranscriptTree, entry_id: str,
              position: str = "before") -> tuple[TranscriptEntry, ...]:
    """``/fork`` 会把哪一段从根开始的路径复制到新文件？
    Which root-first path does ``/fork`` copy into the new file?

    * ``position="before"``（默认 / the default）：``entry_id`` 必须是用户消息，复制到它的
      父节点为止（用户会重新提交这条消息）；根上的用户消息 -> ``()``；不是用户消息 ->
      ``ValueError``。
      ``entry_id`` must be a user message; copy up to its parent (the user re-submits the
      message); a root user message -> ``()``; not a user message -> ``ValueError``.
    * ``position="at"``：任何条目都行，复制到它自己（含）/ any entry; copy up to and
      including it.
    * 其他 position -> ``ValueError`` / any other position -> ``ValueError``.

    例子 / Example: ``m -> u1 -> a1 -> u2 -> a2``::

        fork_path(tree, "u2")          ->  (m, u1, a1)
        fork_path(tree, "u2", "at")    ->  (m, u1, a1, u2)
    """
    entry = tree[entry_id]
    try:
        leaf = fork_leaf(entry, position)
    except ValueError as error:   # the package's error class does not cross the wire as one
        raise ValueError(str(error)) from None
    return () if leaf is None else tree.path_to(leaf)
