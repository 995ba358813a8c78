"""Built-in example sessions: conversations you can explore without any file on disk.

Two examples. ``SESSION_TREE_FIXTURE`` is the original learn-pi course's four entries (a
root with two branches; ``lab session-tree``). The story below is this workbook's own
(``lab session-story``).

The story comes from the course's seed text. Eighteen turns into refactoring a payment
module, the user sees that turn 6 (use the strategy pattern) was the wrong call and that
turns 7 to 18 all stand on it. A linear log offers only bad choices: keep going with the
wrong context, or start over and lose turns 1 to 5. A tree session does what you actually
want: go back to just before turn 6 and take another direction. Nothing is deleted; the
old branch stays in the tree, and a ``branch_summary`` carries what it taught into the
new one.

The example is built with the same two operations Pi uses, ``append`` and ``move_leaf``,
so the code below *is* the lesson: a branch is a rewind followed by an append.

Everything is deterministic (fixed ids and timestamps), so the printed JSON is the same on
every machine; only the text follows the chosen language.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from learn_pi_lab.entry_text import short_text
from learn_pi_lab.i18n import t
from learn_pi_lab.jsonl.ids import iso_now
from learn_pi_lab.session_tree import SESSION_TREE_FIXTURE, TranscriptTree

__all__ = ["SESSION_TREE_FIXTURE", "story_tree", "story_objects", "story_header", "short_text",
           "branch_report"]

STORY_TURNS = 18
WRONG_TURN = 6
STORY_PROVIDER = "anthropic"
STORY_MODEL = "claude-sonnet-4-5"
STORY_SESSION_ID = "0195a0e0-0000-7000-8000-000000000018"
STORY_CWD = "/home/learner/payments"
STORY_START = datetime(2026, 3, 1, 10, 0, 0, tzinfo=timezone.utc)


def _iso(moment: datetime) -> str:
    """ISO-8601 UTC with milliseconds, the way Pi's ``Date#toISOString`` writes it."""
    return iso_now(lambda: moment)


class _StoryClock:
    """Each entry is written 30 seconds after the previous one: a fixed, readable timeline."""

    def __init__(self) -> None:
        self._moment = STORY_START

    def tick(self) -> tuple[str, int]:
        """The next entry timestamp (ISO string) and the same instant in epoch milliseconds."""
        self._moment += timedelta(seconds=30)
        return _iso(self._moment), int(self._moment.timestamp() * 1000)


def story_header() -> dict[str, Any]:
    """The session header line of the example (not a tree node)."""
    return {"type": "session", "version": 3, "id": STORY_SESSION_ID,
            "timestamp": _iso(STORY_START), "cwd": STORY_CWD}


def _user(text: str, ms: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ms}


def _assistant(text: str, ms: int, turn: int) -> dict[str, Any]:
    tokens_in, tokens_out = 900 + 350 * turn, 120 + 10 * turn
    return {"role": "assistant", "content": [{"type": "text", "text": text}],
            "api": "anthropic-messages", "provider": STORY_PROVIDER, "model": STORY_MODEL,
            "usage": {"input": tokens_in, "output": tokens_out, "cacheRead": 0, "cacheWrite": 0,
                      "totalTokens": tokens_in + tokens_out,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                               "total": 0}},
            "stopReason": "stop", "timestamp": ms}


def story_tree(lang: str | None = None) -> TranscriptTree:
    """The 18-turn story as a ``TranscriptTree`` whose leaf is the end of the new branch.

    Ids are readable on purpose: ``u06`` is the user's turn 6, ``a06`` the assistant's
    answer, ``u06b`` turn 6 taken again on the new branch. Each payload is the complete
    JSON object Pi would write, so the context builder and the writer can use it as is.
    """
    clock = _StoryClock()
    tree = TranscriptTree()

    def add(entry_id: str, kind: str, fields: Callable[[int], dict[str, Any]]) -> None:
        """Append one entry at the leaf; ``fields`` gets the entry's time in epoch ms."""
        nonlocal tree
        stamp, ms = clock.tick()
        obj = {"type": kind, "id": entry_id, "parentId": tree.leaf_id, "timestamp": stamp,
               **fields(ms)}
        tree = tree.append(entry_id, kind, obj)

    def turn(entry_suffix: str, turn_no: int) -> None:
        """One user prompt and the assistant's answer."""
        user_text = t(f"lab.story.u{entry_suffix}", lang)
        answer = t(f"lab.story.a{entry_suffix}", lang)
        add(f"u{entry_suffix}", "message", lambda ms: {"message": _user(user_text, ms)})
        add(f"a{entry_suffix}", "message",
            lambda ms: {"message": _assistant(answer, ms, turn_no)})

    # A fresh Pi session starts with the model and the thinking level, then the first prompt.
    add("model", "model_change", lambda ms: {"provider": STORY_PROVIDER, "modelId": STORY_MODEL})
    add("thinking", "thinking_level_change", lambda ms: {"thinkingLevel": "medium"})
    for turn_no in range(1, STORY_TURNS + 1):
        turn(f"{turn_no:02d}", turn_no)

    # Turn 18: turn 6 was wrong. Rewind to the answer of turn 5 (/tree on u06 puts the leaf
    # on its parent) and leave a summary of what the abandoned branch learned. Then take
    # turn 6 again: the first append after the rewind is where the new branch starts.
    before_wrong_turn = f"a{WRONG_TURN - 1:02d}"
    tree = tree.move_leaf(before_wrong_turn)
    add("summary", "branch_summary",
        lambda ms: {"fromId": before_wrong_turn, "summary": t("lab.story.summary", lang)})
    for turn_no in (WRONG_TURN, WRONG_TURN + 1):
        turn(f"{turn_no:02d}b", turn_no)
    return tree


def story_objects(lang: str | None = None) -> list[dict[str, Any]]:
    """Header plus every entry in file order: what a session file of the story would hold."""
    return [story_header()] + [dict(entry.payload) for entry in story_tree(lang)]


def branch_report(tree: TranscriptTree, leaf_id: str | None = None) -> dict[str, Any]:
    """One root-to-leaf branch as plain data: ``{"leaf", "path": [{"id","kind","text"}]}``.

    Raises ``UnknownTranscriptEntry`` for a leaf that is not in the tree.
    """
    path = tree.path_to(leaf_id)
    return {"leaf": path[-1].id if path else None,
            "path": [{"id": entry.id, "kind": entry.kind, "text": short_text(entry)}
                     for entry in path]}

