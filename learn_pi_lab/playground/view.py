"""What the playground shows, as plain JSON data and as static HTML (no widget import).

``view_state(pg)`` is everything the browser draws: the tree and the target as SVG, the
file with the last command's lines marked, sizes before and after, the branch or context
list, the level, the note of the last command. The anywidget view (``widget.py``) only
renders this dict; ``static_html(pg)`` renders the same data without JavaScript, for a
notebook read on a code host or nbviewer.
"""

from __future__ import annotations

from html import escape
from typing import Any

from learn_pi_lab.entry_text import entry_text, message_text, one_line
from learn_pi_lab.i18n import current_language, t
from learn_pi_lab.playground.levels import load_levels, read_progress
from learn_pi_lab.playground.model import Playground
from learn_pi_lab.playground.svg import session_of_objects, tree_svg

UI_KEYS = ("tree", "send", "answer", "answer_placeholder", "editor_placeholder",
           "summary_placeholder", "label", "clear_label", "label_placeholder", "name",
           "name_placeholder", "fork_before", "fork_at", "clone", "undo", "reset",
           "view_branch", "view_context", "hint", "sandbox", "your_tree", "target_tree", "file",
           "hover", "undo_note", "tree_name", "keys", "commands",
           "with_summary", "label_open", "name_open", "hints")
MAX_FILE_LINES = 60


def _ui(lang: str) -> dict[str, str]:
    return {key: t(f"playground.ui.{key}", lang) for key in UI_KEYS}


def _file_view(pg: Playground, lang: str) -> dict[str, Any]:
    lines = pg.file_lines()
    change = pg.last_change if pg.last_change and not pg.last_change.new_file else None
    added_from = len(lines) - len(change.added_lines) if change else len(lines)
    rows = [{"n": number, "text": text, "new": number > added_from}
            for number, text in enumerate(lines, start=1)]
    view: dict[str, Any] = {"name": pg.path.name, "lines": rows[-MAX_FILE_LINES:],
                            "size": len(pg.path.read_bytes())}
    last = pg.log[-1] if pg.log else None
    if change:
        view["change"] = {
            "size": t("playground.ui.size", lang, before=change.size_before,
                      after=change.size_after, added=change.size_after - change.size_before),
            "prefix": t("playground.ui.prefix_same" if change.prefix_unchanged
                        else "playground.ui.prefix_changed", lang, before=change.size_before),
            "prefix_unchanged": change.prefix_unchanged, "added": change.added}
    elif pg.last_change is not None:     # a fork or clone: the source got no byte
        view["change"] = {"size": "", "prefix": t("playground.ui.source_unchanged", lang,
                                                   size=len(pg.path.read_bytes())),
                          "prefix_unchanged": True, "added": ""}
    elif last is not None and last.change is None:
        view["change"] = {"size": "", "prefix": t("playground.ui.nothing_written", lang),
                          "prefix_unchanged": True, "added": ""}
    copies = []
    for made in pg.created:
        if made.exists():
            copies.append({"name": made.name, "lines": pg.file_lines(made),
                           "size": t("playground.ui.new_file", lang, name=made.name,
                                     size=len(made.read_bytes())),
                           "new": pg.last_change is not None and pg.last_change.path == made})
    view["copies"] = copies
    return view


def _rows(pg: Playground) -> list[dict[str, str]]:
    if pg.view == "context":
        return [{"id": str(message.get("entryId")), "kind": str(message.get("role")),
                 "text": one_line(message_text(message), 70)}
                for message in pg.context_messages()]
    rows = []
    for entry in (pg.session.branch(pg.leaf_id) if pg.leaf_id else []):
        message = entry.get("message")
        kind = message.get("role") if isinstance(message, dict) else entry.get("type")
        rows.append({"id": entry["id"], "kind": str(kind), "text": one_line(entry_text(entry), 70)})
    return rows


def _level_view(pg: Playground, lang: str) -> dict[str, Any] | None:
    run = pg.level_run
    if run is None:
        return None
    level = run.level
    result = run.check(record=True) if pg.log else None
    target = session_of_objects(level.target_objects(lang))
    rename = {node["id"]: "new" for node in level.target_nodes() if node["id"].startswith("+")}
    files = []
    for expected in level.target_files():
        copy = session_of_objects(level.file_objects(expected, lang))
        files.append({"command": "/" + expected["command"],
                      "svg": tree_svg(copy, leaf_id=expected["ids"][-1],
                                      css_class="lpl-pg-target-file", lang=lang)})
    return {"number": level.number, "id": level.id, "title": level.title(lang),
            "goal": level.goal(lang), "hints": level.hints(lang)[:run.hints_shown],
            "more_hints": run.hints_shown < len(level.hints(lang)),
            "solved": result is not None and result.solved,
            "reasons": result.messages(lang) if result is not None and not result.solved else [],
            "status": str(result) if result is not None else "",
            "target_svg": tree_svg(target, leaf_id=level.target_leaf, rename=rename,
                                   css_class="lpl-pg-target-svg", lang=lang),
            "target_files": files}


