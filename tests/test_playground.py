"""The tree playground without a browser: commands, the file view, undo, levels, progress.

Every command must go through the package's real operations and leave the file's earlier
bytes untouched; undo must restore the exact bytes; a level must be solved by the right
commands and must NOT count for plausible wrong ones, or for a file edited by hand.
"""

from __future__ import annotations

import json

import pytest

from learn_pi_lab.i18n import explain
from learn_pi_lab.jsonl.writer import SessionWriter
from learn_pi_lab.pi.session import load_session
from learn_pi_lab.playground import Playground, PlaygroundError, load_levels
from learn_pi_lab.playground.levels import read_progress, shape


@pytest.fixture
def pg(tmp_path):
    return Playground(tmp_path / "pg", lang="en")


# -- commands ------------------------------------------------------------------------------

def test_starts_on_the_last_line_like_pi(pg):
    assert pg.leaf_id == "a3"
    assert pg.path_ids == ("u1", "a1", "u2", "a2", "u3", "a3")
    assert pg.log == [] and pg.editor == ""


def test_tree_to_a_user_message_moves_the_leaf_to_its_parent_and_fills_the_editor(pg):
    before = pg.path.read_bytes()
    action = pg.tree_to("u2")
    assert pg.leaf_id == "a1" and action.leaf_after == "a1"
    assert pg.editor == "Use the strategy pattern, one class per payment method."
    assert action.change is None and pg.path.read_bytes() == before   # nothing written


def test_tree_to_an_answer_keeps_the_leaf_on_it(pg):
    pg.tree_to("a2")
    assert pg.leaf_id == "a2" and pg.editor == ""


def test_append_writes_exactly_one_line_at_the_end(pg):
    pg.tree_to("u2")
    before = pg.path.read_bytes()
    action = pg.append_user()                 # resend the editor text, as Pi's editor does
    after = pg.path.read_bytes()
    change = action.change
    assert after.startswith(before) and change.prefix_unchanged
    assert (change.size_before, change.size_after) == (len(before), len(after))
    assert change.added.encode() == after[len(before):]
    assert len(change.added_lines) == 1
    line = json.loads(change.added_lines[0])
    assert line["parentId"] == "a1" and line["message"]["role"] == "user"
    assert pg.leaf_id == line["id"] == action.new_ids[0]
    assert pg.editor == ""
    assert [child["id"] for child in pg.session.children("a1")] == ["u2", line["id"]]


def test_empty_message_is_refused_with_a_translatable_error(pg):
    with pytest.raises(PlaygroundError) as caught:
        pg.append_user("   ")
    assert "empty" in str(caught.value)
    assert "编辑框" in explain(caught.value, "zh")
    assert pg.log == []


def test_label_and_clear_label_are_lines_that_become_the_leaf(pg):
    pg.set_label("a1", "checkpoint")
    assert pg.session.labels() == {"a1": "checkpoint"}
    label_line = json.loads(pg.last_change.added_lines[0])
    assert label_line["parentId"] == "a3" and pg.leaf_id == label_line["id"]
    pg.clear_label("a1")
    assert pg.session.labels() == {}
    assert "label" not in json.loads(pg.last_change.added_lines[0])


def test_branch_summary_only_when_leaving_a_branch(pg):
    with pytest.raises(PlaygroundError):
        pg.tree_to("a3", summary="nothing left behind")      # a3 is the leaf: nothing to leave
    assert pg.leaf_id == "a3" and pg.log == []
    action = pg.tree_to("u2", summary="strategy pattern bloated the factory")
    summary = json.loads(action.change.added_lines[0])
    assert summary["type"] == "branch_summary"
    assert summary["parentId"] == summary["fromId"] == "a1"   # Pi writes the branch point
    assert pg.leaf_id == summary["id"]
    assert pg.editor.startswith("Use the strategy pattern")


