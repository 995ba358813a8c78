"""Reference checks of learn_pi_lab.pi.context beyond the chapter 06 exercise.

convert_to_llm's exact wrapper text (a provider sees these bytes), build_session_context's
settings and the opt-in retainedTail rule.
"""

from __future__ import annotations

import copy
import unittest

from learn_pi_lab.pi import context
from tests.targets import is_reference


def entry(kind: str, entry_id: str, parent_id: str | None, **fields) -> dict:
    return {"type": kind, "id": entry_id, "parentId": parent_id,
            "timestamp": fields.pop("timestamp", "2026-03-01T10:00:00.000Z"), **fields}


def user(entry_id: str, parent_id: str | None, text: str = "hi") -> dict:
    return entry("message", entry_id, parent_id,
                 message={"role": "user", "content": [{"type": "text", "text": text}],
                          "timestamp": 5})


def assistant(entry_id: str, parent_id: str | None, model: str = "alpha") -> dict:
    return entry("message", entry_id, parent_id,
                 message={"role": "assistant", "content": [], "provider": "acme",
                          "model": model, "stopReason": "stop", "timestamp": 6})


@unittest.skipUnless(is_reference(), "checks the reference model only")
class WrapperConstantsTests(unittest.TestCase):
    def test_exact_constants(self) -> None:
        self.assertEqual(context.COMPACTION_SUMMARY_PREFIX,
                         "The conversation history before this point was compacted into the "
                         "following summary:\n\n<summary>\n")
        self.assertEqual(context.COMPACTION_SUMMARY_SUFFIX, "\n</summary>")
        self.assertEqual(context.BRANCH_SUMMARY_PREFIX,
                         "The following is a summary of a branch that this conversation came "
                         "back from:\n\n<summary>\n")
        self.assertEqual(context.BRANCH_SUMMARY_SUFFIX, "</summary>")


