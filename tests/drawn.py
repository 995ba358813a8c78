"""Drawn inputs: the test a table of the visible tests' answers cannot pass.

Every visible test input is public (the tests are part of the course), so a function that
looks its answers up in a table keyed on those inputs passes them all. Each graded exercise
therefore ends with one more test, ``test_drawn_inputs``, whose inputs are drawn at run time
from a seed nobody knows in advance: a few dozen small random sessions, smallest first. The
code under test (the learner's, through the harness proxy when graded) must give, on each,
what the exercise's contract fixes of the package's own answer, computed here on the trusted
side by importing the reference module directly. The first difference fails the test with
one message: the drawn input (compact), the reference's answer, the learner's, and the seed
with the command that draws the same inputs again.

**The seed.** ``LEARN_PI_LAB_DRAWN_SEED`` when it is set (``grade`` and ``verify`` draw one
per run, ``runner.drawn_seed``, and hand it to every exercise run, the reference's timing
included; a teacher or learner sets it to reproduce a verdict); otherwise one is drawn once
per process. Each exercise draws from ``random.Random(f"{seed}/{exercise}")``, so adding an
exercise changes no other exercise's inputs.

**Adding an exercise** (three steps):

1. At module level of its test file, describe its drawn inputs::

       STATE_AT_DRAWN = drawn.Drawn(
           "state-at", reference=context.state_at, answer=tuple,
           draw=lambda rng, size: (drawn.branch(rng, drawn.session(rng, size, KINDS)),))

   ``draw(rng, size)`` returns the call's arguments for a session of about ``size``
   entries (``session`` and ``branch`` below make them); ``reference`` is the package's
   function (imported directly, never through ``load_target``); ``answer`` keeps what the
   contract fixes of a returned value (``tuple``, ``dict``, the ids of a path);
   ``same_error`` decides whether two raised errors agree (default: the learner's is an
   instance of the reference's class); ``shown`` writes the input for the message.
2. As the **last** method of the exercise's test class (tests run in the order they are
   written, with failfast: a stub or a plausible mistake must still fail at the visible
   test it fails today)::

       def test_drawn_inputs(self) -> None:
           STATE_AT_DRAWN.check(self, state_impl.state_at)

3. Add a lookup-table cheat for it to ``tests/lookup_submissions/`` (and its line to that
   folder's ``expect.json``). ``tests/test_harness_drawn.py`` then proves the rest: the
   reference solution passes on many seeds, the cheat passes every visible test and fails
   this one under ``grade``.
"""

from __future__ import annotations

import json
import os
import random
import unittest
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from learn_pi_lab.errors import ReferenceHidden
from learn_pi_lab.harness.runner import DRAWN_SEED_ENV, drawn_seed
from learn_pi_lab.i18n import explain, t

CASES = 40          # cases per exercise and run
SMALLEST, LARGEST = 1, 15   # entries in a drawn session, smallest first
SHOWN_INPUT = 600   # characters of the input in the message (then " ...")
SHOWN_ANSWER = 250  # characters of each answer (the whole message stays within the
                    # 1,500 characters the harness keeps of a message: child.MESSAGE_CHARS)
SHOWN_PLACE = 90    # characters of each side of the first difference, shown when an answer
                    # is cut at SHOWN_ANSWER (which can hide it) and the difference is inside
                    # the answers (an item of a list, a key of a dict); the input is then cut
                    # shorter by as much, so the message stays as long as before

REGISTRY: dict[str, "Drawn"] = {}   # exercise id -> its drawn inputs (filled on import)

_fresh_seed: str | None = None


def seed() -> str:
    """This run's seed: ``LEARN_PI_LAB_DRAWN_SEED`` when set, else one drawn once here."""
    global _fresh_seed
    given = os.environ.get(DRAWN_SEED_ENV, "").strip()
    if given:
        return given
    if _fresh_seed is None:
        _fresh_seed = drawn_seed()
    return _fresh_seed


# --------------------------------------------------------------------------------------
# Outcomes: what a call returned or raised
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    value: Any = None
    error: BaseException | None = None


# Raised by the code under test, these are not an answer to compare: they end the run the
# way they would in a visible test (a limit, the package's own solution refusing to run).
# Not ``NotImplementedError``: code that reaches the drawn test has passed every visible
# test, so it was started; raised here it is a difference (the harness would call the run
# "not started", and a table of the visible answers that raised it for anything else was
# graded so: a teacher's attacker's review).
# The classes themselves, never a name: a class of the learner's own named
# ``ReferenceHidden`` crosses as a stand-in of that name and is an answer like any other.
PASSED_ON = (MemoryError, BlockingIOError, ReferenceHidden)