def test_fork_before_writes_a_new_file_and_leaves_the_source_alone(pg):
    before = pg.path.read_bytes()
    action = pg.fork("u3")
    assert pg.path.read_bytes() == before
    assert action.change.new_file and action.change.size_before == 0
    copy = load_session(action.change.path)
    assert [entry["id"] for entry in copy.entries] == ["u1", "a1", "u2", "a2"]
    assert copy.header["parentSession"] == str(pg.path.resolve())
    assert pg.editor == "Now add Alipay."
    assert pg.leaf_id == "a3"


def test_fork_before_an_answer_is_refused(pg):
    with pytest.raises(ValueError):
        pg.fork("a2")
    assert pg.created == [] and pg.log == []


def test_clone_copies_the_current_branch(pg):
    pg.tree_to("a2")
    action = pg.clone()
    assert [e["id"] for e in load_session(action.change.path).entries] == ["u1", "a1", "u2", "a2"]


def test_name_appends_session_info(pg):
    pg.name("payments")
    pg.name("payments v2")
    assert pg.session.name() == "payments v2"
    assert sum(1 for e in pg.entries if e["type"] == "session_info") == 2


def test_context_view_differs_from_branch_after_a_summary(pg):
    pg.tree_to("u2", summary="lesson")
    roles = [message["role"] for message in pg.context_messages()]
    assert roles == ["user", "assistant", "branchSummary"]
    pg.set_view("context")
    with pytest.raises(PlaygroundError):
        pg.set_view("sideways")


def test_describe_gives_kind_text_and_the_jsonl_line(pg):
    info = pg.describe("a2")
    assert info["kind"] == "message/assistant" and info["line"] == 5
    assert json.loads(info["json"])["id"] == "a2"


def test_ids_and_timestamps_are_repeatable(tmp_path):
    lines = []
    for name in ("one", "two"):
        pg = Playground(tmp_path / name)
        pg.tree_to("u2")
        pg.append_user("again")
        lines.append(pg.file_lines()[-1])
    assert lines[0] == lines[1]


# -- undo and reset ------------------------------------------------------------------------

def test_undo_restores_the_exact_bytes_leaf_and_editor(pg):
    start = pg.path.read_bytes()
    pg.tree_to("u2")
    after_tree = (pg.path.read_bytes(), pg.leaf_id, pg.editor)
    pg.append_user()
    pg.fork("u3")
    fork_file = pg.created[-1]
    assert pg.undo().command == "fork" and not fork_file.exists()
    assert pg.undo().command == "user"
    assert (pg.path.read_bytes(), pg.leaf_id, pg.editor) == after_tree
    assert pg.undo().command == "tree"
    assert pg.path.read_bytes() == start and pg.leaf_id == "a3" and pg.editor == ""
    assert pg.undo() is None
    key, _fields = pg.message
    assert key == "playground.note.nothing_to_undo"


def test_undo_says_pi_cannot_do_it(pg):
    from learn_pi_lab.i18n import t
    pg.append_user("x")
    pg.undo()
    key, fields = pg.message
    assert "Pi cannot" in t(key, "en", **fields) and "Pi 做不到" in t(key, "zh", **fields)


def test_reset_goes_back_to_the_start(pg):
    start = pg.path.read_bytes()
    pg.append_user("x")
    pg.clone()
    pg.reset()
    assert pg.path.read_bytes() == start and pg.log == [] and pg.created == []
    assert sorted(p.name for p in pg.folder.iterdir()) == ["session.jsonl"]


# -- levels ---------------------------------------------------------------------------------

def test_levels_are_data_in_both_languages():
    levels = load_levels()
    assert len(levels) >= 8
    assert len({level.id for level in levels}) == len(levels)
    for level in levels:
        for field in ("title", "goal"):
            assert level.data[field]["zh"] and level.data[field]["en"], (level.id, field)
        assert level.hints("zh") and all(level.hints("zh")) and all(level.hints("en"))
    ids = [level.id for level in levels]
    assert ids[0] == "rewind-and-branch" and ids[-1] == "repair-after-a-torn-line"


