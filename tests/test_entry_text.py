"""One rule for "the text of an entry", shared by the CLI, the story lab, the explorer and
the inspector (``learn_pi_lab.entry_text``)."""

from __future__ import annotations

from learn_pi_lab.entry_text import content_text, entry_text, message_text, one_line, short_text
from learn_pi_lab.session_tree import TranscriptEntry


def test_content_text_keeps_text_and_tool_calls_and_leaves_out_thinking():
    content = [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "Running"},
               {"type": "toolCall", "name": "bash", "arguments": {}},
               {"type": "image", "data": "..."}, "not a block"]
    assert content_text(content) == "Running [bash(…)]"
    assert content_text("plain") == "plain"
    assert content_text(None) == ""


def test_message_text_of_summaries_and_shell_commands():
    assert message_text({"role": "branchSummary", "summary": "tried X"}) == "tried X"
    assert message_text({"role": "bashExecution", "command": "ls"}) == "$ ls"
    assert message_text({"role": "user", "content": "hi"}) == "hi"


def test_entry_text_names_the_field_that_matters():
    assert entry_text({"type": "label", "targetId": "a1", "label": "good"}) == "a1 = good"
    assert entry_text({"type": "label", "targetId": "a1"}) == "a1 = "
    assert entry_text({"type": "model_change", "provider": "p", "modelId": "m"}) == "p/m"
    assert entry_text({"type": "custom_message", "customType": "note",
                       "content": "x"}) == "note: x"
    assert entry_text({"type": "mystery"}) == "mystery"


def test_one_line_folds_white_space_and_marks_a_cut():
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("x" * 10, limit=5) == "xxxx…"
    assert one_line("x" * 5, limit=5) == "xxxxx"


def test_short_text_of_a_message_starts_with_its_role():
    entry = TranscriptEntry("u1", None, kind="message",
                            payload={"message": {"role": "user", "content": "line one\nline two"}})
    assert short_text(entry) == "user: line one line two"
    assert short_text(TranscriptEntry("m1", None, kind="model_change")) == "?/?"


def test_an_answer_with_nothing_to_read_says_what_ended_it():
    """A Pi user's review: an error answer with no content showed as a bare "assistant:";
    Pi's /tree shows its error message, "(aborted)" or "(no content)"."""
    def answer(**fields):
        return message_text({"role": "assistant", "content": [], **fields})
    assert answer(stopReason="error", errorMessage="429 rate limit") == "429 rate limit"
    assert answer(stopReason="aborted", errorMessage="Request was aborted") == "[aborted]"
    assert answer(stopReason="length") == "[length]"
    assert answer(stopReason="stop") == "" and answer() == ""
    assert answer(stopReason="error", errorMessage="x", content=[{"type": "text",
                                                                   "text": "partial"}]) == "partial"
    assert message_text({"role": "user", "content": [], "errorMessage": "x"}) == ""


def test_a_context_edit_names_its_target_and_what_it_sends_now():
    assert entry_text({"type": "context_edit", "targetId": "u2", "replacement": None}) == "u2 = null"
    assert entry_text({"type": "context_edit", "targetId": "u2",
                       "replacement": {"content": [{"type": "text", "text": "short"}]}}) \
        == "u2 = short"
    assert entry_text({"type": "context_edit", "targetId": "u2", "replacement": 7}) == "u2 = "


def test_a_value_that_is_not_a_string_is_spelled_as_the_file_spells_it():
    """A damaged or hand-written file may hold ``true``, a number, a list or an object where
    a string belongs: the text shows its JSON, never Python's ``True`` or ``{'a': 1}``."""
    assert entry_text({"type": "label", "targetId": "a1", "label": True}) == "a1 = true"
    assert entry_text({"type": "label", "targetId": "a1", "label": {"a": [1, "é"]}}) == \
        'a1 = {"a":[1,"é"]}'
    assert entry_text({"type": "label", "targetId": None, "label": None}) == "? = "
    assert entry_text({"type": "thinking_level_change", "thinkingLevel": False}) == "false"
    assert entry_text({"type": "model_change", "provider": ["p"], "modelId": 4}) == '["p"]/4'
    assert entry_text({"type": "session_info", "name": {"n": None}}) == '{"n":null}'
    assert entry_text({"type": 7}) == "7"
    assert message_text({"role": "bashExecution", "command": None}) == "$ ?"
    assert content_text([{"type": "toolCall", "name": True}]) == "[true(…)]"
    entry = TranscriptEntry("u1", None, kind="message",
                            payload={"message": {"role": {"r": 1}, "content": "hi"}})
    assert short_text(entry) == '{"r":1}: hi'
