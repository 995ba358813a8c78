"""What the model sees is not what is stored: from a branch to the LLM context.

The idea, in 80 lines, is ``learn_pi_lab/lessons/ch06_context.py`` (chapter 06's model
answer): each entry on the branch gives zero or one message; after the latest compaction the
model sees its summary, the entries kept from ``firstKeptEntryId``, and what follows. This
module is the engine: the same rule exact to Pi 0.84.2 and 1.6.0, JavaScript's conversions
included, graded by the same tests. Its entry point is ``build_session_context``; the
details follow.

``Session.branch()`` gives every entry from the root to the leaf. The model never sees that
list as it is. Pi turns it into messages with ``buildSessionContext`` (pi-session-format.md,
section 8), and this module is that function, for two versions of Pi side by side
(``pi_version``): the course's baseline **0.84.2** and **1.6.0**, the Pi learners run today.

Both versions:

* settings entries (``model_change``, ``thinking_level_change``) and the provider/model of
  every assistant message decide which model and thinking level are *in force*, read from the
  **whole** branch, even the part a compaction hid;
* the **latest** ``compaction`` on the branch replaces everything before its
  ``firstKeptEntryId`` with one ``compactionSummary`` message;
* ``branch_summary`` becomes a ``branchSummary`` message, ``custom_message`` a ``custom``
  message; ``custom``, ``label``, ``session_info``, settings and unknown entries produce
  nothing. That is the whole difference between ``sendMessage`` (in the context) and
  ``appendEntry`` (archive only);
* a message whose ``content`` is null or missing is repaired to ``[]`` (>= v0.80.4, #6343).

0.84.2 only: an older compaction that lies inside the newest one's kept range is emitted as a
second ``compactionSummary`` at its own position.

1.6.0 only (section 17, checked against Pi 1.6.0's ``buildSessionProjection``):

* an older compaction inside the kept range says nothing: only the newest speaks;
* a compaction may carry a ``systemMessage`` (the prompt and tools at that moment): it comes
  first, before the summary, and ``system`` messages in the kept range are dropped for it;
* ``context_edit`` (``targetId``, ``replacement``) changes what one earlier entry sends:
  ``null`` omits it, ``{"content": ...}`` replaces only its content (a string becomes one text
  block for assistant and toolResult messages). Only edits that are themselves in the
  context count, and the latest one per target wins, so the edit is *branch-relative*: go
  back before it and the original is sent again. The edited line never changes in the file;
* ``usage`` entries record tokens spent outside a message: never in the context.

Every message we return carries one extra key, ``"entryId"``: the id of the entry it came from
(the leading compaction summary gets the latest compaction's id). Pi does not add it; the
course does, so a drawing can point from each message back to its node in the tree. Pi 1.6.0
has the same idea: its projection returns each message with its source entry.

Keys a stored entry lacks stay absent in the message (JavaScript drops ``undefined`` when it
writes JSON), so ``context --json`` is exactly what Pi's code gives. Where Pi's own code would
throw on a damaged entry, we skip that entry and say so in ``SessionContext.problems``.

The input is never modified: messages are copies, one level deep. A message's ``content``
list is the entry's own (copying every block of a long session would cost more than building
the context), so change a ``copy.deepcopy`` of a message, never the message itself.

``build_context_messages`` (chapter 06) and ``state_at`` (chapter 05) are also exercises.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from learn_pi_lab.collector import collector_paused
from learn_pi_lab.errors import UnknownChoice, check_dicts
from learn_pi_lab.jsonl.ids import iso_to_ms, rfc_2822_to_ms  # iso_to_ms: the drawing too

# The exact wrapper text Pi puts around summaries before they reach the model
# (packages/coding-agent/src/core/messages.ts). Byte for byte: a provider sees these.
COMPACTION_SUMMARY_PREFIX = ("The conversation history before this point was compacted into "
                             "the following summary:\n\n<summary>\n")
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = ("The following is a summary of a branch that this conversation came "
                         "back from:\n\n<summary>\n")
BRANCH_SUMMARY_SUFFIX = "</summary>"

BASELINE_PI_VERSION = "0.84.2"   # the version the course's texts and exercises follow
CURRENT_PI_VERSION = "1.6.0"     # the version learners run today (2026-11-20)
PI_VERSIONS = (BASELINE_PI_VERSION, CURRENT_PI_VERSION)

DEFAULT_THINKING_LEVEL = "off"
_MAX_JS_TIME = 8.64e15  # JavaScript's Date range, in milliseconds either side of 1970

# Roles whose null or missing ``content`` Pi repairs to an empty list (>= v0.80.4).
_CONTENT_REPAIRED_ROLES = ("user", "assistant", "toolResult")
# Roles whose content a context edit may replace (1.6.0); other messages pass unchanged.
EDITABLE_ROLES = ("user", "assistant", "toolResult", "custom")


def check_pi_version(pi_version: str) -> str:
    """The version itself, or ``UnknownChoice`` (a ``ValueError``) naming the ones the course
    knows."""
    if not isinstance(pi_version, str) or pi_version not in PI_VERSIONS:
        raise UnknownChoice("pi_version", pi_version, PI_VERSIONS)
    return pi_version


@dataclass(frozen=True)
class ContextProblem:
    """An entry Pi's own code would crash on (a ``TypeError``); we skip it and say which."""

    entry_id: Any
    code: str       # "message-without-object" | "edit-without-replacement"
    detail: str = ""


