"""Typed models of every line in a Pi session file, grouped by what they are for.

A session file holds ten kinds of line in Pi 0.84.2, twelve in Pi 1.6.0. They fall into
three groups, and the grouping is the point of this module:

* **metadata** about the session: the ``session`` header, ``session_info`` (its name),
  ``label`` (a bookmark on an entry), ``usage`` (1.x: tokens spent outside any message);
* **content** the model reads: ``message``, ``compaction``, ``branch_summary`` and
  ``custom_message``;
* **operations** the user or an extension performed: ``model_change``,
  ``thinking_level_change``, ``custom``, ``context_edit`` (1.x: change what one earlier
  entry sends to the model, without touching that entry).

Operations are tree nodes like everything else. That is why rewinding to any entry also
restores the model and thinking level that were in force there: they sit on the path.

Each dataclass lists its payload keys in ``FIELDS``, in the order Pi writes them
(pi-session-format.md sections 2-3). ``from_json`` never fails on a missing key: old and
hand-made files lack fields all the time, and a reader that crashes on them is useless.
Keys the course does not model are kept in ``extra`` and written back after the known
ones, so ``to_json`` loses nothing. (One simplification: a modelled optional key whose value
is ``null`` comes back absent. The reader keeps each line's original text, so no file is
ever rewritten from these models.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping

RECORD_GROUPS: dict[str, str] = {
    "session": "metadata", "session_info": "metadata", "label": "metadata",
    "message": "content", "compaction": "content", "branch_summary": "content",
    "custom_message": "content",
    "model_change": "operation", "thinking_level_change": "operation", "custom": "operation",
}
"""The ten kinds of line of Pi v0.84.2, the course's baseline, by group."""

PI_1X_RECORD_GROUPS: dict[str, str] = {"usage": "metadata", "context_edit": "operation"}
"""The two kinds Pi 1.x added (not written by 0.84.2: ``context_edit`` since 0.87.0 per Pi's
CHANGELOG; ``usage`` came with cache warming, 0.86.0). Pi 0.84.2 reads them as unknown types:
tree nodes that send nothing to the model."""

PI_1X_ENTRY_TYPES = frozenset(PI_1X_RECORD_GROUPS)

KNOWN_ENTRY_TYPES = frozenset(kind for kind in (*RECORD_GROUPS, *PI_1X_RECORD_GROUPS)
                              if kind != "session")
"""Every ``type`` a tree entry can have in Pi 1.6.0 (the header is not a tree entry)."""

BASE_KEYS = ("id", "parentId", "timestamp")


def entry_id_of(entry: Mapping[str, Any]) -> str | None:
    """The entry's id, or None when it has none a walk can use: missing, not a string, or
    empty (the reader's ``missing-id``). Pi, too, tests an id for truth before it follows
    it, so ``""`` is no id there either. (Its index files the line under ``""`` all the same
    and its ``/tree`` lists it: pi mode's tree holds that line too, ``pi.session``.)"""
    entry_id = entry.get("id")
    return entry_id if isinstance(entry_id, str) and entry_id else None


def record_group(entry_type: str | None) -> str:
    """``metadata``, ``content`` or ``operation``; ``unknown`` for a type Pi does not write."""
    if not isinstance(entry_type, str):       # a damaged line may hold any JSON value here
        return "unknown"
    return RECORD_GROUPS.get(entry_type) or PI_1X_RECORD_GROUPS.get(entry_type, "unknown")


