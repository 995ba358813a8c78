"""Chapter 04 exercise: load_diagnostics(text) -> [(line, code)] in line order.

The four failure experiments (a torn last line, the same entry appended twice, a parent
that does not exist, continuing from a middle node) plus a glued line and the other tree
damage, each on a small file built here. The codes are docs/diagnostics.md's.
The same tests grade the reference (``learn_pi_lab.pi.session``) and a learner's
``workspace/ch04_failures.py``.
"""

from __future__ import annotations

import json
import random
import unittest

from learn_pi_lab.i18n import t
from learn_pi_lab.pi import session as session_reference
from tests import drawn
from tests.targets import load_target

impl = load_target("ch04_failures", "learn_pi_lab.pi.session")

HEADER = {"type": "session", "version": 3, "id": "s-1", "timestamp": "2026-03-01T10:00:00.000Z",
          "cwd": "/w"}


def line(kind: str, entry_id: str, parent_id: str | None, second: int, **fields) -> str:
    obj = {"type": kind, "id": entry_id, "parentId": parent_id,
           "timestamp": f"2026-03-01T10:00:{second:02d}.000Z", **fields}
    return json.dumps(obj, separators=(",", ":"))


def user(entry_id: str, parent_id: str | None, second: int, text: str = "hi") -> str:
    return line("message", entry_id, parent_id, second,
                message={"role": "user", "content": text, "timestamp": second})


def assistant(entry_id: str, parent_id: str | None, second: int) -> str:
    return line("message", entry_id, parent_id, second,
                message={"role": "assistant", "content": [], "provider": "acme",
                         "model": "alpha", "timestamp": second})


def base_lines() -> list[str]:
    """Lines 1..6: header, model_change m, u1, a1, u2, a2 (one clean branch)."""
    return [json.dumps(HEADER, separators=(",", ":")),
            line("model_change", "m", None, 1, provider="acme", modelId="alpha"),
            user("u1", "m", 2), assistant("a1", "u1", 3), user("u2", "a1", 4),
            assistant("a2", "u2", 5)]


def text_of(lines: list[str], final_newline: bool = True) -> str:
    return "\n".join(lines) + ("\n" if final_newline else "")


# Drawn inputs (tests/drawn.py): the text of a small session file (a header, then entries of a
# few types forming a tree, sometimes in shuffled order) with 0 to 2 damaged parents (a parent
# nobody has, a parentId that is not a string, which no entry has either, the entry itself,
# one of its own descendants) and, now and then, each kind of
# file-level damage (drawn.file_text); once in a while no session at all (NotASessionFile).
# The contract fixes the problems and their line order, not the order of two problems on the
# same line (two objects glued on one line may both have one): compared are the lines in the
# order returned and the (line, code) pairs of each line in any order (drawn.ProblemsByLine).
DIAGNOSTICS_KINDS = {"message": 5, "model_change": 1, "label": 1, "custom": 1,
                     "compaction": 0.5, "branch_summary": 0.5, "session_info": 0.5}
NOT_A_SESSION = ("", "\n", "garbage\n", '{"type":"message","id":"a","parentId":null}\n',
                 '{"type":"session","version":3}\n')


def draw_damaged_text(rng: random.Random, size: int) -> tuple:
    if rng.random() < 0.05:
        return (rng.choice(NOT_A_SESSION),)
    entries = drawn.parent_damage(rng, drawn.session(rng, size, DIAGNOSTICS_KINDS),
                                  rng.choice((0, 1, 1, 2)),
                                  kinds=("missing", "missing", "not-text", "self", "loop", "loop"))
    if rng.random() < 0.3:   # children before their parents: still a tree
        rng.shuffle(entries)
    return (drawn.file_text(rng, drawn.header(rng), entries, damage=0.25),)


LOAD_DIAGNOSTICS_DRAWN = drawn.Drawn(
    "load-diagnostics", draw=draw_damaged_text, reference=session_reference.load_diagnostics,
    answer=drawn.ProblemsByLine, shown=lambda args: drawn.text_shown(args[0]))


