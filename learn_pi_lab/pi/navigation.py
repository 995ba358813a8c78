"""Moving around a session: ``/tree`` in place, ``/fork`` and ``/clone`` into a new file.

Chapter 03's exercises, written as a learner would, are in
``learn_pi_lab/lessons/ch03_rewind_and_branch.py``; this module is their engine.

Three commands, one idea: a branch is a root-to-leaf path, and nothing is ever deleted.

* ``/tree`` (``navigate``) only moves the leaf, in memory. Picking a *user* message (or a
  ``custom_message``) puts the leaf on its **parent**, because Pi hands that message's text
  back to the editor so you can send it again, edited: the next append becomes its sibling.
* ``/fork`` (``fork_entries``) copies one path into a **new file** whose header names the
  source in ``parentSession``. ``before`` a user message copies the path up to its parent
  (the user re-submits); ``at`` copies the path up to and including any entry.
* ``/clone`` (``clone_entries``) is a fork ``at`` the current leaf.

The first three functions work on a plain ``TranscriptTree`` and are chapter 03's exercises
(``branch_from``, ``navigate_target``, ``fork_path``). The session-level functions below them
apply the same rules to a loaded ``Session`` and, for a fork, produce the new file's lines the
way Pi does (labels re-created after re-chaining the path, the #5669 fix of v0.79.2; 1.6.0
also re-points a compaction's ``firstKeptEntryId`` away from a dropped label).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Mapping

from learn_pi_lab.errors import Explained
from learn_pi_lab.jsonl.ids import Clock
from learn_pi_lab.jsonl.writer import new_entry_id, new_header, write_new_file
from learn_pi_lab.pi.context import CURRENT_PI_VERSION
from learn_pi_lab.pi.session import Session, label_entries_in_force
from learn_pi_lab.session_tree import TranscriptEntry, TranscriptError, TranscriptTree

FORK_POSITIONS = ("before", "at")


class BadForkPosition(Explained, ValueError):
    """A fork position other than ``before`` or ``at``."""

    message_key = "pi.fork.bad_position"

    def __init__(self, position: object) -> None:
        super().__init__(f'a fork position is "before" or "at", not {position!r}')
        self.position = position


class ForkBeforeNeedsUser(Explained, ValueError):
    """``before`` an entry that is not a user message: Pi's ``/fork`` picker never offers it."""

    message_key = "pi.fork.before_needs_user"

    def __init__(self, entry_id: str, kind: str) -> None:
        super().__init__(f'forking "before" an entry needs a user message; entry {entry_id!r} '
                         f'is of type {kind!r} (use position="at" to copy up to and including it)')
        self.entry_id = entry_id
        self.kind = kind


class ForkParentMissing(TranscriptError):
    """``before`` a user message whose parent is not in the file: there is no path to copy.

    Pi's ``/fork`` fails here too (``createBranchedSession`` of a missing id throws "Entry ...
    not found"), in both versions, whatever ``--pi-compat`` says about walking past it.
    """

    message_key = "pi.fork.parent_missing"

    def __init__(self, entry_id: str, parent_id: object) -> None:
        super().__init__(f"cannot fork before {entry_id!r}: its parent {parent_id!r} is not "
                         f"in the file, so there is no path to copy (Pi's /fork fails here "
                         f"too)", entry_id)
        self.entry_id = entry_id
        self.parent_id = parent_id


class NothingToClone(Explained, ValueError):
    """``/clone`` on a session with no leaf."""

    message_key = "pi.clone.nothing_yet"

    def __init__(self) -> None:
        super().__init__("nothing to clone yet: the session has no leaf")


class NotASession(Explained, TypeError):
    """A session-level command (``navigate``, ``fork_entries``, ``clone_entries``,
    ``write_fork``) was given something other than a loaded ``Session``: a
    ``TranscriptTree`` (whose functions are ``navigate_target`` and ``fork_path``), a path,
    ``None``. ``function`` names the command, ``got`` the type it was given."""

    message_key = "pi.not-a-session"

    def __init__(self, function: str, value: Any) -> None:
        self.function = function
        self.got = type(value).__name__
        super().__init__(f"{function} needs a loaded Session (load_session(path)), not a "
                         f"{self.got} (on a TranscriptTree use navigate_target or fork_path)")


def _check_session(function: str, session: Any) -> None:
    """``NotASession`` unless ``session`` is a loaded ``Session``."""
    if not isinstance(session, Session):
        raise NotASession(function, session)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


# --------------------------------------------------------------------------------------
# On a TranscriptTree (chapter 03 exercises)
# --------------------------------------------------------------------------------------

