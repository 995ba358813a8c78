"""Grade chapter 02's exercises (``path_to``, ``validate``) and prove the tree model.

One spec, two targets. ``impl`` is ``learn_pi_lab.session_tree`` by default, or the learner's
``workspace/ch02_parent_pointers.py`` when ``LEARN_PI_LAB_TARGET`` names a workspace folder
(that is what ``make verify`` does). ``PathToTests`` and ``ValidateTests`` grade the
exercises; ``TranscriptTreeTests`` checks the package's ``TranscriptTree`` only and
``MillionEntryTests`` holds the package to a million-entry chain; both are skipped for a
workspace.

Chain lengths. A graded class must run in well under the exercise time limit (10 s) for
every learner of a class, so it uses chains just long enough to tell a loop from recursion
and a linear algorithm from a quadratic one; the library itself is held to a million.

Every assertion message is a sentence a learner can act on, in their language
(``learn_pi_lab.i18n``): the harness shows the first one that fails.

Run either way from the repository root:
    python3 -m unittest tests.test_04_session_tree -v
    python3 -m pytest -q tests/test_04_session_tree.py
"""

from __future__ import annotations

import gc
import pickle
import random
import unittest
from contextlib import contextmanager
from types import MappingProxyType
from typing import Callable, Iterable, Iterator

from learn_pi_lab import session_tree as tree_reference
from learn_pi_lab.i18n import explain, t
from learn_pi_lab.session_tree import (
    DanglingParent,
    DuplicateEntryId,
    EmptyEntryId,
    MalformedTranscript,
    NonStringId,
    NotAnEntry,
    ParentCycle,
    SelfParent,
    TranscriptEntry,
    TranscriptError,
    TranscriptTree,
    UnknownTranscriptEntry,
    children_of,
    index_entries,
    index_if_appended_in_order,
    validate,
)
from tests import drawn
from tests.targets import is_reference, load_target

impl = load_target("ch02_parent_pointers", "learn_pi_lab.session_tree")

# path_to: deeper than any recursion limit, and long enough that building the path at the
# front (``insert(0, entry)`` or ``[entry] + path``, quadratic) runs past the time limit.
PATH_TO_CHAIN = 500_000
# validate: walking to the root from every entry (quadratic) is 2 * 10**10 steps here.
VALIDATE_CHAIN = 200_000
LIBRARY_CHAIN = 1_000_000   # the reference code is held to a million (not graded)
LONG_CYCLE = 50_000         # long enough that a quadratic or recursive search gives up


# --------------------------------------------------------------------------------------
# Small helpers: build entries from (id, parent) pairs and talk about them in messages
# --------------------------------------------------------------------------------------

def chain(*pairs: tuple[str, str | None]) -> list[TranscriptEntry]:
    return [TranscriptEntry(entry_id, parent_id) for entry_id, parent_id in pairs]


def by_id(entries: Iterable[TranscriptEntry]) -> dict[str, TranscriptEntry]:
    return {entry.id: entry for entry in entries}


def ids(entries: Iterable[TranscriptEntry]) -> list[str]:
    return [entry.id for entry in entries]


def arrows(entry_ids: Iterable[str]) -> str:
    return " -> ".join(entry_ids)


def parents_text(entries: Iterable[TranscriptEntry]) -> str:
    """``a(root), b->a, c->b``: how a test's input reads in a message."""
    return ", ".join(f"{e.id}(root)" if e.parent_id is None else f"{e.id}->{e.parent_id}"
                     for e in entries)


def long_chain(length: int) -> tuple[TranscriptEntry, ...]:
    """``e0 <- e1 <- ... <- e(length-1)``. Call it inside ``with chain_without_gc():``."""
    chain_ids = [f"e{i}" for i in range(length)]
    return tuple(map(TranscriptEntry, chain_ids, [None] + chain_ids[:-1]))


@contextmanager
def chain_without_gc() -> Iterator[None]:
    """Scope for a test on a long chain: the garbage collector leaves its entries alone.

    None of a chain's entries can be garbage, yet each batch of new objects would trigger
    a collection that scans all of them again. Paused while the chain is built, then
    frozen (kept out of every later collection) until the test ends; ``finally`` restores
    both, so no other test runs with the collector changed.
    """
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def freeze_built_objects() -> None:
    """Inside ``chain_without_gc``, once the chain is built: collections skip it."""
    gc.freeze()
    gc.enable()


def long_cycle() -> list[TranscriptEntry]:
    """``c0 -> c(N-1) -> ... -> c1 -> c0``: every entry's parent is the one before it,
    and the first one's parent is the last one, so there is no root at all."""
    cycle_ids = [f"c{i}" for i in range(LONG_CYCLE)]
    return [TranscriptEntry(cycle_ids[i], cycle_ids[i - 1]) for i in range(LONG_CYCLE)]


