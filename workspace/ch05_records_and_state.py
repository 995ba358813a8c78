"""第 05 章练习：记录类型与状态 / Chapter 05 exercises: record types and state.

笔记本 notebooks/zh/05-record-types-and-state.ipynb 按职责把记录分成三组：
元数据（``session`` 头、``session_info``、``label``）、
对话内容（``message``、``compaction``、``branch_summary``、``custom_message``）和
操作（``model_change``、``thinking_level_change``、``custom``）。
操作也是树上的节点，所以回退到任何一点，当时的模型和思考级别就跟着回来了；
标签则按文件顺序全局生效。

The chapter 05 notebook (notebooks/en/05-record-types-and-state.ipynb) sorts the records by
responsibility: metadata (the ``session`` header, ``session_info``, ``label``), conversation
content (``message``, ``compaction``, ``branch_summary``, ``custom_message``) and operations
(``model_change``, ``thinking_level_change``, ``custom``). Operations are tree nodes too, so rewinding to any
point brings back the model and thinking level in force there; labels, by contrast, count in
file order, globally.

条目在这里是解析好的 JSON 字典（文件里的一行）/ Entries here are parsed JSON dicts
(one line of the file each).

检查 / check:  make verify EX=state-at    make verify EX=resolve-labels
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping


def state_at(path_entries: Iterable[Mapping[str, Any]]) -> tuple[dict | None, str]:
    """分支末端生效的 ``(model, thinking_level)``。``path_entries`` 是从根到某个节点的分支。
    The ``(model, thinking_level)`` in force at the end of a branch; ``path_entries`` is the
    branch from the root to some node.

    * ``model``: ``{"provider": ..., "modelId": ...}``，没有任何信息时是 ``None``
      / ``None`` when nothing says which model;
    * ``thinking_level``: 默认 ``"off"`` / ``"off"`` by default.

    “最后说了算”/ whatever came last wins: ``model_change``（``provider``, ``modelId``）、
    ``thinking_level_change``（``thinkingLevel``），还有助手消息（``message.provider``,
    ``message.model``）/ and assistant messages.

    例子 / Example::

        state_at([{"type": "model_change", "provider": "acme", "modelId": "alpha", ...},
                  {"type": "thinking_level_change", "thinkingLevel": "high", ...}])
        ->  ({"provider": "acme", "modelId": "alpha"}, "high")
    """
    raise NotImplementedError(
        "练习 state-at 还没有完成 / exercise state-at is not implemented yet: "
        "write state_at in workspace/ch05_records_and_state.py")


def resolve_labels(entries: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """现在每个条目的标签：``{targetId: label}``。
    The label each entry has now: ``{targetId: label}``.

    按文件顺序读 ``type == "label"`` 的条目，后面的覆盖前面的；``label`` 为空串或根本没有
    这个键，表示清除该目标的标签。
    Read the entries with ``type == "label"`` in file order; a later one overrides an earlier
    one; an empty ``label``, or no ``label`` key at all, clears that target's label.

    例子 / Example::

        resolve_labels([{"type": "label", "targetId": "u1", "label": "start", ...},
                        {"type": "label", "targetId": "u2", "label": "fix", ...},
                        {"type": "label", "targetId": "u1", ...}])
        ->  {"u2": "fix"}
    """
    raise NotImplementedError(
        "练习 resolve-labels 还没有完成 / exercise resolve-labels is not implemented yet: "
        "write resolve_labels in workspace/ch05_records_and_state.py")