class LoadDiagnosticsTests(unittest.TestCase):
    def check(self, text: str, expected: list[tuple], why: str) -> None:
        result = [tuple(item) for item in impl.load_diagnostics(text)]
        self.assertEqual(result, expected,
                         msg=t("exercise_tests.failures.check", why=why, want=expected,
                               got=result))

    def test_clean_file_has_no_diagnostics(self) -> None:
        self.check(text_of(base_lines()), [], t("exercise_tests.failures.clean_file"))

    # -- experiment 1: a crash in the middle of a write ----------------------------------

    def test_torn_last_line(self) -> None:
        torn = user("u3", "a2", 6)[:25]
        self.check(text_of(base_lines() + [torn], final_newline=False),
                   [(7, "torn-last-line")],
                   t("exercise_tests.failures.torn_last_line"))

    def test_append_after_torn_line_without_fresh_line_is_lost_too(self) -> None:
        torn = user("u3", "a2", 6)[:25]
        glued = torn + user("u3", "a2", 7, "again")
        self.check(text_of(base_lines() + [glued]), [(7, "corrupt-line")],
                   t("exercise_tests.failures.append_after_torn_line"))

    # -- experiment 2: the same entry appended twice -------------------------------------

    def test_identical_repeat_is_a_duplicate(self) -> None:
        lines = base_lines()
        self.check(text_of(lines + [lines[-1]]), [(7, "duplicate-entry")],
                   t("exercise_tests.failures.duplicate_entry"))

    def test_same_id_different_content_conflicts(self) -> None:
        self.check(text_of(base_lines() + [user("a2", "u2", 9, "other")]),
                   [(7, "conflicting-duplicate")],
                   t("exercise_tests.failures.conflicting_duplicate"))

    # -- experiment 3: a parent that does not exist --------------------------------------

    def test_dangling_parent_names_the_child_line(self) -> None:
        self.check(text_of(base_lines() + [user("x1", "ghost", 6)]),
                   [(7, "dangling-parent")],
                   t("exercise_tests.failures.dangling_parent"))

    def test_only_the_broken_link_is_reported(self) -> None:
        self.check(text_of(base_lines() + [user("x1", "ghost", 6), assistant("x2", "x1", 7)]),
                   [(7, "dangling-parent")],
                   t("exercise_tests.failures.only_the_broken_link"))

    def test_a_parent_id_that_is_not_a_string_is_not_in_the_file(self) -> None:
        self.check(text_of(base_lines() + [line("message", "x1", ["u2"], 6,  # type: ignore[arg-type]
                                                message={"role": "user", "content": "hi",
                                                         "timestamp": 6})]),
                   [(7, "dangling-parent")], t("exercise_tests.failures.parent_not_text"))

    def test_corrupt_interior_line_leaves_an_orphan(self) -> None:
        lines = base_lines()
        lines[3] = lines[3][:-9] + "#garbage"
        self.check(text_of(lines), [(4, "corrupt-line"), (5, "dangling-parent")],
                   t("exercise_tests.failures.corrupt_line_orphan"))

    # -- experiment 4: continuing from a middle node -------------------------------------

    def test_continuing_from_a_middle_node_is_not_damage(self) -> None:
        self.check(text_of(base_lines() + [user("u2b", "a1", 6), assistant("a2b", "u2b", 7)]),
                   [], t("exercise_tests.failures.middle_node"))

    # -- a glued line --------------------------------------------------------------------

    def test_two_objects_glued_on_one_line(self) -> None:
        glued = user("u3", "a2", 6) + assistant("a3", "u3", 7)
        self.check(text_of(base_lines() + [glued]), [(7, "glued-objects")],
                   t("exercise_tests.failures.glued_objects"))

    def test_glued_objects_keep_the_tree_whole(self) -> None:
        glued = user("u3", "a2", 6) + assistant("a3", "u3", 7)
        self.check(text_of(base_lines() + [glued, user("u4", "a3", 8)]), [(7, "glued-objects")],
                   t("exercise_tests.failures.glued_objects_tree"))

    # -- other tree damage ---------------------------------------------------------------

    def test_self_parent(self) -> None:
        self.check(text_of(base_lines() + [user("me", "me", 6)]), [(7, "self-parent")],
                   t("exercise_tests.failures.self_parent"))

    def test_two_node_cycle_is_reported_once(self) -> None:
        self.check(text_of(base_lines() + [user("p", "q", 6), assistant("q", "p", 7)]),
                   [(7, "cycle")],
                   t("exercise_tests.failures.two_node_cycle"))

    def test_a_cycle_with_a_tail_is_reported_at_its_earliest_line(self) -> None:
        # t hangs below the loop a -> b -> c -> a: the loop is named once, at a's line (8),
        # not where a walk happens to close it (a learner's review)
        self.check(text_of(base_lines() + [user("t", "c", 6), user("a", "b", 7),
                                           assistant("b", "c", 8), user("c", "a", 9)]),
                   [(8, "cycle")], t("exercise_tests.failures.cycle_with_tail"))

    # -- order -----------------------------------------------------------------------------

    def test_several_problems_in_line_order(self) -> None:
        lines = base_lines()
        lines.insert(3, "")                                   # line 4: blank
        lines.append(user("x1", "ghost", 6))                  # line 8: dangling
        lines.append(lines[2])                                # line 9: repeats line 3 (u1)
        lines.append(user("u9", "a2", 9)[:20])                # line 10: torn
        self.check(text_of(lines, final_newline=False),
                   [(4, "blank-line"), (8, "dangling-parent"), (9, "duplicate-entry"),
                    (10, "torn-last-line")],
                   t("exercise_tests.failures.line_order"))

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        LOAD_DIAGNOSTICS_DRAWN.check(self, impl.load_diagnostics)


if __name__ == "__main__":
    unittest.main()
