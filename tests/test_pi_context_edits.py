"""Chapter 06 exercise (Pi 1.x): apply_context_edits(path_entries, messages) -> list[dict].

Pi 1.6.0 lets a ``context_edit`` entry change what one earlier entry sends to the model,
without touching that entry: ``replacement: null`` omits it, ``{"content": ...}`` replaces
its content (a string becomes one text block for assistant and toolResult messages). For each
target the latest edit on the branch wins. The same tests grade the reference
(``learn_pi_lab.pi.context``) and a learner's ``workspace/ch06_context.py``; the reference is
also checked against Pi 1.6.0's own ``buildSessionProjection`` (test_pi_generated.py).
"""

from __future__ import annotations

import copy
import random
import unittest

from learn_pi_lab.i18n import t
from learn_pi_lab.pi import context as context_reference
# (by name: test_harness_drawn points every global that is the module at the cheat, and the
# drawn messages must stay the package's)
from learn_pi_lab.pi.context import build_context_messages as sent_by
from tests import drawn
from tests.targets import load_target

impl = load_target("ch06_context", "learn_pi_lab.pi.context")

T0 = "2026-11-21T09:00:00.000Z"


def entry(kind: str, entry_id: str, **fields) -> dict:
    return {"type": kind, "id": entry_id, "parentId": None, "timestamp": T0, **fields}


def msg(entry_id: str, role: str, text: str) -> dict:
    content = text if role == "user" else [{"type": "text", "text": text}]
    message = {"role": role, "content": content, "timestamp": 1}
    return entry("message", entry_id, message=message)


def edit(entry_id: str, target: str, replacement) -> dict:
    return entry("context_edit", entry_id, targetId=target, replacement=replacement)


def sent(path: list[dict]) -> list[dict]:
    """What the branch sends before any edit: each message with its entryId."""
    return [{**item["message"], "entryId": item["id"]} for item in path
            if item["type"] == "message"]


def texts(messages: list[dict]) -> list[tuple]:
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = " | ".join(block.get("text", "?") for block in content)
        out.append((message.get("entryId"), message.get("role"), content))
    return out


BASE = [msg("u1", "user", "read checkout.py"), msg("r1", "toolResult", "def charge(): ...200 lines"),
        msg("a1", "assistant", "use classes"), msg("u2", "user", "no, functions"),
        msg("a2", "assistant", "validate(), add_fees()")]


# Drawn inputs (tests/drawn.py): the branch to a random entry of a session of messages,
# custom messages, compactions, branch summaries, labels (a targetId, but no edit) and
# context_edit entries (drawn.context_edit_fields: replacement null, a string or a list of
# text blocks) aimed mostly at earlier entries of the branch, sometimes at entries of other
# branches or at no entry; the messages are what the branch sends (the package's
# build_context_messages) or, now and then, what another branch of the session sends. The
# contract fixes every message, so the answer is compared as the visible tests compare it,
# with ``==`` on the list. (Not drawn: an edit without ``replacement``, a replacement that is
# not ``{"content": ...}``, a targetId that is not a string: the contract does not say.)
EDIT_KINDS = {"message": 5, "context_edit": 4, "custom_message": 1, "compaction": 0.7,
              "branch_summary": 0.5, "label": 0.7}


def draw_edits(rng: random.Random, size: int) -> tuple:
    entries = drawn.session(rng, size, EDIT_KINDS)
    path = drawn.branch(rng, entries)
    for index, entry in enumerate(path):   # mostly an edit of an entry of this branch
        if entry["type"] == "context_edit" and index and rng.random() < 0.75:
            entry["targetId"] = rng.choice(path[:index])["id"]
    sending = path if rng.random() < 0.8 else drawn.branch(rng, entries)
    return path, sent_by(sending)


def shown_edits(args: tuple) -> str:
    path, messages = args
    return (drawn.shown_arguments((path,)) + ", messages: ["
            + ", ".join(f"{message.get('entryId')}:{message.get('role')}"
                        for message in messages) + "]")


APPLY_EDITS_DRAWN = drawn.Drawn(
    "apply-edits", reference=context_reference.apply_context_edits, answer=list,
    draw=draw_edits, shown=shown_edits)