def _snake(json_key: str) -> str:
    """``firstKeptEntryId`` -> ``first_kept_entry_id``: JSON names to Python attribute names."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", json_key).lower()


# --------------------------------------------------------------------------------------
# Usage: token counts on assistant messages (and, since v0.81, on summaries)
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Usage:
    """Token counts and cost of one model call.

    Real files hold partial usage objects (no ``totalTokens``, no ``cost``, or no usage at
    all on an error message), so every field defaults to zero and ``total_tokens`` falls
    back to the sum of its parts.
    """

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost_total: float = 0.0

    @classmethod
    def from_json(cls, obj: Any) -> "Usage":
        if not isinstance(obj, Mapping):
            return cls()
        parts = [_number(obj.get(key)) for key in ("input", "output", "cacheRead", "cacheWrite")]
        total = obj.get("totalTokens")
        cost = obj.get("cost")
        return cls(*parts,
                   total_tokens=_number(total) if total is not None else sum(parts),
                   cost_total=_number(cost.get("total")) if isinstance(cost, Mapping) else 0.0)


def _number(value: Any) -> Any:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


# --------------------------------------------------------------------------------------
# The header
# --------------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class SessionHeader:
    """The first line: which session this is, where it ran, what it was forked from.

    Not a tree node: it has an ``id`` (the session id) but no ``parentId``. ``version`` is
    absent in v1 files, which means 1.
    """

    kind: ClassVar[str] = "session"
    FIELDS: ClassVar[tuple[str, ...]] = ("version", "id", "timestamp", "cwd", "parentSession")

    id: str | None
    version: int | None = None
    timestamp: str | None = None
    cwd: str | None = None
    parent_session: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "SessionHeader":
        return cls(**_known_values(cls.FIELDS, obj), extra=_extra(obj, cls.FIELDS))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "session"}
        for key in self.FIELDS:
            value = getattr(self, _snake(key))
            if value is not None:
                out[key] = value
        out.update(self.extra)
        return out


# --------------------------------------------------------------------------------------
# Tree entries
# --------------------------------------------------------------------------------------

@dataclass(frozen=True, kw_only=True)
class Entry:
    """What every tree entry has: its own id, its parent's id (None for a root), a time.

    ``id`` is None only for a damaged line that the ``pi`` reading mode keeps.
    """

    kind: ClassVar[str] = ""
    FIELDS: ClassVar[tuple[str, ...]] = ()
    PAYLOAD_FIRST: ClassVar[bool] = False   # custom / custom_message: Pi builds payload first

    id: str | None
    parent_id: str | None = None
    timestamp: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def group(self) -> str:
        return record_group(self.kind)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "Entry":
        return cls(id=obj.get("id"), parent_id=obj.get("parentId"),
                   timestamp=obj.get("timestamp"),
                   **_known_values(cls.FIELDS, obj), extra=_extra(obj, BASE_KEYS + cls.FIELDS))

    def to_json(self) -> dict[str, Any]:
        """The object as Pi writes it: ``type, id, parentId, timestamp, payload...``
        (payload first for ``custom`` and ``custom_message``), then unmodelled keys.

        ``parentId`` is always written (``null`` marks a root); a missing ``id`` or
        ``timestamp`` stays missing rather than being invented.
        """
        base: dict[str, Any] = {} if self.id is None else {"id": self.id}
        base["parentId"] = self.parent_id
        if self.timestamp is not None:
            base["timestamp"] = self.timestamp
        payload = {key: getattr(self, _snake(key)) for key in self.FIELDS
                   if getattr(self, _snake(key)) is not None}
        first, second = (payload, base) if self.PAYLOAD_FIRST else (base, payload)
        return {"type": self.kind, **first, **second, **self.extra}


@dataclass(frozen=True, kw_only=True)
class MessageEntry(Entry):
    """One conversation message: user, assistant, toolResult, bashExecution, custom, ...

    ``message`` stays a plain dict (an AgentMessage, section 3.3): its shape depends on the
    role and grows with every Pi release, so the course reads it, it does not model it.
    """

    kind: ClassVar[str] = "message"
    FIELDS: ClassVar[tuple[str, ...]] = ("message",)
    message: Mapping[str, Any] | None = None

    @property
    def role(self) -> str | None:
        return self.message.get("role") if isinstance(self.message, Mapping) else None

    @property
    def usage(self) -> Usage:
        return Usage.from_json(self.message.get("usage")
                               if isinstance(self.message, Mapping) else None)


@dataclass(frozen=True, kw_only=True)
class ThinkingLevelChangeEntry(Entry):
    """The thinking level from here on down this branch: off, minimal, low, medium, high, xhigh."""

    kind: ClassVar[str] = "thinking_level_change"
    FIELDS: ClassVar[tuple[str, ...]] = ("thinkingLevel",)
    thinking_level: str | None = None


@dataclass(frozen=True, kw_only=True)
class ModelChangeEntry(Entry):
    """The model from here on down this branch (an assistant message also sets it)."""

    kind: ClassVar[str] = "model_change"
    FIELDS: ClassVar[tuple[str, ...]] = ("provider", "modelId")
    provider: str | None = None
    model_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class CompactionEntry(Entry):
    """Everything on the path before ``first_kept_entry_id`` is replaced by ``summary``.

    ``first_kept_entry_id`` can be missing in a migrated v1 file whose index pointed
    forward; then nothing before the compaction is kept.
    """

    kind: ClassVar[str] = "compaction"
    FIELDS: ClassVar[tuple[str, ...]] = ("summary", "firstKeptEntryId", "tokensBefore",
                                         "details", "usage", "fromHook", "systemMessage")
    summary: str | None = None
    first_kept_entry_id: str | None = None
    tokens_before: int | None = None
    details: Any = None
    usage: Mapping[str, Any] | None = None
    from_hook: bool | None = None
    system_message: Mapping[str, Any] | None = None   # 1.x: the prompt and tools at this point


@dataclass(frozen=True, kw_only=True)
class BranchSummaryEntry(Entry):
    """What an abandoned branch learned, carried into the branch you went back to.

    Pi sets ``from_id`` to the branch point (the same value as ``parent_id``), or to the
    string ``"root"`` at the root; not to the abandoned leaf the docs describe.
    """

    kind: ClassVar[str] = "branch_summary"
    FIELDS: ClassVar[tuple[str, ...]] = ("fromId", "summary", "details", "usage", "fromHook")
    from_id: str | None = None
    summary: str | None = None
    details: Any = None
    usage: Mapping[str, Any] | None = None
    from_hook: bool | None = None


@dataclass(frozen=True, kw_only=True)
class CustomEntry(Entry):
    """An extension's own state: archived in the file, never shown to the model."""

    kind: ClassVar[str] = "custom"
    FIELDS: ClassVar[tuple[str, ...]] = ("customType", "data")
    PAYLOAD_FIRST: ClassVar[bool] = True
    custom_type: str | None = None
    data: Any = None