@unittest.skipUnless(is_reference(), "checks the reference model only")
class ConvertToLlmTests(unittest.TestCase):
    def convert_one(self, message: dict) -> list[dict]:
        return context.convert_to_llm([message])

    def text_of(self, message: dict) -> str:
        converted = self.convert_one(message)
        self.assertEqual(len(converted), 1)
        self.assertEqual(converted[0]["role"], "user")
        return converted[0]["content"][0]["text"]

    def test_plain_roles_pass_through(self) -> None:
        messages = [{"role": "user", "content": "a", "timestamp": 1},
                    {"role": "assistant", "content": [], "timestamp": 2},
                    {"role": "toolResult", "content": [], "toolCallId": "c", "timestamp": 3}]
        self.assertEqual(context.convert_to_llm(messages), messages)

    def test_compaction_summary_text(self) -> None:
        text = self.text_of({"role": "compactionSummary", "summary": "S", "tokensBefore": 1,
                             "timestamp": 9, "entryId": "c1"})
        self.assertEqual(text, "The conversation history before this point was compacted into "
                               "the following summary:\n\n<summary>\nS\n</summary>")

    def test_branch_summary_text_has_no_newline_before_closing_tag(self) -> None:
        text = self.text_of({"role": "branchSummary", "summary": "B", "fromId": "x",
                             "timestamp": 9})
        self.assertEqual(text, "The following is a summary of a branch that this conversation "
                               "came back from:\n\n<summary>\nB</summary>")

    def test_summary_keeps_timestamp_and_entry_id(self) -> None:
        converted = self.convert_one({"role": "branchSummary", "summary": "B", "fromId": "x",
                                      "timestamp": 9, "entryId": "b1"})[0]
        self.assertEqual((converted["timestamp"], converted["entryId"]), (9, "b1"))

    def test_custom_string_content_becomes_a_text_block(self) -> None:
        converted = self.convert_one({"role": "custom", "customType": "k", "content": "note",
                                      "display": False, "timestamp": 4})
        self.assertEqual(converted, [{"role": "user",
                                      "content": [{"type": "text", "text": "note"}],
                                      "timestamp": 4}])

    def test_custom_array_content_passes_through(self) -> None:
        blocks = [{"type": "text", "text": "a"}, {"type": "image", "data": "x", "mimeType": "p"}]
        converted = self.convert_one({"role": "custom", "customType": "k", "content": blocks,
                                      "display": True, "timestamp": 4})
        self.assertEqual(converted[0]["content"], blocks)

    def test_bash_execution_with_output(self) -> None:
        text = self.text_of({"role": "bashExecution", "command": "ls", "output": "a\nb",
                             "exitCode": 0, "cancelled": False, "truncated": False,
                             "timestamp": 1})
        self.assertEqual(text, "Ran `ls`\n```\na\nb\n```")

    def test_bash_execution_no_output_and_exit_code(self) -> None:
        text = self.text_of({"role": "bashExecution", "command": "false", "output": "",
                             "exitCode": 1, "cancelled": False, "truncated": False,
                             "timestamp": 1})
        self.assertEqual(text, "Ran `false`\n(no output)\n\nCommand exited with code 1")

    def test_bash_execution_cancelled_hides_exit_code(self) -> None:
        text = self.text_of({"role": "bashExecution", "command": "sleep 9", "output": "",
                             "exitCode": 130, "cancelled": True, "truncated": False,
                             "timestamp": 1})
        self.assertEqual(text, "Ran `sleep 9`\n(no output)\n\n(command cancelled)")

    def test_bash_execution_missing_exit_code_says_nothing(self) -> None:
        text = self.text_of({"role": "bashExecution", "command": "x", "output": "o",
                             "cancelled": False, "truncated": False, "timestamp": 1})
        self.assertEqual(text, "Ran `x`\n```\no\n```")

    def test_bash_execution_truncated_with_path(self) -> None:
        text = self.text_of({"role": "bashExecution", "command": "cat big", "output": "...",
                             "exitCode": 0, "cancelled": False, "truncated": True,
                             "fullOutputPath": "/tmp/out.txt", "timestamp": 1})
        self.assertEqual(text, "Ran `cat big`\n```\n...\n```\n\n"
                               "[Output truncated. Full output: /tmp/out.txt]")

    def test_bash_execution_truncated_without_path_says_nothing(self) -> None:
        text = self.text_of({"role": "bashExecution", "command": "c", "output": "o",
                             "exitCode": 0, "cancelled": False, "truncated": True,
                             "timestamp": 1})
        self.assertEqual(text, "Ran `c`\n```\no\n```")

    def test_excluded_bash_execution_is_dropped(self) -> None:
        self.assertEqual(self.convert_one({"role": "bashExecution", "command": "c",
                                           "output": "o", "exitCode": 0, "cancelled": False,
                                           "truncated": False, "excludeFromContext": True,
                                           "timestamp": 1}), [])

    def test_unknown_roles_are_dropped(self) -> None:
        self.assertEqual(self.convert_one({"role": "developer", "content": "x"}), [])

    def test_input_is_not_modified(self) -> None:
        messages = [{"role": "custom", "customType": "k", "content": "n", "display": True,
                     "timestamp": 4}, {"role": "user", "content": "a"}]
        before = copy.deepcopy(messages)
        converted = context.convert_to_llm(messages)
        converted[1]["content"] = "changed"
        self.assertEqual(messages, before)


@unittest.skipUnless(is_reference(), "checks the reference model only")
class SessionContextTests(unittest.TestCase):
    def test_model_and_thinking_come_with_the_messages(self) -> None:
        path = [entry("model_change", "m", None, provider="acme", modelId="alpha"),
                entry("thinking_level_change", "t", "m", thinkingLevel="low"),
                user("u1", "t"), assistant("a1", "u1", model="beta")]
        result = context.build_session_context(path)
        self.assertEqual(result.model, {"provider": "acme", "modelId": "beta"})
        self.assertEqual(result.thinking_level, "low")
        self.assertEqual(result.messages, context.build_context_messages(path))

    def test_empty_context_defaults(self) -> None:
        result = context.build_session_context([])
        self.assertEqual((result.messages, result.model, result.thinking_level), ([], None, "off"))

    def test_custom_message_null_content_repaired(self) -> None:
        path = [entry("custom_message", "cm", None, customType="k", content=None, display=False,
                      details={"x": 1})]
        message = context.build_context_messages(path)[0]
        self.assertEqual(message["content"], [])
        self.assertEqual(message["details"], {"x": 1})

    def test_message_role_custom_from_migrated_files_passes_through(self) -> None:
        path = [entry("message", "h1", None, message={"role": "custom", "customType": "k",
                                                       "content": "x", "display": True,
                                                       "timestamp": 3})]
        self.assertEqual(context.build_context_messages(path)[0]["role"], "custom")

    def test_iso_to_ms(self) -> None:
        self.assertEqual(context.iso_to_ms("2026-05-12T01:02:27.657Z"), 1778547747657)
        self.assertEqual(context.iso_to_ms("1970-01-01T00:00:00.001Z"), 1)
        self.assertIsNone(context.iso_to_ms("not a time"))
        self.assertIsNone(context.iso_to_ms(None))

    def test_js_time_reads_rfc_2822_with_a_zone_as_javascript_does(self) -> None:
        self.assertEqual(context.js_time("Thu, 01 Jan 2026 00:00:30 GMT"), 1767225630000)
        self.assertEqual(context.js_time("01 Jan 2026 01:00:30 +0100"), 1767225630000)
        self.assertEqual(context.js_time("Wed, 31 Dec 2025 24:00:00 UT"), 1767225600000)
        self.assertEqual(context.js_time("Sat, 31 Feb 2026 00:00:00 GMT"), 1772496000000)
        for unreadable in ("Thu, 01 Jan 2026 00:00:30",        # local time: unknown here
                           "Thu, 01 Jan 2026 00:00:30 XYZ", "32 Jan 2026 00:00 GMT",
                           "31 Dec 2025 24:00:30 GMT"):
            self.assertIsNone(context.js_time(unreadable), unreadable)
        self.assertIsNone(context.iso_to_ms("Thu, 01 Jan 2026 00:00:30 GMT"),
                          "iso_to_ms stays the reverse of iso_now")