def call(function: Callable, args: tuple, *, learner: bool) -> Outcome:
    try:
        return Outcome(value=function(*args))
    except Exception as error:   # (a WorkerGone, a timeout, is a BaseException: it ends the run)
        if learner and isinstance(error, PASSED_ON):
            raise
        return Outcome(error=error)


def same_class(want: BaseException, got: BaseException, args: tuple) -> bool:
    """The default: the learner's error is an instance of the reference's error class."""
    return isinstance(got, type(want))


def model_answer(exercise_id: str) -> Callable[..., Any]:
    """The exercise's function in its model answer (``learn_pi_lab/lessons/``), loaded
    from its file (never through ``load_target``)."""
    import importlib.util
    from pathlib import Path

    from learn_pi_lab.harness import catalog
    exercise = catalog.get(exercise_id)
    path = catalog.LESSONS / exercise.filename
    name = f"model_answer.{exercise.module}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, exercise.function)


def identity(value: Any) -> Any:
    return value


# --------------------------------------------------------------------------------------
# One exercise's drawn inputs
# --------------------------------------------------------------------------------------

@dataclass
class Drawn:
    """How one exercise draws its inputs and compares answers; see the module docstring."""
    exercise: str
    draw: Callable[[random.Random, int], tuple]
    reference: Callable[..., Any]
    answer: Callable[[Any], Any] = identity
    same_error: Callable[[BaseException, BaseException, tuple], bool] = same_class
    shown: Callable[[tuple], str] = field(default=None)  # type: ignore[assignment]
    cases: int = CASES

    def __post_init__(self) -> None:
        if self.shown is None:
            self.shown = shown_arguments
        REGISTRY[self.exercise] = self

    def inputs(self, seed_text: str) -> Iterable[tuple[int, tuple]]:
        """``(size, arguments)`` of every case, smallest first, always the same for a seed."""
        rng = random.Random(f"{seed_text}/{self.exercise}")
        for number in range(self.cases):
            size = SMALLEST + number * (LARGEST - SMALLEST) // max(1, self.cases - 1)
            yield size, self.draw(rng, size)

    def first_difference(self, learner: Callable[..., Any],
                         seed_text: str | None = None) -> str | None:
        """The message of the first case where ``learner`` and the reference disagree on
        what the contract fixes, or None when they agree on every case."""
        seed_text = seed_text or seed()
        # Every case is drawn twice, the same from the same seed: the reference, the
        # comparison and the message read one copy, the code under test is given the other.
        # Graded, a change the learner's code makes to what it was given comes back to the
        # trusted side (docs/grading.md, "changes"); on one shared copy it could change what
        # the reference returned (a list or dict of the input, kept in its answer) or what
        # ``same_error`` reads (a loop of its own added to the caller's entries), after the
        # reference ran. A reference that changed its input cannot show the learner its
        # answer either.
        theirs = self.inputs(seed_text)
        for number, (_size, args) in enumerate(self.inputs(seed_text), start=1):
            _size, given = next(theirs)
            want = call(self.reference, args, learner=False)
            got = call(learner, given, learner=True)
            if not self.agree(want, got, args):
                place = self.place(want, got)   # (the input is cut shorter by as much)
                return t("exercise_tests.drawn.differs", exercise=self.exercise, case=number,
                         cases=self.cases, input=cut(self.shown(args), SHOWN_INPUT - len(place)),
                         want=self.said(want), got=self.said(got), seed=seed_text,
                         env=DRAWN_SEED_ENV, place=place)
        return None

    def place(self, want: Outcome, got: Outcome) -> str:
        """``\n`` and where the two answers first differ (``[2]['details']``) with the two
        values there, when both are answers, one is too long to be shown whole and that
        place is inside them; else ''."""
        if want.error is not None or got.error is not None or not any(
                self.said(outcome).endswith(" ...") for outcome in (want, got)):
            return ""
        try:
            where, mine, theirs = first_place(self.answer(want.value), self.answer(got.value))
        except Exception:
            return ""
        if not where:
            return ""
        return "\n" + t("exercise_tests.drawn.first_place", place=cut(where, 60),
                        want=shown_value(mine), got=shown_value(theirs))

    def check(self, test: unittest.TestCase, learner: Callable[..., Any]) -> None:
        """The drawn test itself: fail ``test`` with the first difference's message.

        When the tests prove the package (no workspace, not graded), the code under test is
        the package's own function, the same as ``reference``: the drawn inputs then go to
        the exercise's model answer (``learn_pi_lab/lessons/``), written apart from the
        package, so the test compares two implementations on inputs nobody chose and can
        fail, instead of comparing the package with itself."""
        if self.compares_with_itself(learner):
            learner = model_answer(self.exercise)
        problem = self.first_difference(learner)
        if problem is not None:
            test.fail(problem)

    def compares_with_itself(self, learner: Callable[..., Any]) -> bool:
        """Is the code under test the package's own (the tests' default target), as the
        reference is?"""
        from learn_pi_lab.harness import proxy
        from tests.targets import is_reference
        module = getattr(learner, "__module__", None) or ""
        return is_reference() and not proxy.active() and module.startswith("learn_pi_lab.")

    def agree(self, want: Outcome, got: Outcome, args: tuple) -> bool:
        if (want.error is None) != (got.error is None):
            return False
        if want.error is not None:
            assert got.error is not None
            return bool(self.same_error(want.error, got.error, args))
        try:
            return bool(self.answer(want.value) == self.answer(got.value))
        except Exception:   # a value the contract's view cannot even read: not the answer
            return False

    def said(self, outcome: Outcome) -> str:
        """An outcome as the message shows it: the answer, or the error raised."""
        if outcome.error is not None:
            error = outcome.error
            text = explain(error)
            where = getattr(error, "learner_where", None)
            return cut(t("exercise_tests.drawn.raised",
                         error=f"{type(error).__name__}: {text}" if text
                         else type(error).__name__), SHOWN_ANSWER) + (
                f" ({where})" if where else "")
        try:
            value = self.answer(outcome.value)
        except Exception:
            value = outcome.value
        return cut(repr(value), SHOWN_ANSWER)


