"""The playground widget without a browser: messages from the page drive the real model,
the state the page draws is complete, and a saved notebook gets a static picture."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("anywidget")

from learn_pi_lab.playground.widget import TreePlayground  # noqa: E402


def click(widget, cmd, **args):
    widget._on_message(widget, {"cmd": cmd, "args": args}, [])


@pytest.fixture
def tp(tmp_path):
    return TreePlayground(tmp_path / "pg", lang="en", progress=tmp_path / "progress.json")


def test_clicks_solve_level_one(tp):
    click(tp, "level", level="1")
    assert tp.state["level"]["number"] == 1 and not tp.state["level"]["solved"]
    click(tp, "select", id="u2")
    assert 'class="lpl-node lpl-selected" data-id="u2"' in tp.state["tree_svg"] or \
        re.search(r'lpl-selected[^"]*" data-id="u2"', tp.state["tree_svg"])
    click(tp, "tree")
    assert tp.state["leaf"] == "a1" and tp.state["editor"].startswith("Use the strategy")
    assert re.search(r'lpl-leaf[^"]*lpl-new[^"]*" data-id="a1"', tp.state["tree_svg"]), \
        "the moved leaf is highlighted"
    assert "wrote no byte" in tp.state["file"]["change"]["prefix"]
    click(tp, "user", text="Use composition.")
    added = [row for row in tp.state["file"]["lines"] if row["new"]]
    assert len(added) == 1 and '"parentId":"a1"' in added[0]["text"]
    assert tp.state["file"]["change"]["prefix_unchanged"]
    assert tp.state["level"]["solved"]
    assert "✓" in tp.state["levels"][0]["text"]


def test_unsolved_level_says_why(tp):
    click(tp, "level", level="1")
    click(tp, "user", text="no rewind first")
    level = tp.state["level"]
    assert not level["solved"] and level["reasons"] and level["status"].startswith("Not solved")


def test_fork_says_the_source_is_unchanged(tp):
    click(tp, "select", id="u3")
    click(tp, "fork")
    assert "not a byte written" in tp.state["file"]["change"]["prefix"]
    copy = tp.state["file"]["copies"][0]
    assert copy["new"] and len(copy["lines"]) == 5     # header + u1 a1 u2 a2


def test_refusals_show_an_error_and_change_nothing(tp):
    before = tp.pg.path.read_bytes()
    click(tp, "tree")                       # nothing selected
    assert tp.state["error"]
    click(tp, "select", id="a2")
    click(tp, "fork")                       # before an answer: Pi refuses
    assert tp.state["error"] and tp.pg.created == []
    assert tp.pg.path.read_bytes() == before


def test_undo_and_view_toggle(tp):
    click(tp, "assistant", text="")
    assert tp.state["log"] == ["assistant"]
    click(tp, "undo")
    assert tp.state["log"] == [] and "Pi cannot" in tp.state["note"]
    click(tp, "view", view="context")
    assert tp.state["view"] == "context" and tp.state["rows_heading"].startswith("messages")


def test_hover_info_has_the_jsonl_line(tp):
    info = tp.state["info"]["u1"]
    assert info["line"] == 2 and info["json"].startswith('{"type":"message","id":"u1"')


def test_saved_notebook_gets_a_static_picture(tp):
    bundle = tp._repr_mimebundle_()
    data = bundle[0] if isinstance(bundle, tuple) else bundle
    assert "application/vnd.jupyter.widget-view+json" in data
    assert "<svg" in data["text/html"] and 'data-id="u1"' in data["text/html"]
    assert data["text/plain"].startswith("TreePlayground:" if tp.pg.lang == "en" else "树游乐场：")


def test_browser_code_fetches_nothing():
    esm = TreePlayground._esm
    assert not re.search(r"\bimport\s|https?://|fetch\(|XMLHttpRequest", esm)
    assert "export default" in esm


def test_calls_from_code_raise_what_a_click_only_shows(tp):
    from learn_pi_lab.playground import PlaygroundError
    with pytest.raises(PlaygroundError):
        tp.append_user("  ")
    assert tp.state["error"]
    with pytest.raises(ValueError):
        tp.fork("a2")                           # Pi's rule: fork before needs a user message
    tp.tree_to("u2")
    assert tp.state["error"] == "" and tp.pg.leaf_id == "a1"
    assert tp.level(1).check().solved is False


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_committed_chapter_03_shows_a_picture_not_a_widget_repr(lang):
    """A reader on a code host or nbviewer (no kernel) sees the tree and the file."""
    import nbformat
    from learn_pi_lab.course.paths import repo_root
    notebook = nbformat.read(repo_root() / "notebooks" / lang / "03-rewind-and-branch.ipynb", 4)
    outputs = [output for cell in notebook.cells if cell.cell_type == "code"
               for output in cell.outputs if output.get("output_type") == "execute_result"]
    pictures = [output for output in outputs
                if "lpl-playground-static" in output["data"].get("text/html", "")]
    assert pictures, "the playground cell has no static HTML picture"
    html = pictures[0]["data"]["text/html"]
    assert "<svg" in html and 'data-id="u2"' in html and "session.jsonl" in html
    assert "<svg" in pictures[0]["data"].get("image/svg+xml", "")
    for output in outputs:
        plain = output["data"].get("text/plain", "")
        if plain.startswith(("VBox(", "TreePlayground(")):
            assert set(output["data"]) - {"text/plain"}, "a bare widget repr was saved"


def test_nodes_carry_a_tooltip_that_works_without_javascript(tp):
    svg = tp.state["tree_svg"]
    assert svg.count("<title>") == len(tp.pg.entries)
    assert "u1  message/user  (line 2)" in svg