# The right commands for each level (what a learner clicks, as Python calls).
SOLUTIONS = {
    "rewind-and-branch": lambda pg: (pg.tree_to("u2"), pg.append_user("Use composition.")),
    "branch-from-an-answer": lambda pg: (pg.tree_to("a2"), pg.append_user("Why three?"),
                                         pg.append_assistant("One per method.")),
    "back-to-the-old-branch": lambda pg: (pg.tree_to("a2"), pg.append_user("Carry on")),
    "label-the-checkpoint": lambda pg: (pg.set_label("a1", "checkpoint"), pg.tree_to("a1"),
                                        pg.append_user("Again from here")),
    "summarise-the-abandoned-branch": lambda pg: (pg.tree_to("u2", summary="factory bloat"),
                                                  pg.append_user("Use composition.")),
    "fork-before-a-message": lambda pg: pg.fork("u3"),
    "clone-a-baseline": lambda pg: (pg.tree_to("a2"), pg.clone()),
    "name-and-rename": lambda pg: (pg.name("payments refactor"),
                                   pg.name("payments: composition")),
    "repair-after-a-torn-line": lambda pg: (pg.append_user("Now add Alipay."),
                                            pg.append_assistant("Added.")),
}

# Plausible mistakes: each must leave the level unsolved.
WRONG = {
    "rewind-and-branch": [
        lambda pg: pg.append_user("Use composition."),                 # no rewind: a chain
        lambda pg: (pg.tree_to("u1"), pg.append_user("x")),             # too far back
        lambda pg: (pg.tree_to("u2"), pg.append_user("x"), pg.tree_to("a2")),   # leaf left
    ],
    "branch-from-an-answer": [
        lambda pg: (pg.append_user("x"), pg.append_assistant("y")),     # at a3: no branch
        lambda pg: (pg.tree_to("u2"), pg.append_user("x"), pg.append_assistant("y")),
        lambda pg: (pg.tree_to("a2"), pg.append_user("x")),             # no answer yet
    ],
    "back-to-the-old-branch": [
        lambda pg: pg.append_user("x"),                                 # stayed on the new branch
        lambda pg: (pg.tree_to("u2"), pg.append_user("x")),             # a sibling of u2
    ],
    "label-the-checkpoint": [
        lambda pg: (pg.set_label("a2", "checkpoint"), pg.tree_to("a2"), pg.append_user("x")),
        lambda pg: (pg.set_label("a1", "check"), pg.tree_to("a1"), pg.append_user("x")),
        lambda pg: (pg.tree_to("a1"), pg.append_user("x")),             # no label at all
    ],
    "summarise-the-abandoned-branch": [
        lambda pg: (pg.tree_to("u2"), pg.append_user("x")),             # no summary
        lambda pg: (pg.tree_to("u3", summary="s"), pg.append_user("x")),
    ],
    "fork-before-a-message": [
        lambda pg: pg.fork("u3", "at"),                                 # copies u3 too
        lambda pg: pg.fork("u2"),
        lambda pg: (pg.tree_to("a2"), pg.clone()),                      # right lines, wrong command
    ],
    "clone-a-baseline": [
        lambda pg: pg.clone(),                                          # clones the new branch
        lambda pg: (pg.tree_to("a2"), pg.fork("a2", "at")),             # a fork, not a clone
    ],
    "name-and-rename": [
        lambda pg: pg.name("payments: composition"),                    # only once
        lambda pg: (pg.name("payments: composition"), pg.name("payments refactor")),
    ],
    "repair-after-a-torn-line": [
        lambda pg: pg.append_user("Now add Alipay."),                   # no answer
        lambda pg: (pg.tree_to("u2"), pg.append_user("x"), pg.append_assistant("y")),
    ],
}