def view_state(pg: Playground, *, error: str = "") -> dict[str, Any]:
    """Everything the browser shows, as JSON-ready data."""
    lang = current_language(pg.lang)
    level = _level_view(pg, lang)           # first: a solved level is recorded here
    solved = read_progress(pg.progress_path)["solved"] if pg.progress_path else {}
    info = {}
    for entry in pg.entries:
        parent = entry.get("parentId")   # for the arrow keys: up to the parent
        described = pg.describe(entry["id"])
        head = (f"{described['id']}  {described['kind']}  "
                f"({t('playground.ui.line', lang, line=described['line'])})")
        info[entry["id"]] = {**described, "head": head,
                             "parent": parent if isinstance(parent, str) else None}
    note = t(pg.message[0], lang, **pg.message[1]) if pg.message else ""
    return {
        "lang": lang, "ui": _ui(lang),
        "tree_svg": tree_svg(pg.session, leaf_id=pg.leaf_id, view=pg.view,
                             new_ids=pg.new_ids or ((pg.leaf_id,) if pg.moved_leaf else ()),
                             selected=pg.selected, titles={
                                 entry_id: f"{d['head']}\n{d['text']}\n{d['json']}"
                                 for entry_id, d in info.items()}, lang=lang),
        "leaf": pg.leaf_id, "selected": pg.selected, "editor": pg.editor, "view": pg.view,
        "leaf_text": t("playground.ui.leaf", lang, leaf=str(pg.leaf_id)),
        "selected_text": (t("playground.ui.selected", lang, id=pg.selected)
                          if pg.selected else t("playground.ui.nothing_selected", lang)),
        "info": info, "file": _file_view(pg, lang), "rows": _rows(pg),
        "rows_heading": t("playground.ui.list_context" if pg.view == "context"
                          else "playground.ui.list_branch", lang),
        "note": note, "error": error,
        "log": [action.command for action in pg.log],
        "level": level,
        "levels": [{"number": level.number, "id": level.id,
                    "text": t("playground.ui.level_option", lang, number=level.number,
                              title=level.title(lang)) + (" ✓" if level.id in solved else "")}
                   for level in load_levels()],
        "progress": t("playground.ui.solved_count", lang, solved=len(solved),
                      total=len(load_levels())),
    }


def static_html(pg: Playground, state: dict[str, Any] | None = None) -> str:
    """The same view without JavaScript: tree, target, the file's last lines."""
    state = state or view_state(pg)
    ui = state["ui"]
    level = state["level"]
    parts = ['<div class="lpl-playground-static" style="font-family:sans-serif;font-size:13px">',
             f'<p><i>{escape(t("playground.ui.static_note", state["lang"]))}</i></p>']
    if level:
        heading = t("playground.level_title", state["lang"], number=level["number"],
                    title=level["title"])
        parts.append(f'<p><b>{escape(heading)}</b><br>{escape(level["goal"])}</p>')
    parts.append('<div style="display:flex;gap:24px;align-items:flex-start;flex-wrap:wrap">')
    parts.append(f'<div><b>{escape(ui["your_tree"])}</b> · {escape(state["leaf_text"])}<br>'
                 f'{state["tree_svg"]}</div>')
    if level:
        parts.append(f'<div><b>{escape(ui["target_tree"])}</b><br>{level["target_svg"]}</div>')
    rows = "".join(
        f'<div style="white-space:pre;{"background:#fff1d6" if row["new"] else ""}">'
        f'{row["n"]:>3} {escape(row["text"][:110])}{"…" if len(row["text"]) > 110 else ""}</div>'
        for row in state["file"]["lines"])
    parts.append(f'<div style="font-family:monospace;font-size:11px;max-width:760px;overflow:auto">'
                 f'<b>{escape(ui["file"])}: {escape(state["file"]["name"])}</b>{rows}</div>')
    parts.append("</div></div>")
    return "".join(parts)