def branch_from(tree: TranscriptTree, entry_id: str, new_id: str, kind: str = "message",
                payload: Mapping[str, Any] | None = None) -> TranscriptTree:
    """Continue the conversation from an earlier entry: rewind, then append.

    There is no "make a branch" operation anywhere in Pi. Moving the leaf back and appending
    is enough: the new entry's parent is the old entry, which now has two children.
    """
    return tree.move_leaf(entry_id).append(new_id, kind, payload)


def is_user_message(entry: TranscriptEntry) -> bool:
    """A ``message`` entry whose message role is ``user`` (read from the entry's payload)."""
    message = entry.payload.get("message")
    return entry.kind == "message" and isinstance(message, Mapping) and \
        message.get("role") == "user"


def navigate_target(tree: TranscriptTree, target_id: str) -> str | None:
    """Where ``/tree`` puts the leaf when you pick ``target_id`` (section 9.4, step 5).

    A user message or a ``custom_message`` -> its parent (``None`` for a root: the next
    append starts a new root). Anything else -> the target itself. An unknown id raises
    ``UnknownTranscriptEntry``.
    """
    entry = tree[target_id]
    if is_user_message(entry) or entry.kind == "custom_message":
        return entry.parent_id
    return entry.id


def kind_and_role(entry: TranscriptEntry) -> str:
    """``message/assistant``, ``model_change``, ...: what to call an entry in an error, so
    "a message" never leaves the learner guessing which kind of message."""
    message = entry.payload.get("message")
    role = message.get("role") if isinstance(message, dict) else None
    return f"message/{role}" if entry.kind == "message" and isinstance(role, str) else entry.kind


def fork_leaf(entry: TranscriptEntry, position: str = "before") -> str | None:
    """The last entry a fork keeps: the rule shared by ``fork_path`` and ``fork_entries``.

    ``before`` only makes sense for a user message (that is all Pi's ``/fork`` picker
    offers) and keeps its parent; ``at`` keeps the entry itself, whatever its type.
    """
    if position not in FORK_POSITIONS:
        raise BadForkPosition(position)
    if position == "at":
        return entry.id
    if not is_user_message(entry):
        raise ForkBeforeNeedsUser(entry.id, kind_and_role(entry))
    return entry.parent_id


def fork_path(tree: TranscriptTree, entry_id: str,
              position: str = "before") -> tuple[TranscriptEntry, ...]:
    """The root-first path a fork copies into its new file.

    ``before``: ``entry_id`` must be a user message; the path ends at its parent, and is
    ``()`` when the message is a root (Pi then starts an empty session). ``at``: the path
    ends at ``entry_id`` itself. Any other position is a ``ValueError``.
    """
    leaf = fork_leaf(tree[entry_id], position)
    return () if leaf is None else tree.path_to(leaf)


# --------------------------------------------------------------------------------------
# On a loaded Session
# --------------------------------------------------------------------------------------

def navigate(session: Session, target_id: str) -> str | None:
    """``/tree``: move the session's leaf as Pi does and return the new leaf id.

    Only memory changes. Pi does not persist a leaf move: reload the file and the leaf is
    back on the last line, unless something (a branch summary, a label) was appended.
    Picking the current leaf does nothing. The target's branch is walked first, so in
    teaching mode a damaged ancestry raises the same error ``session.branch`` would.
    """
    _check_session("navigate", session)
    session.branch(target_id)  # unknown id, dangling parent, cycle: raise before moving
    if target_id == session.leaf_id:
        return target_id
    new_leaf = navigate_target(session.tree, target_id)
    session.leaf_id = new_leaf
    session.tree = session.tree.move_leaf(new_leaf)
    return new_leaf


