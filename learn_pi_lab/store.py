"""Design your own: a small session store whose storage can be swapped (chapter 08).

Chapter 08's exercises, written as a learner would, are in
``learn_pi_lab/lessons/ch08_design_your_own.py``; this module is their engine.

Four rules from Pi carry over to any application that keeps conversations:

1. **One tree per file, append only.** A backend offers exactly two operations,
   ``append(obj)`` and ``read_all()``. There is no update and no delete, so a crash can cost
   at most the line being written, and a new branch never touches an old line.
2. **Self-contained entries.** Each entry carries ``id``, ``parentId``, ``timestamp``, its
   ``type`` and its payload; never a "turn number", which a fork would make wrong.
3. **Storage behind an interface.** ``SessionStore`` talks to a ``SessionBackend``; the
   in-memory backend and the file backend behave the same, so tests run in memory and the
   application writes JSONL.
4. **Extension state is rebuilt from the current branch.** An extension that keeps state in
   ``custom`` entries must fold them along the branch it is on
   (``rebuild_extension_state``). A variable kept in memory would still hold the state of a
   branch the user has just left.

``MemoryBackend``, ``FileBackend`` and ``rebuild_extension_state`` are chapter 08's
exercises; ``SessionStore`` is reference code that puts them together, and it survives
what the course teaches about damage: it opens a file with the same tolerant reader as
everything else (a line torn by a crash, even in the middle of a Chinese character, costs
that line), refuses a file that is not a session without writing a byte to it, and gives
its entries 16-hex ids (64 random bits), so writers that cannot see each other's ids
still do not collide (section "ids" in ``docs/limits.md``).
"""

from __future__ import annotations

import copy
import json
import os
import random
from pathlib import Path
from typing import Any, Iterable, Mapping, Protocol

from learn_pi_lab.errors import Explained, check_dicts
from learn_pi_lab.jsonl.ids import Clock
from learn_pi_lab.jsonl.reader import (NotASessionFile, WrongArgument, iter_physical_lines,
                                      read_jsonl_tolerant)
from learn_pi_lab.jsonl.writer import (OldSessionVersion, append_line, iso_now, new_entry_id,
                                      new_header, order_like_pi)
from learn_pi_lab.pi.context import SessionContext, build_session_context
from learn_pi_lab.pi.session import session_from_text
from learn_pi_lab.session_tree import TranscriptEntry, TranscriptTree

STORE_ID_DIGITS = 16
"""Entry ids of the store: 64 random bits (see ``new_entry_id`` for the collision odds)."""


class SessionBackend(Protocol):
    """Where the lines of one session live. Append-only: nothing is ever rewritten."""

    def append(self, obj: dict) -> None:
        """Store one more object after all the others."""

    def read_all(self) -> list[dict]:
        """Every stored object, header included, in the order they were appended."""


class MemoryBackend:
    """Keeps the objects in a list: for tests, notebooks and ``--no-session`` style runs.

    Objects are deep-copied on the way in and on the way out, so a caller who changes a dict
    after appending it cannot change history: the same guarantee a file gives for free.
    """

    def __init__(self) -> None:
        self._objects: list[dict] = []

    def append(self, obj: dict) -> None:
        self._objects.append(copy.deepcopy(obj))

    def read_all(self) -> list[dict]:
        return copy.deepcopy(self._objects)