class ApplyContextEditsTests(unittest.TestCase):
    def run_edits(self, path: list[dict], messages: list[dict] | None = None) -> list[dict]:
        messages = sent(path) if messages is None else messages
        return impl.apply_context_edits(path, messages)

    def test_no_edit_changes_nothing(self) -> None:
        result = self.run_edits(BASE)
        self.assertEqual(result, sent(BASE),
                         msg=t("exercise_tests.pi_context_edits.no_edit"))

    def test_null_replacement_omits_the_target(self) -> None:
        path = [*BASE, edit("e1", "a1", None)]
        result = self.run_edits(path)
        self.assertEqual([m["entryId"] for m in result], ["u1", "r1", "u2", "a2"],
                         msg=t("exercise_tests.pi_context_edits.null_omits",
                               got=texts(result)))

    def test_replacement_changes_only_the_content(self) -> None:
        path = [*BASE, edit("e1", "u1", {"content": "read it (edited)"})]
        result = self.run_edits(path)
        expected = {**sent(BASE)[0], "content": "read it (edited)"}
        self.assertEqual(result[0], expected,
                         msg=t("exercise_tests.pi_context_edits.replacement_keeps_keys",
                               got=result[0]))

    def test_a_string_becomes_one_text_block_for_assistant_and_tool_results(self) -> None:
        path = [*BASE, edit("e1", "r1", {"content": "[checkout.py: read earlier]"}),
                edit("e2", "a2", {"content": "split it"})]
        result = self.run_edits(path)
        by_id = {m["entryId"]: m["content"] for m in result}
        self.assertEqual(by_id["r1"], [{"type": "text", "text": "[checkout.py: read earlier]"}],
                         msg=t("exercise_tests.pi_context_edits.tool_result_text_block"))
        self.assertEqual(by_id["a2"], [{"type": "text", "text": "split it"}],
                         msg=t("exercise_tests.pi_context_edits.assistant_text_block"))

    def test_the_latest_edit_of_a_target_wins(self) -> None:
        path = [*BASE, edit("e1", "r1", {"content": "first note"}),
                edit("e2", "r1", {"content": "second note"})]
        result = self.run_edits(path)
        content = next(m["content"] for m in result if m["entryId"] == "r1")
        self.assertEqual(content, [{"type": "text", "text": "second note"}],
                         msg=t("exercise_tests.pi_context_edits.latest_edit_wins",
                               got=content))
        path = [*BASE, edit("e1", "a1", None), edit("e2", "a1", {"content": "classes, maybe"})]
        self.assertIn("a1", [m["entryId"] for m in self.run_edits(path)],
                      msg=t("exercise_tests.pi_context_edits.omit_then_replace"))

    def test_only_edits_on_the_branch_count(self) -> None:
        result = self.run_edits(BASE)          # the edit below is on another branch
        self.assertEqual(len(result), 5,
                         msg=t("exercise_tests.pi_context_edits.edit_not_on_branch"))
        path = [*BASE[:3], edit("e1", "a1", None)]
        self.assertEqual([m["entryId"] for m in self.run_edits(path, sent(BASE))],
                         ["u1", "r1", "u2", "a2"],
                         msg=t("exercise_tests.pi_context_edits.edits_from_path"))

    def test_other_roles_and_unknown_targets_pass_unchanged(self) -> None:
        summary = {"role": "compactionSummary", "summary": "S", "tokensBefore": 1,
                   "timestamp": 5, "entryId": "c1"}
        path = [*BASE, edit("e1", "c1", {"content": "x"}), edit("e2", "nowhere", None)]
        result = self.run_edits(path, [summary, *sent(BASE)])
        self.assertEqual(result[0], summary,
                         msg=t("exercise_tests.pi_context_edits.other_roles_unchanged"))
        self.assertEqual(len(result), 6,
                         msg=t("exercise_tests.pi_context_edits.unknown_target"))

    def test_custom_messages_are_editable(self) -> None:
        custom = {"role": "custom", "customType": "note", "content": "long note",
                  "display": True, "timestamp": 5, "entryId": "n1"}
        path = [*BASE, edit("e1", "n1", {"content": "short"})]
        result = self.run_edits(path, [custom])
        self.assertEqual(result, [{**custom, "content": "short"}],
                         msg=t("exercise_tests.pi_context_edits.custom_message_editable"))

    def test_the_input_is_not_changed(self) -> None:
        path = [*BASE, edit("e1", "r1", {"content": "note"}), edit("e2", "a1", None)]
        messages = sent(path)
        before = copy.deepcopy((path, messages))
        self.run_edits(path, messages)
        self.assertEqual((path, messages), before,
                         msg=t("exercise_tests.pi_context_edits.input_unchanged"))

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        APPLY_EDITS_DRAWN.check(self, impl.apply_context_edits)