MISSING = object()   # a list item or dict key one answer has and the other has not


def shown_value(value: Any) -> str:
    return t("exercise_tests.drawn.missing") if value is MISSING else cut(repr(value),
                                                                          SHOWN_PLACE)


def first_place(want: Any, got: Any, where: str = "", depth: int = 0) -> tuple[str, Any, Any]:
    """Where ``got`` first differs from ``want``, walking into lists and dicts of the
    same kind: ``("[2]['details']", want's value there, got's)``; ``MISSING`` for an
    item or key only one of them has; ``where`` empty when they differ as a whole."""
    if depth > 20 or type(want) is not type(got):
        return where, want, got
    if isinstance(want, list):   # (a tuple is a short record: shown whole)
        for index in range(max(len(want), len(got))):
            mine = want[index] if index < len(want) else MISSING
            theirs = got[index] if index < len(got) else MISSING
            if mine is MISSING or theirs is MISSING:
                return f"{where}[{index}]", mine, theirs
            if mine != theirs:
                return first_place(mine, theirs, f"{where}[{index}]", depth + 1)
    elif isinstance(want, dict):
        for key in [*want, *(key for key in got if key not in want)]:
            mine, theirs = want.get(key, MISSING), got.get(key, MISSING)
            if mine is MISSING or theirs is MISSING:
                return f"{where}[{key!r}]", mine, theirs
            if mine != theirs:
                return first_place(mine, theirs, f"{where}[{key!r}]", depth + 1)
    return where, want, got


def cut(text: str, limit: int) -> str:
    text = " ".join(text.split("\n"))
    return text if len(text) <= limit else text[:limit] + " ..."


# --------------------------------------------------------------------------------------
# Showing an input compactly
# --------------------------------------------------------------------------------------

HIDDEN_FIELDS = ("parentId", "timestamp")   # a path or a file says them by its order


def brief(entry: Any) -> str:
    """One entry of a session as JSON without its parent (its position in a path or a file
    says where it is) and without timestamps (its own and its message's)."""
    if isinstance(entry, Mapping):
        shown = {key: value for key, value in entry.items() if key not in HIDDEN_FIELDS}
        if isinstance(shown.get("message"), Mapping):
            shown["message"] = {key: value for key, value in shown["message"].items()
                                if key != "timestamp"}
        return json.dumps(shown, ensure_ascii=False, separators=(",", ":"), default=repr)
    return repr(entry)


