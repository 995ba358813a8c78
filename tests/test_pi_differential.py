"""The library against Pi's own code (0.84.2 and 1.6.0), on every data file.

``tests/pi_node.py`` installs both published npm packages (pinned by ``pi-node/package-lock.json``)
into a cache folder and asks them, through ``pi-node/driver.mjs``, what they make of each file:
leaf, path, labels, name, model, thinking level, and the context messages with the entry each
came from. The library must say the same in ``mode="pi"`` with the same ``pi_version``; on files
without damage, the default teaching mode must too. Where Pi throws or never returns, the library
must give a clear error or problem instead (``compare_with_pi``).

Generated sessions (Pi's own writer, and hypothesis trees) are in test_pi_generated.py.
"""

from __future__ import annotations

import json
import lzma
from pathlib import Path

import pytest

from learn_pi_lab.pi.session import load_session
from tests.pi_node import ROOT, VERSIONS, ask_pi, compare_with_pi, pi_or_skip, read_request

DATA_FILES = sorted([*ROOT.glob("data/*.jsonl"), *ROOT.glob("data/pi/**/*.jsonl"),
                     *ROOT.glob("data/pi/**/*.jsonl.xz"), *ROOT.glob("data/pi16/*.jsonl")])
CASES = [(path, version) for path in DATA_FILES for version in VERSIONS]


def file_bytes(path: Path) -> bytes:
    return lzma.decompress(path.read_bytes()) if path.suffix == ".xz" else path.read_bytes()


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict:
    installed = pi_or_skip()
    replies = ask_pi(installed, [read_request(file_bytes(path), version)
                                 for path, version in CASES])
    plain = tmp_path_factory.mktemp("plain")
    out = {}
    for (path, version), reply in zip(CASES, replies):
        copy = plain / path.name.removesuffix(".xz")
        copy.write_bytes(file_bytes(path))     # Pi read the decompressed bytes; so do we
        out[path, version] = (copy, reply)
    return out


def test_every_data_file_is_asked() -> None:
    assert len(DATA_FILES) >= 20, DATA_FILES
    assert any(path.suffix == ".xz" for path in DATA_FILES)


@pytest.mark.parametrize("path, version", CASES,
                         ids=[f"{p.relative_to(ROOT / 'data')}@{v}" for p, v in CASES])
def test_pi_mode_matches_pi(answers: dict, path: Path, version: str) -> None:
    copy, answer = answers[path, version]
    outcome, differences = compare_with_pi(copy, version, answer, mode="pi")
    assert differences == [], f"{outcome}: " + "\n".join(differences)


@pytest.mark.parametrize("path, version", CASES,
                         ids=[f"{p.relative_to(ROOT / 'data')}@{v}" for p, v in CASES])
def test_teaching_mode_matches_pi_on_undamaged_files(answers: dict, path: Path,
                                                     version: str) -> None:
    copy, answer = answers[path, version]
    if path.name.startswith(("failure-", "glued-")):
        pytest.skip("a damaged file: teaching mode reports the damage instead (test_04)")
    session = load_session(copy)
    serious = [d for d in session.diagnostics if d.severity in ("error", "warning")]
    assert serious == [], "an undamaged teaching file should load without errors"
    outcome, differences = compare_with_pi(copy, version, answer, mode="teaching")
    assert (outcome, differences) == ("same", [])


def test_versions_disagree_where_section_17_says(answers: dict) -> None:
    """Nested compactions: 0.84.2 repeats the older summary inside the kept range, 1.6.0 not."""
    nested = ROOT / "data" / "pi" / "agent-sessions" / "small.jsonl"
    old = [m["role"] for m in answers[nested, "0.84.2"][1]["messages"]]
    new = [m["role"] for m in answers[nested, "1.6.0"][1]["messages"]]
    assert old.count("compactionSummary") == 2 and new.count("compactionSummary") == 1


