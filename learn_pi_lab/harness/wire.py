"""What crosses between the grader and the learner's code: plain data, with identity.

The learner's code runs in a *worker* process; the tests run in the *trusted* process. A value
that crosses is turned into JSON here and rebuilt on the other side, so the trusted side only
ever holds its own objects: a ``dict`` subclass whose ``__eq__`` always says yes arrives as a
plain ``dict``, and nothing the learner wrote is ever called by a test.

Two things make a copy behave like the object itself, which the tests need:

* **Identity.** Every list, dict, entry, tree or learner object that crosses gets a number
  (a *handle*). Both sides keep a table ``handle -> object``; sending an object again sends
  only its handle, so ``path_to`` that returns the caller's own entries returns, on the
  trusted side, the very entries the test passed in (``assertIs`` still works).
* **Changes.** Lists and dicts are mutable, on both sides. Before each call the trusted side
  sends the new contents of every list/dict it changed since the last call; after the call
  the worker sends back every one *it* changed. So a function that changes its input, or a
  backend that keeps the caller's dict, or a ``read_all`` that hands out its own list, is
  seen doing exactly that, and fails the test that looks for it.

A value on the wire (JSON) is a scalar (``null``, ``true``, a number, a string), or an array
whose first item says what it is::

    ["L", h, [items]]          a list with handle h        ["R", h]          a known object
    ["D", h, [k, v, k, v]]     a dict                      ["T", [items]]    a tuple
    ["M", h, [k, v, ...]]      a read-only mapping         ["S", [items]]    a set
    ["E", h, field, ...]       a TranscriptEntry           ["P", "a/b"]      a Path
    ["TT", h, [entries], leaf] a TranscriptTree            ["I", [items]]    an iterator
    ["DC", h, "module:Class", [name, value, ...]]  a dataclass of the package
    ["H", h, "ClassName"]      an object of the learner's (it stays in the worker)

The trusted side allocates positive handles, the worker negative ones. ``Decoder`` checks
every shape it reads (``WireError`` otherwise): the worker may send anything at all.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib
import sys
from operator import attrgetter
from pathlib import Path, PurePath
from types import MappingProxyType
from typing import Any, Callable, Iterator

from learn_pi_lab.session_tree import TranscriptEntry, TranscriptTree

BULK = 64   # this many entries or more travel as columns (``Encoder.sequence``)
SCALARS = (str, int, float, bool, type(None))
PLAIN = frozenset(SCALARS)
ENTRY_FIELDS = tuple(field.name for field in dataclasses.fields(TranscriptEntry))


class WireError(ValueError):
    """The other side sent something that is not a value of the agreed shapes."""


class RemoteObject:
    """The trusted side's stand-in for an object that lives in the worker (a learner's
    ``MemoryBackend()``): reading an attribute gives a method that runs there. Everything
    else about it (equality, ``repr``, truth) is this class's own, never the learner's."""

    def __init__(self, handle: int, class_name: str, call: Callable[..., Any]) -> None:
        self._handle, self._class_name, self._call = handle, class_name, call

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self._call(("h", self._handle, name), args, kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(("h", self._handle, None), args, kwargs)

    def __repr__(self) -> str:
        return f"<{self._class_name} object in your code>"


def signature(value: Any) -> tuple:
    """What a list or dict holds, shallowly (a tuple of its items, built in C: fast). Two
    equal signatures mean "not changed since": items compare by identity first, then by
    value, so a dict that now holds another object, or another number, differs."""
    if isinstance(value, dict):
        return tuple(dict.items(value))
    return tuple(list.__iter__(value))


class ObjectTable:
    """One side's ``handle <-> object`` table, and the last known contents of each list/dict."""

    def __init__(self, sign: int) -> None:
        self.sign = sign                      # +1: the trusted side, -1: the worker
        self.clear()

    def clear(self) -> None:
        self.objects: dict[int, Any] = {}
        self.handles: dict[int, int] = {}     # id(object) -> handle (objects are kept alive)
        self.seen: dict[int, tuple] = {}      # handle -> signature when last synced
        self.counter = 0

    def new_handle(self) -> int:
        self.counter += 1
        return self.sign * self.counter

    def add(self, handle: int, value: Any) -> None:
        self.objects[handle] = value
        self.handles[id(value)] = handle

    def add_many(self, first: int, values: list) -> list[int]:
        """Register ``values`` under consecutive handles from ``first`` (counted, not signed)."""
        handles = [self.sign * number for number in range(first, first + len(values))]
        self.objects.update(zip(handles, values))
        self.handles.update(zip(map(id, values), handles))
        self.counter = max(self.counter, first + len(values) - 1)
        return handles

    def handle_of(self, value: Any) -> int | None:
        return self.handles.get(id(value))

    def remember(self, handle: int) -> None:
        value = self.objects[handle]
        if isinstance(value, (list, dict)):
            self.seen[handle] = signature(value)

    def changed(self) -> list[int]:
        """Handles of the lists and dicts whose contents changed since they were last synced."""
        objects = self.objects
        return [handle for handle, before in self.seen.items()
                if signature(objects[handle]) != before]