def shown_arguments(args: tuple) -> str:
    """The default: a list of entries one ``brief`` each, other arguments as ``repr``."""
    parts = []
    for argument in args:
        if isinstance(argument, (list, tuple)):
            parts.append("[" + ", ".join(brief(entry) for entry in argument) + "]")
        else:
            parts.append(repr(argument))
    return ", ".join(parts)


# --------------------------------------------------------------------------------------
# A random session: small trees of Pi entries
# --------------------------------------------------------------------------------------

PROVIDERS = ("acme", "anthropic", "openai", "google")
MODELS = ("alpha", "beta", "gamma", "sonnet", "gpt-5", "flash")
THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")
WORDS = ("start", "fix", "todo", "draft", "v2", "重构", "checkpoint", "idea")
CUSTOM_TYPES = ("todo", "plan", "notes")
DATA_KEYS = ("open", "done", "items", "plan", "step", "note")
BRANCHING = 0.3     # how often an entry starts a branch from an older entry


def hex_id(rng: random.Random, taken: set[str] | Sequence[str] = ()) -> str:
    """A fresh 8-hex-digit id, as Pi writes them."""
    while True:
        candidate = f"{rng.getrandbits(32):08x}"
        if candidate not in taken:
            return candidate


def value(rng: random.Random, depth: int = 0) -> Any:
    """A small JSON value: a number, a word, a list, sometimes a small object."""
    kind = rng.random()
    if kind < 0.35:
        return rng.randint(0, 9)
    if kind < 0.65:
        return rng.choice(WORDS)
    if kind < 0.85 or depth:
        return [rng.choice(WORDS) for _ in range(rng.randint(0, 3))]
    return {rng.choice(DATA_KEYS): value(rng, depth + 1) for _ in range(rng.randint(1, 2))}


def data(rng: random.Random) -> Any:
    """A ``custom`` entry's data: mostly an object of a few keys, sometimes not an object."""
    kind = rng.random()
    if kind < 0.8:
        return {rng.choice(DATA_KEYS): value(rng) for _ in range(rng.choice((0, 1, 2, 2, 3)))}
    return rng.choice([None, [1, 2], "done", 3])


def message_fields(rng: random.Random, earlier: Sequence[str]) -> dict:
    role = rng.choice(("user", "user", "assistant", "assistant", "toolResult"))
    text = rng.choice(WORDS)
    body: dict = {"role": role,
                  "content": text if role == "user" else [{"type": "text", "text": text}],
                  "timestamp": 1}
    if role == "assistant":
        body.update(provider=rng.choice(PROVIDERS), model=rng.choice(MODELS),
                    stopReason="stop")
    elif role == "toolResult":
        body.update(toolCallId=hex_id(rng), toolName="bash", isError=False)
    return {"message": body}


def label_fields(rng: random.Random, earlier: Sequence[str]) -> dict:
    # labels aim at a few entries again and again, so later ones override and clear earlier
    targets = list(earlier[:3]) if earlier and rng.random() < 0.7 else list(earlier)
    target = rng.choice(targets) if targets else hex_id(rng)
    fields: dict = {"targetId": target}
    kind = rng.random()
    if kind < 0.6:
        fields["label"] = rng.choice(WORDS)
    elif kind < 0.8:
        fields["label"] = ""
    return fields   # else: no label key at all


def custom_fields(rng: random.Random, earlier: Sequence[str]) -> dict:
    fields: dict = {"customType": rng.choice(CUSTOM_TYPES)}
    if rng.random() < 0.9:
        fields["data"] = data(rng)
    return fields


ENTRY_FIELDS: dict[str, Callable[[random.Random, Sequence[str]], dict]] = {
    "message": message_fields,
    "model_change": lambda rng, earlier: {"provider": rng.choice(PROVIDERS),
                                          "modelId": rng.choice(MODELS)},
    "thinking_level_change": lambda rng, earlier: {
        "thinkingLevel": rng.choice(THINKING_LEVELS)},
    "label": label_fields,
    "custom": custom_fields,
    "custom_message": lambda rng, earlier: {
        "customType": rng.choice(CUSTOM_TYPES), "content": rng.choice(WORDS), "display": True,
        "details": data(rng)},
    "compaction": lambda rng, earlier: {
        "summary": rng.choice(WORDS), "tokensBefore": rng.randint(100, 9999),
        "firstKeptEntryId": rng.choice(earlier) if earlier else hex_id(rng)},
    "branch_summary": lambda rng, earlier: {
        "fromId": rng.choice(earlier) if earlier else hex_id(rng), "summary": rng.choice(WORDS)},
    "session_info": lambda rng, earlier: {"name": rng.choice(WORDS)},
}


