"""What the model sees is not what is stored: from a branch to the LLM context.

``Session.branch()`` gives every entry from the root to the leaf. The model never sees that
list as it is. Pi turns it into messages with ``buildSessionContext`` (pi-session-format.md,
section 8), and this module is that function, following v0.84.2:

* settings entries (``model_change``, ``thinking_level_change``) and the provider/model of
  every assistant message decide which model and thinking level are *in force*, read from the
  **whole** branch, even the part a compaction hid;
* the **latest** ``compaction`` on the branch replaces everything before its
  ``firstKeptEntryId`` with one ``compactionSummary`` message. An older compaction that lies
  inside the kept range is emitted as a second ``compactionSummary`` at its own position
  (the >= v0.80.4 rule; v0.58.3 silently dropped it);
* ``branch_summary`` becomes a ``branchSummary`` message, ``custom_message`` a ``custom``
  message; ``custom``, ``label``, ``session_info``, settings and unknown entries produce
  nothing. That is the whole difference between ``sendMessage`` (in the context) and
  ``appendEntry`` (archive only);
* a message whose ``content`` is null or missing is repaired to ``[]`` (>= v0.80.4, #6343).

Every message we return carries one extra key, ``"entryId"``: the id of the entry it came from
(the leading compaction summary gets the latest compaction's id). Pi does not add it; the
course does, so a drawing can point from each message back to its node in the tree.

The input is never modified: messages are copies.

``build_context_messages`` (chapter 06) and ``state_at`` (chapter 05) are also exercises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable, Mapping

# The exact wrapper text Pi puts around summaries before they reach the model
# (packages/coding-agent/src/core/messages.ts). Byte for byte: a provider sees these.
COMPACTION_SUMMARY_PREFIX = ("The conversation history before this point was compacted into "
                             "the following summary:\n\n<summary>\n")
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = ("The following is a summary of a branch that this conversation came "
                         "back from:\n\n<summary>\n")
BRANCH_SUMMARY_SUFFIX = "</summary>"

DEFAULT_THINKING_LEVEL = "off"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

# Roles whose null or missing ``content`` Pi repairs to an empty list (>= v0.80.4).
_CONTENT_REPAIRED_ROLES = ("user", "assistant", "toolResult")


@dataclass
class SessionContext:
    """What ``buildSessionContext`` returns: the messages plus the settings in force."""

    messages: list[dict] = field(default_factory=list)
    model: dict | None = None
    thinking_level: str = DEFAULT_THINKING_LEVEL


def iso_to_ms(timestamp: Any) -> int | None:
    """Epoch milliseconds of an ISO-8601 entry timestamp, like JavaScript's ``Date.parse``.

    Synthesized messages (summaries, custom messages) carry a number, not the entry's string.
    A timestamp without a zone is read as UTC; an unreadable one gives ``None`` (JavaScript
    would give ``NaN``, which JSON writes as ``null``).
    """
    if not isinstance(timestamp, str):
        return None
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return (moment - _EPOCH) // timedelta(milliseconds=1)  # exact integers, no float rounding


def state_at(path_entries: Iterable[Mapping[str, Any]]) -> tuple[dict | None, str]:
    """The (model, thinking level) in force at the end of a root-first branch.

    Settings are tree nodes, so rewinding to any entry restores the settings that were in
    force there: just read the branch up to that entry. The **last** word wins, and an
    assistant message counts as a word about the model (it says which model answered).
    No information at all means ``(None, "off")``.
    """
    model: dict | None = None
    thinking_level: Any = DEFAULT_THINKING_LEVEL
    for entry in path_entries:
        kind = entry.get("type")
        if kind == "thinking_level_change":
            thinking_level = entry.get("thinkingLevel")
        elif kind == "model_change":
            model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
        elif kind == "message":
            message = entry.get("message")
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                model = {"provider": message.get("provider"), "modelId": message.get("model")}
    return model, thinking_level


def entry_to_messages(entry: Mapping[str, Any]) -> list[dict]:
    """The context message(s) one entry contributes, each tagged with ``entryId``.

    Zero or one message for every type; a list keeps the caller's loop simple. A compaction
    reaching this function is an *older* compaction inside the kept range (>= v0.80.4).
    """
    kind = entry.get("type")
    entry_id = entry.get("id")
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, Mapping):
            return []  # nothing a model could read; Pi would crash later, we skip it
        copied = dict(message)
        if copied.get("role") in _CONTENT_REPAIRED_ROLES and copied.get("content") is None:
            copied["content"] = []
        copied["entryId"] = entry_id
        return [copied]
    if kind == "custom_message":
        custom = {"role": "custom", "customType": entry.get("customType"),
                  "content": entry.get("content") if entry.get("content") is not None else [],
                  "display": entry.get("display")}
        if "details" in entry:
            custom["details"] = entry["details"]
        custom["timestamp"] = iso_to_ms(entry.get("timestamp"))
        custom["entryId"] = entry_id
        return [custom]
    if kind == "branch_summary":
        if not entry.get("summary"):
            return []  # an empty summary says nothing, so Pi sends nothing
        return [{"role": "branchSummary", "summary": entry.get("summary"),
                 "fromId": entry.get("fromId"), "timestamp": iso_to_ms(entry.get("timestamp")),
                 "entryId": entry_id}]
    if kind == "compaction":
        return [compaction_summary_message(entry)]
    return []  # custom, label, session_info, settings, unknown types: never sent


def compaction_summary_message(compaction: Mapping[str, Any]) -> dict:
    """The ``compactionSummary`` message that stands in for everything a compaction hid."""
    return {"role": "compactionSummary", "summary": compaction.get("summary"),
            "tokensBefore": compaction.get("tokensBefore"),
            "timestamp": iso_to_ms(compaction.get("timestamp")),
            "entryId": compaction.get("id")}


def build_session_context(path_entries: Iterable[Mapping[str, Any]], *,
                          retained_tail: bool = False) -> SessionContext:
    """Pi's ``buildSessionContext`` on a root-first branch (v0.84.2 rules, section 8).

    Without a compaction every entry is emitted in order. With one, the context is: the
    latest compaction's summary, then the entries from ``firstKeptEntryId`` up to that
    compaction (none if the id is missing or not on this branch), then everything after it.

    ``retained_tail=True`` opts in to the forward-looking rule of section 15: when the latest
    compaction carries a ``retainedTail`` list, those messages replace the kept range and
    ``firstKeptEntryId`` is ignored. Pi's coding agent (v0.84.2) does not do this yet, so it
    is off by default.
    """
    path = list(path_entries)
    model, thinking_level = state_at(path)

    compaction_index = None
    for index, entry in enumerate(path):
        if entry.get("type") == "compaction":
            compaction_index = index  # the last compaction on the branch wins

    messages: list[dict] = []
    if compaction_index is None:
        for entry in path:
            messages.extend(entry_to_messages(entry))
        return SessionContext(messages, model, thinking_level)

    compaction = path[compaction_index]
    messages.append(compaction_summary_message(compaction))
    tail = compaction.get("retainedTail")
    if retained_tail and isinstance(tail, list):
        for message in tail:
            if isinstance(message, Mapping):
                messages.append({**message, "entryId": compaction.get("id")})
    else:
        first_kept = compaction.get("firstKeptEntryId")
        kept = False
        for entry in path[:compaction_index]:
            if entry.get("id") == first_kept:
                kept = True
            if kept:
                messages.extend(entry_to_messages(entry))
    for entry in path[compaction_index + 1:]:
        messages.extend(entry_to_messages(entry))
    return SessionContext(messages, model, thinking_level)


def build_context_messages(path_entries: Iterable[Mapping[str, Any]]) -> list[dict]:
    """Only the messages of ``build_session_context`` (chapter 06's exercise)."""
    return build_session_context(path_entries).messages


# --------------------------------------------------------------------------------------
# convertToLlm: from agent messages to what a provider receives (section 8.1)
# --------------------------------------------------------------------------------------

def bash_execution_text(message: Mapping[str, Any]) -> str:
    """The text a ``!cmd`` run becomes for the model (Pi's ``bashExecutionToText``)."""
    text = f"Ran `{message.get('command')}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif exit_code is not None and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message.get('fullOutputPath')}]"
    return text


def _user_text(text: str, source: Mapping[str, Any]) -> dict:
    """A user message with one text block, keeping the source's timestamp and entryId."""
    converted = {"role": "user", "content": [{"type": "text", "text": text}],
                 "timestamp": source.get("timestamp")}
    if "entryId" in source:
        converted["entryId"] = source["entryId"]
    return converted


def convert_to_llm(messages: Iterable[Mapping[str, Any]]) -> list[dict]:
    """Pi's ``convertToLlm``: the course's roles become plain ``user`` messages.

    ``user``, ``assistant`` and ``toolResult`` pass through (as copies). ``bashExecution``
    becomes user text unless ``excludeFromContext`` (a ``!!cmd``) drops it; ``custom``
    becomes a user message; the two summaries are wrapped in the constants above. Unknown
    roles are dropped. ``entryId`` is kept so each provider message can still be traced.
    """
    converted: list[dict] = []
    for message in messages:
        role = message.get("role")
        if role in ("user", "assistant", "toolResult"):
            converted.append(dict(message))
        elif role == "bashExecution":
            if not message.get("excludeFromContext"):
                converted.append(_user_text(bash_execution_text(message), message))
        elif role == "custom":
            content = message.get("content")
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            custom = {"role": "user", "content": content, "timestamp": message.get("timestamp")}
            if "entryId" in message:
                custom["entryId"] = message["entryId"]
            converted.append(custom)
        elif role == "branchSummary":
            text = BRANCH_SUMMARY_PREFIX + str(message.get("summary")) + BRANCH_SUMMARY_SUFFIX
            converted.append(_user_text(text, message))
        elif role == "compactionSummary":
            text = (COMPACTION_SUMMARY_PREFIX + str(message.get("summary"))
                    + COMPACTION_SUMMARY_SUFFIX)
            converted.append(_user_text(text, message))
    return converted