# --------------------------------------------------------------------------------------
# Encoding: any value -> JSON-able data (both sides)
# --------------------------------------------------------------------------------------

class Encoder:
    """Turns values into wire data, registering every object it sends in ``table``.

    ``unknown`` decides what happens to an object of no known kind: the worker keeps it and
    sends a handle (``["H", ...]``); the trusted side never has to send one.
    """

    def __init__(self, table: ObjectTable, unknown: Callable[[Any], Any] | None = None) -> None:
        self.table, self.unknown = table, unknown

    def new(self, value: Any) -> int:
        handle = self.table.new_handle()
        self.table.add(handle, value)
        return handle

    def items(self, mapping: Any) -> list | dict:
        """A dict's contents: ``[key, value, ...]``, or for many entries keyed by strings
        (``by_id(entries)``) ``{"keys": [...], "values": <bulk>}``."""
        if len(mapping) >= BULK:
            keys = list(dict.keys(mapping))
            if all(type(key) is str for key in keys):
                values = self.sequence(list(dict.values(mapping)))
                if type(values) is dict:
                    return {"keys": keys, "values": values}
                return [part for pair in zip(keys, values) for part in pair]
        flat: list = []
        for key, item in dict.items(mapping):
            flat += (self.encode(key), self.encode(item))
        return flat

    def sequence(self, items: list) -> list | dict:
        """Items of a list, tuple or tree: ``[value, ...]``, or, when they are many entries,
        one bulk object: ``{"refs": [handles]}`` (all known) or ``{"entries": [one column
        per field], "first": handle}`` (all new). A path of 500,000 entries then costs a
        few C-speed passes instead of 500,000 calls."""
        if len(items) >= BULK and all(type(item) is TranscriptEntry for item in items):
            handles = self.table.handles
            known = [handles.get(id(item)) for item in items]
            if all(handle is not None for handle in known):
                return {"refs": known}
            if not any(handle is not None for handle in known):
                columns = [list(map(attrgetter(name), items)) for name in ENTRY_FIELDS]
                plain = [column for name, column in zip(ENTRY_FIELDS, columns)
                         if name != "payload"]
                payloads = columns[ENTRY_FIELDS.index("payload")]
                kinds = set(map(type, payloads))
                if all(set(map(type, column)) <= PLAIN for column in plain) and (
                        kinds <= {dict} or kinds <= {MappingProxyType}):
                    first = self.table.counter + 1
                    self.table.add_many(first, items)
                    read_only = kinds == {MappingProxyType}
                    if read_only:
                        columns[ENTRY_FIELDS.index("payload")] = list(map(dict, payloads))
                    return {"entries": columns, "first": first, "read_only": read_only}
        return [self.encode(item) for item in items]

    def encode(self, value: Any) -> Any:
        kind = type(value)
        if kind in PLAIN:
            return value
        if kind is TranscriptEntry:      # the common case, kept short: a path of 500,000
            return self.entry(value)
        if value is None or isinstance(value, (bool, str)):
            return str.__str__(value) if isinstance(value, str) else value
        if isinstance(value, (int, float)):
            return float(value) if isinstance(value, float) else int(value)
        known = self.table.handle_of(value)
        if known is not None:
            return ["R", known]
        if isinstance(value, list):
            handle = self.new(value)
            data = ["L", handle, self.sequence(list(list.__iter__(value)))]
            self.table.remember(handle)
            return data
        if isinstance(value, dict):
            handle = self.new(value)
            data = ["D", handle, self.items(value)]
            self.table.remember(handle)
            return data
        if isinstance(value, tuple) and not hasattr(value, "_fields"):
            return ["T", self.sequence(list(tuple.__iter__(value)))]
        if isinstance(value, (set, frozenset)):
            return ["S", [self.encode(item) for item in value]]
        if isinstance(value, MappingProxyType):
            return ["M", self.new(value), self.items(dict(value))]
        if isinstance(value, PurePath):
            return ["P", str(value)]
        if type(value) is TranscriptTree:
            handle = self.new(value)
            return ["TT", handle, self.sequence(list(value.entries)), self.encode(value.leaf_id)]
        if (dataclasses.is_dataclass(value) and not isinstance(value, type)
                and type(value).__module__.startswith("learn_pi_lab.")):
            handle = self.new(value)
            fields: list = []
            for field in dataclasses.fields(value):
                if field.init:
                    fields += (field.name, self.encode(getattr(value, field.name)))
            cls = type(value)
            return ["DC", handle, f"{cls.__module__}:{cls.__qualname__}", fields]
        if isinstance(value, Iterator) and self.unknown is None:
            return ["I", self.sequence(list(value))]
        if self.unknown is not None:
            return self.unknown(value)
        raise WireError(f"cannot send a {type(value).__name__}")

    def entry(self, value: TranscriptEntry) -> Any:
        known = self.table.handles.get(id(value))
        if known is not None:
            return ["R", known]
        handle = self.new(value)
        return ["E", handle, *[item if type(item) in PLAIN else
                               self.payload(item) if name == "payload" else self.encode(item)
                               for name, item in zip(ENTRY_FIELDS,
                                                     map(value.__getattribute__, ENTRY_FIELDS))]]

    @staticmethod
    def payload(value: Any) -> list:
        """An entry's ``payload`` travels as plain JSON, copied rather than shared (no
        handles: a path of 500,000 entries must cross in a second or two). The receiver
        rebuilds a read-only mapping when it was one."""
        if isinstance(value, MappingProxyType):
            return ["J", dict(value), 1]
        return ["J", value, 0]

    def contents(self, handle: int) -> list:
        """A changed list's or dict's new contents, for a sync message."""
        value = self.table.objects[handle]
        if isinstance(value, dict):
            return self.items(value)
        return self.sequence(list(list.__iter__(value)))

    def sync(self) -> list:
        """``[[handle, contents], ...]`` for every list/dict changed since the last sync."""
        changes = []
        for handle in self.table.changed():
            changes.append([handle, self.contents(handle)])
            self.table.remember(handle)
        return changes


