"""Chapter 05 exercises: state_at(path_entries) and resolve_labels(entries).

Settings are tree nodes, so the model and thinking level "at" an entry are read from the
branch that leads to it. Labels are read from the whole file in order. The same tests grade
the reference (``learn_pi_lab.pi.context`` / ``learn_pi_lab.pi.session``) and a learner's
``workspace/ch05_records_and_state.py``.
"""

from __future__ import annotations

import random
import unittest

from learn_pi_lab.i18n import t
from learn_pi_lab.pi import context as context_reference, session as session_reference
from tests import drawn
from tests.targets import load_target

state_impl = load_target("ch05_records_and_state", "learn_pi_lab.pi.context")
labels_impl = load_target("ch05_records_and_state", "learn_pi_lab.pi.session")


def model_change(entry_id: str, provider: str, model_id: str) -> dict:
    return {"type": "model_change", "id": entry_id, "parentId": None,
            "timestamp": "2026-03-01T10:00:00.000Z", "provider": provider, "modelId": model_id}


def thinking(entry_id: str, level: str) -> dict:
    return {"type": "thinking_level_change", "id": entry_id, "parentId": None,
            "timestamp": "2026-03-01T10:00:00.000Z", "thinkingLevel": level}


def message(entry_id: str, role: str, provider: str = "acme", model: str = "alpha") -> dict:
    body: dict = {"role": role, "content": [], "timestamp": 1}
    if role == "assistant":
        body.update(provider=provider, model=model, stopReason="stop")
    return {"type": "message", "id": entry_id, "parentId": None,
            "timestamp": "2026-03-01T10:00:00.000Z", "message": body}


def label(entry_id: str, target: str, text: str | None) -> dict:
    entry = {"type": "label", "id": entry_id, "parentId": None,
             "timestamp": "2026-03-01T10:00:00.000Z", "targetId": target}
    if text is not None:
        entry["label"] = text
    return entry


# Drawn inputs (tests/drawn.py). state-at: the branch to a random entry of a session with
# settings, messages of every role and the entries the exercise must ignore; the answer is
# compared as the visible tests compare it, ``tuple(result)``. resolve-labels: a whole file
# of label entries that set, override and clear a few targets, among entries of other types
# (some with label-like keys); compared as ``dict(result)``.
STATE_KINDS = {"message": 5, "model_change": 2, "thinking_level_change": 2, "compaction": 1,
               "label": 1, "custom": 1, "custom_message": 1, "branch_summary": 0.5,
               "session_info": 0.5}
LABEL_KINDS = {"label": 5, "message": 3, "custom": 1, "model_change": 0.5, "session_info": 0.5}


def draw_labels(rng: random.Random, size: int) -> tuple:
    entries = drawn.session(rng, size, LABEL_KINDS)
    for entry in entries:   # other entries with a label's keys are not labels
        if entry["type"] != "label" and rng.random() < 0.15:
            entry.update(targetId=rng.choice(entries)["id"], label=rng.choice(drawn.WORDS))
    return (entries,)


STATE_AT_DRAWN = drawn.Drawn(
    "state-at", reference=context_reference.state_at, answer=tuple,
    draw=lambda rng, size: (drawn.branch(rng, drawn.session(rng, size, STATE_KINDS)),))

RESOLVE_LABELS_DRAWN = drawn.Drawn(
    "resolve-labels", reference=session_reference.resolve_labels, answer=dict,
    draw=draw_labels)


