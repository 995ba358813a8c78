"""Chapter 05 exercises: state_at(path_entries) and resolve_labels(entries).

Settings are tree nodes, so the model and thinking level "at" an entry are read from the
branch that leads to it. Labels are read from the whole file in order. The same tests grade
the reference (``learn_pi_lab.pi.context`` / ``learn_pi_lab.pi.session``) and a learner's
``workspace/ch05_records_and_state.py``.
"""

from __future__ import annotations

import unittest

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


class StateAtTests(unittest.TestCase):
    def check(self, path: list[dict], expected: tuple, why: str) -> None:
        result = state_impl.state_at(path)
        self.assertEqual(tuple(result), expected,
                         msg=f"{why}\nexpected (model, thinking_level): {expected}\n"
                             f"returned: {tuple(result)}")

    def test_nothing_known(self) -> None:
        self.check([], (None, "off"), "an empty branch: no model (None) and thinking 'off'")
        self.check([message("u1", "user")], (None, "off"),
                   "a user message says nothing about the model or thinking level")

    def test_settings_entries(self) -> None:
        self.check([model_change("m", "acme", "alpha"), thinking("t", "high")],
                   ({"provider": "acme", "modelId": "alpha"}, "high"),
                   "model_change sets {provider, modelId}; thinking_level_change sets the level")

    def test_the_last_change_wins(self) -> None:
        path = [model_change("m1", "acme", "alpha"), thinking("t1", "high"),
                model_change("m2", "acme", "beta"), thinking("t2", "low")]
        self.check(path, ({"provider": "acme", "modelId": "beta"}, "low"),
                   "the latest change on the branch is the one in force")

    def test_assistant_message_names_the_model(self) -> None:
        path = [model_change("m", "acme", "alpha"), message("u1", "user"),
                message("a1", "assistant", provider="other", model="gamma")]
        self.check(path, ({"provider": "other", "modelId": "gamma"}, "off"),
                   "an assistant message's provider/model count as the latest word on the "
                   "model (note: the key is modelId in the result, model in the message)")

    def test_model_change_after_assistant(self) -> None:
        path = [message("a1", "assistant", provider="other", model="gamma"),
                model_change("m", "acme", "alpha")]
        self.check(path, ({"provider": "acme", "modelId": "alpha"}, "off"),
                   "a model_change after an assistant message wins: whatever came last")

    def test_rewinding_restores_earlier_settings(self) -> None:
        path = [model_change("m1", "acme", "alpha"), thinking("t1", "high"),
                message("u1", "user"), model_change("m2", "acme", "beta"),
                thinking("t2", "off")]
        self.check(path[:3], ({"provider": "acme", "modelId": "alpha"}, "high"),
                   "the state at 'u1' only looks at the branch up to 'u1'")

    def test_compaction_does_not_hide_settings(self) -> None:
        path = [model_change("m", "acme", "alpha"), thinking("t", "medium"),
                message("u1", "user"),
                {"type": "compaction", "id": "c1", "parentId": None,
                 "timestamp": "2026-03-01T10:00:00.000Z", "summary": "s",
                 "firstKeptEntryId": "u1", "tokensBefore": 10},
                message("u2", "user")]
        self.check(path, ({"provider": "acme", "modelId": "alpha"}, "medium"),
                   "settings are read from the whole branch, also before a compaction")

    def test_other_entries_are_ignored(self) -> None:
        path = [thinking("t", "high"), label("l", "t", "x"),
                {"type": "custom", "id": "c", "parentId": None, "customType": "k",
                 "data": {"thinkingLevel": "off"}},
                message("r1", "toolResult")]
        self.check(path, (None, "high"),
                   "labels, custom entries and non-assistant messages do not change the state")


class ResolveLabelsTests(unittest.TestCase):
    def check(self, entries: list[dict], expected: dict, why: str) -> None:
        result = labels_impl.resolve_labels(entries)
        self.assertEqual(dict(result), expected,
                         msg=f"{why}\nexpected: {expected}\nreturned: {dict(result)}")

    def test_no_labels(self) -> None:
        self.check([message("u1", "user")], {}, "no label entries: an empty dict")

    def test_one_label(self) -> None:
        self.check([message("u1", "user"), label("l1", "u1", "start")], {"u1": "start"},
                   "a label entry maps its targetId to its label")

    def test_latest_in_file_order_wins(self) -> None:
        self.check([label("l1", "u1", "first"), label("l2", "u1", "second")],
                   {"u1": "second"}, "two labels on one target: the later line wins")

    def test_empty_label_clears(self) -> None:
        self.check([label("l1", "u1", "x"), label("l2", "u1", "")], {},
                   "a label entry with an empty label clears the target's label")

    def test_missing_label_clears(self) -> None:
        self.check([label("l1", "u1", "x"), label("l2", "u1", None)], {},
                   "a label entry with no `label` key clears the target's label")

    def test_label_again_after_clear(self) -> None:
        self.check([label("l1", "u1", "x"), label("l2", "u1", None), label("l3", "u1", "y")],
                   {"u1": "y"}, "a target can be labelled again after a clear")

    def test_several_targets(self) -> None:
        self.check([label("l1", "u1", "a"), label("l2", "u2", "b"), label("l3", "u1", "")],
                   {"u2": "b"}, "each target is resolved on its own")

    def test_clearing_an_unlabelled_target_is_fine(self) -> None:
        self.check([label("l1", "u9", None)], {},
                   "clearing a target that has no label is not an error")

    def test_other_entries_with_label_keys_are_ignored(self) -> None:
        self.check([{"type": "custom", "id": "c", "targetId": "u1", "label": "no"}], {},
                   "only entries of type 'label' are labels")


if __name__ == "__main__":
    unittest.main()