# --------------------------------------------------------------------------------------
# Decoding: wire data -> values (strict on the trusted side)
# --------------------------------------------------------------------------------------

class paused_gc:
    """Turn the cyclic garbage collector off while a big value is built or read: every
    batch of new objects would otherwise make it walk the whole heap again (for 500,000
    entries that is most of the time). Nothing made here is cyclic garbage."""

    def __enter__(self) -> None:
        self.was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was_enabled:
            gc.enable()


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise WireError(what)


def _tree_as_sent(entries: list[TranscriptEntry], leaf_id: Any) -> TranscriptTree:
    """The tree the sender had: a leaf of ``None`` stays ``None`` ("before the first entry",
    which the constructor reads as "the last entry"), and an entry named ``""`` (pi mode's
    tree, ``empty_id``) is allowed when one is there."""
    tree = TranscriptTree(entries, leaf_id, empty_id=any(entry.id == "" for entry in entries))
    return tree.move_leaf(None) if leaf_id is None and entries else tree


class Decoder:
    """Rebuilds values from wire data into ``table``. Every shape is checked: a handle must be
    new and of the sender's sign, a reference must be known, a key must be hashable, a class
    must be one of the package's own."""

    def __init__(self, table: ObjectTable, remote: Callable[[int, str], Any] | None = None
                 ) -> None:
        self.table, self.remote = table, remote

    def fresh(self, handle: Any) -> int:
        expect(type(handle) is int and handle != 0, "a handle must be a non-zero integer")
        expect((handle > 0) != (self.table.sign > 0), "a handle of the wrong side")
        expect(handle not in self.table.objects, f"handle {handle} sent twice")
        return handle

    def sequence(self, data: Any) -> list:
        """The other side of ``Encoder.sequence``."""
        if type(data) is list:
            return [item if type(item) in PLAIN else self.decode(item) for item in data]
        expect(type(data) is dict, "a sequence is a list or a bulk object")
        objects = self.table.objects
        if "refs" in data:
            refs = data["refs"]
            expect(type(refs) is list and all(type(h) is int and h in objects for h in refs),
                   "bulk references must be known")
            return [objects[handle] for handle in refs]
        columns, first = data.get("entries"), data.get("first")
        expect(type(columns) is list and len(columns) == len(ENTRY_FIELDS)
               and all(type(column) is list for column in columns)
               and len({len(column) for column in columns}) == 1, "bulk entries are columns")
        expect(type(first) is int and first > 0, "bulk entries start at a handle")
        count = len(columns[0])
        handles = [-self.table.sign * number for number in range(first, first + count)]
        expect(set(handles).isdisjoint(objects), "bulk handles must be new")
        for name, column in zip(ENTRY_FIELDS, columns):
            allowed = {dict} if name == "payload" else PLAIN
            expect(set(map(type, column)) <= allowed, f"bulk {name} of the wrong type")
        if data.get("read_only") is True:
            position = ENTRY_FIELDS.index("payload")
            columns[position] = list(map(MappingProxyType, columns[position]))
        entries = list(map(TranscriptEntry, *columns))   # the dataclass's own field order
        objects.update(zip(handles, entries))
        self.table.handles.update(zip(map(id, entries), handles))
        return entries

    def pairs(self, flat: Any) -> list[tuple[Any, Any]]:
        if type(flat) is dict:   # many entries keyed by strings
            keys = flat.get("keys")
            expect(type(keys) is list and all(type(key) is str for key in keys),
                   "bulk keys are strings")
            values = self.sequence(flat.get("values"))
            expect(len(values) == len(keys), "as many values as keys")
            return list(zip(keys, values))
        expect(type(flat) is list and len(flat) % 2 == 0, "a mapping is [key, value, ...]")
        result = []
        for index in range(0, len(flat), 2):
            key = self.decode(flat[index])
            try:
                hash(key)
            except TypeError:
                raise WireError("a dict key must be hashable") from None
            result.append((key, self.decode(flat[index + 1])))
        return result

    def decode(self, data: Any) -> Any:
        if type(data) in PLAIN:
            return data
        expect(type(data) is list and len(data) >= 2 and type(data[0]) is str,
               "a value is a scalar or a tagged array")
        tag = data[0]
        if tag == "R":
            expect(len(data) == 2 and data[1] in self.table.objects, "unknown reference")
            return self.table.objects[data[1]]
        if tag in ("T", "S", "I"):
            expect(len(data) == 2, f"{tag} holds one sequence")
            items = self.sequence(data[1])
            if tag == "S":
                try:
                    return set(items)
                except TypeError:
                    raise WireError("a set item must be hashable") from None
            return tuple(items) if tag == "T" else iter(items)
        if tag == "P":
            expect(len(data) == 2 and type(data[1]) is str, "a path is a string")
            return Path(data[1])
        if tag == "J":   # plain JSON, already nothing but dicts, lists and scalars
            expect(len(data) == 3 and type(data[1]) is dict, "J holds a JSON object")
            return MappingProxyType(data[1]) if data[2] == 1 else data[1]
        expect(len(data) >= 3, f"{tag} needs a handle and contents")
        handle = self.fresh(data[1])
        if tag == "L":
            expect(len(data) == 3, "a list holds a sequence")
            value: Any = []
            self.table.add(handle, value)
            value.extend(self.sequence(data[2]))
        elif tag == "D":
            value = {}
            self.table.add(handle, value)
            value.update(self.pairs(data[2]))
        elif tag == "M":
            value = MappingProxyType(dict(self.pairs(data[2])))
            self.table.add(handle, value)
        elif tag == "E":
            expect(len(data) == 2 + len(ENTRY_FIELDS), "an entry has its fields")
            value = TranscriptEntry(*[item if type(item) in PLAIN else self.decode(item)
                                      for item in data[2:]])   # the dataclass's own order
            self.table.add(handle, value)
        elif tag == "TT":
            expect(len(data) == 4, "a tree is [entries, leaf]")
            entries = self.sequence(data[2])
            expect(all(type(entry) is TranscriptEntry for entry in entries),
                   "a tree holds entries")
            value = self.build(lambda: _tree_as_sent(entries, self.decode(data[3])), "tree")
            self.table.add(handle, value)
        elif tag == "DC":
            expect(len(data) == 4 and type(data[2]) is str, "a dataclass is named")
            cls = package_class(data[2])
            expect(dataclasses.is_dataclass(cls), f"{data[2]} is not a dataclass")
            fields = dict(self.pairs(data[3]))
            value = self.build(lambda: cls(**fields), data[2])
            self.table.add(handle, value)
        elif tag == "H":
            expect(len(data) == 3 and type(data[2]) is str and self.remote is not None,
                   "a learner object is [H, handle, class name]")
            value = self.remote(handle, data[2][:100])
            self.table.add(handle, value)
        else:
            raise WireError(f"unknown tag {tag[:20]!r}")
        self.table.remember(handle)
        return value

    @staticmethod
    def build(make: Callable[[], Any], what: str) -> Any:
        try:
            return make()
        except Exception as error:   # the package's own constructor said no
            raise WireError(f"not a valid {what}: {type(error).__name__}: {error}") from None

    def apply(self, changes: Any) -> None:
        """Apply a sync message: new contents for known lists and dicts, in place."""
        expect(type(changes) is list, "a sync is a list")
        decoded = []
        for change in changes:
            expect(type(change) is list and len(change) == 2, "a change is [handle, contents]")
            handle, contents = change
            expect(type(handle) is int and handle in self.table.seen, "unknown changed object")
            target = self.table.objects[handle]
            if isinstance(target, dict):
                decoded.append((handle, target, self.pairs(contents)))
            else:
                decoded.append((handle, target, self.sequence(contents)))
        for handle, target, new in decoded:
            if isinstance(target, dict):
                dict.clear(target)
                dict.update(target, new)
            else:
                list.__setitem__(target, slice(None), new)
            self.table.remember(handle)