def test_pi16_data_is_what_pi_writes() -> None:
    """data/pi16/generate.mjs --check: the committed files are byte for byte Pi 1.6.0's."""
    import subprocess
    installed = pi_or_skip()
    run = subprocess.run(["node", str(ROOT / "data" / "pi16" / "generate.mjs"), "--check",
                          "--pi", str(installed)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr


def test_pi16_data_covers_each_1x_case() -> None:
    text = {path.name: path.read_text(encoding="utf-8")
            for path in (ROOT / "data" / "pi16").glob("*.jsonl")}
    assert '"replacement":null' in text["context-edit.jsonl"]
    assert text["context-edit.jsonl"].count('"type":"context_edit"') == 3
    assert '"type":"usage"' in text["usage.jsonl"]
    assert '"systemMessage"' in text["compaction-checkpoint.jsonl"]
    assert text["nested-compactions.jsonl"].count('"type":"compaction"') == 2
    assert text["several-roots.jsonl"].count('"parentId":null') == 3
    session = load_session(ROOT / "data" / "pi16" / "compaction-retain-none.jsonl")
    compaction = next(e for e in session.entries if e["type"] == "compaction")
    assert compaction["firstKeptEntryId"] == compaction["id"]


@pytest.mark.parametrize("path", DATA_FILES, ids=[str(p.relative_to(ROOT / "data"))
                                                  for p in DATA_FILES])
def test_cli_context_json_is_pi_1_6(answers: dict, path: Path) -> None:
    """``context --pi-version 1.6.0 --json`` prints exactly Pi 1.6.0's messages (with entryId)."""
    import io
    import json
    from contextlib import redirect_stderr, redirect_stdout

    from learn_pi_lab.cli import commands as cli
    copy, answer = answers[path, "1.6.0"]
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(["context", str(copy), "--json", "--pi-compat", "--pi-version", "1.6.0"])
    if "hang" in answer or "open" in answer.get("thrown", {}):
        assert code == 2 and len(err.getvalue().strip().splitlines()) == 1
        return
    assert code == 0, err.getvalue()
    printed = json.loads(out.getvalue())
    if "context" in answer.get("thrown", {}):
        assert "Pi's own code would crash" in err.getvalue()
        return
    if answer["entryIds"] and load_session(copy).file.migrated:
        assert [m["role"] for m in printed["messages"]] == [m["role"] for m in answer["messages"]]
        return
    assert printed["messages"] == answer["messages"]
    assert (printed["leaf"], printed["model"], printed["thinkingLevel"]) == (
        answer["leaf"], answer["model"], answer["thinkingLevel"])


def test_the_comparison_notices_a_wrong_answer(answers: dict) -> None:
    """compare_with_pi is not vacuous: change one detail of Pi's answer and it objects."""
    import copy as copying
    path = ROOT / "data" / "pi16" / "context-edit.jsonl"
    plain, answer = answers[path, "1.6.0"]
    assert compare_with_pi(plain, "1.6.0", copying.deepcopy(answer)) == ("same", [])
    for tamper in (lambda a: a["messages"][3].update(content="other"),
                   lambda a: a["messages"].pop(),
                   lambda a: a.update(leaf="somewhere"),
                   lambda a: a["path"].reverse(),
                   lambda a: a.update(labels={"x": "y"}),
                   lambda a: a.update(thinkingLevel="high")):
        wrong = copying.deepcopy(answer)
        tamper(wrong)
        outcome, differences = compare_with_pi(plain, "1.6.0", wrong)
        assert differences, "a changed answer must be reported"
    # ... and the library read by the other version's rules differs from Pi 1.6.0 here
    _, edited_answer = answers[ROOT / "data" / "pi16" / "compaction-checkpoint.jsonl", "1.6.0"]
    plain = answers[ROOT / "data" / "pi16" / "compaction-checkpoint.jsonl", "1.6.0"][0]
    assert compare_with_pi(plain, "0.84.2", copying.deepcopy(edited_answer))[1]


# --------------------------------------------------------------------------------------
# /fork and /tree, asked of Pi's own createBranchedSession and tree selector (probe.mjs)
# --------------------------------------------------------------------------------------

def session_text(*entries: dict) -> str:
    """A v3 file: the header, then one line per entry."""
    import json
    header = {"type": "session", "version": 3, "id": "s",
              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp"}
    return "".join(json.dumps(obj) + "\n" for obj in (header, *entries))


def stamp(second: int) -> str:
    return f"2026-01-01T00:00:{second:02d}.000Z"


def user_entry(entry_id: str, parent: str | None, second: int, text: str = "hi") -> dict:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp(second),
            "message": {"role": "user", "content": [{"type": "text", "text": text}],
                        "timestamp": second}}


def assistant_entry(entry_id: str, parent: str | None, second: int, text: str = "ok") -> dict:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp(second),
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
                        "provider": "p", "model": "m", "stopReason": "stop",
                        "timestamp": second}}


