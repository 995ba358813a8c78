"""Generated sessions for the differential tests: hypothesis trees and Pi-writer programs.

``sessions()`` is a hypothesis strategy for a whole session file: a tree with every entry type
(messages of every role, settings, compactions nested and retain-none, branch summaries,
custom entries and messages, labels, names, ``usage``, ``context_edit``), several roots, and,
when asked, damage (dangling and self parents, cycles, duplicate ids, torn and corrupt lines,
entries without an id, messages without a body, edits without a replacement). It returns
``(bytes, damaged)``.

``writer_programs()`` is a strategy for a list of calls on Pi 1.6.0's own ``SessionManager``
(append, branch, resetLeaf, branchWithSummary, appendContextEdit, ...), which
``pi-node/driver.mjs`` runs with seeded ids and clock: a session that Pi itself wrote.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import strategies as st

PROVIDERS = ("acme", "zeta")
MODELS = ("alpha", "beta", "gamma")
LEVELS = ("off", "low", "high")
WORDS = ("fix", "the", "bug", "测试", "上下文", "ok", " ", "\n", "")


def text() -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join)


def content() -> st.SearchStrategy[Any]:
    block = st.builds(lambda t: {"type": "text", "text": t}, text())
    return st.one_of(text(), st.lists(block, max_size=2), st.none())


def _iso(ms: int) -> str:
    from datetime import datetime, timezone
    moment = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


ROLES = ("user", "user", "assistant", "assistant", "toolResult", "system", "bashExecution",
         "custom")
KINDS = ("message",) * 8 + ("model_change", "thinking_level_change", "compaction",
                            "compaction", "branch_summary", "custom", "custom_message", "label",
                            "session_info", "usage", "context_edit", "context_edit",
                            "future_thing")

# Hypothesis draws the shape of each session (its size, the damage, and one seed); the details
# of each entry come from a random.Random with that seed. Drawing every detail through
# hypothesis costs about 80 ms a session, too slow for thousands of cases.


def _text(rnd: random.Random) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(0, 4)))


def _content(rnd: random.Random) -> Any:
    pick = rnd.randint(0, 2)
    if pick == 0:
        return _text(rnd)
    if pick == 1:
        return [{"type": "text", "text": _text(rnd)} for _ in range(rnd.randint(0, 2))]
    return None


def _payload(rnd: random.Random, kind: str, earlier: list[str], own_id: str) -> dict[str, Any]:
    pick = (lambda: rnd.choice(earlier)) if earlier else (lambda: "nowhere")
    if kind == "message":
        role = rnd.choice(ROLES)
        message: dict[str, Any] = {"role": role, "timestamp": rnd.randint(0, 10**12)}
        if role == "bashExecution":
            message.update(command="ls", output=_text(rnd), exitCode=0)
        elif role == "custom":
            message.update(customType="note", content=_content(rnd), display=True)
        elif rnd.randint(0, 9):
            message["content"] = _content(rnd)
        if role == "assistant":
            message.update(provider=rnd.choice(PROVIDERS), model=rnd.choice(MODELS),
                           stopReason="stop")
            if rnd.random() < 0.5:
                message["usage"] = {"input": 10, "output": 2, "totalTokens": 12}
        if role == "toolResult":
            message.update(toolCallId="call-1", toolName="read", isError=False)
        return {"message": message}
    if kind == "model_change":
        return {"provider": rnd.choice(PROVIDERS), "modelId": rnd.choice(MODELS)}
    if kind == "thinking_level_change":
        return {"thinkingLevel": rnd.choice(LEVELS)}
    if kind == "compaction":
        first_kept = rnd.choice(("earlier", "earlier", "self", "missing", "unknown"))
        out: dict[str, Any] = {"summary": _text(rnd), "tokensBefore": rnd.randint(0, 999)}
        if first_kept == "earlier":
            out["firstKeptEntryId"] = pick()
        elif first_kept == "self":
            out["firstKeptEntryId"] = own_id      # a retain-none compaction (1.6.0 writes this)
        elif first_kept == "unknown":
            out["firstKeptEntryId"] = "not-on-this-branch"
        if rnd.random() < 0.5:
            out["systemMessage"] = {"role": "system", "content": _text(rnd), "timestamp": 5}
        return out
    if kind == "branch_summary":
        return {"fromId": pick(), "summary": rnd.choice(("", "what we learned"))}
    if kind == "custom":
        return {"customType": "ext", "data": {"n": rnd.randint(0, 3)}}
    if kind == "custom_message":
        out = {"customType": "ext", "display": rnd.random() < 0.5}
        if rnd.randint(0, 5):
            out["content"] = _content(rnd)
        if rnd.random() < 0.5:
            out["details"] = {"k": 1}
        return out
    if kind == "label":
        out = {"targetId": pick()}
        label = rnd.choice(("start", "fix", "", None))
        if label is not None:
            out["label"] = label
        return out
    if kind == "session_info":
        return {"name": rnd.choice(("payments", "  fix bug  ", "", "a\nb"))}
    if kind == "usage":
        return {"kind": rnd.choice(("cache_warm", "other")), "provider": rnd.choice(PROVIDERS),
                "model": rnd.choice(MODELS), "usage": {"input": rnd.randint(0, 500), "output": 0}}
    if kind == "context_edit":
        value: Any = rnd.choice((None, {"content": "edited"},
                                 {"content": [{"type": "text", "text": "edited"}]}, {}))
        return {"targetId": pick(), "replacement": value}
    return {"whatever": rnd.randint(0, 3)}   # a type from a future Pi


# Damage that rewrites one line first, then damage that adds lines (so indexes stay valid).
DAMAGES = ("dangling-parent", "self-parent", "cycle", "missing-id", "message-null",
           "edit-without-replacement", "duplicate-same", "duplicate-other", "torn-last-line",
           "corrupt-line", "blank-and-crlf")
# A loop makes Pi's walk run until Node dies, which costs a process each time: rarer.
DAMAGE_DRAW = DAMAGES[3:] * 3 + DAMAGES[:3]


@st.composite
def sessions(draw: st.DrawFn, damage: bool = True) -> tuple[bytes, bool]:
    """One whole session file as bytes, and whether damage was put into it."""
    count = draw(st.integers(1, 22))
    kinds = (draw(st.lists(st.sampled_from(DAMAGE_DRAW), max_size=2, unique=True))
             if damage else [])
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    start = 1795165200000
    objects: list[dict[str, Any]] = []
    ids: list[str] = []
    for index in range(count):
        own = f"e{index:02d}"
        choice = rnd.randint(0, 9) if ids else 0
        parent = (None if not ids or choice == 0 else
                  ids[-1] if choice < 7 else rnd.choice(ids))
        kind = rnd.choice(KINDS)
        entry = {"type": kind, "id": own, "parentId": parent,
                 "timestamp": _iso(start + index * 4000 + rnd.randint(0, 3) * 1000)}
        entry.update(_payload(rnd, kind, ids, own))
        objects.append(entry)
        ids.append(own)
    lines = [json.dumps(o, ensure_ascii=False) for o in objects]
    for kind in sorted(kinds, key=DAMAGES.index):
        lines = _damage(rnd, kind, objects, lines)
    header = {"type": "session", "version": 3, "id": "gen-session", "timestamp": _iso(start),
              "cwd": "/work/project"}
    ending = "\r\n" if "blank-and-crlf" in kinds else "\n"
    body = ending.join([json.dumps(header), *lines])
    if "torn-last-line" not in kinds:
        body += ending
    return body.encode("utf-8"), bool(kinds)


def _damage(rnd: random.Random, kind: str, objects: list[dict], lines: list[str]) -> list[str]:
    where = rnd.randint(0, len(objects) - 1)
    target = dict(objects[where])
    if kind == "dangling-parent":
        target["parentId"] = "gone"
    elif kind == "self-parent":
        target["parentId"] = target["id"]
    elif kind == "cycle" and where > 0:
        target["parentId"] = objects[-1]["id"] if where != len(objects) - 1 else target["id"]
    elif kind == "duplicate-same":
        return [*lines, lines[where]]
    elif kind == "duplicate-other":
        other = dict(objects[rnd.randint(0, len(objects) - 1)])
        other["id"] = target["id"]
        return [*lines, json.dumps(other)]
    elif kind == "torn-last-line":
        return [*lines, lines[where][: max(1, len(lines[where]) // 2)]]
    elif kind == "corrupt-line":
        lines = list(lines)
        lines.insert(where, '{"type": "message", "id": ')
        return lines
    elif kind == "missing-id":
        target.pop("id", None)
    elif kind == "message-null":
        target = {**target, "type": "message", "message": None}
    elif kind == "edit-without-replacement":
        target = {k: v for k, v in target.items() if k in ("id", "parentId", "timestamp")}
        target.update(type="context_edit", targetId=objects[0]["id"])
    elif kind == "blank-and-crlf":
        return [*lines[:where], "", "   ", *lines[where:]]
    lines = list(lines)
    lines[where] = json.dumps(target, ensure_ascii=False)
    return lines


# --------------------------------------------------------------------------------------
# Programs for Pi 1.6.0's own writer
# --------------------------------------------------------------------------------------

def _ref(draw: st.DrawFn, made: int) -> Any:
    return {"$ref": draw(st.integers(0, made - 1))} if made else "nowhere"


@st.composite
def writer_programs(draw: st.DrawFn) -> dict[str, Any]:
    """A list of SessionManager calls; ``{"$ref": n}`` is the id the n-th call returned."""
    ops: list[list[Any]] = [["appendMessage", {"role": "system", "content": "You are Pi.",
                                                "timestamp": 1}],
                            ["appendMessage", {"role": "user", "content": "hello",
                                               "timestamp": 2}]]
    for _ in range(draw(st.integers(1, 18))):
        made = len(ops)
        op = draw(st.sampled_from((
            "user", "assistant", "assistant", "tool", "system", "model", "thinking", "usage",
            "compaction", "compaction", "custom", "custom_message", "name", "label", "edit", "edit",
            "branch", "reset", "branch_summary")))
        if op == "user":
            ops.append(["appendMessage", {"role": "user", "content": draw(content()) or "q",
                                          "timestamp": made}])
        elif op == "assistant":
            ops.append(["appendMessage", {
                "role": "assistant", "content": [{"type": "text", "text": draw(text())}],
                "provider": draw(st.sampled_from(PROVIDERS)),
                "model": draw(st.sampled_from(MODELS)), "stopReason": "stop",
                "usage": {"input": 3, "output": 1, "totalTokens": 4}, "timestamp": made}])
        elif op == "tool":
            ops.append(["appendMessage", {"role": "toolResult", "toolCallId": "c",
                                          "toolName": "read", "isError": False,
                                          "content": [{"type": "text", "text": "file"}],
                                          "timestamp": made}])
        elif op == "system":
            ops.append(["appendMessage", {"role": "system", "content": draw(text()),
                                          "timestamp": made}])
        elif op == "model":
            ops.append(["appendModelChange", draw(st.sampled_from(PROVIDERS)),
                        draw(st.sampled_from(MODELS))])
        elif op == "thinking":
            ops.append(["appendThinkingLevelChange", draw(st.sampled_from(LEVELS))])
        elif op == "usage":
            ops.append(["appendUsage", "cache_warm", "acme", "alpha",
                        {"input": 7, "output": 0, "totalTokens": 7}])
        elif op == "compaction":
            kept = draw(st.sampled_from(("ref", "none")))
            ops.append(["appendCompaction", "summary so far",
                        _ref(draw, made) if kept == "ref" else None, 100])
        elif op == "custom":
            ops.append(["appendCustomEntry", "ext", {"n": made}])
        elif op == "custom_message":
            ops.append(["appendCustomMessageEntry", "ext", draw(text()) or "note", True])
        elif op == "name":
            ops.append(["appendSessionInfo", draw(st.sampled_from(("payments", " a\nb ")))])
        elif op == "label":
            ops.append(["appendLabelChange", _ref(draw, made),
                        draw(st.sampled_from(("start", "")))])
        elif op == "edit":
            replacement = draw(st.sampled_from((None, {"content": "edited"},
                                                {"content": [{"type": "text", "text": "e"}]})))
            ops.append(["appendContextEdit", _ref(draw, made), replacement])
        elif op == "branch":
            ops.append(["branch", _ref(draw, made)])
        elif op == "reset":
            ops.append(["resetLeaf"])
        else:
            ops.append(["branchWithSummary",
                        draw(st.one_of(st.none(), st.just(_ref(draw, made)))), "went back"])
    return {"sessionId": "pi-writer", "cwd": "/work/project", "ops": ops}