LIBRARY_MODULES = frozenset({
    "learn_pi_lab.errors", "learn_pi_lab.session_tree", "learn_pi_lab.store",
    "learn_pi_lab.session_inspector", "learn_pi_lab.jsonl.reader", "learn_pi_lab.jsonl.writer",
    "learn_pi_lab.jsonl.records", "learn_pi_lab.jsonl.migration", "learn_pi_lab.jsonl.ids",
    "learn_pi_lab.jsonl.fast_decoder", "learn_pi_lab.pi.session", "learn_pi_lab.pi.context",
    "learn_pi_lab.pi.navigation"})
"""The package's modules whose classes and exceptions a learner's code may use (a stub
imports from them, or an exercise's hint names them): importing one only defines classes
and functions."""


def package_module(name: str) -> Any:
    """The package's module ``name`` when a message from the other side may name it: one
    already imported here, or one of ``LIBRARY_MODULES`` (imported now); else ``None``.
    Naming a module must never make it run (``learn_pi_lab.__main__`` starts the command
    line and ends the process)."""
    if not name.startswith("learn_pi_lab."):
        return None   # (never ``os`` because it happens to be imported)
    if name in sys.modules:
        return sys.modules[name]
    return importlib.import_module(name) if name in LIBRARY_MODULES else None


def package_class(name: str) -> type:
    """``"learn_pi_lab.pi.context:SessionContext"`` -> the class, only from the package."""
    module_name, _, qualname = name.partition(":")
    expect(module_name.startswith("learn_pi_lab.") and qualname.isidentifier(),
           f"not a class of the package: {name[:80]!r}")
    try:
        cls = getattr(package_module(module_name), qualname, None)
    except ImportError:
        cls = None
    expect(isinstance(cls, type), f"no such class of the package: {name[:80]!r}")
    return cls