@dataclass
class SessionContext:
    """What ``buildSessionContext`` returns: the messages plus the settings in force."""

    messages: list[dict] = field(default_factory=list)
    model: dict | None = None
    thinking_level: str = DEFAULT_THINKING_LEVEL
    problems: list[ContextProblem] = field(default_factory=list)


def js_time(value: Any = None, *, present: bool = True) -> int | float | None:
    """``new Date(value).getTime()`` as JSON writes it (``NaN`` becomes ``None``).

    Pi stamps summaries and custom messages this way. A missing value (``present=False``) is
    ``NaN``; ``null`` is 0; a number is kept (whole milliseconds) when JavaScript's dates can
    hold it; a string is read as ISO-8601 or, failing that, as an RFC 2822 date with a zone
    (``Thu, 01 Jan 2026 00:00:30 GMT``, ``jsonl.ids.rfc_2822_to_ms``). JavaScript's parser
    reads still other texts ("Jan 1 2026", local times): those are ``None`` here
    (docs/limits.md). Pi's ``/tree`` sorts children with the same function
    (``pi.session.Session.children``).
    """
    if not present:
        return None
    if value is None:
        return 0
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        if value != value or abs(value) > _MAX_JS_TIME:
            return None
        whole = int(value)
        return whole if whole or not isinstance(value, float) else 0
    ms = iso_to_ms(value)
    return ms if ms is not None else rfc_2822_to_ms(value)


def js_truthy(value: Any) -> bool:
    """JavaScript's truthiness: empty lists and objects are *true*, 0, "" and null false."""
    if isinstance(value, (list, dict)):
        return True
    return bool(value)


def js_spread(value: Any) -> dict:
    """What JavaScript's ``{...value}`` gives for a JSON value: a copy of an object; an
    array's or a string's items under their indexes ("0", "1", ...); nothing for a number, a
    boolean or null.

    Pi 1.6.0 hands a compaction's ``systemMessage`` on as it is, and its projection tags each
    message with its entry the same way, so this is how a damaged one (``5``, ``"x"``) reaches
    the context: as an object, like every message the course builds. (A string's index counts UTF-16 units in JavaScript; here a character above
    U+FFFF stays one character.)
    """
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, (list, str)):
        return {str(index): item for index, item in enumerate(value)}
    return {}