# A small forest used by many tests:
#
#   r ── a ── b ── c          (the main branch, c is its leaf)
#         └── x ── y          (a branch from a)
#   r2 ── z                   (a second root)
FOREST = chain(("r", None), ("a", "r"), ("b", "a"), ("c", "b"),
               ("x", "a"), ("y", "x"), ("r2", None), ("z", "r2"))


class ExerciseTestCase(unittest.TestCase):
    """Shared checks that phrase failures for a learner, not for a test author."""

    longMessage = False  # show our sentence alone, not "X != Y : sentence"

    def expect_error(self, error_type: type[BaseException], call: Callable[[], object],
                     situation: str) -> BaseException:
        """Run ``call`` and return the ``error_type`` it raises; otherwise fail with a
        message naming the situation, the error expected and what happened instead."""
        try:
            returned = call()
        except error_type as error:
            return error
        except NotImplementedError:  # the untouched stub: let the harness say "not started"
            raise
        except Exception as error:  # the wrong error: say which one, and which was wanted
            self.fail(t("harness.test.wrong_error", situation=situation,
                        want=error_type.__name__,
                        got=f"{type(error).__name__}: {explain(error)}"))
        self.fail(t("harness.test.no_error", situation=situation, want=error_type.__name__,
                    got=_short(returned)))

    def assert_cycle(self, error: BaseException, members: set[str],
                     entries: Iterable[TranscriptEntry], situation: str) -> None:
        """A ``ParentCycle`` must name exactly the loop, each id followed by its parent."""
        cycle = tuple(getattr(error, "cycle", ()))
        self.assertEqual(set(cycle), members,
                         t("harness.test.cycle_members", situation=situation,
                           want=sorted(members), got=_short(list(cycle))))
        self.assertEqual(len(cycle), len(members),
                         t("harness.test.cycle_members", situation=situation,
                           want=sorted(members), got=_short(list(cycle))))
        parent_of = {entry.id: entry.parent_id for entry in entries}
        for position, entry_id in enumerate(cycle):
            following = cycle[(position + 1) % len(cycle)]
            self.assertEqual(parent_of[entry_id], following,
                             t("harness.test.cycle_order", situation=situation,
                               got=_short(list(cycle))))

    def assert_long_path(self, length: int) -> None:
        """``path_to`` from the leaf of a ``length``-entry chain returns all of it, root first."""
        with chain_without_gc():
            entries = long_chain(length)
            entries_by_id = by_id(entries)
            freeze_built_objects()
            path = impl.path_to(entries_by_id, entries[-1].id)
        self.assertEqual(len(path), length,
                         t("harness.test.long_chain_length", want=length, got=len(path)))
        for position in (0, 1, length // 2, length - 1):
            self.assertEqual(path[position].id, f"e{position}",
                             t("harness.test.long_chain_order", position=position,
                               want=f"e{position}", got=path[position].id))

    def assert_valid(self, entries: Iterable[TranscriptEntry], shown: str) -> None:
        """``validate`` accepts ``entries`` (``shown`` is how the message names them)."""
        try:
            returned = impl.validate(entries)
        except TranscriptError as error:
            self.fail(t("harness.test.valid_rejected", entries=shown,
                        got=f"{type(error).__name__}: {explain(error)}"))
        self.assertIsNone(returned, t("harness.test.valid_returns_none", got=_short(returned)))


def _short(value: object, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + " ..."


# --------------------------------------------------------------------------------------
# Drawn inputs (tests/drawn.py): random small forests, some damaged, for path-to and validate
# --------------------------------------------------------------------------------------

# The error classes the two functions' contract names, most specific first: a learner's error
# agrees with the reference's when it is an instance of the same one of these (a subclass is
# fine, as in the visible tests) and names the same ids.
TREE_ERRORS = (ParentCycle, DuplicateEntryId, SelfParent, UnknownTranscriptEntry)


def drawn_entries(rng: random.Random, size: int) -> list[TranscriptEntry]:
    """A drawn session's tree as entries: ids and parents only, a forest of one root."""
    return [TranscriptEntry(entry["id"], entry["parentId"])
            for entry in drawn.session(rng, size, {"message": 1})]


def reaches(parent_of: dict[str, str | None], start: str, target: str) -> bool:
    """Following parents from ``start`` (itself included) meets ``target``."""
    seen: set[str] = set()
    current: str | None = start
    while current is not None and current not in seen:
        if current == target:
            return True
        seen.add(current)
        current = parent_of.get(current)
    return False


def damaged(rng: random.Random, entries: list[TranscriptEntry],
            times: int) -> list[TranscriptEntry]:
    """``entries`` with ``times`` parents changed: to an id nobody has (a dangling parent),
    to the entry itself, or to one of its own descendants (a loop)."""
    entries = list(entries)
    for _ in range(times):
        index = rng.randrange(len(entries))
        entry = entries[index]
        parent_of = {e.id: e.parent_id for e in entries}
        what = rng.choice(("missing", "self", "loop", "loop"))
        if what == "missing":
            parent = drawn.hex_id(rng, parent_of)
        elif what == "self":
            parent = entry.id
        else:   # a descendant: the entries whose walk up meets this one (itself, if none)
            below = [e.id for e in entries
                     if e.id != entry.id and reaches(parent_of, e.id, entry.id)]
            parent = rng.choice(below or [entry.id])
        entries[index] = TranscriptEntry(entry.id, parent)
    return entries


def draw_path_to(rng: random.Random, size: int) -> tuple:
    entries = damaged(rng, drawn_entries(rng, size), rng.choice((0, 0, 1, 1, 2)))
    ids_drawn = [entry.id for entry in entries]
    leaf = rng.choice(ids_drawn) if rng.random() < 0.9 else drawn.hex_id(rng, ids_drawn)
    return by_id(entries), leaf


def draw_validate(rng: random.Random, size: int) -> tuple:
    entries = damaged(rng, drawn_entries(rng, size), rng.choice((0, 0, 1, 1, 2, 3)))
    if rng.random() < 0.3:   # an id claimed again, by an entry anywhere in the file
        for _ in range(rng.randint(1, 2)):
            again = TranscriptEntry(rng.choice(entries).id,
                                    rng.choice([None] + [e.id for e in entries]))
            entries.insert(rng.randint(0, len(entries)), again)
    if rng.random() < 0.3:   # children before their parents: still a forest
        rng.shuffle(entries)
    return (entries,)


def is_loop(cycle: object, parent_of: dict[str, str | None]) -> bool:
    """``cycle`` is a loop of the entries, in parent order: each id, then its parent, ...,
    back to the first (any of its ids may come first)."""
    try:
        ids_in = tuple(cycle)  # type: ignore[call-overload]
    except TypeError:
        return False
    return bool(ids_in) and len(set(ids_in)) == len(ids_in) and all(
        entry_id in parent_of and parent_of[entry_id] == ids_in[(n + 1) % len(ids_in)]
        for n, entry_id in enumerate(ids_in))


def same_tree_error(want: BaseException, got: BaseException,
                    parent_of: dict[str, str | None], *, validating: bool) -> bool:
    """What the contract fixes of an error: its class, and the ids the visible tests check:
    ``entry_id``, ``referenced_by``, and for a loop its ids in parent order, from any of
    them. ``validating``: ``validate``'s contract names "a cycle" and "an entry that is its
    own parent", not which one when there are several, so any loop or self-parent of the
    entries will do (the walk of ``path_to`` meets one loop only)."""
    kind = next((cls for cls in TREE_ERRORS if isinstance(want, cls)), type(want))
    if not isinstance(got, kind):
        return False
    if kind is ParentCycle:
        cycle = getattr(got, "cycle", None)
        return is_loop(cycle, parent_of) and (validating or set(cycle) == set(want.cycle))
    if kind is UnknownTranscriptEntry:
        return (getattr(got, "entry_id", None), getattr(got, "referenced_by", None)) == \
            (want.entry_id, want.referenced_by)
    if kind is SelfParent and validating:
        named = getattr(got, "entry_id", None)
        return named in parent_of and parent_of[named] == named
    return getattr(got, "entry_id", None) == getattr(want, "entry_id", None)


PATH_TO_DRAWN = drawn.Drawn(
    "path-to", draw=draw_path_to, reference=tree_reference.path_to,
    answer=lambda path: [entry.id for entry in path],
    same_error=lambda want, got, args: same_tree_error(
        want, got, {e.id: e.parent_id for e in args[0].values()}, validating=False),
    shown=lambda args: t("harness.test.case_input", entries=parents_text(args[0].values()),
                         leaf=args[1]))

VALIDATE_DRAWN = drawn.Drawn(
    "validate", draw=draw_validate, reference=tree_reference.validate,
    same_error=lambda want, got, args: same_tree_error(
        want, got, {e.id: e.parent_id for e in args[0]}, validating=True),
    shown=lambda args: parents_text(args[0]))


# --------------------------------------------------------------------------------------
# Exercise path-to
# --------------------------------------------------------------------------------------

class PathToTests(ExerciseTestCase):
    """``path_to(entries_by_id, leaf_id)``: walk parent pointers, answer root first."""

    def path_ids(self, entries: list[TranscriptEntry], leaf_id: str) -> list[str]:
        return ids(impl.path_to(by_id(entries), leaf_id))

    def test_root_first(self) -> None:
        got = self.path_ids(FOREST, "c")
        self.assertEqual(got, ["r", "a", "b", "c"],
                         t("harness.test.path_order", leaf="c", want=arrows("rabc"),
                           got=arrows(got)))

    def test_returns_a_tuple_of_the_entries_themselves(self) -> None:
        entries = by_id(FOREST)
        path = impl.path_to(entries, "c")
        self.assertIsInstance(path, tuple, t("harness.test.path_tuple", got=type(path).__name__))
        for entry in path:
            self.assertIs(entry, entries[entry.id],
                          t("harness.test.path_same_entries", got=_short(entry)))

    def test_a_root_is_its_own_path(self) -> None:
        got = self.path_ids(FOREST, "r")
        self.assertEqual(got, ["r"], t("harness.test.path_root", got=got))

    def test_path_to_a_middle_entry_stops_there(self) -> None:
        got = self.path_ids(FOREST, "a")
        self.assertEqual(got, ["r", "a"],
                         t("harness.test.path_order", leaf="a", want=arrows("ra"),
                           got=arrows(got)))

    def test_a_branch_leaves_out_its_siblings(self) -> None:
        got = self.path_ids(FOREST, "y")
        self.assertEqual(got, ["r", "a", "x", "y"],
                         t("harness.test.path_order", leaf="y", want=arrows("raxy"),
                           got=arrows(got)))

    def test_second_root(self) -> None:
        got = self.path_ids(FOREST, "z")
        self.assertEqual(got, ["r2", "z"],
                         t("harness.test.path_order", leaf="z", want="r2 -> z",
                           got=arrows(got)))

    def test_works_on_a_read_only_mapping(self) -> None:
        read_only = MappingProxyType(by_id(FOREST))
        got = ids(impl.path_to(read_only, "c"))
        self.assertEqual(got, ["r", "a", "b", "c"], t("harness.test.path_read_only"))

    def test_unknown_leaf(self) -> None:
        error = self.expect_error(UnknownTranscriptEntry,
                                  lambda: impl.path_to(by_id(FOREST), "nope"),
                                  t("harness.test.case_unknown_leaf", leaf="nope"))
        self.assertEqual(error.entry_id, "nope",
                         t("harness.test.error_names", want="nope", got=error.entry_id))
        self.assertIsNone(error.referenced_by,
                          t("harness.test.unknown_leaf_referenced_by",
                            got=error.referenced_by))

    def test_missing_parent_is_named(self) -> None:
        entries = chain(("r", None), ("a", "r"), ("b", "ghost"), ("c", "b"))
        situation = t("harness.test.case_input", entries=parents_text(entries), leaf="c")
        error = self.expect_error(UnknownTranscriptEntry,
                                  lambda: impl.path_to(by_id(entries), "c"), situation)
        self.assertEqual((error.entry_id, error.referenced_by), ("ghost", "b"),
                         t("harness.test.dangling_names", missing="ghost", child="b",
                           got=(error.entry_id, error.referenced_by)))

    def test_self_parent_is_a_cycle(self) -> None:
        entries = chain(("s", "s"))
        situation = t("harness.test.case_input", entries=parents_text(entries), leaf="s")
        error = self.expect_error(ParentCycle, lambda: impl.path_to(by_id(entries), "s"),
                                  situation)
        self.assert_cycle(error, {"s"}, entries, situation)

    def test_cycle_above_the_leaf(self) -> None:
        entries = chain(("a", "b"), ("b", "a"), ("leaf", "a"))
        situation = t("harness.test.case_input", entries=parents_text(entries), leaf="leaf")
        error = self.expect_error(ParentCycle, lambda: impl.path_to(by_id(entries), "leaf"),
                                  situation)
        self.assert_cycle(error, {"a", "b"}, entries, situation)

    def test_long_cycle_ends(self) -> None:
        entries = long_cycle()
        situation = t("harness.test.case_long_cycle", n=LONG_CYCLE)
        error = self.expect_error(ParentCycle, lambda: impl.path_to(by_id(entries), "c0"),
                                  situation)
        self.assertEqual(len(error.cycle), LONG_CYCLE,
                         t("harness.test.cycle_length", situation=situation, want=LONG_CYCLE,
                           got=len(error.cycle)))

    def test_long_chain(self) -> None:
        self.assert_long_path(PATH_TO_CHAIN)

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        PATH_TO_DRAWN.check(self, impl.path_to)


# --------------------------------------------------------------------------------------
# Exercise validate
# --------------------------------------------------------------------------------------

class ValidateTests(ExerciseTestCase):
    """``validate(entries)``: the four structural errors, in a fixed order, in linear time."""

    def expect_invalid(self, error_type: type[BaseException],
                       entries: list[TranscriptEntry]) -> BaseException:
        situation = t("harness.test.case_entries", entries=parents_text(entries))
        return self.expect_error(error_type, lambda: impl.validate(entries), situation)

    def test_a_forest_is_valid(self) -> None:
        self.assert_valid(FOREST, parents_text(FOREST))

    def test_no_entries_is_valid(self) -> None:
        self.assert_valid([], "[]")

    def test_duplicate_id(self) -> None:
        entries = chain(("r", None), ("a", "r"), ("a", None))
        error = self.expect_invalid(DuplicateEntryId, entries)
        self.assertEqual(error.entry_id, "a",
                         t("harness.test.error_names", want="a", got=error.entry_id))

    def test_first_duplicate_in_file_order(self) -> None:
        entries = chain(("a", None), ("b", "a"), ("b", "a"), ("a", None))
        error = self.expect_invalid(DuplicateEntryId, entries)
        self.assertEqual(error.entry_id, "b", t("harness.test.first_in_file_order",
                                                want="b", got=error.entry_id))

    def test_self_parent(self) -> None:
        entries = chain(("r", None), ("s", "s"))
        error = self.expect_invalid(SelfParent, entries)
        self.assertEqual(error.entry_id, "s",
                         t("harness.test.error_names", want="s", got=error.entry_id))

    def test_dangling_parent(self) -> None:
        entries = chain(("r", None), ("a", "r"), ("b", "ghost"))
        error = self.expect_invalid(UnknownTranscriptEntry, entries)
        self.assertEqual((error.entry_id, error.referenced_by), ("ghost", "b"),
                         t("harness.test.dangling_names", missing="ghost", child="b",
                           got=(error.entry_id, error.referenced_by)))

    def test_first_dangling_parent_in_file_order(self) -> None:
        # (file order is not alphabetical: a learner's review passed "the smallest id")
        entries = chain(("r", None), ("b", "ghost-2"), ("c", "ghost-1"))
        error = self.expect_invalid(UnknownTranscriptEntry, entries)
        self.assertEqual(error.entry_id, "ghost-2",
                         t("harness.test.first_in_file_order", want="ghost-2",
                           got=error.entry_id))

    def test_two_entry_cycle(self) -> None:
        entries = chain(("r", None), ("a", "b"), ("b", "a"))
        error = self.expect_invalid(ParentCycle, entries)
        self.assert_cycle(error, {"a", "b"}, entries, parents_text(entries))

    def test_three_entry_cycle_with_a_tail(self) -> None:
        # t -> a -> b -> c -> a: the tail t leads into the loop but is not part of it.
        entries = chain(("t", "a"), ("a", "b"), ("b", "c"), ("c", "a"))
        error = self.expect_invalid(ParentCycle, entries)
        self.assert_cycle(error, {"a", "b", "c"}, entries, parents_text(entries))

    def test_cycle_far_from_any_root(self) -> None:
        entries = FOREST + chain(("p", "q"), ("q", "s"), ("s", "p"), ("leaf", "p"))
        error = self.expect_invalid(ParentCycle, entries)
        self.assert_cycle(error, {"p", "q", "s"}, entries, parents_text(entries))

    def test_duplicates_are_checked_first(self) -> None:
        entries = chain(("s", "s"), ("b", None), ("b", None))
        error = self.expect_invalid(DuplicateEntryId, entries)
        self.assertEqual(error.entry_id, "b", t("harness.test.check_order",
                                                want="DuplicateEntryId"))

    def test_self_parent_before_dangling_parent(self) -> None:
        entries = chain(("a", "ghost"), ("s", "s"))
        self.expect_invalid(SelfParent, entries)

    def test_dangling_parent_before_cycle(self) -> None:
        entries = chain(("x", "y"), ("y", "x"), ("a", "ghost"))
        error = self.expect_invalid(UnknownTranscriptEntry, entries)
        self.assertEqual(error.entry_id, "ghost",
                         t("harness.test.check_order", want="UnknownTranscriptEntry"))

    def test_reads_any_iterable_once(self) -> None:
        entries = chain(("r", None), ("a", "r"), ("b", "ghost"))
        situation = t("harness.test.case_iterator", entries=parents_text(entries))
        self.expect_error(UnknownTranscriptEntry, lambda: impl.validate(iter(entries)),
                          situation)
        self.assert_valid((entry for entry in FOREST), parents_text(FOREST))

    def test_long_cycle_ends(self) -> None:
        entries = long_cycle()
        situation = t("harness.test.case_long_cycle", n=LONG_CYCLE)
        error = self.expect_error(ParentCycle, lambda: impl.validate(entries), situation)
        self.assertEqual(len(error.cycle), LONG_CYCLE,
                         t("harness.test.cycle_length", situation=situation, want=LONG_CYCLE,
                           got=len(error.cycle)))

    def test_long_chain(self) -> None:
        with chain_without_gc():
            entries = long_chain(VALIDATE_CHAIN)
            freeze_built_objects()
            self.assert_valid(entries, t("harness.test.case_long_chain", n=VALIDATE_CHAIN))

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        VALIDATE_DRAWN.check(self, impl.validate)


# --------------------------------------------------------------------------------------
# The package's own functions at a million entries (reference only: too slow to grade a
# whole class with, and the graded chains above already catch recursion and quadratic time)
# --------------------------------------------------------------------------------------

@unittest.skipUnless(is_reference(), "holds learn_pi_lab.session_tree to a million entries")
class MillionEntryTests(ExerciseTestCase):

    def test_path_to_a_million_entries_deep(self) -> None:
        self.assert_long_path(LIBRARY_CHAIN)

    def test_validate_a_million_entries(self) -> None:
        with chain_without_gc():
            entries = long_chain(LIBRARY_CHAIN)
            freeze_built_objects()
            self.assert_valid(entries, t("harness.test.case_long_chain", n=LIBRARY_CHAIN))


# --------------------------------------------------------------------------------------
# The package's TranscriptTree (reference only: a workspace has no tree class to grade)
# --------------------------------------------------------------------------------------

@unittest.skipUnless(is_reference(), "checks learn_pi_lab.session_tree itself, not a workspace")
class TranscriptTreeTests(unittest.TestCase):

    def setUp(self) -> None:
        self.tree = TranscriptTree(FOREST)

    def test_leaf_defaults_to_the_last_entry(self) -> None:
        self.assertEqual(self.tree.leaf_id, "z")
        self.assertIsNone(TranscriptTree().leaf_id)
        self.assertEqual(TranscriptTree(FOREST, leaf_id="c").leaf_id, "c")

    def test_construction_validates(self) -> None:
        with self.assertRaises(UnknownTranscriptEntry):
            TranscriptTree(chain(("a", "ghost")))
        with self.assertRaises(ParentCycle):
            TranscriptTree(chain(("a", "b"), ("b", "a")))
        with self.assertRaises(UnknownTranscriptEntry):
            TranscriptTree(FOREST, leaf_id="nope")

    def test_container_protocol(self) -> None:
        self.assertEqual(len(self.tree), len(FOREST))
        self.assertIn("x", self.tree)
        self.assertNotIn("nope", self.tree)
        self.assertEqual(self.tree["x"].parent_id, "a")
        self.assertEqual(ids(self.tree), ids(FOREST))
        self.assertEqual(self.tree.entries, tuple(FOREST))
        with self.assertRaises(UnknownTranscriptEntry):
            self.tree["nope"]

    def test_children_in_file_order(self) -> None:
        self.assertEqual(ids(self.tree.children("a")), ["b", "x"])
        self.assertEqual(ids(self.tree.children("c")), [])
        with self.assertRaises(UnknownTranscriptEntry):
            self.tree.children("nope")

    def test_children_of_is_derived_from_parents(self) -> None:
        derived = children_of(FOREST)
        self.assertEqual(ids(derived[None]), ["r", "r2"])
        self.assertEqual(ids(derived["a"]), ["b", "x"])
        self.assertNotIn("c", derived)

    def test_roots_and_leaves(self) -> None:
        self.assertEqual(ids(self.tree.roots()), ["r", "r2"])
        self.assertEqual(ids(self.tree.leaves()), ["c", "y", "z"])

    def test_depth(self) -> None:
        self.assertEqual(self.tree.depth("r"), 0)
        self.assertEqual(self.tree.depth("c"), 3)
        self.assertEqual(self.tree.depth("y"), 3)

    def test_path_to_defaults_to_the_leaf(self) -> None:
        self.assertEqual(ids(self.tree.path_to()), ["r2", "z"])
        self.assertEqual(ids(self.tree.path_to("y")), ["r", "a", "x", "y"])
        self.assertEqual(TranscriptTree().path_to(), ())

    def test_move_leaf_deletes_nothing(self) -> None:
        moved = self.tree.move_leaf("b")
        self.assertEqual(moved.leaf_id, "b")
        self.assertEqual(moved.entries, self.tree.entries)
        self.assertEqual(ids(moved.path_to()), ["r", "a", "b"])
        with self.assertRaises(UnknownTranscriptEntry):
            self.tree.move_leaf("nope")

    def test_append_grows_the_current_branch(self) -> None:
        grown = self.tree.move_leaf("c").append("d", kind="compaction", payload={"k": 1})
        self.assertEqual(grown.leaf_id, "d")
        self.assertEqual(grown["d"], TranscriptEntry("d", "c", kind="compaction"))
        self.assertEqual(dict(grown["d"].payload), {"k": 1})
        self.assertEqual(ids(grown.path_to()), ["r", "a", "b", "c", "d"])
        self.assertEqual(ids(grown.entries), ids(FOREST) + ["d"])
        with self.assertRaises(DuplicateEntryId):
            grown.append("d")

    def test_branch_from_is_rewind_plus_append(self) -> None:
        branched = self.tree.branch_from("b", "b2")
        self.assertEqual(branched.leaf_id, "b2")
        self.assertEqual(branched["b2"].parent_id, "b")
        self.assertEqual(ids(branched.children("b")), ["c", "b2"])
        same = self.tree.move_leaf("b").append("b2")
        self.assertEqual(branched.entries, same.entries)
        self.assertEqual(branched.leaf_id, same.leaf_id)

    def test_append_after_rewind_to_none_starts_a_new_root(self) -> None:
        grown = self.tree.move_leaf(None).append("new")
        self.assertIsNone(grown["new"].parent_id)
        self.assertEqual(ids(grown.roots()), ["r", "r2", "new"])

    def test_changes_leave_the_old_tree_untouched(self) -> None:
        before_entries, before_leaf = self.tree.entries, self.tree.leaf_id
        self.tree.move_leaf("a")
        self.tree.append("n1")
        self.tree.branch_from("x", "n2")
        self.assertEqual(self.tree.entries, before_entries)
        self.assertEqual(self.tree.leaf_id, before_leaf)
        self.assertNotIn("n1", self.tree)
        self.assertEqual(ids(self.tree.children("x")), ["y"])

    def test_entries_are_frozen(self) -> None:
        with self.assertRaises(AttributeError):
            FOREST[0].parent_id = "x"  # type: ignore[misc]

    def test_index_entries(self) -> None:
        self.assertEqual(set(index_entries(FOREST)), set(ids(FOREST)))
        with self.assertRaises(DuplicateEntryId):
            index_entries(chain(("a", None), ("a", None)))

    def test_errors_name_the_ids(self) -> None:
        error = UnknownTranscriptEntry("ghost", referenced_by="b")
        self.assertEqual(error.entry_ids, ("ghost", "b"))
        self.assertEqual(str(error), "dangling parent for 'b': 'ghost'")
        self.assertIsInstance(error, KeyError)
        self.assertEqual(str(UnknownTranscriptEntry("x")), "unknown transcript entry: 'x'")
        cycle = ParentCycle(["a", "b"])
        self.assertEqual(cycle.cycle, ("a", "b"))
        self.assertEqual(str(cycle), "cycle detected involving entry 'a': a -> b -> a")

    def test_a_dangling_parent_is_both_an_unknown_entry_and_malformed(self) -> None:
        with self.assertRaises(DanglingParent) as caught:
            TranscriptTree(chain(("a", None), ("b", "ghost")))
        error = caught.exception
        self.assertIsInstance(error, UnknownTranscriptEntry)
        self.assertIsInstance(error, MalformedTranscript)
        self.assertEqual((error.entry_id, error.referenced_by), ("ghost", "b"))
        named_as_parent = UnknownTranscriptEntry("ghost", referenced_by="b")
        self.assertIs(type(named_as_parent), DanglingParent,
                      "an unknown id named as a parent is a dangling parent, whoever raises it")
        unknown_leaf = UnknownTranscriptEntry("nope")
        self.assertNotIsInstance(unknown_leaf, MalformedTranscript,
                                 "asking for a missing id does not make the entries malformed")
        for typed in (DuplicateEntryId("a"), SelfParent("a"), ParentCycle(["a"])):
            self.assertIsInstance(typed, MalformedTranscript)
            self.assertIsInstance(typed, ValueError)

    def test_errors_survive_pickling(self) -> None:
        for error in (DanglingParent("p", "c"), ParentCycle(["a", "b"]),
                      UnknownTranscriptEntry("x"), DuplicateEntryId("d")):
            copy = pickle.loads(pickle.dumps(error))
            self.assertIs(type(copy), type(error))
            self.assertEqual((str(copy), copy.entry_ids), (str(error), error.entry_ids))

    def test_empty_id_and_foreign_values_are_malformed(self) -> None:
        with self.assertRaises(EmptyEntryId):
            TranscriptTree(chain(("", None)))
        with self.assertRaises(NotAnEntry):
            TranscriptTree([TranscriptEntry("a", None), ("b", "a")])  # type: ignore[list-item]
        with self.assertRaises(EmptyEntryId):
            self.tree.append("")

    def test_ids_that_are_not_strings_are_malformed_not_type_errors(self) -> None:
        for wrong in (5, ["a"], {"id": "a"}, None):
            with self.subTest(id=wrong):
                with self.assertRaises(NonStringId) as caught:
                    TranscriptTree([TranscriptEntry("a", None), TranscriptEntry(wrong, "a")])
                self.assertEqual((caught.exception.index, caught.exception.type_name),
                                 (1, type(wrong).__name__))
                explain(caught.exception)
                with self.assertRaises(NonStringId):
                    self.tree.append(wrong)
        with self.assertRaises(NonStringId):   # a line without an id (a KeyError before)
            TranscriptTree([TranscriptEntry.from_json({"type": "message", "parentId": None})])
        for parent in (["a"], {"a": 1}, 5):
            with self.subTest(parent=parent), self.assertRaises(DanglingParent):
                TranscriptTree([TranscriptEntry("a", None), TranscriptEntry("b", parent)])
        for asked in (["a"], {"a": 1}):
            with self.subTest(asked=asked), self.assertRaises(UnknownTranscriptEntry):
                self.tree[asked]

    def test_an_empty_parent_id_is_dangling_not_a_root(self) -> None:
        with self.assertRaises(DanglingParent) as caught:
            TranscriptTree(chain(("a", None), ("b", "")))
        self.assertEqual(caught.exception.entry_id, "")

    def test_cycle_reached_from_a_tail_is_found(self) -> None:
        with self.assertRaises(ParentCycle) as caught:
            TranscriptTree(chain(("tail", "a"), ("a", "b"), ("b", "a")))
        self.assertEqual(set(caught.exception.cycle), {"a", "b"})

    def test_children_before_parents_are_fine(self) -> None:
        tree = TranscriptTree(chain(("c", "b"), ("b", "a"), ("a", None)))
        self.assertEqual(ids(tree.path_to("c")), ["a", "b", "c"])

    def test_the_quick_index_agrees_with_validate(self) -> None:
        cases = [FOREST, [], chain(("c", "b"), ("b", "a"), ("a", None)), chain(("s", "s")),
                 chain(("a", None), ("a", None)), chain(("a", None), ("b", "ghost")),
                 chain(("a", "b"), ("b", "a")), chain(("", None)), chain(("a", None), ("b", ""))]
        for entries in cases:
            quick = index_if_appended_in_order(entries)
            try:
                validate(entries)
                valid = True
            except MalformedTranscript:
                valid = False
            with self.subTest(entries=parents_text(entries)):
                if quick is not None:
                    self.assertTrue(valid, "the quick pass accepted a malformed list")
                    self.assertEqual(list(quick), ids(entries))
        self.assertIsNotNone(index_if_appended_in_order(FOREST))
        self.assertIsNone(index_if_appended_in_order(chain(("c", "b"), ("b", None))),
                          "a child before its parent takes the full validate")

    def test_append_shares_the_entries_and_keeps_old_trees_as_they_were(self) -> None:
        trees = [TranscriptTree()]
        for number in range(5):
            trees.append(trees[-1].append(f"n{number}"))
        self.assertEqual([len(tree) for tree in trees], [0, 1, 2, 3, 4, 5])
        self.assertIs(trees[5]._log, trees[1]._log, "appends share one log: no copy")
        self.assertNotIn("n3", trees[2])
        self.assertEqual(trees[2].branch_ids(), ("n0", "n1"))
        with self.assertRaises(UnknownTranscriptEntry):
            trees[2]["n3"]
        self.assertEqual(ids(trees[5].path_to()), ["n0", "n1", "n2", "n3", "n4"])

    def test_appending_twice_to_the_same_old_tree_gives_two_histories(self) -> None:
        base = TranscriptTree(chain(("r", None)))
        first = base.append("x")
        second = base.append("x")          # the same id again, on another copy: allowed
        other = base.append("y")
        self.assertEqual(ids(first.path_to()), ["r", "x"])
        self.assertEqual(ids(second.path_to()), ["r", "x"])
        self.assertEqual(ids(other), ["r", "y"])
        self.assertNotIn("y", first)
        self.assertEqual(len(base), 1)
        self.assertEqual(ids(first.move_leaf("r").append("z")), ["r", "x", "z"])
        self.assertEqual(ids(first), ["r", "x"])

    def test_append_takes_constant_work(self) -> None:
        # Counted, not timed: an append must not copy the entries it already has.
        tree = TranscriptTree(long_chain(1000))
        copies = []
        original = type(tree._log).first

        def counting_first(log, length):
            copies.append(length)
            return original(log, length)

        type(tree._log).first = counting_first  # type: ignore[method-assign]
        try:
            for number in range(1000):
                tree = tree.append(f"x{number}")
        finally:
            type(tree._log).first = original  # type: ignore[method-assign]
        self.assertEqual(copies, [])
        self.assertEqual(len(tree), 2000)

    def test_from_json(self) -> None:
        entry = TranscriptEntry.from_json({"type": "label", "id": "l1", "parentId": "a"})
        self.assertEqual((entry.id, entry.parent_id, entry.kind), ("l1", "a", "label"))
        self.assertEqual(entry.payload["type"], "label")
        self.assertIsNone(TranscriptEntry.from_json({"id": "r"}).parent_id)


if __name__ == "__main__":
    unittest.main()
