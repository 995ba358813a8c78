"""Every command on every hostile file: exit 0 or 2, strict JSON, UTF-8, nothing written.

The corpus is made by ``make_corpus.py`` into a temporary folder. Each (file, command)
pair runs in-process through ``cli.main`` with the test limits (``TEST_LIMITS``); the
special files (a FIFO, ``/dev/zero``) run in a subprocess with a timeout, so a hang fails
the test instead of freezing it. Then the named cases check *what* was said: the right
diagnostic on the right line, the right refusal.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from learn_pi_lab.cli import commands as cli
from learn_pi_lab.i18n import explain
from learn_pi_lab.jsonl.reader import NotASessionFile, read_session
from learn_pi_lab.pi.session import load_session
from learn_pi_lab.session_inspector import inspect_session
from tests.hostile.make_corpus import SPECIAL, TEST_LIMITS, build_corpus

ROOT = Path(__file__).resolve().parents[2]

COMMANDS = (
    ("inspect",), ("inspect", "--json"),
    ("tree",), ("tree", "--pi-compat"), ("tree", "--leaf", "p", "--pi-compat"),
    ("path",), ("path", "--json"), ("path", "--pi-compat", "--json"),
    ("context",), ("context", "--json"), ("context", "--pi-compat", "--json"),
    ("migrate", "--out", "NEW"),
    ("fork", "--at", "a2", "--out", "NEW"), ("fork", "--before", "u2", "--out", "NEW"),
    ("fork", "--before", "x", "--out", "NEW"), ("fork", "--at", "x", "--pi-compat", "--out", "NEW"),
    ("export", "--html", "--out", "PAGE"), ("export", "--html", "--pi-compat", "--out", "PAGE"),
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_corpus(tmp_path_factory.mktemp("hostile"))


@pytest.fixture(autouse=True)
def test_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in TEST_LIMITS.items():
        monkeypatch.setenv(name, value)


def strict_json(text: str) -> object:
    def refuse(name: str) -> object:
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def fingerprint(path: Path) -> tuple[str, int] | None:
    if not path.is_file() or path.name in SPECIAL:
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def regular_cases() -> list[str]:
    from tests.hostile.make_corpus import _files
    return sorted(_files()) + ["bomb.jsonl.xz", "broken.jsonl.xz", "a-directory.jsonl",
                               "dangling-link.jsonl"]


@pytest.mark.parametrize("name", regular_cases())
def test_every_command_exits_0_or_2_with_clean_output(name: str, corpus: dict[str, Path],
                                                      tmp_path: Path) -> None:
    path = corpus[name]
    before = fingerprint(path)
    for command in COMMANDS:
        new = tmp_path / f"new-{len(list(tmp_path.iterdir()))}.jsonl"
        page = new.with_suffix(".html")
        argv = [command[0], str(path), *(str(new) if arg == "NEW" else str(page)
                                         if arg == "PAGE" else arg for arg in command[1:])]
        code, out, err = run(argv)           # an exception escaping main fails the test here
        where = f"{name}: {' '.join(command)}"
        assert code in (0, 2), f"{where} exited {code}"
        out.encode("utf-8"), err.encode("utf-8")   # valid UTF-8: no lone surrogate printed
        if code == 2:
            assert out == "", f"{where}: nothing on stdout after an error"
            assert len(err.strip().splitlines()) == 1, f"{where}: one line on stderr: {err!r}"
        elif "--json" in command:
            strict_json(out)
        if "NEW" in command:
            leftovers = [item.name for item in tmp_path.iterdir() if item.name.startswith(".")]
            assert leftovers == [], f"{where} left temporary files: {leftovers}"
            if code == 0:
                assert read_session(new).header is not None, f"{where} wrote a readable session"
            else:
                assert not new.exists(), f"{where} failed but left {new.name} behind"
        if "PAGE" in command:
            if code == 0:
                check_page(page.read_bytes(), where)
            else:
                assert not page.exists(), f"{where} failed but left {page.name} behind"
    assert fingerprint(path) == before, f"{name} was changed by reading it"


def check_page(page: bytes, where: str) -> None:
    """An exported page is UTF-8, its one data block is strict JSON, and no text of the
    session can end a script or open a tag: ``<`` never occurs in the data."""
    text = page.decode("utf-8")
    opening = '<script type="application/json" id="lpl-data">'
    start = text.index(opening) + len(opening)
    end = text.index("</script>", start)
    assert "<" not in text[start:end], f"{where}: markup inside the data block"
    strict_json(text[start:end])
    assert text.lower().count("</script") == 2, f"{where}: a third script ending"
    assert text.lower().count("<script") == 2, f"{where}: a third script"


@pytest.mark.parametrize("name", SPECIAL)
def test_special_files_are_refused_without_hanging(name: str, corpus: dict[str, Path]) -> None:
    if name not in corpus:
        pytest.skip("no FIFOs on this system")
    for command in (["inspect", "--json"], ["tree"], ["context", "--json"]):
        done = subprocess.run([sys.executable, "-m", "learn_pi_lab", *command[:1],
                               str(corpus[name]), *command[1:]],
                              capture_output=True, text=True, timeout=60, cwd=ROOT,
                              env={**os.environ, **TEST_LIMITS, "LEARN_PI_LAB_LANG": "en"})
        assert done.returncode == 2, done.stderr
        assert "not a regular file" in done.stderr and done.stdout == ""
        assert "Traceback" not in done.stderr


# --------------------------------------------------------------------------------------
# What is said about each case
# --------------------------------------------------------------------------------------

def codes(path: Path, mode: str = "teaching") -> list[tuple[int | None, str]]:
    return [(found.line, found.code) for found in load_session(path, mode=mode).diagnostics]


@pytest.mark.parametrize("name, expected", [
    ("version-1e400.jsonl", [(1, "number-out-of-range")]),
    ("version-minus-1e400.jsonl", [(1, "number-out-of-range"), (1, "migrated")]),
    ("number-1e400-in-message.jsonl", [(6, "number-out-of-range")]),
    ("surrogate-in-text.jsonl", [(6, "lone-surrogate")]),
    ("surrogate-in-header-id.jsonl", [(1, "lone-surrogate")]),
    ("surrogate-pair-is-fine.jsonl", []),
    ("nan-and-infinity.jsonl", [(6, "corrupt-line"), (7, "corrupt-line")]),
    ("huge-integer.jsonl", [(6, "corrupt-line")]),
    ("v3-nested-990.jsonl", [(6, "too-deep")]),
    ("nested-100-is-fine.jsonl", []),
    ("brackets-in-strings.jsonl", []),
    ("long-line.jsonl", [(6, "line-too-long")]),
    ("long-last-line-unterminated.jsonl", [(6, "line-too-long")]),
    ("dangling-label.jsonl", [(6, "dangling-label")]),
    ("first-kept-missing.jsonl", [(6, "first-kept-missing")]),
    ("first-kept-later.jsonl", [(6, "first-kept-not-earlier")]),
    ("first-kept-itself.jsonl", []),   # retain-none: Pi 1.x's own shape, not damage
    ("from-id-unknown.jsonl", [(6, "unknown-from-id")]),
    ("parent-is-list.jsonl", [(6, "dangling-parent")]),
    ("id-is-list.jsonl", [(6, "missing-id"), (7, "missing-id"), (8, "missing-id")]),
    ("torn-utf8.jsonl", [(6, "corrupt-line")]),
])
def test_each_case_is_named_on_its_line(name: str, expected: list, corpus: dict[str, Path]
                                        ) -> None:
    assert codes(corpus[name]) == expected
    report = inspect_session(corpus[name])
    assert report["diagnostics"] == [list(pair) for pair in expected], "the inspector agrees"


def test_a_huge_number_still_compares_like_infinity(corpus: dict[str, Path]) -> None:
    file = read_session(corpus["version-1e400.jsonl"])
    assert file.migrated is False, "Pi: Infinity < 3 is false, so no migration"
    assert file.header["version"] == sys.float_info.max
    negative = read_session(corpus["version-minus-1e400.jsonl"])
    assert negative.header["version"] == 3 and negative.source_version < 0 and negative.migrated, \
        "Pi: -Infinity < 3 is true, so Pi migrates it as a v1 file; so does the reader"


def test_lone_surrogates_become_the_replacement_character(corpus: dict[str, Path]) -> None:
    file = read_session(corpus["surrogate-in-key-and-id.jsonl"])
    last = file.entries[-1].obj
    assert last["id"] == "s\ufffd" and "\ufffd" in last
    assert json.dumps(last, ensure_ascii=False).encode("utf-8")
    pair = read_session(corpus["surrogate-pair-is-fine.jsonl"]).entries[-1].obj
    assert pair["message"]["content"] == "\U0001F600", "a valid pair is one character"


def test_old_files_with_surrogates_or_deep_values_migrate(corpus: dict[str, Path]) -> None:
    for name in ("surrogate-v1.jsonl", "surrogate-v2.jsonl", "v1-nested-500.jsonl",
                 "v2-nested-500.jsonl", "v1-first-kept-1e400.jsonl"):
        file = read_session(corpus[name])
        assert file.migrated, name
    deep = read_session(corpus["v1-nested-500.jsonl"])
    assert [found.code for found in deep.diagnostics] == ["migrated", "too-deep"]
    kept = read_session(corpus["v1-first-kept-1e400.jsonl"])
    compaction = kept.entries[1].obj
    assert "firstKeptEntryIndex" not in compaction and "firstKeptEntryId" not in compaction, \
        "an index out of range keeps nothing, as in Pi"


def test_not_a_session_is_refused_with_its_reason(corpus: dict[str, Path]) -> None:
    reasons = {}
    for name in ("plain-text.jsonl", "binary.jsonl", "empty.jsonl", "blank-only.jsonl",
                 "torn-header.jsonl", "array-first.jsonl", "header-id-not-string.jsonl",
                 "a-directory.jsonl", "dangling-link.jsonl", "broken.jsonl.xz"):
        with pytest.raises(NotASessionFile) as caught:
            read_session(corpus[name])
        reasons[name] = caught.value.reason
        assert explain(caught.value, "zh") != str(caught.value)
    assert reasons == {"plain-text.jsonl": "no-header", "binary.jsonl": "no-header",
                       "empty.jsonl": "empty-file", "blank-only.jsonl": "no-header",
                       "torn-header.jsonl": "no-header", "array-first.jsonl": "not-a-header",
                       "header-id-not-string.jsonl": "not-a-header",
                       "a-directory.jsonl": "is-a-directory",
                       "dangling-link.jsonl": "missing-file", "broken.jsonl.xz": "unreadable"}


def test_stored_diagnostics_are_capped_but_counted(corpus: dict[str, Path]) -> None:
    file = read_session(corpus["many-bad-lines.jsonl"])
    assert file.diagnostic_counts["corrupt-line"] == 5_000
    stored = [found for found in file.diagnostics if found.code == "corrupt-line"]
    assert len(stored) == int(TEST_LIMITS["LEARN_PI_LAB_MAX_EXAMPLES"])
    summary = file.diagnostics[0]
    assert (summary.code, summary.detail, summary.count) == ("more-diagnostics", "corrupt-line",
                                                            5_000 - len(stored))
    assert "more corrupt-line" in explain(summary, "en")
    report = inspect_session(corpus["many-bad-lines.jsonl"])
    assert report["problem_counts"]["corrupt-line"] == 5_000
    assert len(report["problems"]) == len(stored) + 1
    assert [entry for entry in report["leaves"]] == ["end"]


def test_a_decompression_bomb_stops_at_the_size_limit(corpus: dict[str, Path]) -> None:
    file = read_session(corpus["bomb.jsonl.xz"])
    assert [found.code for found in file.diagnostics] == ["file-too-large"]
    assert file.entries == []


def test_out_names_a_folder_or_nothing(corpus: dict[str, Path], tmp_path: Path) -> None:
    source = str(corpus["leaf-in-cycle.jsonl"])
    folder = tmp_path / "folder"
    folder.mkdir()
    for out, words in (("", "empty"), (str(folder), "folder"), (str(tmp_path / "new") + "/",
                                                                 "folder")):
        code, stdout, err = run(["fork", source, "--at", "a2", "--out", out, "--lang", "en"])
        assert (code, stdout) == (2, "") and words in err, err
    assert sorted(item.name for item in tmp_path.iterdir()) == ["folder"]
    assert list(folder.iterdir()) == []


def test_tree_pi_compat_says_the_leaf_is_in_a_cycle(corpus: dict[str, Path]) -> None:
    code, out, err = run(["tree", str(corpus["leaf-in-cycle.jsonl"]), "--pi-compat",
                          "--lang", "en"])
    assert code == 2 and "inside a parent cycle" in err