@unittest.skipUnless(is_reference(), "checks the reference model only")
class RetainedTailTests(unittest.TestCase):
    def path(self) -> list[dict]:
        tail = [{"role": "user", "content": "kept u", "timestamp": 1},
                {"role": "assistant", "content": [], "timestamp": 2}]
        return [user("u1", None), assistant("a1", "u1"), user("u2", "a1"),
                entry("compaction", "c1", "u2", summary="s", firstKeptEntryId="u2",
                      tokensBefore=5, retainedTail=tail),
                user("u3", "c1")]

    def test_off_by_default_like_pi_v0_84_2(self) -> None:
        roles = [(m["role"], m["entryId"]) for m in context.build_context_messages(self.path())]
        self.assertEqual(roles, [("compactionSummary", "c1"), ("user", "u2"), ("user", "u3")])

    def test_opt_in_uses_the_tail_and_ignores_first_kept(self) -> None:
        messages = context.build_session_context(self.path(), retained_tail=True).messages
        self.assertEqual([(m["role"], m["entryId"]) for m in messages],
                         [("compactionSummary", "c1"), ("user", "c1"), ("assistant", "c1"),
                          ("user", "u3")])
        self.assertEqual(messages[1]["content"], "kept u")


if __name__ == "__main__":
    unittest.main()


@unittest.skipUnless(is_reference(), "checks the reference model only")
class WrongListsTests(unittest.TestCase):
    """A notebook's usual slips (the Session itself, a tree's TranscriptEntry values, one
    dict, None) are a NotEntries naming the argument, not an AttributeError from inside."""

    def test_functions_that_read_entries_name_the_wrong_argument(self) -> None:
        from learn_pi_lab.errors import NotEntries
        from learn_pi_lab.i18n import explain
        from learn_pi_lab.pi.session import resolve_labels, session_from_text, session_name
        from learn_pi_lab.store import rebuild_extension_state

        session = session_from_text(
            '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}\n'
            '{"type":"message","id":"a","parentId":null,"timestamp":"t",'
            '"message":{"role":"user","content":"hi"}}\n')
        readers = {"resolve_labels": resolve_labels, "session_name": session_name,
                   "state_at": context.state_at,
                   "build_context_messages": context.build_context_messages,
                   "build_session_context": context.build_session_context,
                   "latest_edits": context.latest_edits,
                   "convert_to_llm": context.convert_to_llm,
                   "rebuild_extension_state": lambda x: rebuild_extension_state(x, "todo")}
        wrong = {"NoneType": None, "Session": session, "dict": session.entries[0],
                 "tuple[TranscriptEntry]": session.tree.path_to(), "list[str]": ["a"]}
        for name, reader in readers.items():
            for got, value in wrong.items():
                with self.subTest(reader=name, got=got):
                    with self.assertRaises(NotEntries) as caught:
                        reader(value)
                    self.assertEqual(caught.exception.got, got)
                    self.assertIn(caught.exception.argument, explain(caught.exception))
            with self.subTest(reader=name, got="a list of dicts"):
                reader(session.branch())   # the right thing still works
                reader(iter(session.branch()))
