"""What an entry says, as plain text: one rule for every place that shows it.

A message's ``content`` is either a string or a list of blocks (text, thinking, tool
calls, images). The command line, the story lab, the playground and the inspector all show
"the text" of an entry, and they must agree, so the rule lives here once:

* text blocks give their text, joined with spaces;
* a tool call shows as ``[name(…)]``, so a turn that only runs a tool is not blank;
* thinking and image blocks are left out (they are not what was said);
* an assistant message with nothing to read shows its error message, or what stopped it
  (``[aborted]``), as Pi's ``/tree`` does;
* an entry that is not a message shows the one field that matters (the summary, the
  model, the level, the label, a context edit's target and what it sends now, ...), and
  an unknown type shows its type.

Standard library only: the inspector, a core model, uses it too.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from learn_pi_lab.session_tree import TranscriptEntry

SHORT_TEXT_LIMIT = 72


def value_text(value: Any, missing: str = "?") -> str:
    """A field's value in JSON's words: a string as it is, nothing (``None``) as
    ``missing``, anything else as JSON writes it (``true``, ``[1,2]``, ``{"a":1}``; a number
    as its value, ``1E5`` as ``100000.0``); never Python's spelling (``True``,
    ``{'a': 1}``, ``None``), which no file holds."""
    if isinstance(value, str):
        return value
    if value is None:
        return missing
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def content_text(content: Any) -> str:
    """The readable text of a message's ``content`` (a string, or a list of blocks)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        if isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif block.get("type") == "toolCall":
            parts.append(f"[{value_text(block.get('name'))}(…)]")
    return " ".join(parts)


def message_text(message: Mapping[str, Any]) -> str:
    """The text of one message: its content; a summary message's summary; a shell command
    run with ``!`` (``bashExecution``, which has no content) as ``$ command``."""
    role = message.get("role")
    if role in ("compactionSummary", "branchSummary"):
        return value_text(message.get("summary"), "")
    if role == "bashExecution":
        return f"$ {value_text(message.get('command'))}"
    text = content_text(message.get("content"))
    if text or role != "assistant":
        return text
    # an answer with nothing to read: what ended it, as Pi's /tree shows it
    error, stop = message.get("errorMessage"), message.get("stopReason")
    if isinstance(error, str) and error and stop != "aborted":
        return error
    return f"[{stop}]" if isinstance(stop, str) and stop not in ("stop", "toolUse") else ""


def entry_text(entry: Mapping[str, Any]) -> str:
    """The text of one entry (a JSON object of the file), without its role or type."""
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        return message_text(message) if isinstance(message, Mapping) else ""
    if kind in ("branch_summary", "compaction"):
        return value_text(entry.get("summary"), "")
    if kind == "model_change":
        return f"{value_text(entry.get('provider'))}/{value_text(entry.get('modelId'))}"
    if kind == "thinking_level_change":
        return value_text(entry.get("thinkingLevel"))
    if kind == "custom_message":
        return f"{value_text(entry.get('customType'))}: {content_text(entry.get('content'))}"
    if kind == "custom":
        return value_text(entry.get("customType"))
    if kind == "label":
        return f"{value_text(entry.get('targetId'))} = {value_text(entry.get('label'), '')}"
    if kind == "context_edit":   # what the target sends from here on: nothing, or new content
        replacement = entry.get("replacement")
        sent = content_text(replacement.get("content")) if isinstance(replacement, Mapping) \
            else "null" if replacement is None else ""
        return f"{value_text(entry.get('targetId'))} = {sent}"
    if kind == "session_info":
        return value_text(entry.get("name"), "")
    return value_text(kind)


def one_line(text: str, limit: int = SHORT_TEXT_LIMIT) -> str:
    """``text`` on one line (every run of white space becomes one space), cut to ``limit``
    characters with a final ``…`` when it is longer."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def short_text(entry: TranscriptEntry) -> str:
    """One line that says what a ``TranscriptEntry`` is about: ``user: Refactor …``.

    A message shows its role and text; another entry shows its ``entry_text``; a small
    hand-written entry (no payload) shows its ``text``.
    """
    if not entry.payload and entry.text:
        return one_line(entry.text)
    obj = {**entry.payload, "type": entry.kind}
    message = obj.get("message")
    if entry.kind == "message" and isinstance(message, Mapping):
        return one_line(f"{value_text(message.get('role'))}: {message_text(message)}")
    return one_line(entry_text(obj))
