"""The static drawing: layout, what the picture marks, folding, damage, determinism.

Most checks read the scene (plain data) or the layout (coordinates); a few render with the
Agg backend and look at the matplotlib objects or the PNG bytes. Sessions are small JSONL
strings written here, plus one real 1,000-entry Pi file from ``data/pi``.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import networkx as nx  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from learn_pi_lab.drawing import draw_session, figure_png  # noqa: E402
from learn_pi_lab.drawing.layout import tree_layout  # noqa: E402
from learn_pi_lab.drawing.scene import MIN_FOLDED_RUN, build_scene  # noqa: E402
from learn_pi_lab.drawing.style import GROUP_COLOURS  # noqa: E402
from learn_pi_lab.jsonl.records import record_group  # noqa: E402
from learn_pi_lab.course.labs import story_tree  # noqa: E402
from learn_pi_lab.pi.context import build_session_context  # noqa: E402
from learn_pi_lab.pi.session import load_session, session_from_text  # noqa: E402
from learn_pi_lab.session_tree import (TranscriptEntry, TranscriptTree,  # noqa: E402
                                       UnknownTranscriptEntry)

REPO = Path(__file__).resolve().parents[1]
LARGE_SESSION = REPO / "data" / "pi" / "pi-mono" / "large-session.jsonl.xz"


# -- small session files, written here -----------------------------------------------------

HEADER = {"type": "session", "version": 3, "id": "drawing-test", "cwd": "/w",
          "timestamp": "2026-03-01T10:00:00.000Z"}


def stamp(n: int) -> str:
    return f"2026-03-01T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"


def message(entry_id: str, parent: str | None, role: str = "user", text: str = "hi",
            n: int = 0) -> dict:
    body = {"role": role, "content": [{"type": "text", "text": text}], "timestamp": n}
    if role == "assistant":
        body.update(provider="acme", model="alpha", stopReason="stop")
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp(n),
            "message": body}


def compaction(entry_id: str, parent: str, first_kept: str | None) -> dict:
    obj = {"type": "compaction", "id": entry_id, "parentId": parent, "timestamp": stamp(0),
           "summary": "earlier work", "tokensBefore": 1000}
    if first_kept is not None:
        obj["firstKeptEntryId"] = first_kept
    return obj


def label(entry_id: str, parent: str, target: str, text: str) -> dict:
    return {"type": "label", "id": entry_id, "parentId": parent, "timestamp": stamp(0),
            "targetId": target, "label": text}


def session_text(entries: list[dict], tail: str = "") -> str:
    """A whole file: header, one JSON line per entry, then ``tail`` verbatim."""
    lines = [json.dumps(HEADER)] + [json.dumps(entry) for entry in entries]
    return "\n".join(lines) + "\n" + tail


def chain(prefix: str, parent: str | None, count: int, start: int = 0) -> list[dict]:
    """``count`` alternating user/assistant messages, each the child of the previous one."""
    entries = []
    for index in range(count):
        entry_id = f"{prefix}{start + index:04d}"
        role = "user" if index % 2 == 0 else "assistant"
        entries.append(message(entry_id, parent, role, f"turn {index}", start + index))
        parent = entry_id
    return entries


def compacted_entries() -> list[dict]:
    """r0 .. r5, a compaction keeping from r3, then two more messages: c7 is the leaf."""
    entries = chain("r", None, 6)
    entries.append(compaction("cmp1", "r0005", "r0003"))
    entries += [message("u6", "cmp1", "user", n=6), message("c7", "u6", "assistant", n=7)]
    return entries


def thousand_entries() -> list[dict]:
    """A generated 1,000-entry session: a long main line (m0000..m0939), a side branch of 40
    entries from m0500, a label on m0300 (the label entry itself is an ordinary entry that
    may fold), and a compaction at the end keeping from m0900."""
    main = chain("m", None, 940)
    side = chain("s", "m0500", 40)
    tail = [label("lab1", "m0939", "m0300", "checkpoint"),
            compaction("cmp9", "lab1", "m0900"),
            *chain("t", "cmp9", 18)]
    return main + side + tail


# -- layout ---------------------------------------------------------------------------------

def test_leaves_take_consecutive_columns_and_parents_are_centred():
    graph = nx.DiGraph([("root", "a"), ("a", "b"), ("a", "c"), ("c", "d"), ("c", "e")])
    positions = tree_layout(graph)
    assert [positions[leaf][0] for leaf in ("b", "d", "e")] == [0.0, 1.0, 2.0]
    assert positions["c"] == (1.5, -2.0)
    assert positions["a"] == (0.75, -1.0)
    assert positions["root"] == (0.75, 0.0)


def test_layout_of_a_very_deep_chain_needs_no_recursion():
    graph = nx.DiGraph()
    nx.add_path(graph, range(5000))
    positions = tree_layout(graph)
    assert positions[4999] == (0.0, -4999.0)


def test_layout_refuses_what_is_not_a_forest():
    with pytest.raises(ValueError):
        tree_layout(nx.DiGraph([("a", "c"), ("b", "c")]))
    with pytest.raises(ValueError):
        tree_layout(nx.DiGraph([("a", "b"), ("b", "a")]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=60))
def test_layout_never_overlaps_and_keeps_parents_over_their_children(choices):
    # Node i > 0 hangs under a random earlier node: every forest shape can appear.
    graph = nx.DiGraph()
    graph.add_node(0)
    for node, choice in enumerate(choices, start=1):
        graph.add_edge(choice % node, node)
    positions = tree_layout(graph)
    assert len(set(positions.values())) == len(graph)
    for node in graph:
        children = list(graph.successors(node))
        x, y = positions[node]
        if children:
            child_xs = [positions[child][0] for child in children]
            assert min(child_xs) <= x <= max(child_xs)
            assert all(positions[child][1] == y - 1 for child in children)


# -- what the picture marks -------------------------------------------------------------------

def test_scene_of_a_tree_highlights_exactly_the_path_and_colours_by_record_group():
    tree = story_tree("en")
    scene = build_scene(tree, leaf_id="a18", fold_runs=False)
    assert scene.path_ids == tuple(entry.id for entry in tree.path_to("a18"))
    on_path = {node for node, data in scene.graph.nodes(data=True) if data["on_path"]}
    assert on_path == set(scene.path_ids)
    for entry in tree:
        assert scene.graph.nodes[entry.id]["group"] == record_group(entry.kind)
        assert scene.graph.nodes[entry.id]["text"].isascii()
    assert [node for node, data in scene.graph.nodes(data=True) if data["is_leaf"]] == ["a18"]


def test_a_hand_made_tree_without_payloads_can_be_drawn():
    tree = TranscriptTree([TranscriptEntry("a", None), TranscriptEntry("b", "a"),
                           TranscriptEntry("c", "a", kind="mystery")])
    scene = build_scene(tree)
    assert scene.path_ids == ("a", "c")
    assert scene.graph.nodes["c"]["group"] == "unknown"
    assert isinstance(draw_session(tree), Figure)


def test_compaction_zones_follow_first_kept_entry_id():
    scene = build_scene(session_from_text(session_text(compacted_entries())), fold_runs=False)
    zones = {node: data["zone"] for node, data in scene.graph.nodes(data=True)}
    assert [node for node in zones if zones[node] == "summarised"] == ["r0000", "r0001", "r0002"]
    assert [node for node in zones if zones[node] == "kept"] == ["r0003", "r0004", "r0005"]
    assert zones["cmp1"] is None and zones["c7"] is None
    assert ("cmp1", "r0003", "first-kept") in {
        (ref.source, ref.target, ref.kind) for ref in scene.references}


def test_without_a_first_kept_entry_everything_before_the_compaction_is_summarised():
    entries = chain("r", None, 4) + [compaction("cmp1", "r0003", None)]
    scene = build_scene(session_from_text(session_text(entries)), fold_runs=False)
    summarised = [node for node, data in scene.graph.nodes(data=True)
                  if data["zone"] == "summarised"]
    assert summarised == ["r0000", "r0001", "r0002", "r0003"]


def test_context_view_numbers_entries_in_the_order_the_model_reads_them():
    session = session_from_text(session_text(compacted_entries()))
    scene = build_scene(session, view="context", fold_runs=False)
    messages = build_session_context(session.branch()).messages
    positions = {node: data["position"] for node, data in scene.graph.nodes(data=True)
                 if data["position"]}
    assert positions["cmp1"] == 1   # the summary comes first, though its node is lower
    assert sorted(positions, key=positions.get) == [m["entryId"] for m in messages]
    assert build_scene(session, fold_runs=False).graph.nodes["cmp1"]["position"] is None


def test_branch_summary_points_at_its_from_id():
    scene = build_scene(story_tree("en"))
    assert ("summary", "a05", "from") in {
        (ref.source, ref.target, ref.kind) for ref in scene.references}


def test_labels_become_node_attributes():
    entries = chain("r", None, 3) + [label("l1", "r0002", "r0001", "good idea")]
    scene = build_scene(session_from_text(session_text(entries)))
    assert scene.graph.nodes["r0001"]["label"] == "good idea"
    assert scene.graph.nodes["r0000"]["label"] is None


def test_unknown_view_is_refused():
    with pytest.raises(ValueError):
        build_scene(story_tree("en"), view="sideways")


def test_what_is_not_a_session_is_named_and_a_list_leaf_is_an_unknown_entry(tmp_path):
    from learn_pi_lab.drawing.snapshot import NotDrawable
    from learn_pi_lab.i18n import explain
    from learn_pi_lab.session_tree import UnknownTranscriptEntry

    for wrong in (None, str(tmp_path / "s.jsonl"), tmp_path / "s.jsonl", [{"id": "a"}]):
        with pytest.raises(NotDrawable) as caught:
            draw_session(wrong)
        assert caught.value.got == type(wrong).__name__
        assert "load_session(path)" in explain(caught.value)
    with pytest.raises(UnknownTranscriptEntry):
        draw_session(story_tree("en"), leaf_id=["a"])


# -- folding long runs ------------------------------------------------------------------------

def _visible_entries(scene) -> set[str]:
    """Every entry the scene stands for: visible nodes plus the members of folded runs."""
    found = set()
    for node, data in scene.graph.nodes(data=True):
        if data["kind"] == "folded":
            found.update(data["members"])
        elif data["kind"] == "entry":
            found.add(node)
    return found


def test_a_generated_thousand_entry_session_folds_to_a_readable_tree():
    entries = thousand_entries()
    assert len(entries) == 1000
    session = session_from_text(session_text(entries))
    scene = build_scene(session)
    assert len(scene.graph) < 40
    assert _visible_entries(scene) == {entry["id"] for entry in entries}  # nothing lost
    must_show = {"m0000", "m0500", "s0039", "m0300", "cmp9", "m0900", session.leaf_id}
    assert must_show <= set(scene.graph)
    for node, data in scene.graph.nodes(data=True):
        if data["kind"] == "folded":
            assert len(data["members"]) >= MIN_FOLDED_RUN
            assert data["text"].startswith(f"… {len(data['members'])} entries")
    # A folded run never mixes the branch with another branch, or summarised with kept.
    unfolded = build_scene(session, fold_runs=False).graph
    assert len(unfolded) == 1000
    for _, data in scene.graph.nodes(data=True):
        if data["kind"] == "folded":
            assert {(unfolded.nodes[member]["on_path"], unfolded.nodes[member]["zone"])
                    for member in data["members"]} == {(data["on_path"], data["zone"])}


def test_short_runs_are_not_folded():
    session = session_from_text(session_text(chain("r", None, MIN_FOLDED_RUN + 1)))
    kinds = {data["kind"] for _, data in build_scene(session).graph.nodes(data=True)}
    assert kinds == {"entry"}   # root and leaf are kept, so the run between is too short


def test_the_real_pi_thousand_entry_file_folds_and_renders(tmp_path):
    session = load_session(LARGE_SESSION)
    assert len(session.entries) > 1000
    scene = build_scene(session)
    assert len(scene.graph) <= 5
    assert _visible_entries(scene) == {entry["id"] for entry in session.entries}
    figure = draw_session(session)
    width, height = figure.get_size_inches()
    assert width < 12 and height < 12


# -- damage ------------------------------------------------------------------------------------

def damaged_text() -> str:
    entries = [message("a1", None), message("a2", "a1", "assistant"),
               message("a3", "zz"), message("a4", "a3", "assistant")]
    lines = session_text(entries).splitlines()
    lines.insert(3, lines[2])                      # a2 appended twice, identically
    return "\n".join(lines) + '\n{"type":"mess'    # and a torn last line


def test_a_dangling_parent_hangs_under_a_red_missing_node():
    session = session_from_text(damaged_text())
    scene = build_scene(session)
    assert "dangling-parent" in scene.graph.nodes["a3"]["damage"]
    assert list(scene.graph.predecessors("a3")) == ["missing:zz"]
    assert scene.graph.nodes["missing:zz"]["kind"] == "missing"
    assert scene.graph.nodes["a4"]["damage"] == ()
    assert "duplicate-entry" in scene.graph.nodes["a2"]["damage"]
    codes = [problem.code for problem in scene.problems]
    assert codes == ["duplicate-entry", "dangling-parent", "torn-last-line"]


def test_pi_mode_draws_the_branch_below_an_empty_id_as_pi_walks_it():
    # Pi mode's tree holds the line whose id is "" (Pi's /tree lists it), but Pi's walks
    # stop at a parentId "": the highlighted branch is Session.branch's, not the tree's path
    text = session_text([message("a", None, n=1), message("", "a", n=2),
                         message("b", "", n=3), message("d", "b", n=4)])
    session = session_from_text(text, mode="pi")
    scene = build_scene(session)
    assert list(scene.graph.predecessors("b")) == [""]
    assert scene.path_ids == ("b", "d") == tuple(entry["id"] for entry in session.branch())
    assert build_scene(session, leaf_id="a").path_ids == ("a",)


def test_damage_is_drawn_in_red_with_notes():
    session = session_from_text(damaged_text())
    figure = draw_session(session, lang="en")
    texts = {text.get_text(): text for text in figure.findobj(Text)}
    badge = texts["dangling-parent"]
    assert matplotlib.colors.to_hex(badge.get_color()) == "#d62728"
    node = texts["a3\nuser"]
    assert matplotlib.colors.to_hex(node.get_bbox_patch().get_edgecolor()) == "#d62728"
    notes = next(text for text in texts if text.startswith("line 4:"))  # the duplicate
    assert "\nline 5:" in notes and "\nline 7:" in notes            # dangling, torn


def test_entries_recovered_from_a_glued_line_are_marked():
    # The glued-objects diagnostic names a line, not an entry: both objects kept from that
    # line are marked, the entries on other lines are not.
    lines = session_text([message("a1", None), message("a2", "a1", "assistant"),
                          message("a3", "a2")]).splitlines()
    text = "\n".join(lines[:2] + [lines[2] + lines[3]]) + "\n"
    session = session_from_text(text)
    assert [(d.line, d.code, d.entry_id) for d in session.diagnostics] == [
        (3, "glued-objects", None)]
    scene = build_scene(session)
    assert scene.graph.nodes["a2"]["damage"] == ("glued-objects",)
    assert scene.graph.nodes["a3"]["damage"] == ("glued-objects",)
    assert scene.graph.nodes["a1"]["damage"] == ()


def test_the_damage_badge_sits_on_its_node_not_on_the_edge_below():
    figure = draw_session(session_from_text(damaged_text()), lang="en")
    figure.canvas.draw()
    node = _node_text(figure, "a3\nuser")
    text, pad = node.get_window_extent(), node.get_bbox_patch().get_boxstyle().pad
    box_bottom = text.y0 - pad * node.get_fontsize() * figure.dpi / 72
    badge = _node_text(figure, "dangling-parent").get_window_extent()
    assert badge.y0 < box_bottom < badge.y1, (box_bottom, badge)  # across the lower border


def test_self_parent_and_cycles_are_cut_so_the_rest_is_still_a_tree():
    entries = [message("a1", None), message("c1", "c2"), message("c2", "c1"),
               message("s1", "s1"), message("s2", "s1", "assistant")]
    session = session_from_text(session_text(entries))
    scene = build_scene(session, leaf_id="s2")
    positions = tree_layout(scene.graph)
    assert set(positions) >= {"a1", "c1", "c2", "s1", "s2"}
    assert "self-parent" in scene.graph.nodes["s1"]["damage"]
    assert "cycle" in scene.graph.nodes["c1"]["damage"]
    assert scene.path_ids == ("s1", "s2")
    assert isinstance(draw_session(session), Figure)


# -- rendering ----------------------------------------------------------------------------------

def _node_text(figure: Figure, text: str) -> Text:
    return next(item for item in figure.findobj(Text) if item.get_text() == text)


def test_same_input_gives_the_same_png_and_another_leaf_another_png():
    tree = story_tree("en")
    first = figure_png(draw_session(tree, lang="en"))
    assert first.startswith(b"\x89PNG")
    assert figure_png(draw_session(tree, lang="en")) == first
    assert figure_png(draw_session(tree, leaf_id="a18", lang="en")) != first


def test_the_current_branch_is_outlined_thicker_than_other_branches():
    figure = draw_session(story_tree("en"), leaf_id="a18", lang="en")
    on_path = _node_text(figure, "a18\nasst").get_bbox_patch().get_linewidth()
    elsewhere = _node_text(figure, "a07b\nasst").get_bbox_patch().get_linewidth()
    assert on_path > elsewhere


def test_summarised_entries_are_hatched():
    session = session_from_text(session_text(compacted_entries()))
    figure = draw_session(session, fold_runs=False, lang="en")
    assert _node_text(figure, "r0000\nuser").get_bbox_patch().get_hatch()
    assert not _node_text(figure, "r0003\nasst").get_bbox_patch().get_hatch()


def test_legend_title_and_axes():
    figure = draw_session(story_tree("en"), title="Chapter 03", lang="en")
    ax = figure.axes[0]
    assert ax.get_title(loc="left") == "Chapter 03"
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert {"metadata", "content", "operation", "unknown type", "current branch"} <= set(legend)
    assert len(GROUP_COLOURS) == 4


def test_drawing_into_a_given_axes_uses_its_figure():
    figure = Figure(figsize=(6, 4))
    ax = figure.add_subplot()
    assert draw_session(story_tree("en"), ax=ax, view="context") is figure
    assert _node_text(figure, "a07b\nasst")


def test_side_by_side_drawings_keep_legend_and_notes_inside_their_own_axes():
    figure = Figure(figsize=(11, 5))
    left, right = figure.subplots(1, 2)
    draw_session(session_from_text(damaged_text()), ax=left, lang="en")
    draw_session(story_tree("en"), ax=right, lang="en")
    figure.canvas.draw()
    for ax in (left, right):
        box = ax.get_window_extent()
        legend = ax.get_legend().get_window_extent()
        assert box.x0 - 1 <= legend.x0 and legend.x1 <= box.x1 + 1, (box, legend)
        assert box.y0 - 1 <= legend.y0, (box, legend)
        nodes = [text.get_window_extent() for text in ax.texts if text.get_bbox_patch()]
        assert min(node.y0 for node in nodes) > legend.y1, "a node is over the legend"
    notes = next(text for text in left.texts if text.get_text().startswith("line 4:"))
    box, extent = left.get_window_extent(), notes.get_window_extent()
    assert box.y0 - 1 <= extent.y0 and extent.x1 <= box.x1 + 1, (box, extent)
    nodes = [text.get_window_extent() for text in left.texts if text.get_bbox_patch()]
    assert min(node.y0 for node in nodes) > extent.y1, "a node is over the notes"


def test_legend_false_leaves_the_legend_out():
    figure = draw_session(story_tree("en"), legend=False, lang="en")
    assert figure.axes[0].get_legend() is None




def test_a_drawing_shows_itself_as_a_png_in_a_notebook():
    # Jupyter calls _repr_png_ on a cell's value; without it a figure made without pyplot
    # would show as "<Figure size ...>".
    figure = draw_session(story_tree("en"), lang="en")
    assert figure._repr_png_() == figure_png(figure)


def test_an_unknown_leaf_is_named():
    with pytest.raises(UnknownTranscriptEntry, match="nowhere"):
        draw_session(story_tree("en"), leaf_id="nowhere")


def test_a_parent_id_that_is_not_a_string_is_a_missing_parent():
    entries = [message("a1", None), message("a2", "a1", "assistant"), message("a3", None)]
    entries[2]["parentId"] = [7]
    scene = build_scene(session_from_text(session_text(entries)))
    assert list(scene.graph.predecessors("a3")) == ["missing:[7]"]
    assert scene.path_ids == ("a3",)


def test_a_kind_or_role_that_is_not_text_is_drawn_as_it_is() -> None:
    from learn_pi_lab.drawing.scene import kind_text
    assert kind_text({"type": ["x"]}) == "['x']"
    assert kind_text({"type": "message", "message": {"role": {"a": 1}}}) == "{'a': 1}"
    assert kind_text({"type": "message", "message": {"role": "user"}}, "zh") == "用户"