def _stamp(entry: Mapping[str, Any]) -> int | float | None:
    return js_time(entry.get("timestamp"), present="timestamp" in entry)


def _copy_present(target: dict, source: Mapping[str, Any], keys: Iterable[str]) -> dict:
    """Copy the keys the source has (an absent key stays absent, like ``undefined``)."""
    for key in keys:
        if key in source:
            target[key] = source[key]
    return target


def state_at(path_entries: Iterable[Mapping[str, Any]]) -> tuple[dict | None, str]:
    """The (model, thinking level) in force at the end of a root-first branch.

    Settings are tree nodes, so rewinding to any entry restores the settings that were in
    force there: just read the branch up to that entry. The **last** word wins, and an
    assistant message counts as a word about the model (it says which model answered).
    No information at all means ``(None, "off")``.
    """
    model: dict | None = None
    thinking_level: Any = DEFAULT_THINKING_LEVEL
    for entry in check_dicts(path_entries, "path_entries"):
        kind = entry.get("type")
        if kind == "thinking_level_change":
            thinking_level = entry.get("thinkingLevel")
        elif kind == "model_change":
            model = {"provider": entry.get("provider"), "modelId": entry.get("modelId")}
        elif kind == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant":
                model = {"provider": message.get("provider"), "modelId": message.get("model")}
    return model, thinking_level


def state_at_end(path: list[Mapping[str, Any]], kinds: list[Any]) -> tuple[dict | None, str]:
    """``state_at(path)``, read from the end (a learner can skip this: same answer, faster).

    ``kinds`` is each entry's ``type``, in order. The last word wins, so reading backwards
    the *first* word found decides: the thinking level is found in ``kinds`` (in C), and most
    branches end a few entries after their last assistant message, so a branch of 200,000
    entries is read a handful of entries deep for its model, not all the way.
    ``tests/test_context_fast.py`` checks it against ``state_at``.
    """
    thinking_level: Any = DEFAULT_THINKING_LEVEL
    if "thinking_level_change" in kinds:
        last = len(kinds) - 1 - kinds[::-1].index("thinking_level_change")
        thinking_level = path[last].get("thinkingLevel")
    for entry, kind in zip(reversed(path), reversed(kinds)):
        if kind == "model_change":
            return {"provider": entry.get("provider"), "modelId": entry.get("modelId")}, \
                thinking_level
        if kind == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant":
                return {"provider": message.get("provider"),
                        "modelId": message.get("model")}, thinking_level
    return None, thinking_level


def entry_to_messages(entry: Mapping[str, Any], pi_version: str = BASELINE_PI_VERSION
                      ) -> list[dict]:
    """The context message(s) one entry contributes, each tagged with ``entryId``.

    Zero or one message for most types; a 1.6.0 compaction with a ``systemMessage`` gives
    two (the checkpoint, then the summary). A list keeps the caller's loop simple.
    """
    kind = entry.get("type")
    entry_id = entry.get("id")
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return []  # nothing a model could read (Pi would crash: see ContextProblem)
        return [sent_message(message, entry_id, pi_version)]
    if kind == "custom_message":
        custom = {"role": "custom"}
        _copy_present(custom, entry, ("customType",))
        content = entry.get("content")
        custom["content"] = content if content is not None else []
        _copy_present(custom, entry, ("display", "details"))
        custom["timestamp"] = _stamp(entry)
        custom["entryId"] = entry_id
        return [custom]
    if kind == "branch_summary":
        if not js_truthy(entry.get("summary")):
            return []  # an empty summary says nothing, so Pi sends nothing
        summary = _copy_present({"role": "branchSummary"}, entry, ("summary", "fromId"))
        summary["timestamp"] = _stamp(entry)
        summary["entryId"] = entry_id
        return [summary]
    if kind == "compaction":
        checkpoint = entry.get("systemMessage")
        if pi_version == CURRENT_PI_VERSION and js_truthy(checkpoint):
            leading = js_spread(checkpoint)   # Pi writes an object; a damaged file, anything
            leading["entryId"] = entry_id
            return [leading, compaction_summary_message(entry)]
        return [compaction_summary_message(entry)]
    return []  # custom, label, session_info, settings, usage, context_edit, unknown: never sent


