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

Pi 1.x 又加了一条规则：``context_edit`` 条目可以省略或替换较早消息的内容（第二个练习）。
Pi 1.x adds one more rule: a ``context_edit`` entry omits or replaces what an earlier message
sends (the second exercise).

检查 / check:  make verify EX=build-context   make verify EX=apply-edits
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
      "details", "timestamp": 毫秒 / epoch ms}``；``details`` 只在条目有这个键时才加，
      原样照抄（``null`` 和 ``{}`` 也一样）/ ``details`` only when the entry has that key,
      copied as is (``null`` and ``{}`` included);
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


def apply_context_edits(path_entries: Iterable[Mapping[str, Any]],
                        messages: Iterable[Mapping[str, Any]]) -> list[dict]:
    """按 Pi 1.6.0 的规则，把分支上的 ``context_edit`` 应用到消息上。
    Apply the branch's ``context_edit`` entries to the messages, with Pi 1.6.0's rules.

    ``messages`` 的每条消息都带 ``entryId``（就是 ``build_context_messages`` 返回的那样）。
    Every message in ``messages`` carries ``entryId`` (as ``build_context_messages`` returns).

    ``context_edit`` 条目 / entry: ``{"type": "context_edit", "targetId": ID,
    "replacement": null | {"content": ...}}``

    * 每个目标只看分支上 **最后一个** 编辑 / for each target only the **latest** edit in
      ``path_entries`` counts;
    * ``replacement`` 为 ``None``：去掉 ``entryId`` 等于目标的所有消息
      / ``None``: drop every message whose ``entryId`` is the target;
    * ``{"content": c}``：只换掉 ``user``、``assistant``、``toolResult``、``custom`` 消息的
      ``content``，其他键不变；``c`` 是字符串、而角色是 ``assistant`` 或 ``toolResult`` 时，
      换成 ``[{"type": "text", "text": c}]``；其他角色（如 ``compactionSummary``）原样保留
      / replace only the ``content`` of ``user``, ``assistant``, ``toolResult`` and ``custom``
      messages, keeping every other key; a string ``c`` for ``assistant`` or ``toolResult``
      becomes ``[{"type": "text", "text": c}]``; other roles pass unchanged;
    * 没被编辑的消息原样通过 / messages nobody edited pass unchanged.

    不要修改输入 / never change the input. 例子 / example: messages ``u1, a1, u2`` and an
    edit ``{"targetId": "a1", "replacement": null}`` -> ``u1, u2``.
    """
    raise NotImplementedError(
        "练习 apply-edits 还没有完成 / exercise apply-edits is not implemented yet: "
        "write apply_context_edits in workspace/ch06_context.py")