class FileBackend:
    """One JSONL file: each ``append`` writes one line at the end, nothing else ever.

    Writing goes through ``append_line``, which starts a fresh line first when the file does
    not end with a newline (a torn last line must not swallow the next entry). Reading goes
    through the tolerant reader, so a damaged line costs that line and nothing more. A file
    that does not exist yet reads as empty. Bytes that are not UTF-8 (a character cut in
    half by a crash) become U+FFFD, so they spoil only their own line.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def append(self, obj: dict) -> None:
        append_line(self.path, obj)

    def read_all(self) -> list[dict]:
        if not self.path.exists():
            return []
        # The reader's safe line layer: refuses a FIFO or a device, decodes bad bytes as
        # U+FFFD, skips a line longer than the limit (it comes back as None, dropped here).
        text = "".join(line + "\n" if terminated else line
                       for _, line, terminated in iter_physical_lines(self.path, strip_cr=False)
                       if line is not None)
        objects, _problems = read_jsonl_tolerant(text)
        return objects


def rebuild_extension_state(path_entries: Iterable[Mapping[str, Any]],
                            custom_type: str) -> dict:
    """An extension's state at the end of a branch: fold its ``custom`` entries in order.

    Every ``custom`` entry whose ``customType`` is ``custom_type`` contributes its ``data``
    dict through ``dict.update``, so a later entry overrides a key an earlier one set. Entries
    of other types or other extensions, and ``data`` that is not a dict, are ignored. Called on
    the current branch, this gives each branch its own state: what a fork needs.
    """
    state: dict = {}
    for entry in check_dicts(path_entries, "path_entries"):
        if entry.get("type") != "custom" or entry.get("customType") != custom_type:
            continue
        data = entry.get("data")
        if isinstance(data, Mapping):
            state.update(data)
    return state


def _read_backend(backend: SessionBackend) -> tuple[dict, TranscriptTree] | None:
    """``(header, tree)`` of what the backend holds, or None when it holds nothing yet.

    Every backend is read the same way, through its ``read_all()``: the interface is two
    methods, for a file as for memory. The objects then go through the loader every session
    goes through (``session_from_text``), so damage stays visible instead of fatal (an entry
    whose parent is missing or of the wrong type becomes a root), a first object that is not
    a session header raises ``NotASessionFile``, and a v1/v2 header ``OldSessionVersion``.
    """
    stored = backend.read_all()
    if type(stored) is not list or not all(type(obj) is dict for obj in stored):
        raise NotAListOfObjects(type(backend).__name__, stored)
    if not stored:
        if _holds_bytes(backend):   # lines that are not JSON read as []: not a new session
            raise NotASessionFile(_name(backend), "no-header")
        return None
    # (NaN and Infinity, which json.loads gives for 1e400, are written as json writes them:
    # the loader then reports their line as damaged, as it does in a file)
    text = "".join(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for obj in stored)
    try:
        session = session_from_text(text)
    except NotASessionFile as error:
        raise NotASessionFile(_name(backend), error.reason, error.line, error.detail) from None
    if session.file.migrated:
        raise OldSessionVersion(_name(backend), session.file.source_version)
    return session.header or {}, session.tree


class NotAListOfObjects(Explained, TypeError):
    """A backend's ``read_all()`` gave something other than a list of dicts (a learner's
    ``FileBackend`` that returns ``read_jsonl_tolerant``'s whole pair, say). ``backend`` is
    the class name, ``got`` says what came back."""

    message_key = "store.not-a-list-of-objects"

    def __init__(self, backend: str, answer: Any) -> None:
        self.backend = backend
        self.got = (type(answer).__name__ if type(answer) is not list else   # "list[str]"
                    f"list[{next(type(obj).__name__ for obj in answer if type(obj) is not dict)}]")
        super().__init__(f"{backend}.read_all() should return a list of dicts (the stored "
                         f"objects); it returned a {self.got}")


class NotABackend(Explained, TypeError):
    """``SessionStore(x)`` where ``x`` is not a backend (a path, most often): a store needs an
    object with ``append`` and ``read_all``. ``got`` is the type it was given."""

    message_key = "store.not-a-backend"

    def __init__(self, answer: Any) -> None:
        self.got = type(answer).__name__
        super().__init__(f"SessionStore needs a backend, an object with append() and "
                         f"read_all() (such as FileBackend(path) or MemoryBackend()), "
                         f"not a {self.got}")


class WrongAppendArgument(WrongArgument):
    """``SessionStore.append(kind, payload)`` with a ``kind`` that is not a str (the whole
    entry given as ``kind``, say) or a ``payload`` that is not a dict. ``argument``, ``got``."""

    ENGLISH = {"kind": "the kind of an entry must be a str such as \"message\", not a {got} "
                       "(append(kind, payload): the type first, then the other fields)",
               "payload": "the payload of an entry must be a dict of its fields, not a {got}"}
    KEY_PREFIX = "store.wrong-append-argument"


class PayloadSetsTreeKeys(Explained, ValueError):
    """A payload that names ``type``, ``id`` or ``parentId``: the store chooses those, and a
    payload that set them would put a line in the backend that disagrees with the tree in
    memory. ``keys`` lists the ones given."""

    message_key = "store.payload-sets-tree-keys"

    def __init__(self, keys: Iterable[str]) -> None:
        self.keys = ", ".join(keys)
        super().__init__(f"the payload must not set {self.keys}: the store gives each entry "
                         f"its type, id and parentId (use move_leaf to choose the parent)")


TREE_KEYS = ("type", "id", "parentId")
"""What ``SessionStore.append`` writes itself and a payload may not set."""


def _holds_bytes(backend: SessionBackend) -> bool:
    """Whether a backend that read as empty is a file with something in it. The one place
    the store looks past the two methods: a file of text that is not JSON reads as ``[]``,
    and a header appended to it would change a file that is not a session."""
    path = getattr(backend, "path", None)
    try:
        return path is not None and os.path.getsize(path) > 0
    except (OSError, TypeError, ValueError):
        return False


def _name(backend: SessionBackend) -> str:
    path = getattr(backend, "path", None)
    return str(path) if path is not None else f"<{type(backend).__name__}>"


class SessionStore:
    """A session tree kept in a backend: append at the leaf, move the leaf, read a branch.

    The tree in memory is a ``TranscriptTree``; the backend holds the same entries as lines.
    Opening a store on a backend that already has lines rebuilds the tree from them, with the
    leaf on the last entry (Pi's rule). An empty backend gets a fresh v3 header. Any backend
    is read through its ``read_all()`` and loaded like any session (``_read_backend``), so
    damage is kept visible instead of fatal: an entry with a missing or wrong-typed parent
    becomes a root. A backend that does not start with a session header, or a file that
    reads as nothing but is not empty, raises ``NotASessionFile`` (nothing is written); a
    v1/v2 header raises ``OldSessionVersion``.

    ``clock`` (returns a ``datetime``) and ``rng`` (a ``random.Random``) make ids and
    timestamps reproducible in tests; by default they are the real time and real randomness.
    ``cwd`` goes into a new header (default: the current directory).
    """

    def __init__(self, backend: SessionBackend, clock: Clock | None = None,
                 rng: random.Random | None = None, *, cwd: str | None = None) -> None:
        if not (callable(getattr(backend, "append", None))
                and callable(getattr(backend, "read_all", None))):
            raise NotABackend(backend)
        self.backend = backend
        self._clock = clock
        self._rng = rng
        stored = _read_backend(backend)
        if stored is None:
            self.header = new_header(cwd if cwd is not None else os.getcwd(), clock=clock, rng=rng)
            backend.append(self.header)
            self.tree = TranscriptTree()
        else:
            self.header, self.tree = stored

    @property
    def leaf_id(self) -> str | None:
        return self.tree.leaf_id

    def append(self, kind: str, payload: Mapping[str, Any] | None = None) -> str:
        """Write one entry whose parent is the current leaf; it becomes the leaf. Returns its id.

        The entry is stored before the tree changes, so the tree never shows an entry the
        backend does not have. ``payload`` may not set ``type``, ``id`` or ``parentId``
        (``PayloadSetsTreeKeys``): those are the store's to give.
        """
        if not isinstance(kind, str):
            raise WrongAppendArgument("kind", kind)
        if payload is not None and not isinstance(payload, Mapping):
            raise WrongAppendArgument("payload", payload)
        if payload is not None and any(key in payload for key in TREE_KEYS):
            raise PayloadSetsTreeKeys(key for key in TREE_KEYS if key in payload)
        entry_id = new_entry_id(self.tree, self._rng, digits=STORE_ID_DIGITS)
        obj = order_like_pi({"type": kind, "id": entry_id, "parentId": self.tree.leaf_id,
                             "timestamp": iso_now(self._clock), **dict(payload or {})})
        self.backend.append(obj)
        self.tree = self.tree.append(entry_id, kind, obj)
        return entry_id

    def move_leaf(self, entry_id: str | None) -> None:
        """Rewind (or jump) to ``entry_id``; nothing is written, nothing deleted.

        Like Pi, a leaf move lives in memory only: reopening the store puts the leaf back
        on the last line, unless something was appended after the move.
        """
        self.tree = self.tree.move_leaf(entry_id)

    def branch(self, leaf_id: str | None = None) -> list[dict]:
        """The entries from the root to ``leaf_id`` (default: the current leaf), root first."""
        return [dict(entry.payload) for entry in self.tree.path_to(leaf_id)]

    def context(self, leaf_id: str | None = None) -> SessionContext:
        """What the model would see at ``leaf_id``: Pi's ``buildSessionContext`` on the branch."""
        return build_session_context(self.branch(leaf_id))

    def extension_state(self, custom_type: str, leaf_id: str | None = None) -> dict:
        """The state of extension ``custom_type`` on the branch ending at ``leaf_id``."""
        return rebuild_extension_state(self.branch(leaf_id), custom_type)
