"""Chapter 06 exercise: build_context_messages(path_entries) -> list[dict].

What the model sees is built from the current branch with Pi v0.84.2's rules
(pi-session-format.md section 8). Each returned message carries ``entryId``: the id of the
entry it came from. The same tests grade the reference (``learn_pi_lab.pi.context``) and a
learner's ``workspace/ch06_context.py``.
"""

from __future__ import annotations

import copy
import random
import unittest

from learn_pi_lab.i18n import t
from learn_pi_lab.pi import context as context_reference
from tests import drawn
from tests.targets import load_target

impl = load_target("ch06_context", "learn_pi_lab.pi.context")

T0 = "2026-03-01T10:00:00.000Z"


def entry(kind: str, entry_id: str, parent_id: str | None, **fields) -> dict:
    return {"type": kind, "id": entry_id, "parentId": parent_id,
            "timestamp": fields.pop("timestamp", T0), **fields}


def msg(entry_id: str, parent_id: str | None, role: str, text: str = "...") -> dict:
    message = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1}
    if role == "assistant":
        message.update(provider="acme", model="alpha", stopReason="stop")
    return entry("message", entry_id, parent_id, message=message)


def chain(*entries: dict) -> list[dict]:
    """Re-link the entries into one root-first path (each one's parent is the previous)."""
    linked, previous = [], None
    for item in entries:
        linked.append({**item, "parentId": previous})
        previous = item["id"]
    return linked


def compaction(entry_id: str, first_kept: str | None, summary: str = "summary") -> dict:
    fields = {"summary": summary, "tokensBefore": 1234}
    if first_kept is not None:
        fields["firstKeptEntryId"] = first_kept
    return entry("compaction", entry_id, None, **fields)


def pairs(messages: list[dict]) -> list[tuple[str, str]]:
    return [(m.get("role"), m.get("entryId")) for m in messages]


# Drawn inputs (tests/drawn.py): the branch to a random entry of a session of messages of
# every role the contract repairs (content sometimes null or missing), compactions (often
# several; firstKeptEntryId on the branch, elsewhere in the file, missing or the compaction's
# own id), branch summaries (some empty), custom messages (with and without details), and
# entries that send nothing (custom, label, settings, session_info, a type Pi does not
# write); timestamps with milliseconds. The contract fixes every message, so the answer is
# compared as the visible tests compare it, with ``==`` on the list.
CONTEXT_KINDS = {"message": 5, "compaction": 1.5, "branch_summary": 1, "custom_message": 1,
                 "custom": 0.5, "label": 0.5, "model_change": 0.5,
                 "thinking_level_change": 0.5, "session_info": 0.3}


def draw_context_branch(rng: random.Random, size: int) -> tuple:
    entries = drawn.session(rng, size, CONTEXT_KINDS)
    for entry in entries:
        entry["timestamp"] = entry["timestamp"].replace(".000Z", f".{rng.randint(0, 999):03d}Z")
        kind = entry["type"]
        if kind == "message" and rng.random() < 0.15:
            if rng.random() < 0.5:
                entry["message"]["content"] = None
            else:
                del entry["message"]["content"]
        elif kind == "custom_message":
            entry["display"] = rng.random() < 0.7
            if rng.random() < 0.4:
                del entry["details"]
        elif kind == "branch_summary" and rng.random() < 0.25:
            entry["summary"] = ""
        elif kind == "custom" and rng.random() < 0.2:
            entry["type"] = "future_entry"
    path = drawn.branch(rng, entries)
    for index, entry in enumerate(path):   # (the session is not used again: changed in place)
        if entry["type"] != "compaction":
            continue
        kept = rng.random()
        if kept < 0.5 and index:
            entry["firstKeptEntryId"] = rng.choice(path[:index])["id"]
        elif kept < 0.6:
            del entry["firstKeptEntryId"]
        elif kept < 0.7:
            entry["firstKeptEntryId"] = entry["id"]   # Pi 1.x: a compaction that keeps nothing
    return (path,)


BUILD_CONTEXT_DRAWN = drawn.Drawn(
    "build-context", reference=context_reference.build_context_messages, answer=list,
    draw=draw_context_branch)


