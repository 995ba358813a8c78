"""The session explorer without a kernel: set widget values or call methods, check the result.

Every action must change what the learner sees: the path, the listed messages and the PNG.
Nothing may touch the learner's file or the session object they passed in.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from learn_pi_lab.drawing import SessionExplorer  # noqa: E402
from learn_pi_lab.drawing.explorer_model import ExplorerModel  # noqa: E402
from learn_pi_lab.labs import story_tree  # noqa: E402
from learn_pi_lab.pi.session import load_session, session_from_text  # noqa: E402
from tests.test_drawing import (chain, compacted_entries, damaged_text, label,  # noqa: E402
                                message, session_text)


@pytest.fixture(scope="module")
def story():
    return story_tree("en")


def option_values(explorer: SessionExplorer) -> list[str]:
    return [value for _text, value in explorer.leaf_options]


def leaf_values(explorer: SessionExplorer) -> list[str]:
    """The picker's leaves: exactly the tree's leaves, one option per branch."""
    return option_values(explorer)


# -- leaves and rewinding -------------------------------------------------------------------------

def test_leaf_options_are_the_trees_leaves(story):
    explorer = SessionExplorer(story, lang="en")
    assert leaf_values(explorer) == [entry.id for entry in story.leaves()]
    assert explorer.leaf_picker.value == story.leaf_id
    assert explorer.leaf_picker.index == leaf_values(explorer).index(story.leaf_id)
    assert explorer.path_ids == tuple(entry.id for entry in story.path_to())


def test_picking_another_leaf_changes_path_list_and_drawing(story):
    explorer = SessionExplorer(story, lang="en")
    before = (explorer.path_ids, explorer.listed_messages, explorer.image_png,
              explorer.path_list.value)
    explorer.leaf_picker.value = "a18"            # what a click in the Dropdown does
    assert explorer.path_ids == tuple(entry.id for entry in story.path_to("a18"))
    assert explorer.listed_messages[-1].entry_id == "a18"
    assert explorer.image_png != before[2]
    assert explorer.path_list.value != before[3]
    explorer.pick_leaf(story.leaf_id)             # and back: the same picture as before
    assert (explorer.path_ids, explorer.listed_messages, explorer.image_png,
            explorer.path_list.value) == before


def test_rewinding_to_an_inner_entry_shows_it_in_the_rewind_picker(story):
    explorer = SessionExplorer(story, lang="en")
    count = len(explorer.leaf_options)
    explorer.rewind_picker.value = "u04"
    assert explorer.path_ids[-1] == "u04"
    assert option_values(explorer) == [entry.id for entry in story.leaves()]
    assert len(explorer.leaf_options) == count     # moving the leaf adds no option
    assert explorer.rewind_picker.value == "u04"
    assert explorer.leaf_picker.value is None      # u04 is no leaf: no branch selected
    with pytest.raises(KeyError):
        explorer.pick_leaf("no-such-entry")


# -- appending ------------------------------------------------------------------------------------

def test_appending_at_a_non_leaf_adds_a_new_branch(story):
    explorer = SessionExplorer(story, lang="en")
    leaves_before = leaf_values(explorer)
    explorer.pick_leaf("a05")
    png_at_a05 = explorer.image_png
    new_id = explorer.append_message("try a different approach")
    assert leaf_values(explorer) == leaves_before + [new_id]     # one more leaf: a branch
    assert explorer.path_ids == tuple(e.id for e in story.path_to("a05")) + (new_id,)
    assert explorer.listed_messages[-1] == ("00000001", "user", "try a different approach")
    assert explorer.image_png != png_at_a05
    assert new_id not in story                                   # the input is untouched


def test_appending_at_a_leaf_grows_that_branch_without_a_new_leaf(story):
    explorer = SessionExplorer(story, lang="en")
    count = len(explorer.leaf_options)
    new_id = explorer.append_message("and one more thing")
    assert len(explorer.leaf_options) == count
    assert explorer.path_ids[-2:] == (story.leaf_id, new_id)


def test_append_widgets_and_stable_ids(story):
    first, second = SessionExplorer(story, lang="en"), SessionExplorer(story, lang="en")
    for explorer in (first, second):
        explorer.pick_leaf("a03")
        explorer.append_text.value = "  hello  "
        explorer.append_button.click()
        explorer.append_button.click()        # empty text box now: nothing is appended
    assert first.model.appended_ids == second.model.appended_ids == ["00000001"]
    assert first.append_text.value == ""
    assert first.listed_messages[-1].text == "hello"
    assert first.image_png == second.image_png     # same clicks, same picture


def test_appended_timestamps_follow_the_latest_entry(story):
    model = ExplorerModel(story)
    model.append_message("x")
    model.append_message("y")
    stamps = [model.session.entry(entry_id)["timestamp"] for entry_id in model.appended_ids]
    latest = max(entry.payload["timestamp"] for entry in story)
    assert latest < stamps[0] < stamps[1]


def test_the_learners_file_is_never_written(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text(session_text(compacted_entries()), encoding="utf-8")
    before = path.read_bytes(), path.stat().st_mtime_ns
    session = load_session(path)
    explorer = SessionExplorer(session, lang="en")
    explorer.pick_leaf("r0002")
    explorer.append_message("a branch")
    explorer.fork("at", "r0002")
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert session.leaf_id == "c7" and "00000001" not in session   # the object is untouched


# -- the two views --------------------------------------------------------------------------------

def test_toggling_the_view_on_a_compacted_session_changes_the_list():
    explorer = SessionExplorer(session_from_text(session_text(compacted_entries())), lang="en")
    branch_rows = explorer.listed_messages
    branch_png = explorer.image_png
    assert [row.entry_id for row in branch_rows] == list(explorer.path_ids)
    explorer.view_toggle.value = "context"       # what clicking the second button does
    context_rows = explorer.listed_messages
    assert context_rows[0].kind == "compactionSummary"
    assert [row.entry_id for row in context_rows] == ["cmp1", "r0003", "r0004", "r0005",
                                                      "u6", "c7"]
    assert explorer.image_png != branch_png
    assert "What the model sees: 6 messages" in explorer.path_list.value
    explorer.set_view("branch")
    assert explorer.listed_messages == branch_rows
    with pytest.raises(ValueError):
        explorer.set_view("everything")


# -- forks ----------------------------------------------------------------------------------------

def test_fork_before_a_user_message_copies_the_path_to_its_parent(story):
    explorer = SessionExplorer(story, lang="en")
    png = explorer.image_png
    explorer.pick_leaf("u04")
    explorer.fork_before_button.click()
    lines = explorer.model.fork_lines
    assert [line["id"] for line in lines] == [e.id for e in story.path_to("a03")]
    assert lines[0]["parentId"] is None
    assert explorer.path_ids[-1] == "a03"            # the drawing shows what was copied
    assert explorer.image_png != png
    assert "holds 8 entries" in explorer.fork_output.value


def test_fork_at_recreates_labels_after_the_copied_path():
    entries = chain("r", None, 4) + [label("l1", "r0003", "r0001", "keep")]
    explorer = SessionExplorer(session_from_text(session_text(entries)), lang="en")
    lines = explorer.fork("at", "l1")
    assert [line["type"] for line in lines] == ["message"] * 4 + ["label"]
    assert lines[-1]["targetId"] == "r0001" and lines[-1]["id"] not in {"l1"}
    assert explorer.path_ids[-1] == "r0003"
    again = SessionExplorer(session_from_text(session_text(entries)), lang="en")
    assert again.fork("at", "l1") == lines           # label ids are reproducible


def test_a_refused_fork_says_why_and_keeps_the_leaf(story):
    explorer = SessionExplorer(story, lang="en")
    assert explorer.fork("before", "a02") == []
    assert "user message" in explorer.model.fork_error
    assert "user message" in explorer.fork_output.value
    assert explorer.path_ids[-1] == story.leaf_id
    explorer.pick_leaf("a02")                        # any other action clears the message
    assert explorer.fork_output.value == ""


# -- damaged files, widgets, display --------------------------------------------------------------

def test_a_damaged_session_can_be_explored():
    explorer = SessionExplorer(session_from_text(damaged_text()), lang="en")
    assert leaf_values(explorer) == ["a2", "a4"]
    explorer.pick_leaf("a4")
    assert explorer.path_ids == ("a3", "a4")         # the walk stops at the missing parent
    assert explorer.fork("at", "a4") == []           # teaching mode refuses to copy it
    assert "zz" in explorer.model.fork_error


def test_every_widget_has_its_css_class(story):
    explorer = SessionExplorer(story, lang="en")
    expected = {
        "lpl-explorer": explorer.widget, "lpl-leaf-picker": explorer.leaf_picker,
        "lpl-rewind-picker": explorer.rewind_picker, "lpl-append-text": explorer.append_text,
        "lpl-append-button": explorer.append_button,
        "lpl-fork-before": explorer.fork_before_button, "lpl-fork-at": explorer.fork_at_button,
        "lpl-view-toggle": explorer.view_toggle, "lpl-drawing": explorer.drawing,
        "lpl-path-list": explorer.path_list, "lpl-fork-output": explorer.fork_output,
    }
    for css_class, widget in expected.items():
        assert css_class in widget._dom_classes
    assert explorer.image in explorer.drawing.children   # ".lpl-drawing img"
    assert [value for _label, value in explorer.view_toggle.options] == ["branch", "context"]


def test_the_drawing_is_a_png_image_widget(story):
    explorer = SessionExplorer(story, lang="en")
    assert explorer.image.format == "png"
    assert explorer.image_png.startswith(b"\x89PNG")
    assert explorer.image_png == explorer.model.image_png
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_a_transcript_tree_and_its_file_explore_alike(story):
    from_tree = ExplorerModel(story)
    lines = [dict(entry.payload) for entry in story]
    from_file = ExplorerModel(session_from_text(session_text(lines)))
    assert from_tree.path_ids == from_file.path_ids
    assert from_tree.listed_messages == from_file.listed_messages
    assert from_tree.image_png == from_file.image_png


def test_listed_messages_show_the_message_text():
    entries = [message("q1", None, "user", "What is JSONL?"),
               message("a1", "q1", "assistant", "One JSON object per line.")]
    explorer = SessionExplorer(session_from_text(session_text(entries)), lang="en")
    assert [(row.kind, row.text) for row in explorer.listed_messages] == [
        ("user", "What is JSONL?"), ("assistant", "One JSON object per line.")]
