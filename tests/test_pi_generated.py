"""The library against Pi's own code on sessions nobody chose.

Two sources (``tests/pi_sessions.py``):

* sessions that **Pi 1.6.0's own writer** produced: hypothesis draws a program of
  ``SessionManager`` calls (append every entry type, branch, resetLeaf, branchWithSummary,
  appendContextEdit, compactions with and without a kept entry, ...), the Node driver runs it
  with seeded ids and clock, and the file it writes is read back by both Pi versions;
* **hypothesis trees** written directly as JSONL, with every entry type, several roots and
  damage.

Hypothesis is used as the generator (no shrinking): the cases are collected first, then one Node
process answers all of them, which keeps thousands of cases within a couple of minutes. A
mismatch saves the file under ``artifacts/pi-diff-failures/`` and names it. The counts of each
outcome go to ``artifacts/pi-diff.json`` and are printed (``-s``).

``PI_DIFF_CASES`` sets how many hypothesis trees (default 1000; ``make pi-diff N=...``); the
writer programs are a fifth of that. With ``PI_DIFF_CASES`` set, the search is random
(a new search each run); without it, derandomized (the same cases in every CI run).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.pi_node import (ROOT, VERSIONS, ask_pi, compare_with_pi, pi_or_skip, read_request,
                           write_request)
from tests.pi_sessions import sessions, writer_programs

CASES = int(os.environ.get("PI_DIFF_CASES", "1000"))
RANDOM_SEARCH = "PI_DIFF_CASES" in os.environ
FAILURES = ROOT / "artifacts" / "pi-diff-failures"


def collect(strategy, count: int) -> list:
    """``count`` examples of a strategy, drawn by hypothesis's generator (no test, no shrink)."""
    found: list = []

    @settings(max_examples=count, phases=[Phase.generate], deadline=None, database=None,
              derandomize=not RANDOM_SEARCH,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def gather(example) -> None:
        found.append(example)

    gather()
    return found


def compare_all(tmp: Path, files: list[tuple[bytes, bool]], source: str) -> Counter:
    """Ask Pi about every file with both versions, compare, and return the outcome counts."""
    installed = pi_or_skip()
    requests = [read_request(data, version) for data, _ in files for version in VERSIONS]
    answers = iter(ask_pi(installed, requests))
    outcomes: Counter = Counter()
    mismatches: list[str] = []
    for number, (data, damaged) in enumerate(files):
        path = tmp / f"{source}-{number}.jsonl"
        path.write_bytes(data)
        for version in VERSIONS:
            answer = next(answers)
            modes = ["pi"] if damaged else ["pi", "teaching"]
            for mode in modes:
                outcome, differences = compare_with_pi(path, version, dict(answer), mode=mode)
                outcomes[f"{mode}:{outcome}"] += 1
                if differences:
                    FAILURES.mkdir(parents=True, exist_ok=True)
                    saved = FAILURES / f"{hashlib.sha256(data).hexdigest()[:12]}.jsonl"
                    saved.write_bytes(data)
                    mismatches.append(f"{saved.relative_to(ROOT)} @{version} {mode}: "
                                      + "; ".join(differences)[:600])
    assert path.read_bytes() == data, "the library must never write to the file it reads"
    report(source, outcomes, len(files))
    assert not mismatches, f"{len(mismatches)} mismatches with Pi:\n" + "\n".join(mismatches[:8])
    return outcomes


def report(source: str, outcomes: Counter, files: int) -> None:
    summary_path = ROOT / "artifacts" / "pi-diff.json"
    summary_path.parent.mkdir(exist_ok=True)
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    summary[source] = {"files": files, "comparisons": sum(outcomes.values()), **outcomes}
    summary_path.write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    print(f"\n{source}: {files} files, {sum(outcomes.values())} comparisons with Pi: "
          + ", ".join(f"{key} {value}" for key, value in sorted(outcomes.items())))


def test_sessions_written_by_pi_1_6(tmp_path: Path) -> None:
    installed = pi_or_skip()
    programs = collect(writer_programs(), max(20, CASES // 5))
    written = ask_pi(installed, [write_request(program, seed=f"program-{n}")
                                 for n, program in enumerate(programs)])
    files = [(answer["text"].encode("utf-8"), False) for answer in written if answer["text"]]
    assert len(files) >= len(programs) * 0.9, "Pi should write a file for almost every program"
    joined = "".join(answer["text"] for answer in written)
    for kind in ('"type":"context_edit"', '"type":"usage"', '"systemMessage"',
                 '"type":"branch_summary"', '"parentId":null'):
        assert joined.count(kind) >= max(1, len(programs) // 40), f"programs seldom make {kind}"
    outcomes = compare_all(tmp_path, files, "pi-writer")
    assert outcomes["pi:same"] == 2 * len(files)     # Pi's own files never make Pi throw


def test_hypothesis_trees(tmp_path: Path) -> None:
    files = collect(sessions(), CASES)
    outcomes = compare_all(tmp_path, files, "hypothesis")
    assert sum(outcomes.values()) >= 2 * CASES
    assert outcomes["pi:same"] > CASES   # most cases are compared in full
    if CASES >= 500:                      # the damage really reaches Pi's failure modes
        assert outcomes["pi:pi-hangs"] > 0 and outcomes["pi:pi-throws"] > 0


def test_empty_ids(tmp_path: Path) -> None:
    """An id of "" is no id to Pi's walks (it tests ids for truth), nor to the library's:
    leaf, labels, name, branch and context are Pi's. (Pi's ``/tree`` does list such a line,
    and so does pi mode's ``tree``: ``test_pi_differential``'s empty-id cases.)"""
    header = '{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w"}'

    def message(entry_id: str, parent: str | None, text: str) -> str:
        return json.dumps({"type": "message", "id": entry_id, "parentId": parent,
                           "timestamp": "2026-03-01T10:00:01.000Z",
                           "message": {"role": "user", "content": text, "timestamp": 1}})

    files = [[message("a", None, "one"), message("", "a", "the leaf has no id")],
             [message("a", None, "one"), message("", "a", "no id"), message("b", "", "under it")],
             [message("", None, "first"), message("a", None, "root"), message("b", "a", "leaf")],
             [message("a", None, "one"), message("b", "", "parent is empty")],
             [message("a", None, "one"), message("", "a", "middle"), message("b", "", "x"),
              message("c", "", "y"), message("d", "a", "sibling")],
             [message("", None, "root"), message("a", "", "child"), message("b", "a", "leaf")],
             [message("a", None, "one"), message("", "", "its own parent"),
              message("b", "a", "z")],
             # two lines with the id "": a repeated id, the later wins (Pi's index too)
             [message("a", None, "one"), message("", "a", "first"), message("b", "a", "b"),
              message("", "b", "second")],
             [message("a", None, "one"), message("", "a", "first"), message("b", "", "under"),
              message("", "b", "second"), message("c", "", "under the second")]]
    outcomes = compare_all(tmp_path, [("\n".join([header, *lines]).encode() + b"\n", True)
                                      for lines in files], "empty-ids")
    assert outcomes["pi:same"] == 2 * len(files)


def test_a_system_message_that_is_not_an_object(tmp_path: Path) -> None:
    """Pi 1.6.0 passes a compaction's truthy systemMessage on as it is (5, "x", [1], true),
    and reads ``.role`` from it when an edit targets the compaction; the library must give
    the same context and never fail on it (also on the command line, text and JSON)."""
    header = '{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w"}'
    files = []
    for value in (5, "x", [1], True, {}):
        compaction = json.dumps({"type": "compaction", "id": "c1", "parentId": None,
                                 "timestamp": "2026-03-01T10:00:01.000Z", "summary": "s",
                                 "tokensBefore": 9, "systemMessage": value})
        for edit in ({}, {"replacement": None}, {"replacement": {"content": "y"}}):
            lines = [header, compaction]
            if edit:
                lines.append(json.dumps({"type": "context_edit", "id": "e1", "parentId": "c1",
                                         "timestamp": "2026-03-01T10:00:02.000Z",
                                         "targetId": "c1", **edit}))
            files.append(("\n".join(lines) + "\n").encode())
    outcomes = compare_all(tmp_path, [(data, True) for data in files], "system-messages")
    assert outcomes["pi:same"] == 2 * len(files)
    from learn_pi_lab.cli import commands as cli
    for number, data in enumerate(files):
        path = tmp_path / f"cli-{number}.jsonl"
        path.write_bytes(data)
        for extra in ([], ["--json"], ["--pi-compat"]):
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                code = cli.main(["context", str(path), "--pi-version", "1.6.0", *extra])
            assert code == 0 and "Traceback" not in err.getvalue(), err.getvalue()


@pytest.mark.parametrize("damaged", [False, True])
def test_the_generator_makes_what_it_says(damaged: bool) -> None:
    from learn_pi_lab.pi.session import session_from_text
    files = collect(sessions(damage=damaged), 60)
    kinds = Counter()
    for data, was_damaged in files:
        assert damaged or not was_damaged
        for line in data.decode("utf-8").splitlines()[1:]:
            try:
                kinds[json.loads(line).get("type")] += 1
            except (ValueError, AttributeError):
                kinds["<broken>"] += 1
        if not damaged:
            serious = [d for d in session_from_text(data.decode("utf-8")).diagnostics
                       if d.severity == "error"]
            assert serious == []
    expected = {"message", "compaction", "context_edit", "usage", "label", "session_info"}
    assert expected <= set(kinds)
    assert any(was_damaged for _, was_damaged in files) == damaged
