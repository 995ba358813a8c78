"""第 06 章练习：上下文不等于分支 / Chapter 06 exercise: the context is not the branch.

笔记本 notebooks/zh/06-context-vs-branch.ipynb 讲了“存了什么”和“模型看到什么”的区别：
当前分支（``getBranch``）是从根到叶的全部条目，而上下文（``buildSessionContext``）要
经过规则：压缩（``compaction``）用摘要替换 ``firstKeptEntryId`` 之前的一切；
``branch_summary`` 带回被放弃的分支学到的东西；``custom_message`` 进入上下文，
``custom`` 只是存档。

The chapter 06 notebook (notebooks/en/06-context-vs-branch.ipynb) separates what is stored
from what the model sees: the current branch (``getBranch``) is every entry from root to
leaf, while the context (``buildSessionContext``) applies rules: a ``compaction`` replaces
everything before ``firstKeptEntryId`` with its summary; a ``branch_summary`` carries back
what an abandoned branch learned; a ``custom_message`` enters the context, a ``custom``
entry is archive only.

检查 / check:  make verify EX=build-context
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping


def build_context_messages(path_entries: Iterable[Mapping[str, Any]]) -> list[dict]:
    """按 Pi v0.84.2 的规则，从分支（根到叶）构造模型看到的消息列表；每条消息加上 ``entryId``。
    Build the messages the model sees from a branch (root to leaf), with Pi v0.84.2's rules;
    every message gets an ``entryId``: the id of the entry it came from.

    每个条目产生什么 / what each entry contributes:

    * ``message``: 它的 ``message``，原样（``content`` 为 null 或缺失时修成 ``[]``）
      / its ``message`` unchanged (a null or missing ``content`` becomes ``[]``);
    * ``custom_message``: ``{"role": "custom", "customType", "content", "display",
      "details"（有才加 / if present）, "timestamp": 毫秒 / epoch ms}``;
    * ``branch_summary``（``summary`` 非空 / non-empty）: ``{"role": "branchSummary",
      "summary", "fromId", "timestamp": ms}``;
    * 其他条目不产生消息 / anything else: nothing.

    压缩 / compaction: 只看分支上 **最后一个** ``compaction``。上下文先是它的
    ``{"role": "compactionSummary", "summary", "tokensBefore", "timestamp": ms}``，然后是
    从 ``firstKeptEntryId`` 开始、到这个压缩之前的条目（``firstKeptEntryId`` 不在分支上就
    一个都不留；这段里更早的压缩也变成一条 compactionSummary），再是压缩之后的条目。
    Only the **last** compaction on the branch counts. The context starts with its
    compactionSummary, then the entries from ``firstKeptEntryId`` up to that compaction
    (none if ``firstKeptEntryId`` is not on the branch; an older compaction in that range
    becomes a compactionSummary too), then the entries after it.

    时间戳换算 / timestamps: ``"2026-03-01T10:00:05.250Z"`` -> ``1772359205250``.
    不要修改输入：先复制消息再加 ``entryId`` / never change the input: copy a message
    before adding ``entryId``.

    例子 / Example: ``u1, a1, u2, a2, compaction(firstKeptEntryId="u2"), u3`` ->
    ``compactionSummary, u2, a2, u3`` (roles shown by entry).
    """
    raise NotImplementedError(
        "练习 build-context 还没有完成 / exercise build-context is not implemented yet: "
        "write build_context_messages in workspace/ch06_context.py")