def sent_message(message: Mapping[str, Any], entry_id: Any,
                 pi_version: str = BASELINE_PI_VERSION) -> dict:
    """What a ``message`` entry sends: a copy of its message, tagged with ``entryId``; a
    missing or null ``content`` is repaired as Pi repairs it (an empty list, or for a 1.6.0
    ``system`` message an empty text)."""
    copied = dict(message)
    if copied.get("content") is None:
        role = copied.get("role")
        if role in _CONTENT_REPAIRED_ROLES:
            copied["content"] = []
        elif role == "system" and pi_version == CURRENT_PI_VERSION:
            copied["content"] = ""
    copied["entryId"] = entry_id
    return copied


def compaction_summary_message(compaction: Mapping[str, Any]) -> dict:
    """The ``compactionSummary`` message that stands in for everything a compaction hid."""
    message = _copy_present({"role": "compactionSummary"}, compaction,
                            ("summary", "tokensBefore"))
    message["timestamp"] = _stamp(compaction)
    message["entryId"] = compaction.get("id")
    return message


def apply_context_edit(messages: list[dict], edit: Mapping[str, Any]) -> list[dict]:
    """What one entry sends after its latest ``context_edit`` (Pi 1.6.0's projection).

    ``replacement: null`` omits the entry. Otherwise every editable message (user,
    assistant, toolResult, custom) gets the replacement's ``content``, a string turned into
    one text block for assistant and toolResult; a replacement without content removes the
    key, as JavaScript does. Summaries and system checkpoints are never changed.
    """
    replacement = edit["replacement"]
    if replacement is None:
        return []
    has_content = isinstance(replacement, dict) and "content" in replacement
    content = replacement["content"] if has_content else None
    edited = []
    for message in messages:
        role = message.get("role")
        if role not in EDITABLE_ROLES:
            edited.append(message)
            continue
        changed = dict(message)
        if not has_content:
            changed.pop("content", None)
        elif role in ("assistant", "toolResult") and isinstance(content, str):
            changed["content"] = [{"type": "text", "text": content}]
        else:
            changed["content"] = content
        edited.append(changed)
    return edited


def context_entries(path: list[Mapping[str, Any]], pi_version: str = BASELINE_PI_VERSION,
                    kinds: list[Any] | None = None) -> list[Mapping[str, Any]]:
    """Pi's ``buildContextEntries``: the entries that may speak, newest compaction first.

    Without a compaction: the whole branch. With one: that compaction, then the branch from
    its ``firstKeptEntryId`` up to it (nothing if the id is not on the branch; 1.6.0 also
    leaves out ``system`` messages there), then everything after it. (``kinds``: each
    entry's ``type``, when the caller has them already.)
    """
    if kinds is None:
        kinds = [entry.get("type") for entry in check_dicts(path, "path")]
    if "compaction" not in kinds:
        return list(path)
    return [path[at] for at in context_positions(path, kinds, pi_version)]