class BuildContextTests(unittest.TestCase):
    def check(self, path: list[dict], expected: list[tuple[str, str]], why: str) -> list[dict]:
        result = impl.build_context_messages(path)
        self.assertEqual(pairs(result), expected,
                         msg=t("exercise_tests.context.check", why=why, want=expected,
                               got=pairs(result)))
        return result

    def test_plain_branch_keeps_every_message_in_order(self) -> None:
        path = chain(entry("model_change", "m", None, provider="acme", modelId="alpha"),
                     entry("thinking_level_change", "t", None, thinkingLevel="high"),
                     msg("u1", None, "user"), msg("a1", None, "assistant"),
                     msg("r1", None, "toolResult"), msg("a2", None, "assistant"))
        self.check(path, [("user", "u1"), ("assistant", "a1"), ("toolResult", "r1"),
                          ("assistant", "a2")],
                   t("exercise_tests.context.plain_branch"))

    def test_message_is_passed_through_with_entry_id(self) -> None:
        path = chain(msg("u1", None, "user", "hello"))
        result = impl.build_context_messages(path)
        expected = {**path[0]["message"], "entryId": "u1"}
        self.assertEqual(result, [expected],
                         msg=t("exercise_tests.context.message_with_entry_id",
                               want=[expected], got=result))

    def test_empty_path(self) -> None:
        result = impl.build_context_messages([])
        self.assertEqual(result, [], msg=t("exercise_tests.context.empty_path",
                                                    got=result))

    def test_compaction_boundary(self) -> None:
        path = chain(msg("u1", None, "user"), msg("a1", None, "assistant"),
                     msg("u2", None, "user"), msg("a2", None, "assistant"),
                     compaction("c1", "u2"), msg("u3", None, "user"))
        self.check(path, [("compactionSummary", "c1"), ("user", "u2"), ("assistant", "a2"),
                          ("user", "u3")],
                   t("exercise_tests.context.compaction_boundary"))

    def test_compaction_summary_fields(self) -> None:
        path = chain(msg("u1", None, "user"),
                     {**compaction("c1", "u1", "what happened"),
                      "timestamp": "2026-03-01T10:00:05.250Z"})
        summary = impl.build_context_messages(path)[0]
        expected = {"role": "compactionSummary", "summary": "what happened",
                    "tokensBefore": 1234, "timestamp": 1772359205250, "entryId": "c1"}
        self.assertEqual(summary, expected,
                         msg=t("exercise_tests.context.compaction_summary_fields",
                               want=expected, got=summary))

    def test_settings_before_first_kept_entry_do_not_matter(self) -> None:
        path = chain(entry("model_change", "m", None, provider="acme", modelId="alpha"),
                     msg("u1", None, "user"), msg("a1", None, "assistant"),
                     compaction("c1", "m"), msg("u2", None, "user"))
        self.check(path, [("compactionSummary", "c1"), ("user", "u1"), ("assistant", "a1"),
                          ("user", "u2")],
                   t("exercise_tests.context.first_kept_settings_entry"))

    def test_nested_compactions_older_one_inside_kept_range(self) -> None:
        path = chain(entry("model_change", "m", None, provider="acme", modelId="alpha"),
                     msg("u1", None, "user"), msg("a1", None, "assistant"),
                     compaction("c1", "m", "first"),
                     msg("u2", None, "user"), msg("a2", None, "assistant"),
                     compaction("c2", "m", "second"))
        result = self.check(
            path, [("compactionSummary", "c2"), ("user", "u1"), ("assistant", "a1"),
                   ("compactionSummary", "c1"), ("user", "u2"), ("assistant", "a2")],
            t("exercise_tests.context.nested_compaction_inside"))
        summaries = [m.get("summary") for m in result if m.get("role") == "compactionSummary"]
        self.assertEqual(summaries, ["second", "first"],
                         msg=t("exercise_tests.context.nested_compaction_summaries",
                               got=summaries))

    def test_nested_compactions_older_one_outside_kept_range(self) -> None:
        path = chain(msg("u1", None, "user"), msg("a1", None, "assistant"),
                     compaction("c1", "u1"),
                     msg("u2", None, "user"), msg("a2", None, "assistant"),
                     compaction("c2", "u2"), msg("u3", None, "user"))
        self.check(path, [("compactionSummary", "c2"), ("user", "u2"), ("assistant", "a2"),
                          ("user", "u3")],
                   t("exercise_tests.context.nested_compaction_outside"))

    def test_missing_first_kept_entry_id_keeps_nothing_before(self) -> None:
        path = chain(msg("u1", None, "user"), msg("a1", None, "assistant"),
                     compaction("c1", None), msg("u2", None, "user"))
        self.check(path, [("compactionSummary", "c1"), ("user", "u2")],
                   t("exercise_tests.context.missing_first_kept"))

    def test_first_kept_entry_not_on_this_branch_keeps_nothing_before(self) -> None:
        path = chain(msg("u1", None, "user"), msg("a1", None, "assistant"),
                     compaction("c1", "elsewhere"), msg("u2", None, "user"))
        self.check(path, [("compactionSummary", "c1"), ("user", "u2")],
                   t("exercise_tests.context.first_kept_elsewhere"))

    def test_branch_summary_becomes_a_message(self) -> None:
        path = chain(msg("u1", None, "user"), msg("a1", None, "assistant"),
                     entry("branch_summary", "b1", None, fromId="a1", summary="tried X",
                           timestamp="2026-03-01T10:00:01.000Z"),
                     msg("u2", None, "user"))
        result = self.check(path, [("user", "u1"), ("assistant", "a1"),
                                   ("branchSummary", "b1"), ("user", "u2")],
                            t("exercise_tests.context.branch_summary"))
        expected = {"role": "branchSummary", "summary": "tried X", "fromId": "a1",
                    "timestamp": 1772359201000, "entryId": "b1"}
        self.assertEqual(result[2], expected,
                         msg=t("exercise_tests.context.branch_summary_fields",
                               want=expected, got=result[2]))

    def test_empty_branch_summary_sends_nothing(self) -> None:
        path = chain(msg("u1", None, "user"),
                     entry("branch_summary", "b1", None, fromId="u1", summary=""))
        self.check(path, [("user", "u1")],
                   t("exercise_tests.context.empty_branch_summary"))

    def test_custom_message_in_custom_out(self) -> None:
        path = chain(msg("u1", None, "user"),
                     entry("custom", "x1", None, customType="todo", data={"open": 3}),
                     entry("custom_message", "cm1", None, customType="note", content="remember",
                           display=True, timestamp="2026-03-01T10:00:02.000Z"),
                     msg("a1", None, "assistant"))
        result = self.check(path, [("user", "u1"), ("custom", "cm1"), ("assistant", "a1")],
                            t("exercise_tests.context.custom_message"))
        expected = {"role": "custom", "customType": "note", "content": "remember",
                    "display": True, "timestamp": 1772359202000, "entryId": "cm1"}
        self.assertEqual(result[1], expected,
                         msg=t("exercise_tests.context.custom_message_fields",
                               want=expected, got=result[1]))

    def test_custom_message_details_are_copied_as_is(self) -> None:
        path = chain(*(entry("custom_message", f"cm{number}", None, customType="note",
                             content="remember", display=False, **extra)
                       for number, extra in enumerate(({"details": {"open": 3}},
                                                       {"details": None}, {"details": {}},
                                                       {}))))
        result = impl.build_context_messages(path)
        got = [(m.get("entryId"), m.get("details", "<no details key>")) for m in result]
        expected = [("cm0", {"open": 3}), ("cm1", None), ("cm2", {}),
                    ("cm3", "<no details key>")]
        self.assertEqual(got, expected,
                         msg=t("exercise_tests.context.custom_message_details",
                               want=expected, got=got))

    def test_metadata_and_unknown_entries_send_nothing(self) -> None:
        path = chain(msg("u1", None, "user"),
                     entry("label", "l1", None, targetId="u1", label="start"),
                     entry("session_info", "s1", None, name="demo"),
                     entry("future_entry", "f1", None, note="?"),
                     msg("a1", None, "assistant"))
        self.check(path, [("user", "u1"), ("assistant", "a1")],
                   t("exercise_tests.context.metadata_sends_nothing"))

    def test_null_or_missing_content_is_repaired(self) -> None:
        broken_user = entry("message", "u1", None, message={"role": "user", "content": None})
        broken_assistant = entry("message", "a1", None,
                                 message={"role": "assistant", "provider": "acme"})
        result = impl.build_context_messages(chain(broken_user, broken_assistant))
        contents = [m.get("content", "<missing>") for m in result]
        self.assertEqual(contents, [[], []],
                         msg=t("exercise_tests.context.content_repaired", got=contents))

    def test_input_is_not_modified(self) -> None:
        path = chain(msg("u1", None, "user"), compaction("c1", "u1"),
                     entry("message", "a1", None, message={"role": "assistant", "content": None}))
        before = copy.deepcopy(path)
        impl.build_context_messages(path)
        self.assertEqual(path, before,
                         msg=t("exercise_tests.context.input_unchanged"))

    def test_drawn_inputs(self) -> None:   # last: see tests/drawn.py
        BUILD_CONTEXT_DRAWN.check(self, impl.build_context_messages)


if __name__ == "__main__":
    unittest.main()