def label_entry(entry_id: str, parent: str, second: int, target: str, label: str) -> dict:
    return {"type": "label", "id": entry_id, "parentId": parent, "timestamp": stamp(second),
            "targetId": target, "label": label}


# A compaction keeps from a label entry (Pi 1.6.0 re-points it when /fork drops the label).
KEPT_FROM_A_LABEL = session_text(
    user_entry("u1", None, 1, "one"), assistant_entry("a1", "u1", 2),
    label_entry("L", "a1", 3, "a1", "mark"),
    user_entry("u2", "L", 4, "two"), assistant_entry("a2", "u2", 5),
    {"type": "compaction", "id": "C", "parentId": "a2", "timestamp": stamp(6), "summary": "SUM",
     "firstKeptEntryId": "L", "tokensBefore": 10},
    user_entry("u3", "C", 7, "three"), assistant_entry("a3", "u3", 8))

# Labels set in another order than the path's: a2's first, then u1's, then a2's changed (it
# keeps its place), and a1's cleared and set again (it goes last).
LABELS_OUT_OF_PATH_ORDER = session_text(
    user_entry("u1", None, 1), assistant_entry("a1", "u1", 2),
    user_entry("u2", "a1", 3), assistant_entry("a2", "u2", 4),
    label_entry("L0", "a2", 5, "a1", "first"),
    label_entry("L1", "L0", 6, "a2", "on-a2"), label_entry("L2", "L1", 7, "u1", "on-u1"),
    label_entry("L3", "L2", 8, "a2", "changed"), label_entry("L4", "L3", 9, "a1", ""),
    label_entry("L5", "L4", 10, "a1", "again"))

# An orphan: Pi's getBranch stops there, so /fork copies from it as from a root (pi mode).
DANGLING_PARENT = session_text(user_entry("d", "gone", 1), assistant_entry("d2", "d", 2))

FORK_CASES = [("kept-from-a-label", KEPT_FROM_A_LABEL, "a3", "teaching"),
              ("labels-out-of-path-order", LABELS_OUT_OF_PATH_ORDER, "a2", "teaching"),
              ("dangling-parent", DANGLING_PARENT, "d2", "pi")]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name, text, leaf, mode", FORK_CASES, ids=[c[0] for c in FORK_CASES])
def test_fork_writes_what_pi_writes(name: str, text: str, leaf: str, mode: str,
                                    version: str) -> None:
    """``fork_entries`` on a session loaded for ``version`` writes Pi's lines, in Pi's order
    (the re-created labels' random ids aside), and the fork's context is Pi's."""
    import json

    from learn_pi_lab.pi.navigation import fork_entries
    from learn_pi_lab.pi.session import session_from_text
    from tests.pi_node import label_ids_renamed, probe_pi

    [answer] = probe_pi(pi_or_skip(), [{"op": "fork", "version": version, "text": text,
                                        "leafId": leaf}])
    pi_header, *pi_entries = [json.loads(line) for line in answer["text"].splitlines()]
    header, entries = fork_entries(session_from_text(text, mode=mode, pi_version=version),
                                   leaf, "at")
    assert label_ids_renamed(entries) == label_ids_renamed(pi_entries)
    assert list(header)[:5] == list(pi_header)[:5]
    forked = session_text(*entries)
    pi_forked = "".join(json.dumps(obj) + "\n" for obj in [pi_header, *pi_entries])
    assert [(m["role"], m.get("entryId")) for m in
            session_from_text(forked, pi_version=version).context().messages] == \
        [(m["role"], m.get("entryId")) for m in
         session_from_text(pi_forked, pi_version=version).context().messages]