@dataclass(frozen=True, kw_only=True)
class CustomMessageEntry(Entry):
    """An extension's message that *does* go into the model's context (as a user message)."""

    kind: ClassVar[str] = "custom_message"
    FIELDS: ClassVar[tuple[str, ...]] = ("customType", "content", "display", "details")
    PAYLOAD_FIRST: ClassVar[bool] = True
    custom_type: str | None = None
    content: Any = None
    display: bool | None = None
    details: Any = None


@dataclass(frozen=True, kw_only=True)
class LabelEntry(Entry):
    """A bookmark on ``target_id``. No label (or an empty one) clears it; the latest wins."""

    kind: ClassVar[str] = "label"
    FIELDS: ClassVar[tuple[str, ...]] = ("targetId", "label")
    target_id: str | None = None
    label: str | None = None


@dataclass(frozen=True, kw_only=True)
class SessionInfoEntry(Entry):
    """The session's display name. The latest one in the file wins; an empty one clears it."""

    kind: ClassVar[str] = "session_info"
    FIELDS: ClassVar[tuple[str, ...]] = ("name",)
    name: str | None = None


@dataclass(frozen=True, kw_only=True)
class UsageEntry(Entry):
    """Pi 1.x: tokens a model call used outside any message (e.g. ``kind: "cache_warm"``).

    Counted in the session's usage totals; hidden from the tree view; never in the context.
    """

    kind: ClassVar[str] = "usage"
    FIELDS: ClassVar[tuple[str, ...]] = ("kind", "provider", "model", "usage", "note")
    usage_kind: str | None = None
    provider: str | None = None
    model: str | None = None
    usage: Mapping[str, Any] | None = None
    note: str | None = None

    # The JSON key "kind" would clash with the class's own ``kind`` (the entry type).
    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "UsageEntry":
        return cls(id=obj.get("id"), parent_id=obj.get("parentId"),
                   timestamp=obj.get("timestamp"), usage_kind=obj.get("kind"),
                   provider=obj.get("provider"), model=obj.get("model"), usage=obj.get("usage"),
                   note=obj.get("note"), extra=_extra(obj, BASE_KEYS + cls.FIELDS))

    def to_json(self) -> dict[str, Any]:
        out = {"type": "usage", "id": self.id, "parentId": self.parent_id}
        if self.id is None:
            del out["id"]
        if self.timestamp is not None:
            out["timestamp"] = self.timestamp
        for key, value in (("kind", self.usage_kind), ("provider", self.provider),
                           ("model", self.model), ("usage", self.usage), ("note", self.note)):
            if value is not None:
                out[key] = value
        out.update(self.extra)
        return out

    @property
    def tokens(self) -> Usage:
        return Usage.from_json(self.usage)


