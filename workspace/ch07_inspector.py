"""第 07 章练习：读真实的会话 / Chapter 07 exercise: real sessions.

笔记本 notebooks/zh/07-real-sessions.ipynb 用检查器读公开的 Pi 会话文件（v1、v2、v3），
也可以读你自己 ``~/.pi/agent/sessions/`` 里的文件。检查器只读不写：活着的会话文件绝不能
被改写。

The chapter 07 notebook (notebooks/en/07-real-sessions.ipynb) points an inspector at public
Pi session files (v1, v2, v3), and at your own files under ``~/.pi/agent/sessions/`` if you
like. An inspector reads and never writes: a live session file must never be rewritten.

检查 / check:  make verify EX=inspect-session
"""

from __future__ import annotations

import os
from typing import Any


def inspect_session(path: str | os.PathLike) -> dict[str, Any]:
    """读一个会话文件（只读），返回一份报告字典，至少包含这些键：
    Read one session file (read-only) and return a report dict with at least these keys:

    * ``version`` (int，缺失时为 1 / 1 when absent), ``session_id``, ``cwd``,
      ``parent_session`` (或 / or ``None``)
    * ``entries``: 头部之外的条目数（去重之后）/ number of entries besides the header
      (after de-duplication)
    * ``by_type``: ``{type: count}``；``by_role``: ``{role: count}``（只数 message 条目 /
      message entries only）
    * ``compactions``, ``branch_summaries``: 数量 / counts
    * ``labels``: 解析后的标签 / resolved labels ``{targetId: label}``
    * ``name``: 最新的 ``session_info`` 里的名字，去掉首尾空白；最新的名字为空就清除名字，
      得 ``None``；没有名字也是 ``None`` / the latest ``session_info``'s name with the white
      space around it removed; an empty latest name clears it (``None``), as does no name
    * ``roots``: 根的 id，按文件顺序：父节点是 null 或不在文件里的条目（孤儿也算根，和 Pi
      的树一样）/ root ids in file order: entries whose parent is null or not in the file
      (an orphan is a root, as in Pi's tree)
    * ``leaves``: 叶子（没有孩子的条目）的 id，按文件顺序 / leaf ids (entries without
      children) in file order
    * ``max_depth``: 最深条目的祖先个数（根是 0）/ the number of ancestors of the deepest
      entry (a root is 0)。父指针绕成环时不能卡死：环里文件中最靠前的条目算作根，整个环报告
      为该条目那一行的一条 ``cycle`` 诊断；把自己当父节点的条目是只有一个条目的环，它也算作根
      （诊断是 ``self-parent``）/ a parent loop must not hang the walk: the loop's first entry
      in the file counts as a root, and the loop is one ``cycle`` diagnostic on that entry's
      line; an entry that is its own parent is a loop of one and a root too (diagnostic
      ``self-parent``)
    * ``models``: 排好序的 ``"provider/modelId"`` 列表 / a sorted list
    * ``diagnostics``: ``[[line, code], ...]``（和第 04 章一样 / as in chapter 04)

    包里现成可用 / ready to use from the package: ``learn_pi_lab.pi.session.load_session``
    （读文件，含 .xz，迁移旧版本，给出诊断 / reads a file, .xz too, migrates old versions,
    finds the diagnostics）and ``learn_pi_lab.pi.session.resolve_labels``.
    ``version`` 是文件自己的版本（迁移之前）：``load_session`` 的会话头已经迁移成 v3，请用
    ``session.file.source_version``。
    ``version`` is the file's own version, before migration: ``load_session``'s header is
    already migrated to v3, so use ``session.file.source_version``.
    根、叶子、深度要自己从 ``parentId`` 算；父节点可能出现在孩子后面。
    Roots, leaves and depth are yours to derive from ``parentId``; a parent may come after
    its child in the file.

    例子 / Example: ``model_change m`` -> ``user u1`` -> ``assistant a1`` 的文件 / a file::

        report = inspect_session("session.jsonl")
        report["by_type"]    ->  {"model_change": 1, "message": 2}
        report["roots"], report["leaves"], report["max_depth"]   ->  ["m"], ["a1"], 2
    """
    raise NotImplementedError(
        "练习 inspect-session 还没有完成 / exercise inspect-session is not implemented yet: "
        "write inspect_session in workspace/ch07_inspector.py")