# Roots at different times (Pi keeps them in file order, the leaf's root first), and children
# at different times written out of order (Pi sorts those by time).
ROOTS_OUT_OF_TIME_ORDER = session_text(
    user_entry("aaaa0001", None, 10), assistant_entry("aaaa0002", "aaaa0001", 11),
    user_entry("bbbb0001", None, 5), assistant_entry("bbbb0002", "bbbb0001", 6),
    user_entry("cccc0001", None, 7))
CHILDREN_OUT_OF_TIME_ORDER = session_text(
    user_entry("r", None, 1), assistant_entry("a", "r", 2),
    user_entry("late", "a", 9), user_entry("early", "a", 3), user_entry("mid", "a", 5),
    user_entry("r2", None, 4), assistant_entry("x", "early", 6))

# Children whose timestamps JavaScript's Date reads though they are not ISO: a number of
# milliseconds, an RFC 2822 date (with a zone), null (0), one with a day that rolls over.
CHILDREN_WITH_OTHER_TIME_FORMS = session_text(
    user_entry("r", None, 1), assistant_entry("a", "r", 2),
    {**user_entry("rfc", "a", 0), "timestamp": "Thu, 01 Jan 2026 00:00:30 GMT"},
    {**user_entry("rfc-zone", "a", 0), "timestamp": "01 Jan 2026 01:00:20 +0100"},
    {**user_entry("iso", "a", 25)},
    {**user_entry("number", "a", 0), "timestamp": 1767225640000},
    {**user_entry("rollover", "a", 0), "timestamp": "Sat, 31 Dec 2025 24:00:35 GMT"},
    {**user_entry("null", "a", 0), "timestamp": None},
    {**user_entry("fraction", "a", 0), "timestamp": 1.9})

TREE_CASES = [("roots-out-of-time-order", ROOTS_OUT_OF_TIME_ORDER),
              ("children-out-of-time-order", CHILDREN_OUT_OF_TIME_ORDER),
              ("children-with-other-time-forms", CHILDREN_WITH_OTHER_TIME_FORMS)]


def tree_listing(text: str, version: str, mode: str = "teaching"
                 ) -> tuple[list[str], list[str], str | None]:
    """What ``tree`` prints (every entry: none folded or hidden), as Pi's selector answers:
    the ids in order, those marked ``●`` (the current branch) and the one marked ``← leaf``.
    An empty id is printed ``""``."""
    import re

    from learn_pi_lab.pi.session import session_from_text
    from learn_pi_lab.cli.tree_text import render_tree
    session = session_from_text(text, mode=mode, pi_version=version)
    order, marked, leaf = [], [], None
    for line in render_tree(session, session.leaf_id, "en"):
        mark, shown = re.match(r"[^●○]*([●○]) (\S+)  ", line).groups()
        entry_id = "" if shown == '""' else shown
        order.append(entry_id)
        if mark == "●":
            marked.append(entry_id)
        if line.endswith("← leaf"):
            leaf = entry_id
    return order, marked, leaf


def tree_order(text: str, version: str) -> list[str]:
    """The ids in the order ``tree`` prints them."""
    return tree_listing(text, version)[0]


@pytest.mark.parametrize("name, text", TREE_CASES, ids=[c[0] for c in TREE_CASES])
def test_tree_lists_entries_in_the_order_of_pis_tree_selector(name: str, text: str) -> None:
    from tests.pi_node import probe_pi
    answers = probe_pi(pi_or_skip(), [{"op": "tree", "version": version, "text": text}
                                      for version in VERSIONS])
    for version, answer in zip(VERSIONS, answers):
        assert tree_order(text, version) == answer["order"], version