def context_positions(path: Sequence[Mapping[str, Any]], kinds: list[Any],
                      pi_version: str = BASELINE_PI_VERSION,
                      id_at: Callable[[int], Any] | None = None,
                      is_system: Callable[[int], bool] | None = None) -> list[int]:
    """``context_entries`` as positions in ``path`` (the engine under it: a learner can skip
    this). It reads an entry only where the rule needs one (the latest compaction, and the
    ids up to it: ``id_at(at)`` when the caller knows them without reading the entry), so a
    branch whose entries are decoded on demand (``jsonl.index.IndexedBranch``) is not read
    whole. ``is_system(at)``: whether entry ``at`` is a ``system`` message (default: read
    from the entry)."""
    if "compaction" not in kinds:
        return list(range(len(kinds)))
    compaction_index = len(kinds) - 1 - kinds[::-1].index("compaction")   # the last one wins
    first_kept = path[compaction_index].get("firstKeptEntryId")
    drop_system = pi_version == CURRENT_PI_VERSION
    if is_system is None:
        def is_system(at: int) -> bool:
            return _is_system_message(path[at])
    selected = [compaction_index]
    kept = False
    for at in range(compaction_index):
        if not kept and (id_at(at) if id_at is not None else path[at].get("id")) == first_kept:
            kept = True
        if kept and not (drop_system and is_system(at)):
            selected.append(at)
    selected.extend(range(compaction_index + 1, len(kinds)))
    return selected


def context_messages(path: Sequence[Mapping[str, Any]], positions: list[int],
                     kinds: list[Any], pi_version: str = BASELINE_PI_VERSION
                     ) -> Iterator[dict]:
    """The messages of the entries at ``positions`` (``context_positions``), one entry at a
    time: the 1.6.0 rules (only the newest compaction speaks; the latest ``context_edit``
    per target) applied as they come. An edit without a ``replacement`` changes nothing
    (``build_session_context`` reports it)."""
    current = pi_version == CURRENT_PI_VERSION
    edits = latest_edits(path[at] for at in positions if kinds[at] == "context_edit") \
        if current and "context_edit" in kinds else {}
    for order, at in enumerate(positions):
        entry, kind = path[at], kinds[at]
        if kind == "message" and not edits:   # most entries: entry_to_messages, made short
            message = entry.get("message")
            if isinstance(message, dict):
                yield sent_message(message, entry.get("id"), pi_version)
            continue
        if current and order > 0 and kind == "compaction":
            continue  # 1.6.0: only the newest compaction speaks
        for message in entry_to_messages(entry, pi_version):
            entry_id = message.get("entryId")   # pi mode keeps ids that are not strings
            edit = edits.get(entry_id) if edits and isinstance(entry_id, str) else None
            if edit is None or "replacement" not in edit:
                yield message
            else:
                yield from apply_context_edit([message], edit)


def _is_system_message(entry: Mapping[str, Any]) -> bool:
    message = entry.get("message")
    return (entry.get("type") == "message" and isinstance(message, dict)
            and message.get("role") == "system")


def _problems(path: list[Mapping[str, Any]]) -> list[ContextProblem]:
    """Message entries with no message object: Pi reads ``entry.message.role`` and throws."""
    return [ContextProblem(entry.get("id"), "message-without-object",
                           f"message is {type(entry.get('message')).__name__}")
            for entry in path   # (the rare half of the test first: one look per entry)
            if entry.get("message") is None and entry.get("type") == "message"]


