"""What the exported page holds, and the page itself (see ``learn_pi_lab.export``).

The data is computed here, by the course's own code, so the page shows exactly what the
command line says: the tree's layout (``drawing.scene`` with long runs folded, and
``drawing.layout``), each entry's line once, and each node's context. A context is stored
as **its parent's context plus the messages this entry adds** wherever that is what the
rule gives (an entry that is no compaction and no ``context_edit``, and that no edit
targets: ``extends``), and in full otherwise; the page puts it together by walking up. The
page's JavaScript only shows: it never decides what the model sees.

A session larger than ``MAX_ENTRIES`` is exported **around its leaf**: the ``AROUND``
entries of the branch above the leaf and every branch that grows from them, the rest left
out (the command line and the page say how many); a context then starts with one line that
counts the earlier messages instead of holding them.
"""

from __future__ import annotations

import base64
from dataclasses import replace
import hashlib
import html
import json
from pathlib import Path
from typing import Any, Mapping

from learn_pi_lab.drawing.layout import tree_layout
from learn_pi_lab.drawing.scene import build_scene
from learn_pi_lab.drawing.snapshot import SessionSnapshot, ids_by_line
from learn_pi_lab.drawing.style import (FIRST_KEPT_COLOUR, FOLDED_COLOUR, FROM_COLOUR,
                                        GROUP_COLOURS, MISSING_COLOUR)
from learn_pi_lab.entry_text import message_text, one_line
from learn_pi_lab.i18n import current_language, explain, t
from learn_pi_lab.jsonl.records import record_group
from learn_pi_lab.pi.context import build_session_context, entry_to_messages, state_at
from learn_pi_lab.pi.session import Session
from learn_pi_lab.session_tree import TranscriptError, TranscriptTree

MAX_ENTRIES = 20_000     # the whole tree up to here; above it, the tree around the leaf
AROUND = 2_000           # entries of the branch above the leaf kept when exporting around it
TEXT_SHOWN = 300         # characters of a message's text in the list (its JSON is whole)
HERE = Path(__file__).resolve().parent
COLOURS = {"groups": GROUP_COLOURS, "folded": FOLDED_COLOUR, "missing": MISSING_COLOUR,
           "from": FROM_COLOUR, "firstKept": FIRST_KEPT_COLOUR}   # as the playground draws


def _lines_of(session: Session, kept: set[str] | None) -> dict[str, tuple[int, str]]:
    """Each entry id -> (its line number, its line's text), for the entries on the page."""
    found: dict[str, tuple[int, str]] = {}
    for loaded in session.file.entries:
        entry_id = loaded.obj.get("id")
        if isinstance(entry_id, str) and (kept is None or entry_id in kept):
            found.setdefault(entry_id, (loaded.line, loaded.text))
    return found


def _kept_ids(session: Session, leaf: str | None) -> tuple[set[str] | None, int]:
    """The ids a large session is exported with (None: all of them) and how many are left
    out: the last ``AROUND`` entries of the leaf's branch and everything below them."""
    count = len(session.tree.entries)
    if count <= MAX_ENTRIES or not leaf:
        return None, 0
    branch = [entry.id for entry in session.tree.path_to(leaf)][-AROUND:]
    kept, waiting = set(branch), list(branch)
    while waiting and len(kept) < MAX_ENTRIES:
        for child in session.tree.children(waiting.pop()):
            if child.id not in kept and len(kept) < MAX_ENTRIES:
                kept.add(child.id)
                waiting.append(child.id)
    return kept, count - len(kept)


def _drawn(session: Session, kept: set[str] | None, leaf: str | None) -> Any:
    """What the picture is drawn from: the session, or only the entries kept around the leaf
    (the top of the kept branch drawn as a root; its own place is in the text above it)."""
    if kept is None:
        return session
    entries = [replace(entry, parent_id=None) if entry.parent_id not in kept else entry
               for entry in session.tree.entries if entry.id in kept]
    tree = TranscriptTree(entries, leaf)
    objects = tuple({**entry.payload, "parentId": entry.parent_id} for entry in entries)
    labels = {target: text for target, text in session.labels().items() if target in kept}
    lines = {line: ids for line, ids in ids_by_line(session).items()
             if all(entry_id in kept for entry_id in ids)}
    diagnostics = tuple(found for found in session.diagnostics
                        if found.line is None or found.line in lines)
    return SessionSnapshot(objects, leaf, labels, diagnostics, lines, tree)