def session(rng: random.Random, size: int, kinds: Mapping[str, float]) -> list[dict]:
    """``size`` entries of a session (no header), in file order, forming a tree: the first is
    a root, each later one continues the latest entry or, now and then, starts a branch from
    an older one. ``kinds`` weighs the entry types (``ENTRY_FIELDS``) drawn."""
    names, weights = list(kinds), list(kinds.values())
    entries: list[dict] = []
    ids: list[str] = []
    for number in range(size):
        entry_id = hex_id(rng, ids)
        if not ids:
            parent = None
        elif rng.random() < BRANCHING:
            parent = rng.choice(ids)
        else:
            parent = ids[-1]
        kind = rng.choices(names, weights)[0]
        entry = {"type": kind, "id": entry_id, "parentId": parent,
                 "timestamp": f"2026-03-01T10:{number // 60:02d}:{number % 60:02d}.000Z"}
        entry.update(ENTRY_FIELDS[kind](rng, ids))
        entries.append(entry)
        ids.append(entry_id)
    return entries


def path_to_entry(entries: Sequence[dict], leaf_id: str) -> list[dict]:
    """The root-first branch of a drawn session that ends at ``leaf_id``."""
    by_id = {entry["id"]: entry for entry in entries}
    path = []
    current: str | None = leaf_id
    while current is not None:
        path.append(by_id[current])
        current = by_id[current]["parentId"]
    return path[::-1]


def branch(rng: random.Random, entries: Sequence[dict]) -> list[dict]:
    """The branch to a random entry of a drawn session (the last one half of the time)."""
    if not entries:
        return []
    leaf = entries[-1] if rng.random() < 0.5 else rng.choice(list(entries))
    return path_to_entry(entries, leaf["id"])


# --------------------------------------------------------------------------------------
# Damaged session files (chapters 04 and 07) and Pi 1.x context edits (chapter 06)
# --------------------------------------------------------------------------------------

def context_edit_fields(rng: random.Random, earlier: Sequence[str]) -> dict:
    """A Pi 1.x ``context_edit``: omit (``None``) or replace an earlier entry's content."""
    target = rng.choice(earlier) if earlier and rng.random() < 0.9 else hex_id(rng, earlier)
    kind = rng.random()
    if kind < 0.35:
        replacement = None
    elif kind < 0.75:
        replacement = {"content": rng.choice(WORDS)}
    else:
        replacement = {"content": [{"type": "text", "text": rng.choice(WORDS)}]}
    return {"targetId": target, "replacement": replacement}


ENTRY_FIELDS["context_edit"] = context_edit_fields


def header(rng: random.Random) -> dict:
    """A version-3 session header, sometimes naming the session it was forked from."""
    fields: dict = {"type": "session", "version": 3, "id": f"s-{hex_id(rng)}",
                    "timestamp": "2026-03-01T10:00:00.000Z", "cwd": rng.choice(("/w", "/w/p"))}
    if rng.random() < 0.3:
        fields["parentSession"] = "/w/old.jsonl"
    return fields


def parent_damage(rng: random.Random, entries: list[dict], times: int,
                  kinds: Sequence[str] = ("missing", "self", "loop", "loop")) -> list[dict]:
    """``entries`` (dicts) with ``times`` parents changed: to an id nobody has (a dangling
    parent), to a value that is not a string (``"not-text"``: a number, a list, an object,
    also a parent nobody has), to the entry itself, or to one of its own descendants (a
    loop), as ``kinds`` allows. The entries are copied, never changed."""
    entries = [dict(entry) for entry in entries]
    for _ in range(times if entries else 0):
        entry = rng.choice(entries)
        parent_of = {e["id"]: e["parentId"] for e in entries}
        what = rng.choice(kinds)
        if what == "missing":
            entry["parentId"] = hex_id(rng, parent_of)
        elif what == "not-text":
            entry["parentId"] = rng.choice((7, [entry["id"]], {"id": entry["id"]}, True))
        elif what == "self":
            entry["parentId"] = entry["id"]
        else:   # a descendant: an entry whose walk up meets this one
            below = []
            for other in entries:
                seen, current = set(), other["parentId"]
                while isinstance(current, str) and current not in seen:
                    if current == entry["id"]:
                        below.append(other["id"])
                        break
                    seen.add(current)
                    current = parent_of.get(current)
            if below:
                entry["parentId"] = rng.choice(below)
    return entries