@dataclass(frozen=True, kw_only=True)
class ContextEditEntry(Entry):
    """Pi 1.x: from here on down this branch, entry ``target_id`` sends something else.

    ``replacement`` is ``None`` (omit the target from the model's context) or
    ``{"content": ...}`` (send this content instead). The target's own line never changes.
    ``omits`` tells the two apart even for a missing key (Pi would crash on that).
    """

    kind: ClassVar[str] = "context_edit"
    FIELDS: ClassVar[tuple[str, ...]] = ("targetId", "replacement")
    target_id: str | None = None
    replacement: Mapping[str, Any] | None = None
    omits: bool = False

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "ContextEditEntry":
        return cls(id=obj.get("id"), parent_id=obj.get("parentId"),
                   timestamp=obj.get("timestamp"), target_id=obj.get("targetId"),
                   replacement=obj.get("replacement"),
                   omits="replacement" in obj and obj["replacement"] is None,
                   extra=_extra(obj, BASE_KEYS + cls.FIELDS))

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.omits:   # null is meaningful here: it is the "omit" edit
            out = {**{k: v for k, v in out.items() if k not in self.extra},
                   "replacement": None, **self.extra}
        return out


@dataclass(frozen=True, kw_only=True)
class UnknownEntry:
    """A ``type`` this course (or this Pi version) does not know. Kept whole and untouched.

    Pi keeps such entries as ordinary tree nodes, and so must any tool that reads session
    files: a newer Pi may have written it, and dropping it would cut the tree.
    """

    kind: str | None
    id: str | None
    parent_id: str | None = None
    timestamp: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)   # the whole object, file order

    group: ClassVar[str] = "unknown"

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> "UnknownEntry":
        return cls(kind=obj.get("type"), id=obj.get("id"), parent_id=obj.get("parentId"),
                   timestamp=obj.get("timestamp"), fields=dict(obj))

    def to_json(self) -> dict[str, Any]:
        return dict(self.fields)


ENTRY_CLASSES: dict[str, type] = {cls.kind: cls for cls in (
    SessionHeader, MessageEntry, ThinkingLevelChangeEntry, ModelChangeEntry, CompactionEntry,
    BranchSummaryEntry, CustomEntry, CustomMessageEntry, LabelEntry, SessionInfoEntry,
    UsageEntry, ContextEditEntry)}


def parse_entry(obj: Mapping[str, Any]) -> Any:
    """The typed record for one parsed line: a header, a known entry, or an ``UnknownEntry``."""
    kind = obj.get("type")
    cls = ENTRY_CLASSES.get(kind, UnknownEntry) if isinstance(kind, str) else UnknownEntry
    return cls.from_json(obj)


def _known_values(json_keys: tuple[str, ...], obj: Mapping[str, Any]) -> dict[str, Any]:
    return {_snake(key): obj.get(key) for key in json_keys}


def _extra(obj: Mapping[str, Any], modelled: tuple[str, ...]) -> dict[str, Any]:
    return {key: value for key, value in obj.items()
            if key != "type" and key not in modelled}
