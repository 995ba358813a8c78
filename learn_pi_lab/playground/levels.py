"""Levels: a start file, a target tree, hints, and a check that needs no browser.

Levels are data (``levels.json``, a top-level ``levels`` list; every text in zh and en).
A level's tree is a list of nodes::

    {"id": "u2", "parent": "a1", "kind": "user", "text": {"zh": "...", "en": "..."}}

``kind`` is ``user`` / ``assistant`` (a message), ``label`` (``target``, ``label``),
``branch_summary`` (``from``, ``summary``) or ``session_info`` (``name``). In a target,
an id that starts with ``+`` is an entry the learner must create: its real id will be
whatever the writer draws, so only its place and kind are compared, never its id or text.

The check (``LevelRun.check``) compares **shapes**: every entry becomes ``id:kind`` (a
new entry ``*:kind``; the leaf gets ``@``), its children are sorted, and the two forests
must be equal. A level counts only when the file holds exactly the bytes the playground's
own commands left there: edit the file by hand (or with any other writer) and the level
is not solved, however right the tree looks.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from learn_pi_lab.i18n import current_language, t
from learn_pi_lab.pi.session import load_session
from learn_pi_lab.playground.start import START_TIME, PlaygroundError, StartSpec, message_entry

if TYPE_CHECKING:   # the playground drives a level; a level never makes one
    from learn_pi_lab.playground.model import Playground

NODE_KINDS = ("user", "assistant", "label", "branch_summary", "session_info")


def _text(value: Any, lang: str) -> str:
    if isinstance(value, Mapping):
        return str(value.get(lang) or value.get("en") or "")
    return "" if value is None else str(value)


def node_object(node: Mapping[str, Any], minute: int, lang: str) -> dict:
    """A level node as the JSON line Pi would write for it."""
    moment = START_TIME + timedelta(minutes=minute)
    kind, entry_id, parent = node["kind"], node["id"], node.get("parent")
    if kind in ("user", "assistant"):
        return message_entry(entry_id, parent, kind, _text(node.get("text"), lang) or "…", moment)
    base = {"type": kind, "id": entry_id, "parentId": parent,
            "timestamp": message_entry("", None, "user", "", moment)["timestamp"]}
    if kind == "label":
        base["targetId"] = node["target"]
        if node.get("label"):
            base["label"] = node["label"]
    elif kind == "branch_summary":
        base["fromId"] = node.get("from", parent if parent is not None else "root")
        base["summary"] = _text(node.get("summary"), lang) or "…"
    elif kind == "session_info":
        base["name"] = node.get("name", "")
    else:
        raise ValueError(f"unknown node kind {kind!r} (expected one of {NODE_KINDS})")
    return base


def _descriptor(obj: Mapping[str, Any], fixed: set[str]) -> str:
    """What must match for one entry: its id if the level gave it, its kind, its payload."""
    def ref(value: Any) -> str:
        return value if value in fixed or value == "root" else "*"
    kind = obj.get("type")
    if kind == "message":
        message = obj.get("message") or {}
        what = str(message.get("role"))
    elif kind == "label":
        what = f"label[{ref(obj.get('targetId'))}={obj.get('label') or ''}]"
    elif kind == "branch_summary":
        what = f"branch_summary[from={ref(obj.get('fromId'))}]"
    elif kind == "session_info":
        what = f"session_info[{(obj.get('name') or '').strip()}]"
    else:
        what = str(kind)
    return f"{ref(obj.get('id'))}:{what}"


def shape(objects: Iterable[Mapping[str, Any]], fixed: Iterable[str],
          leaf_id: str | None) -> str:
    """The canonical shape of a forest (see the module): equal shapes = the same tree."""
    fixed = set(fixed)
    objects = list(objects)
    ids = {obj.get("id") for obj in objects}
    children: dict[Any, list[Mapping[str, Any]]] = {}
    for obj in objects:
        parent = obj.get("parentId")
        children.setdefault(parent if parent in ids else None, []).append(obj)
    memo: dict[Any, str] = {}
    order = sorted(objects, key=lambda o: -_depth(o, {x.get("id"): x for x in objects}))
    for obj in order:      # deepest first: no recursion
        kids = sorted(memo[kid.get("id")] for kid in children.get(obj.get("id"), []))
        mark = "@" if obj.get("id") == leaf_id else ""
        memo[obj.get("id")] = _descriptor(obj, fixed) + mark + "(" + ",".join(kids) + ")"
    return "|".join(sorted(memo[root.get("id")] for root in children.get(None, [])))


def _depth(obj: Mapping[str, Any], by_id: Mapping[Any, Mapping[str, Any]]) -> int:
    depth, seen, parent = 0, set(), obj.get("parentId")
    while parent in by_id and parent not in seen:
        seen.add(parent)
        depth += 1
        parent = by_id[parent].get("parentId")
    return depth


@dataclass(frozen=True)
class Level:
    number: int
    id: str
    data: Mapping[str, Any]

    def title(self, lang: str | None = None) -> str:
        return _text(self.data["title"], current_language(lang))

    def goal(self, lang: str | None = None) -> str:
        return _text(self.data["goal"], current_language(lang))

    def hints(self, lang: str | None = None) -> list[str]:
        return [_text(hint, current_language(lang)) for hint in self.data.get("hints", [])]

    @property
    def start_ids(self) -> list[str]:
        return [node["id"] for node in self.data["start"]["tree"]]

    def start_spec(self, lang: str | None = None) -> StartSpec:
        lang = current_language(lang)
        start = self.data["start"]
        objects = [node_object(node, minute, lang) for minute, node in enumerate(start["tree"])]
        return StartSpec(objects, torn=start.get("torn"), leaf=start.get("leaf"))

    def target_nodes(self) -> list[Mapping[str, Any]]:
        """The start tree plus what the learner must add (nothing is ever removed)."""
        return list(self.data["start"]["tree"]) + list(self.data["target"].get("add", []))

    def target_objects(self, lang: str | None = None) -> list[dict]:
        lang = current_language(lang)
        return [node_object(node, minute, lang)
                for minute, node in enumerate(self.target_nodes())]

    @property
    def target_leaf(self) -> str | None:
        return self.data["target"].get("leaf")

    def target_files(self) -> list[Mapping[str, Any]]:
        return list(self.data["target"].get("files", []))

    def file_objects(self, expected: Mapping[str, Any], lang: str | None = None) -> list[dict]:
        """The entries an expected fork/clone file holds (a chain of the listed ids)."""
        by_id = {node["id"]: node for node in self.target_nodes()}
        objects, parent = [], None
        for minute, entry_id in enumerate(expected["ids"]):
            node = dict(by_id[entry_id], parent=parent)
            objects.append(node_object(node, minute, current_language(lang)))
            parent = entry_id
        return objects


@dataclass(frozen=True)
class CheckResult:
    solved: bool
    reasons: tuple[tuple[str, dict], ...]   # (catalog key, fields) for each unmet part
    lang: str | None = None

    def messages(self, lang: str | None = None) -> list[str]:
        return [t(key, lang or self.lang, **fields) for key, fields in self.reasons]

    def __bool__(self) -> bool:
        return self.solved

    def __str__(self) -> str:
        if self.solved:
            return t("playground.check.solved", self.lang)
        return "\n".join([t("playground.check.not_yet", self.lang)] +
                         [f"- {line}" for line in self.messages()])

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))


class LevelRun:
    """One level being played in one playground."""

    def __init__(self, playground: Playground, level: Level) -> None:
        self.playground = playground
        self.level = level
        self.hints_shown = 0

    def __repr__(self) -> str:
        lang = self.playground.lang
        return t("playground.level_title", lang, number=self.level.number,
                 title=self.level.title(lang)) + "\n" + self.level.goal(lang)

    def hint(self) -> str:
        hints = self.level.hints(self.playground.lang)
        self.hints_shown = min(self.hints_shown + 1, len(hints))
        return hints[self.hints_shown - 1] if hints else ""

    def check(self, *, record: bool = True) -> CheckResult:
        """Is the level solved? Reads the real files; saves progress when it is."""
        pg, level = self.playground, self.level
        lang = pg.lang
        reasons: list[tuple[str, dict]] = []
        pg._check_untouched()
        if pg.edited_outside:
            reasons.append(("playground.check.edited_outside", {}))
        fixed = set(level.start_ids)
        mine = shape(pg.session.entries, fixed, pg.leaf_id)
        wanted = shape(level.target_objects(lang), fixed, level.target_leaf)
        if mine != wanted:
            mine_no_leaf = shape(pg.session.entries, fixed, None)
            wanted_no_leaf = shape(level.target_objects(lang), fixed, None)
            key = "playground.check.leaf" if mine_no_leaf == wanted_no_leaf else \
                "playground.check.tree"
            reasons.append((key, {}))
        for expected in level.target_files():
            if not self._has_file(expected, fixed):
                reasons.append(("playground.check.file", {"command": "/" + expected["command"]}))
        if not pg.log:
            reasons.append(("playground.check.no_actions", {}))
        result = CheckResult(not reasons, tuple(reasons), lang)
        if result.solved and record and pg.progress_path is not None:
            mark_solved(pg.progress_path, level.id, len(pg.log))
        return result

    def _has_file(self, expected: Mapping[str, Any], fixed: set[str]) -> bool:
        pg = self.playground
        wanted = shape(self.level.file_objects(expected, pg.lang), fixed, expected["ids"][-1])
        for action in pg.log:
            if action.command != expected["command"] or action.change is None:
                continue
            path = action.change.path
            if not path.exists() or path.read_text(encoding="utf-8") != action.change.added:
                continue   # changed since the command wrote it
            copy = load_session(path)
            if copy.header.get("parentSession") != str(pg.path.resolve()):
                continue
            if shape(copy.entries, fixed, copy.leaf_id) == wanted:
                return True
        return False


@lru_cache(maxsize=1)
def load_levels() -> tuple[Level, ...]:
    text = resources.files("learn_pi_lab.playground").joinpath("levels.json").read_text("utf-8")
    data = json.loads(text)
    return tuple(Level(number, item["id"], item)
                 for number, item in enumerate(data["levels"], start=1))


def get_level(number_or_id: int | str) -> Level:
    for level in load_levels():
        if number_or_id in (level.number, level.id):
            return level
    raise PlaygroundError("unknown-level", level=number_or_id)


# ---------------------------------------------------------------------- progress file

PROGRESS_ENV = "LEARN_PI_LAB_PROGRESS"


def default_progress_path() -> Path:
    """Where solved levels are kept: ``$LEARN_PI_LAB_PROGRESS`` if set (tests point it at a
    temporary file), else ``.progress/playground.json`` at the repository root (git-ignored)."""
    override = os.environ.get(PROGRESS_ENV)
    if override:
        return Path(override)
    from learn_pi_lab.course.paths import repo_root
    return repo_root() / ".progress" / "playground.json"


def read_progress(path: str | Path) -> dict[str, Any]:
    """``{"solved": {level id: {"actions": n}}}``; a missing or unreadable file is empty."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"solved": {}}
    if not isinstance(data, dict) or not isinstance(data.get("solved"), dict):
        return {"solved": {}}
    return data


def mark_solved(path: str | Path, level_id: str, actions: int) -> None:
    data = read_progress(path)
    best = data["solved"].get(level_id, {}).get("actions")
    data["solved"][level_id] = {"actions": actions if best is None else min(best, actions)}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    temporary.replace(path)