def test_every_level_has_a_solution_and_mistakes():
    ids = {level.id for level in load_levels()}
    assert set(SOLUTIONS) == ids and set(WRONG) == ids


@pytest.mark.parametrize("level_id", sorted(SOLUTIONS))
def test_level_is_solved_by_the_right_commands_only(tmp_path, level_id):
    progress = tmp_path / ".progress" / "playground.json"
    pg = Playground(tmp_path / "pg", lang="en", progress=progress)
    run = pg.level(level_id)
    assert not run.check(), f"{level_id} is solved before any command"
    SOLUTIONS[level_id](pg)
    result = pg.level(level_id).check()        # the same run: level() does not restart it
    assert result.solved, f"{level_id}: {result}"
    assert level_id in read_progress(progress)["solved"]
    for number, mistake in enumerate(WRONG[level_id]):
        pg.reset()
        try:
            mistake(pg)
        except (PlaygroundError, ValueError):
            pass
        result = run.check()
        assert not result.solved, f"{level_id}: mistake {number} counted as solved"
        assert result.messages(), f"{level_id}: mistake {number} gives no reason"


def test_a_hand_edited_file_never_counts(tmp_path):
    """Write the right line with another writer: the tree matches, the level does not."""
    pg = Playground(tmp_path / "pg", lang="en")
    run = pg.level("back-to-the-old-branch")
    writer = SessionWriter(pg.path)
    writer.leaf_id = "a2"
    written = writer.append({"type": "message", "message": {
        "role": "user", "content": [{"type": "text", "text": "by hand"}]}})
    pg._reload(written["id"])
    result = run.check()
    assert not result.solved
    assert ("playground.check.edited_outside", {}) in result.reasons
    # even doing the right thing afterwards does not clean the record; reset does
    pg.tree_to("a2")
    pg.append_user("x")
    assert not run.check().solved
    pg.reset()
    pg.tree_to("a2")
    pg.append_user("x")
    assert run.check().solved


def test_an_edit_to_a_fork_file_after_the_fact_does_not_count(tmp_path):
    pg = Playground(tmp_path / "pg", lang="en")
    run = pg.level("fork-before-a-message")
    action = pg.fork("u3")
    assert run.check().solved
    with open(action.change.path, "a", encoding="utf-8") as handle:
        handle.write("\n")
    assert not run.check().solved


def test_torn_level_shows_the_repair_newline(tmp_path):
    pg = Playground(tmp_path / "pg", lang="en")
    pg.level("repair-after-a-torn-line")
    assert not pg.path.read_bytes().endswith(b"\n")
    assert pg.leaf_id == "a2"
    action = pg.append_user("Now add Alipay.")
    assert action.change.added.startswith("\n{")   # the writer's fresh line first
    assert action.change.prefix_unchanged
    codes = [d.code for d in pg.session.diagnostics]
    assert "corrupt-line" in codes and "glued-objects" not in codes


def test_level_restarts_only_when_another_level_is_picked(tmp_path):
    pg = Playground(tmp_path / "pg", lang="en")
    first = pg.level(1)
    pg.tree_to("u2")
    assert pg.level(1) is first and len(pg.log) == 1
    pg.level(2)
    assert pg.log == [] and pg.level_run.level.number == 2
    with pytest.raises(PlaygroundError):
        pg.level(99)


def test_level_texts_follow_the_language(tmp_path):
    zh = Playground(tmp_path / "zh", lang="zh").level(1)
    en = Playground(tmp_path / "en", lang="en").level(1)
    assert "回到" in zh.level.goal("zh") and "Go back" in en.level.goal("en")
    assert "重构" in zh.playground.entry("u1")["message"]["content"][0]["text"]
    assert zh.hint() != zh.hint() or len(zh.level.hints("zh")) == 1