def page_data(session: Session, *, leaf: str | None = None, lang: str | None = None,
              source_name: str = "") -> dict[str, Any]:
    """Everything the page shows, as plain data (see the module docstring)."""
    lang = current_language(lang)
    leaf = session.leaf_id if leaf is None else leaf
    if leaf not in session.tree:   # pi mode leaves out a loop, even one the last line closes
        leaf = None
    kept, left_out = _kept_ids(session, leaf)
    lines = _lines_of(session, kept)
    scene = build_scene(_drawn(session, kept, leaf), leaf_id=leaf, fold_runs=True, lang=lang)
    graph = scene.graph
    positions = tree_layout(graph)
    entries: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for entry in session.tree.entries:
        if kept is not None and entry.id not in kept:
            continue
        index[entry.id] = len(entries)
        line, text = lines.get(entry.id, (None, ""))
        obj = session.entry(entry.id) if entry.id in session else entry.payload
        entries.append({"id": entry.id, "type": str(obj.get("type")), "line": line,
                        "raw": text, "group": record_group(obj.get("type")),
                        "short": one_line(_entry_summary(obj), 60)})
    for item in entries:
        parent = session.tree[item["id"]].parent_id if item["id"] in session.tree else None
        item["parent"] = index.get(parent, -1) if isinstance(parent, str) else -1
    nodes = []
    for node, data in graph.nodes(data=True):
        x, y = positions[node]
        members = [index[member] for member in data.get("members", ()) if member in index]
        if data.get("kind") == "folded" and not members:
            continue
        nodes.append({"key": str(node), "entry": index.get(node, -1), "x": x, "y": -y,
                      "text": str(data.get("text", node)), "members": members,
                      "kind": data.get("kind", "entry"), "onPath": bool(data.get("on_path")),
                      "leaf": bool(data.get("is_leaf")), "label": data.get("label"),
                      "damage": list(data.get("damage", ())),
                      "group": "missing" if data.get("kind") == "missing"
                      else data.get("group", "unknown")})
    visible = {node["key"] for node in nodes}
    edges = [[str(parent), str(child), bool(graph.edges[parent, child].get("on_path"))]
             for parent, child in graph.edges if str(parent) in visible and str(child) in visible]
    references = [[ref.source, ref.target, ref.kind] for ref in scene.references
                  if ref.source in visible and ref.target in visible]
    messages, contexts = _contexts(session, entries, index, lang, kept is not None)
    diagnostics = [{"line": found.line, "code": found.code, "text": explain(found, lang)}
                   for found in session.diagnostics]
    return {"lang": lang, "source": source_name, "mode": session.mode,
            "piVersion": session.pi_version, "leaf": index.get(leaf, -1) if leaf else -1,
            "entries": entries, "nodes": nodes, "edges": edges, "references": references,
            "messages": messages, "contexts": contexts, "diagnostics": diagnostics,
            "leftOut": left_out, "colours": COLOURS}


def _entry_summary(obj: Mapping[str, Any]) -> str:
    from learn_pi_lab.entry_text import entry_text
    return entry_text(obj)


def extends(obj: Mapping[str, Any], targeted: set[str]) -> bool:
    """Whether an entry's context is its parent's plus its own messages (the context rule,
    ``pi.context``, read for one step): true unless it is a compaction (which starts anew),
    a ``context_edit`` (which changes an earlier message) or the target of an edit."""
    return obj.get("type") not in ("compaction", "context_edit") \
        and obj.get("id") not in targeted


