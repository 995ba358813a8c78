"""Session files the size of real ones: many small entries, written like Pi writes them.

Real Pi sessions are many small entries, not a few large ones: a long working day is tens of
thousands of messages of a few dozen words. Each writer below produces a deterministic Pi v3
file of ``count`` entries (header not counted) in a scratch folder (never the repository):

* ``linear``: model and thinking level, then user / assistant turns of ~60 words each (each
  answer with its token counts and their cost, a float, as Pi stores it);
* ``branchy``: the same, but every ~50 entries the leaf goes back a few entries and a new
  branch grows from there (now and then with a ``branch_summary``);
* ``compacted``: linear, with a ``compaction`` every ~1,000 entries that keeps the last ~100;
* ``chain``: one long chain of short messages (for ``path`` on a million entries);
* ``bad_lines``: a header, then lines that are not JSON at all (for the inspector).

Chapter 07 measures on these files and ``make bench`` (``bench/sessions.py`` imports this
module) compares the course with Pi's own code on them, so the notebook's numbers and the
bench's come from the same files. Standard library only.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Callable, Iterator

WORDS = ("the refactor moves charge into small functions so each payment method can be "
         "tested alone while refunds reuse the same fee code and the gateway client stays "
         "one object passed in from outside def class return import json path line entry "
         "parent branch leaf tree summary compaction label model thinking").split()
MESSAGE_WORDS = 60
START_MS = 1_772_359_200_000
PRICE_PER_MILLION = {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}  # dollars


def _dumps(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _stamp(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


class _Writer:
    """Appends entries like Pi: each one's parent is the current leaf, the last line is the leaf."""

    def __init__(self, handle, seed: int, words: int) -> None:
        self.handle, self.rng, self.words = handle, random.Random(seed), words
        self.leaf: str | None = None
        self.branch: list[str] = []      # ids from the root to the leaf
        self.count = 0
        self.clock = START_MS
        handle.write(_dumps({"type": "session", "version": 3, "id": f"bench-{seed}",
                             "timestamp": _stamp(START_MS), "cwd": "/home/bench/project"}) + "\n")

    def text(self) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.words))

    def append(self, kind: str, **fields: object) -> str:
        self.count += 1
        self.clock += self.rng.randrange(500, 20_000)
        entry_id = f"{self.count:08x}"
        obj = {"type": kind, "id": entry_id, "parentId": self.leaf,
               "timestamp": _stamp(self.clock), **fields}
        self.handle.write(_dumps(obj) + "\n")
        self.leaf = entry_id
        self.branch.append(entry_id)
        return entry_id

    def turn(self) -> None:
        """One user message and, if there is room, the assistant's answer."""
        self.append("message", message={"role": "user", "content": self.text(),
                                        "timestamp": self.clock})
        self.append("message", message={
            "role": "assistant", "content": [{"type": "text", "text": self.text()}],
            "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": self.usage(), "stopReason": "stop", "timestamp": self.clock})

    def usage(self) -> dict:
        """Token counts and their cost in dollars, as Pi stores them: the cost is a float
        computed from per-million prices, so it has the long tails real files have
        (``0.000021000000000000002``) and, for small counts, numbers below 1e-4."""
        tokens = {"input": self.rng.randrange(1, 3_000), "output": self.rng.randrange(20, 800),
                  "cacheRead": self.rng.choice((0, self.rng.randrange(1_000, 60_000))),
                  "cacheWrite": self.rng.choice((0, self.rng.randrange(100, 9_000)))}
        cost = {key: tokens[key] * PRICE_PER_MILLION[key] / 1_000_000 or 0 for key in tokens}
        cost["total"] = sum(cost.values())   # (``or 0``: JavaScript writes a zero cost as 0)
        return {**tokens, "totalTokens": sum(tokens.values()), "cost": cost}

    def start(self) -> None:
        self.append("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
        self.append("thinking_level_change", thinkingLevel="medium")

    def rewind(self, back: int) -> None:
        """Move the leaf ``back`` entries up the current branch (Pi's /tree)."""
        keep = max(1, len(self.branch) - back)
        del self.branch[keep:]
        self.leaf = self.branch[-1]


def _write(path: Path, count: int, seed: int, words: int,
           step: Callable[[_Writer], None]) -> int:
    with path.open("w", encoding="utf-8") as handle:
        writer = _Writer(handle, seed, words)
        writer.start()
        while writer.count < count:
            step(writer)
    return writer.count


def write_linear(path: Path, count: int) -> int:
    return _write(path, count, 1, MESSAGE_WORDS, _Writer.turn)


def write_branchy(path: Path, count: int) -> int:
    def step(writer: _Writer) -> None:
        writer.turn()
        if writer.count % 50 < 2 and writer.count > 10:
            writer.rewind(writer.rng.randrange(3, 30))
            if writer.rng.random() < 0.3:
                writer.append("branch_summary", fromId=writer.leaf, summary=writer.text())
    return _write(path, count, 2, MESSAGE_WORDS, step)


def write_compacted(path: Path, count: int) -> int:
    def step(writer: _Writer) -> None:
        writer.turn()
        if writer.count % 1000 < 2 and writer.count > 200:
            writer.append("compaction", summary=writer.text(),
                          firstKeptEntryId=writer.branch[-100], tokensBefore=120_000)
    return _write(path, count, 3, MESSAGE_WORDS, step)


def write_chain(path: Path, count: int) -> int:
    return _write(path, count, 4, 3, _Writer.turn)


def write_bad_lines(path: Path, count: int) -> int:
    with path.open("w", encoding="utf-8") as handle:
        handle.write(_dumps({"type": "session", "version": 3, "id": "bench-bad",
                             "timestamp": _stamp(START_MS), "cwd": "/"}) + "\n")
        for number in range(count):
            handle.write(f"not json {number} {{\n")
    return count


SHAPES: dict[str, Callable[[Path, int], int]] = {
    "linear": write_linear, "branchy": write_branchy, "compacted": write_compacted,
}


def session_file(folder: Path, shape: str, count: int) -> Path:
    """The file of that shape and size in ``folder``, written on first use."""
    writers = {**SHAPES, "chain": write_chain, "bad_lines": write_bad_lines}
    path = folder / f"{shape}-{count}.jsonl"
    if not path.exists():
        partial = path.with_suffix(".partial")
        writers[shape](partial, count)
        partial.rename(path)
    return path


def entries_in(path: Path) -> Iterator[dict]:
    with path.open("rb") as handle:
        next(handle)
        for line in handle:
            yield json.loads(line)