class StateAtTests(unittest.TestCase):
    def check(self, path: list[dict], expected: tuple, why: str) -> None:
        result = state_impl.state_at(path)
        self.assertEqual(tuple(result), expected,
                         msg=t("exercise_tests.state.check_state", why=why, want=expected,
                               got=tuple(result)))

    def test_nothing_known(self) -> None:
        self.check([], (None, "off"), t("exercise_tests.state.empty_branch"))
        self.check([message("u1", "user")], (None, "off"),
                   t("exercise_tests.state.user_message"))

    def test_settings_entries(self) -> None:
        self.check([model_change("m", "acme", "alpha"), thinking("t", "high")],
                   ({"provider": "acme", "modelId": "alpha"}, "high"),
                   t("exercise_tests.state.settings_entries"))

    def test_the_last_change_wins(self) -> None:
        path = [model_change("m1", "acme", "alpha"), thinking("t1", "high"),
                model_change("m2", "acme", "beta"), thinking("t2", "low")]
        self.check(path, ({"provider": "acme", "modelId": "beta"}, "low"),
                   t("exercise_tests.state.latest_change_wins"))

    def test_assistant_message_names_the_model(self) -> None:
        path = [model_change("m", "acme", "alpha"), message("u1", "user"),
                message("a1", "assistant", provider="other", model="gamma")]
        self.check(path, ({"provider": "other", "modelId": "gamma"}, "off"),
                   t("exercise_tests.state.assistant_names_the_model"))

    def test_model_change_after_assistant(self) -> None:
        path = [message("a1", "assistant", provider="other", model="gamma"),
                model_change("m", "acme", "alpha")]
        self.check(path, ({"provider": "acme", "modelId": "alpha"}, "off"),
                   t("exercise_tests.state.model_change_after_assistant"))

    def test_rewinding_restores_earlier_settings(self) -> None:
        path = [model_change("m1", "acme", "alpha"), thinking("t1", "high"),
                message("u1", "user"), model_change("m2", "acme", "beta"),
                thinking("t2", "off")]
        self.check(path[:3], ({"provider": "acme", "modelId": "alpha"}, "high"),
                   t("exercise_tests.state.rewinding"))

    def test_compaction_does_not_hide_settings(self) -> None:
        path = [model_change("m", "acme", "alpha"), thinking("t", "medium"),
                message("u1", "user"),
                {"type": "compaction", "id": "c1", "parentId": None,
                 "timestamp": "2026-03-01T10:00:00.000Z", "summary": "s",
                 "firstKeptEntryId": "u1", "tokensBefore": 10},
                message("u2", "user")]
        self.check(path, ({"provider": "acme", "modelId": "alpha"}, "medium"),
                   t("exercise_tests.state.compaction"))

    def test_other_entries_are_ignored(self) -> None:
        path = [thinking("t", "high"), label("l", "t", "x"),
                {"type": "custom", "id": "c", "parentId": None, "customType": "k",
                 "data": {"thinkingLevel": "off"}},
                message("r1", "toolResult")]
        self.check(path, (None, "high"),
                   t("exercise_tests.state.other_entries"))

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        STATE_AT_DRAWN.check(self, state_impl.state_at)


class ResolveLabelsTests(unittest.TestCase):
    def check(self, entries: list[dict], expected: dict, why: str) -> None:
        result = labels_impl.resolve_labels(entries)
        self.assertEqual(dict(result), expected,
                         msg=t("exercise_tests.state.check_labels", why=why, want=expected,
                               got=dict(result)))

    def test_no_labels(self) -> None:
        self.check([message("u1", "user")], {}, t("exercise_tests.state.no_labels"))

    def test_one_label(self) -> None:
        self.check([message("u1", "user"), label("l1", "u1", "start")], {"u1": "start"},
                   t("exercise_tests.state.one_label"))

    def test_latest_in_file_order_wins(self) -> None:
        self.check([label("l1", "u1", "first"), label("l2", "u1", "second")],
                   {"u1": "second"}, t("exercise_tests.state.later_label_wins"))

    def test_empty_label_clears(self) -> None:
        self.check([label("l1", "u1", "x"), label("l2", "u1", "")], {},
                   t("exercise_tests.state.empty_label_clears"))

    def test_missing_label_clears(self) -> None:
        self.check([label("l1", "u1", "x"), label("l2", "u1", None)], {},
                   t("exercise_tests.state.missing_label_clears"))

    def test_label_again_after_clear(self) -> None:
        self.check([label("l1", "u1", "x"), label("l2", "u1", None), label("l3", "u1", "y")],
                   {"u1": "y"}, t("exercise_tests.state.label_again_after_clear"))

    def test_several_targets(self) -> None:
        self.check([label("l1", "u1", "a"), label("l2", "u2", "b"), label("l3", "u1", "")],
                   {"u2": "b"}, t("exercise_tests.state.several_targets"))

    def test_clearing_an_unlabelled_target_is_fine(self) -> None:
        self.check([label("l1", "u9", None)], {},
                   t("exercise_tests.state.clear_unlabelled_target"))

    def test_other_entries_with_label_keys_are_ignored(self) -> None:
        self.check([{"type": "custom", "id": "c", "targetId": "u1", "label": "no"}], {},
                   t("exercise_tests.state.only_label_entries"))

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        RESOLVE_LABELS_DRAWN.check(self, labels_impl.resolve_labels)


if __name__ == "__main__":
    unittest.main()