@collector_paused()   # a bulk build of many small objects (learn_pi_lab/collector.py)
def build_session_context(path_entries: Iterable[Mapping[str, Any]], *,
                          retained_tail: bool = False,
                          pi_version: str = BASELINE_PI_VERSION) -> SessionContext:
    """Pi's ``buildSessionContext`` on a root-first branch, as ``pi_version`` builds it.

    Without a compaction every entry is emitted in order. With one, the context is: the
    latest compaction's summary (1.6.0: after its ``systemMessage``, if any), then the
    entries from ``firstKeptEntryId`` up to that compaction, then everything after it.
    1.6.0 then applies the latest ``context_edit`` per target (see ``apply_context_edit``).

    ``retained_tail=True`` opts in to the forward-looking rule of section 15: when the latest
    compaction carries a ``retainedTail`` list, those messages replace the kept range and
    ``firstKeptEntryId`` is ignored. No released Pi does this yet, so it is off by default.
    """
    check_pi_version(pi_version)
    path = list(check_dicts(path_entries, "path_entries"))
    # Each pass over a long branch costs a trip through memory to every entry, so their
    # types are read once (a learner can read this as state_at(path) and context_entries(path)).
    kinds = [entry.get("type") for entry in path]
    model, thinking_level = state_at_end(path, kinds)
    problems = _problems(path)
    positions = context_positions(path, kinds, pi_version)
    compaction = path[positions[0]] if positions and kinds[positions[0]] == "compaction" \
        and "compaction" in kinds else None
    tail = compaction.get("retainedTail") if compaction is not None else None
    if retained_tail and isinstance(tail, list):
        messages = entry_to_messages(compaction, pi_version)
        messages.extend({**message, "entryId": compaction.get("id")}
                        for message in tail if isinstance(message, dict))
        after = next(index for index, entry in enumerate(path) if entry is compaction)
        for entry in path[after + 1:]:
            messages.extend(entry_to_messages(entry, pi_version))
        return SessionContext(messages, model, thinking_level, problems)

    messages = list(context_messages(path, positions, kinds, pi_version))
    if pi_version == CURRENT_PI_VERSION and "context_edit" in kinds:
        broken = [edit for edit in latest_edits(path[at] for at in positions
                                                if kinds[at] == "context_edit").values()
                  if "replacement" not in edit]
        if broken:   # Pi throws on these, but only if the target sends something
            speaking = {message.get("entryId") for message in messages   # pi mode keeps ids
                        if isinstance(message.get("entryId"), str)}   # that are not strings
            problems.extend(ContextProblem(edit.get("id"), "edit-without-replacement",
                                           f"targetId {edit.get('targetId')}")
                            for edit in broken if edit.get("targetId") in speaking)
    return SessionContext(messages, model, thinking_level, problems)


def latest_edits(entries: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The latest ``context_edit`` of each target among ``entries`` (target id -> edit)."""
    edits: dict[str, Mapping[str, Any]] = {}
    for entry in check_dicts(entries, "entries"):
        target = entry.get("targetId")   # (most entries have none: one look per entry)
        if isinstance(target, str) and entry.get("type") == "context_edit":
            edits[target] = entry
    return edits


def apply_context_edits(path_entries: Iterable[Mapping[str, Any]],
                        messages: Iterable[Mapping[str, Any]]) -> list[dict]:
    """Pi 1.6.0: the messages after the branch's ``context_edit`` entries (chapter 06 exercise).

    ``messages`` carry ``entryId`` (as ``build_context_messages`` makes them). For each target,
    the **latest** edit among ``path_entries`` decides what the target's messages become
    (``apply_context_edit``, which copies before it changes); messages of entries nobody
    edited pass unchanged (the same objects). An edit with no ``replacement`` at all is
    ignored (Pi would crash on it). The input is never changed.
    """
    edits = latest_edits(check_dicts(path_entries, "path_entries"))
    result: list[dict] = []
    for message in check_dicts(messages, "messages", "messages"):
        entry_id = message.get("entryId")   # pi mode keeps entries whose id is not a string
        edit = edits.get(entry_id) if isinstance(entry_id, str) else None
        if edit is None or "replacement" not in edit:
            result.append(message)        # unedited: passed on as it is, never changed
        else:
            result.extend(apply_context_edit([message], edit))
    return result


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

    ``user``, ``assistant``, ``toolResult`` and (1.6.0) ``system`` pass through (as copies). ``bashExecution``
    becomes user text unless ``excludeFromContext`` (a ``!!cmd``) drops it; ``custom``
    becomes a user message; the two summaries are wrapped in the constants above. Unknown
    roles are dropped. ``entryId`` is kept so each provider message can still be traced.
    """
    converted: list[dict] = []
    for message in check_dicts(messages, "messages", "messages"):
        role = message.get("role")
        if role in ("user", "assistant", "toolResult", "system"):
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