def test_shape_ignores_new_ids_but_not_fixed_ones():
    a = [{"id": "u1", "parentId": None, "type": "message", "message": {"role": "user"}},
         {"id": "x1", "parentId": "u1", "type": "message", "message": {"role": "assistant"}}]
    b = [dict(a[0]), dict(a[1], id="y9")]
    assert shape(a, {"u1"}, "x1") == shape(b, {"u1"}, "y9")
    assert shape(a, {"u1"}, "x1") != shape(b, {"u1"}, "u1")
    c = [dict(a[0], id="u2"), dict(a[1], parentId="u2")]
    assert shape(a, {"u1", "u2"}, None) != shape(c, {"u1", "u2"}, None)


def test_progress_file_survives_garbage(tmp_path):
    path = tmp_path / "p.json"
    path.write_text("not json")
    assert read_progress(path) == {"solved": {}}


def test_progress_path_can_be_redirected(tmp_path, monkeypatch):
    from learn_pi_lab.playground.levels import PROGRESS_ENV, default_progress_path
    monkeypatch.delenv(PROGRESS_ENV, raising=False)
    assert default_progress_path().parts[-2:] == (".progress", "playground.json")
    monkeypatch.setenv(PROGRESS_ENV, str(tmp_path / "p.json"))
    assert default_progress_path() == tmp_path / "p.json"


def test_never_takes_over_somebody_elses_session_file(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    own = folder / "session.jsonl"
    own.write_text('{"type":"session","version":3,"id":"my-real-session","cwd":"/x"}\n')
    before = own.read_bytes()
    with pytest.raises(PlaygroundError):
        Playground(folder)
    assert own.read_bytes() == before
    Playground(tmp_path / "pg")
    Playground(tmp_path / "pg")            # its own file: reopening starts afresh


def test_tree_to_a_root_user_message_starts_a_new_root(pg):
    pg.tree_to("u1")
    assert pg.leaf_id is None and pg.path_ids == ()
    action = pg.append_user("Start over")
    assert pg.entry(action.new_ids[0])["parentId"] is None
    assert len(pg.session.tree.roots()) == 2
    pg.undo()
    with pytest.raises(PlaygroundError):      # the leaf is None: no branch to leave
        pg.tree_to("u1", summary="nothing")
    pg.undo()                                 # back on a3
    action = pg.tree_to("u1", summary="everything so far")
    summary = json.loads(action.change.added_lines[0])
    assert summary["parentId"] is None and summary["fromId"] == "root"   # Pi's rule at a root


def test_every_refusal_has_a_message_in_both_languages():
    import re as _re
    from pathlib import Path
    from learn_pi_lab.i18n import catalog
    import learn_pi_lab.playground.model as model_module
    source = Path(model_module.__file__).read_text(encoding="utf-8")
    reasons = set(_re.findall(r'PlaygroundError\("([a-z-]+)"', source))
    assert reasons, "no PlaygroundError found: the scan is broken"
    for reason in reasons:
        texts = catalog().get(f"playground.error.{reason}")
        assert texts and texts.get("zh") and texts.get("en"), reason


def test_level_data_is_consistent():
    from learn_pi_lab.playground.levels import NODE_KINDS
    for level in load_levels():
        start = [node["id"] for node in level.data["start"]["tree"]]
        added = [node["id"] for node in level.data["target"].get("add", [])]
        assert len(set(start + added)) == len(start + added), level.id
        assert all(entry_id.startswith("+") for entry_id in added), level.id
        assert not any(entry_id.startswith("+") for entry_id in start), level.id
        known = set(start + added)
        for node in level.target_nodes():
            assert node["kind"] in NODE_KINDS, (level.id, node)
            assert node.get("parent") is None or node["parent"] in known, (level.id, node)
            assert node.get("target") is None or node["target"] in known, (level.id, node)
        leaf = level.target_leaf
        assert leaf in known, (level.id, leaf)
        for expected in level.target_files():
            assert expected["command"] in ("fork", "clone")
            assert set(expected["ids"]) <= known, level.id