# An entry whose id is "": Pi's index files the line under "", getTree hangs a line whose
# parentId is "" under it, and /tree lists it; its active path (the current branch's marks)
# stops at a parentId "", and a leaf "" marks no branch at all. Pi mode lists what Pi lists.
EMPTY_ID_CASES = [
    ("empty-leaf", session_text(user_entry("a", None, 1, "one"),
                                user_entry("", "a", 2, "the leaf has no id"))),
    ("child-of-empty", session_text(user_entry("a", None, 1, "one"), user_entry("", "a", 2),
                                    user_entry("b", "", 3, "under it"))),
    ("empty-root-first", session_text(user_entry("", None, 1, "first"),
                                      user_entry("a", None, 2, "root"),
                                      user_entry("b", "a", 3, "leaf"))),
    ("parent-empty-without-empty-line", session_text(user_entry("a", None, 1),
                                                     user_entry("b", "", 2))),
    ("empty-in-mid-branch", session_text(
        user_entry("a", None, 1), user_entry("", "a", 2, "middle"), user_entry("b", "", 3),
        user_entry("c", "", 4), user_entry("d", "a", 5, "sibling"))),
    ("leaf-below-empty", session_text(
        user_entry("a", None, 1), user_entry("", "a", 2), user_entry("b", "", 3),
        user_entry("c", "a", 4), user_entry("d", "b", 5))),
    ("empty-leaf-on-the-newer-branch", session_text(
        user_entry("a", None, 1), user_entry("b", "a", 2), user_entry("c", "a", 3),
        user_entry("", "c", 4, "last line"))),
    ("empty-root-with-children", session_text(
        user_entry("", None, 1), user_entry("a", "", 2), user_entry("b", "a", 3))),
    ("empty-self-parent", session_text(
        user_entry("a", None, 1), user_entry("", "", 2), user_entry("b", "a", 3))),
]


@pytest.mark.parametrize("name, text", EMPTY_ID_CASES, ids=[c[0] for c in EMPTY_ID_CASES])
def test_tree_shows_an_empty_id_where_pis_tree_selector_does(name: str, text: str) -> None:
    from tests.pi_node import probe_pi
    answers = probe_pi(pi_or_skip(), [{"op": "tree", "version": version, "text": text}
                                      for version in VERSIONS])
    for version, answer in zip(VERSIONS, answers):
        order, marked, leaf = tree_listing(text, version, mode="pi")
        assert order == answer["order"], version
        assert marked == answer["active"], version
        assert leaf == answer["selected"], version


# Summaries stamped with times that are not ISO text: Pi's context gives each summary
# `new Date(entry.timestamp).getTime()`, as its /tree sort reads the same stamps.
SUMMARIES_WITH_OTHER_TIME_FORMS = session_text(
    user_entry("u1", None, 1), assistant_entry("a1", "u1", 2),
    {"type": "compaction", "id": "C", "parentId": "a1", "summary": "SUM",
     "firstKeptEntryId": "u1", "tokensBefore": 10, "timestamp": "01 Jan 2026 01:00:06 +0100"},
    {"type": "branch_summary", "id": "b", "parentId": "C", "fromId": "a1", "summary": "B",
     "timestamp": "Thu, 01 Jan 2026 00:00:03 GMT"},
    {"type": "custom_message", "id": "cm", "parentId": "b", "customType": "x", "content": "c",
     "display": True, "timestamp": 1767225607000},
    user_entry("u3", "cm", 8), assistant_entry("a3", "u3", 9))


