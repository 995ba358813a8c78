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

from learn_pi_lab.session_inspector import inspect_session_as


def inspect_session(path: str | os.PathLike) -> dict[str, Any]:
    """读一个会话文件（只读），返回一份报告字典，至少包含这些键：
    Read one session file (read-only) and return a report dict with at least these keys:

    * ``version`` (int，缺失时为 1 / 1 when absent), ``session_id``, ``cwd``,
      ``parent_session`` (或 / or ``None``)
    * ``entries``: 头部之外的条目数 / number of entries besides the header
    * ``by_type``: ``{type: count}``；``by_role``: ``{role: count}``（只数 message 条目 /
      message entries only）
    * ``compactions``, ``branch_summaries``: 数量 / counts
    * ``labels``: 解析后的标签 / resolved labels ``{targetId: label}``
    * ``name``: 会话名（最新的 ``session_info``）或 ``None`` / the session name or ``None``
    * ``roots``: 根的 id 列表 / root ids; ``leaves``: 叶子的 id，按文件顺序 / leaf ids in
      file order
    * ``max_depth``: 最深的条目深度（根的深度是 0）/ the deepest entry's depth (a root is 0)
    * ``models``: 排好序的 ``"provider/modelId"`` 列表 / a sorted list
    * ``diagnostics``: ``[[line, code], ...]``（和第 04 章一样 / as in chapter 04)

    包里现成可用 / ready to use from the package: ``learn_pi_lab.pi.session.load_session``
    （读文件，含 .xz，迁移旧版本，给出诊断 / reads a file, .xz too, migrates old versions,
    finds the diagnostics）and ``learn_pi_lab.pi.session.resolve_labels``.
    根、叶子、深度要自己从 ``parentId`` 算；父节点可能出现在孩子后面。
    Roots, leaves and depth are yours to derive from ``parentId``; a parent may come after
    its child in the file.

    例子 / Example: ``model_change m`` -> ``user u1`` -> ``assistant a1`` 的文件 / a file::

        report = inspect_session("session.jsonl")
        report["by_type"]    ->  {"model_change": 1, "message": 2}
        report["roots"], report["leaves"], report["max_depth"]   ->  ["m"], ["a1"], 2
    """
    return inspect_session_as(path, "0.84.2")