def line_of(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def file_text(rng: random.Random, head: dict | None, entries: Sequence[dict],
              damage: float) -> str:
    """A session file's text: ``head`` and ``entries`` one JSON line each, then, each with
    probability ``damage``, the file-level damage of chapter 04 (``read_session_text``'s
    codes): a repeated line, a conflicting repeat, a blank line, a corrupt line, two objects
    glued on one line, a line that is not an object, an entry without an id or of an
    unknown type, a second header, CRLF line ends, a torn last line."""
    lines = [line_of(entry) for entry in entries]

    def somewhere() -> int:
        return rng.randint(0, len(lines))

    if lines and rng.random() < damage:          # the same entry appended again
        lines.insert(somewhere(), rng.choice(lines))
    if entries and rng.random() < damage:        # the same id, other content
        again = dict(rng.choice(list(entries)))
        again["timestamp"] = "2026-03-01T11:00:00.000Z"
        lines.insert(somewhere(), line_of(again))
    if rng.random() < damage:
        lines.insert(somewhere(), "")
    if lines and rng.random() < damage:          # a corrupt line: its entry is lost
        at = rng.randrange(len(lines))
        lines[at] = lines[at][:-9] + "#garbage"
    if len(lines) > 1 and rng.random() < damage:  # two objects glued on one line
        at = rng.randrange(len(lines) - 1)
        lines[at:at + 2] = [lines[at] + lines[at + 1]]
    if rng.random() < damage:
        lines.insert(somewhere(), rng.choice(("[1,2]", "3", '"text"', "null")))
    if rng.random() < damage:                    # no id, or an empty one
        lost = {"type": "message", "parentId": None, "timestamp": "2026-03-01T10:00:00.000Z",
                "message": {"role": "user", "content": "lost", "timestamp": 1}}
        if rng.random() < 0.5:
            lost["id"] = ""
        lines.insert(somewhere(), line_of(lost))
    if rng.random() < damage:                    # a type Pi does not write (still a node)
        future = {"type": "future_entry", "id": hex_id(rng),
                  "parentId": rng.choice([None] + [e["id"] for e in entries]),
                  "timestamp": "2026-03-01T10:00:00.000Z"}
        lines.insert(somewhere(), line_of(future))
    if head is not None and rng.random() < damage / 2:
        lines.insert(somewhere(), line_of(head))
    if head is not None:
        lines.insert(0, line_of(head))
    end = "\r\n" if rng.random() < damage / 2 else "\n"
    text = "".join(line + end for line in lines)
    if lines and rng.random() < damage:          # a crash mid-write: the last line torn
        text = text[:-len(end)]
        text = text[:-rng.randint(1, max(1, min(30, len(lines[-1]) - 1)))] if lines[-1] else text
    return text


def text_shown(text: str) -> str:
    """A session file's text, compactly: each line numbered, an object without timestamps
    (its message as role and content), anything else as Python writes the string."""
    parts = []
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, start=1):
        ending = "\\r" if line.endswith("\r") else ""
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            shown = {key: value for key, value in obj.items() if key != "timestamp"}
            if isinstance(shown.get("message"), dict):
                shown["message"] = {key: value for key, value in shown["message"].items()
                                    if key != "timestamp"}
            parts.append(f"{number}:{line_of(shown)}{ending}")
        else:
            parts.append(f"{number}:{line!r}")
    if text and not text.endswith("\n"):
        parts.append("(no newline at the end)")
    return " ".join(parts) if parts else "''"


class ProblemsByLine:
    """An answer of ``(line, code)`` problems as chapter 04's contract fixes it: the lines in
    the order given and the problems of each line, in any order among them (two objects
    glued on one line can both have one). Shown as the list it was given."""

    __hash__ = None   # type: ignore[assignment]

    def __init__(self, found: Iterable[Any]) -> None:
        self.pairs = [tuple(item) for item in found]

    def key(self) -> tuple:
        return ([pair[0] for pair in self.pairs],
                sorted(self.pairs, key=lambda pair: (pair[0] is not None, pair[0] or 0,
                                                     str(pair[1:]))))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProblemsByLine) and self.key() == other.key()

    def __repr__(self) -> str:
        return repr(self.pairs)