def _now_ms(clock: Clock | None) -> int:
    """Milliseconds since the epoch, from ``clock()`` (a datetime; naive means UTC)."""
    moment = clock() if clock is not None else datetime.now(timezone.utc)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def uuid7_session_id(clock: Clock | None = None,
                     rng: random.Random | None = None) -> str:
    """A UUIDv7 session id, as Pi writes since v0.67: 48 bits of milliseconds, then random.

    Made by hand so it works on every Python the course supports and so a test or a
    notebook can pass a fixed ``clock`` and ``rng`` and get the same id every time.
    """
    rng = rng or random.SystemRandom()
    value = (_now_ms(clock) & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76                      # version 7
    value |= rng.getrandbits(12) << 64
    value |= 0b10 << 62                     # RFC 4122 variant
    value |= rng.getrandbits(62)
    hex_digits = f"{value:032x}"
    return "-".join((hex_digits[:8], hex_digits[8:12], hex_digits[12:16],
                     hex_digits[16:20], hex_digits[20:]))


def fork_entries(session: Session, entry_id: str, position: str = "before", *,
                 clock: Clock | None = None,
                 rng: random.Random | None = None) -> tuple[dict, list[dict]]:
    """The new file ``/fork`` would write: ``(header, entries)``; nothing is written here.

    Pi's ``createBranchedSession`` (section 7.4), as the session's ``pi_version`` runs it:
    1. take the root-first path to the fork's last entry (see ``fork_leaf``);
    2. drop the ``label`` entries and **re-chain** the rest: each copy's ``parentId`` is the
       previous kept entry. Before v0.79.2 Pi kept the old parents, so anything whose parent
       was a label became an orphan (#5669). A ``compaction`` whose ``firstKeptEntryId`` is
       a dropped label: 0.84.2 keeps the id, which is then in no line of the fork, so the
       fork's context loses the kept messages (the source's does not); 1.6.0 points it at
       the entry kept after that label (``replacementByLabelId``). The session's
       ``pi_version`` decides which (the command line's ``fork`` defaults to 1.6.0);
    3. a new v3 header: new session id, same ``cwd``, ``parentSession`` = the source path;
    4. re-create, after the last path entry and chained one after another, one ``label``
       entry for every path entry that has a label now, with the label's original timestamp,
       in the order the labels were set (Pi's ``labelsById`` map), not in path order.
    Entry ids are kept, so forks share ids with their source. ``clock`` and ``rng``
    make the new ids and timestamps reproducible.
    """
    _check_session("fork_entries", session)
    leaf = fork_leaf(TranscriptEntry.from_json(session.entry(entry_id)), position)
    if leaf is not None and (not isinstance(leaf, str) or leaf not in session):
        raise ForkParentMissing(entry_id, leaf)   # "before" a message whose parent is gone
    path = session.branch(leaf) if leaf is not None else []

    rewrite_kept = session.pi_version == CURRENT_PI_VERSION
    copied: list[dict] = []
    previous_id: str | None = None
    replacement_by_label_id: dict[str, str] = {}   # a dropped label -> the next kept entry
    pending_label_ids: list[str] = []
    for entry in path:
        if entry.get("type") == "label":
            pending_label_ids.append(entry["id"])
            continue
        for label_id in pending_label_ids:
            replacement_by_label_id[label_id] = entry["id"]
        pending_label_ids.clear()
        copy = dict(entry)
        copy["parentId"] = previous_id  # same key position, new value
        first_kept = copy.get("firstKeptEntryId")
        if (rewrite_kept and copy.get("type") == "compaction" and isinstance(first_kept, str)
                and first_kept != copy["id"] and first_kept in replacement_by_label_id):
            copy["firstKeptEntryId"] = replacement_by_label_id[first_kept]
        copied.append(copy)
        previous_id = copy["id"]

    source = session.file.path
    header = new_header(session.header.get("cwd"), session_id=uuid7_session_id(clock, rng),
                        parent_session=str(Path(source).resolve()) if source else None,
                        clock=clock)

    # Pi walks its labelsById map: in the order the labels were first set (a label changed
    # later keeps its place; one cleared and set again goes last), which dict order mirrors.
    used_ids = {entry["id"] for entry in copied}
    path_ids = set(used_ids)
    for target, label_entry in label_entries_in_force(session.entries).items():
        if target not in path_ids:
            continue
        label_id = new_entry_id(used_ids, rng)
        used_ids.add(label_id)
        copied.append({"type": "label", "id": label_id, "parentId": previous_id,
                       "timestamp": label_entry.get("timestamp"), "targetId": target,
                       "label": label_entry.get("label")})
        previous_id = label_id
    return header, copied


def clone_entries(session: Session, *, clock: Clock | None = None,
                  rng: random.Random | None = None) -> tuple[dict, list[dict]]:
    """``/clone``: a fork ``at`` the current leaf, so the whole active branch is copied."""
    _check_session("clone_entries", session)
    if session.leaf_id is None:
        raise NothingToClone()
    return fork_entries(session, session.leaf_id, "at", clock=clock, rng=rng)


def write_fork(session: Session, entry_id: str, position: str, out_path: str | Path, *,
               clock: Clock | None = None,
               rng: random.Random | None = None) -> Path:
    """Write a fork to a **new** file and return its path; the source is never touched.

    The file is created exclusively (like Pi's ``wx`` flag since v0.76): if ``out_path``
    exists, ``FileExistsError`` and nothing is written; the file appears whole or not at
    all (``jsonl.writer.write_new_file``). Pi defers writing a fork until it
    holds an assistant message (#1672); the course writes at once so you can open the file.
    """
    header, entries = fork_entries(session, entry_id, position, clock=clock, rng=rng)
    write_new_file(out_path, header, entries)   # the name as given: "dir/" is refused
    return Path(out_path)