@pytest.mark.parametrize("version", VERSIONS)
def test_context_stamps_summaries_as_pi_reads_other_time_forms(tmp_path: Path,
                                                                version: str) -> None:
    path = tmp_path / "stamps.jsonl"
    path.write_text(SUMMARIES_WITH_OTHER_TIME_FORMS, encoding="utf-8")
    [answer] = ask_pi(pi_or_skip(), [read_request(path.read_bytes(), version)])
    stamps = [message.get("timestamp") for message in answer["messages"]]
    assert 1767225603000 in stamps and 1767225606000 in stamps, stamps
    assert compare_with_pi(path, version, answer, mode="pi") == ("same", [])
    assert compare_with_pi(path, version, answer, mode="teaching") == ("same", [])


# Labels whose value is not a plain string: Pi keeps a label when the value is truthy in
# JavaScript ([] and {} are, 0, "", false and null are not). The library's label fold and the
# inspector's report must both say what Pi says (they once disagreed on []).
ODD_LABELS = [[], {}, 0, "", False, None, 7, "kept", ["x"]]


def odd_labels_text() -> bytes:
    header = {"type": "session", "version": 3, "id": "odd", "timestamp": stamp(0), "cwd": "/"}
    lines = [header, {"type": "message", "id": "a0", "parentId": None, "timestamp": stamp(1),
                      "message": {"role": "user", "content": "hi", "timestamp": 1}}]
    parent = "a0"
    for number, value in enumerate(ODD_LABELS):
        target = f"t{number}"
        lines.append({"type": "message", "id": target, "parentId": parent,
                      "timestamp": stamp(2 + 3 * number),
                      "message": {"role": "user", "content": str(number), "timestamp": 2}})
        lines.append(label_entry(f"s{number}", target, 3 + 3 * number, target, "set"))
        odd = label_entry(f"o{number}", f"s{number}", 4 + 3 * number, target, "")
        odd["label"] = value
        lines.append(odd)
        parent = f"o{number}"
    return "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")


@pytest.mark.parametrize("version", VERSIONS)
def test_labels_of_every_json_kind_are_folded_as_pi_folds_them(tmp_path: Path,
                                                               version: str) -> None:
    from learn_pi_lab.session_inspector import inspect_session
    installed = pi_or_skip()
    data = odd_labels_text()
    [answer] = ask_pi(installed, [read_request(data, version)])
    path = tmp_path / "odd-labels.jsonl"
    path.write_bytes(data)
    pis = answer["labels"]
    assert pis == {"t0": [], "t1": {}, "t6": 7, "t7": "kept", "t8": ["x"]}, pis
    assert load_session(path, mode="pi", pi_version=version).labels() == pis
    assert load_session(path).labels() == pis
    assert inspect_session(path)["labels"] == pis


@pytest.mark.parametrize("version", VERSIONS)
def test_an_empty_file_is_a_new_session_in_pi_mode_as_in_pi(tmp_path: Path,
                                                            version: str) -> None:
    """Pi opens a 0-byte file as a new session: no leaf, an empty branch and context (and it
    would write a header into it on its first append). ``--pi-compat`` says the same and says
    so, never writing; teaching mode still refuses a file without a header."""
    import io
    from contextlib import redirect_stderr, redirect_stdout
    from learn_pi_lab.cli import commands as cli
    installed = pi_or_skip()
    [answer] = ask_pi(installed, [read_request(b"", version)])
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")

    def run(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(list(argv))
        return code, out.getvalue(), err.getvalue()
    code, out, err = run("context", str(empty), "--pi-compat", "--json", "--pi-version",
                         version, "--lang", "en")
    ours = json.loads(out)
    assert code == 0 and "writes a new header into it" in err
    assert (ours["leaf"], ours["messages"], ours["model"], ours["thinkingLevel"]) == (
        answer["leaf"], answer["messages"], answer["model"], answer["thinkingLevel"])
    code, out, _ = run("path", str(empty), "--pi-compat", "--json", "--lang", "en")
    assert code == 0 and json.loads(out)["path"] == answer["path"] == []
    code, out, err = run("context", str(empty), "--json", "--lang", "en")
    assert code == 2 and "is empty" in err
    assert empty.read_bytes() == b""