def _contexts(session: Session, entries: list[dict[str, Any]], index: dict[str, int],
              lang: str, partial: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The messages (each once) and, per entry, its context: ``{"base": parent or -1, "add":
    [message numbers], "model": ..., "thinking": ..., "error": text}``."""
    targeted = {obj.get("targetId") for obj in session.entries
                if obj.get("type") == "context_edit" and isinstance(obj.get("targetId"), str)}
    messages: list[dict[str, Any]] = []
    table: dict[str, int] = {}

    def number_of(message: dict[str, Any]) -> int:
        key = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        if key not in table:
            table[key] = len(messages)
            role, at = message.get("role"), index.get(message.get("entryId"), -1)
            shown = {"role": str(role) if role is not None else "-", "entry": at,
                     "text": message_text(message)[:TEXT_SHOWN]}
            if at >= 0 and message == _message_of_line(entries[at]):
                shown["same"] = 1   # the page reads it from the entry's line
            else:
                shown["json"] = message
            messages.append(shown)
        return table[key]

    contexts: list[dict[str, Any]] = []
    for at, item in enumerate(entries):
        entry_id, parent = item["id"], item["parent"]
        obj = session.entry(entry_id) if entry_id in session else {}
        context: dict[str, Any]
        if 0 <= parent < at and "error" not in contexts[parent] and extends(obj, targeted):
            model, thinking = state_at([*_state_words(contexts[parent]), obj])
            context = {"base": parent, "add": [number_of(message) for message in
                                               entry_to_messages(obj, session.pi_version)],
                       "model": model, "thinking": thinking}
        else:
            context = _whole_context(session, entry_id, number_of, lang, partial)
        contexts.append(context)
    return messages, contexts


def _message_of_line(entry: Mapping[str, Any]) -> dict[str, Any] | None:
    """The message an entry's line holds, with its ``entryId``: what ``entry_to_messages``
    gives for a plain message entry, read from the line as a browser's ``JSON.parse`` reads
    it (as Pi does). ``None`` for a line a browser would read otherwise (``NaN``)."""
    def refuse(constant: str) -> None:
        raise ValueError(constant)
    try:
        obj = json.loads(entry["raw"], parse_constant=refuse)
    except ValueError:
        return None
    message = obj.get("message") if isinstance(obj, dict) else None
    return {**message, "entryId": entry["id"]} if isinstance(message, dict) else None


def _state_words(context: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The settings in force at a context, as entries ``state_at`` reads (so the next
    entry's word is read by the same rule)."""
    words: list[dict[str, Any]] = [{"type": "thinking_level_change",
                                    "thinkingLevel": context.get("thinking")}]
    model = context.get("model")
    if model is not None:
        words.append({"type": "model_change", "provider": model.get("provider"),
                      "modelId": model.get("modelId")})
    return words


def _whole_context(session: Session, entry_id: str, number_of: Any, lang: str,
                   partial: bool) -> dict[str, Any]:
    """A context computed whole, as ``context`` computes it (a root, a compaction, an edit,
    or a branch the teaching mode refuses to walk). Exported around the leaf, only its last
    ``AROUND`` messages are held; ``earlier`` counts the ones before them."""
    try:
        context = session.context(entry_id)
    except TranscriptError as error:
        return {"base": -1, "add": [], "model": None, "thinking": "off",
                "error": explain(error, lang)}
    messages = context.messages
    earlier = len(messages) - AROUND if partial and len(messages) > AROUND else 0
    return {"base": -1, "add": [number_of(message) for message in messages[earlier:]],
            "model": context.model, "thinking": context.thinking_level, "earlier": earlier}


def resolved_context(data: Mapping[str, Any], at: int) -> list[dict[str, Any]]:
    """What the page shows as entry ``at``'s context (the messages' JSON, in order): the
    page's own walk up the ``base`` chain, in Python, to check it against ``context``."""
    chain: list[list[int]] = []
    while at >= 0:
        context = data["contexts"][at]
        chain.append(context["add"])
        at = context["base"]
    return [_message_shown(data, number) for part in reversed(chain) for number in part]


def _message_shown(data: Mapping[str, Any], number: int) -> dict[str, Any]:
    """Message ``number`` as the page rebuilds it (``page.js``: ``messageJson``)."""
    message = data["messages"][number]
    if message.get("same"):
        return _message_of_line(data["entries"][message["entry"]]) or {}
    return message["json"]


# -- the page --------------------------------------------------------------------------------

UI_KEYS = ("title", "tree", "line", "branch", "context", "diagnostics", "diagnostic_count",
           "none", "leaf", "current", "model", "thinking", "folded", "members", "missing",
           "left_out", "earlier", "keys", "summary", "branch_summary", "error", "no_context",
           "no_entries", "entries", "json", "show_all")


def render_page(data: Mapping[str, Any]) -> str:
    """The page: the data embedded once (as JSON whose ``<`` is escaped, so no text of the
    session can end the script), the styles and the script inline, and a content security
    policy that lets the page fetch nothing at all."""
    lang = data["lang"]
    ui = {key: t(f"export.ui.{key}", lang, n="{n}") for key in UI_KEYS}   # the page fills {n}
    payload = json.dumps({**data, "ui": ui}, ensure_ascii=False, separators=(",", ":"))
    payload = payload.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    # A lone surrogate (a file name Python read with surrogateescape) can only sit inside a
    # JSON string, where its backslash escape is exactly what JSON.parse reads back.
    payload = payload.encode("utf-8", "backslashreplace").decode("utf-8")
    script = (HERE / "page.js").read_text(encoding="utf-8")
    style = (HERE / "page.css").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    policy = (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; "
              f"img-src data:; base-uri 'none'; form-action 'none'")
    title = t("export.ui.title", lang) + (f": {data['source']}" if data.get("source") else "")
    html_lang = "zh-CN" if lang == "zh" else "en"
    escaped_title = html.escape(title.encode("utf-8", "replace").decode("utf-8"))
    return (f'<!DOCTYPE html>\n<html lang="{html_lang}"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escaped_title}</title><style>{style}</style></head><body>"
            f'<script type="application/json" id="lpl-data">{payload}</script>'
            f"<script>{script}</script></body></html>\n")
