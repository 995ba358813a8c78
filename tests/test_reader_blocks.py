"""A block of lines decoded in one call gives exactly what reading line by line gives.

The reader cuts the file into blocks of about 1 MiB and, after the header, tries to decode
each block in one call (``_LineParser._whole_block``: the lines joined into one JSON array
with a random separator between them). The promise is the same as the optional decoder's:
identical entries (line, text, value with its types and key order), diagnostics and
refusals, in both modes and with both decoders. Checked against the line-by-line path
(``_whole_block`` switched off) on generated files cut into blocks of every size, on lines
forged to span or share a separator, and on the hostile corpus; and the block path is shown
to be really taken for a healthy file.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from learn_pi_lab.course.big_sessions import session_file
from learn_pi_lab.jsonl import reader
from learn_pi_lab.jsonl.fast_decoder import fast_decode_for
from learn_pi_lab.jsonl.reader import Limits
from tests.hostile.make_corpus import build_corpus
from tests.reading_cases import HEADER, corpus_files, session_bytes, snapshot, use_test_limits

DECODERS = ["stdlib", "msgspec"]


def read(data: bytes | Path, mode: str, decoder: str, *, blocks: bool,
         limits: Limits | None = None) -> Any:
    """A snapshot of one read, with whole blocks or line by line only."""
    source: Any = data if isinstance(data, Path) else io.BytesIO(data)
    name = str(data) if isinstance(data, Path) else None
    saved = reader._LineParser._whole_block
    if not blocks:
        reader._LineParser._whole_block = lambda *_: None   # type: ignore[method-assign]
    try:
        return snapshot(lambda: reader._load(source, name, mode, limits or Limits(),
                                             fast_decode_for(decoder)))
    finally:
        reader._LineParser._whole_block = saved   # type: ignore[method-assign]


@pytest.fixture(params=DECODERS)
def decoder(request: pytest.FixtureRequest) -> str:
    if request.param == "msgspec":
        pytest.importorskip("msgspec", reason="the test extra installs msgspec")
    return request.param


@settings(derandomize=True, database=None, deadline=None, max_examples=300,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(session_bytes(), min_size=1, max_size=4), st.sampled_from(["teaching", "pi"]),
       st.integers(1, 400))
def test_generated_files_read_the_same_in_blocks(decoder: str, files: list[bytes], mode: str,
                                                 block: int) -> None:
    # Several generated files end to end: one header, then many healthy and damaged lines.
    data = files[0] + b"".join(part.split(b"\n", 1)[-1] for part in files[1:])
    saved, reader._BLOCK = reader._BLOCK, block     # small blocks: many after the header
    try:
        assert read(data, mode, decoder, blocks=True) == read(data, mode, decoder, blocks=False)
    finally:
        reader._BLOCK = saved


HEALTHY = [f'{{"type":"custom","id":"e{n}","parentId":{"null" if n == 0 else f"{chr(34)}e{n - 1}{chr(34)}"},"n":{n}}}'
           for n in range(8)]


def forged(separator: str) -> bytes:
    """Lines that join into a well-formed array of the right length, but not line for line.

    A line that opens an array and the next that closes it become one element; a line
    holding two objects and the separator becomes three. Together the count comes out
    right and every second element is the separator.
    """
    lines = [HEADER, *HEALTHY[:2],
             f'{{"type":"custom","id":"g1","parentId":"e1"}},"{separator}",{{"type":"custom","id":"g2","parentId":"e1"}}',
             '{"type":"custom","id":"s1","parentId":"e1","x":[{}',
             '{"type":"custom","id":"s2","parentId":"e1"}]}',
             *HEALTHY[2:]]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_lines_forged_to_match_a_known_separator_are_read_line_by_line(
        monkeypatch: pytest.MonkeyPatch, decoder: str, mode: str) -> None:
    """Even a file that knows the separator cannot make a block pass for its lines."""
    monkeypatch.setattr(reader, "_new_separator", lambda: "z" + "0" * 32)
    data = forged("z" + "0" * 32)
    whole = read(data, mode, decoder, blocks=True)
    assert whole == read(data, mode, decoder, blocks=False)
    codes = [d.code for d in whole[4]]
    assert "glued-objects" in codes and "corrupt-line" in codes


def test_forged_lines_do_match_without_the_separator_count(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """The forgery above is a real one: without counting separators, the block would pass."""
    monkeypatch.setattr(reader, "_new_separator", lambda: "z" + "0" * 32)
    data = forged("z" + "0" * 32)
    lines = data.split(b"\n")[1:-1]
    parser = reader._LineParser("teaching", [], None, Limits())
    joined = b"[" + parser._separator.join(lines) + b"]"
    values = parser._decode_block(joined)
    assert len(values) == 2 * len(lines) - 1
    assert values[1::2] == [parser._separator_text] * (len(lines) - 1)
    assert joined.count(parser._separator_mark) == len(lines)   # one more than the joins
    assert parser._whole_block(2, lines, 0) is None


def test_a_healthy_file_is_decoded_block_by_block(tmp_path: Path, decoder: str) -> None:
    path = session_file(tmp_path, "branchy", 3000)
    calls: list[int] = []
    real = reader._LineParser._decode_block

    def spy(self: Any, joined: bytes) -> Any:
        values = real(self, joined)
        calls.append(0 if values is None else len(values))
        return values

    saved, reader._LineParser._decode_block = real, spy   # type: ignore[method-assign]
    saved_block, reader._BLOCK = reader._BLOCK, 1 << 16
    try:
        whole = read(path, "teaching", decoder, blocks=True)
    finally:
        reader._LineParser._decode_block = saved   # type: ignore[method-assign]
        reader._BLOCK = saved_block
    assert len(calls) > 10 and all(calls), "every block in one call (after the header)"
    entry_lines = len(path.read_bytes().splitlines()) - 1   # the writer may overshoot by one
    assert sum((count + 1) // 2 for count in calls) == entry_lines >= 3000
    assert whole == read(path, "teaching", decoder, blocks=False)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    with pytest.MonkeyPatch.context() as patch:
        use_test_limits(patch)
        return build_corpus(tmp_path_factory.mktemp("hostile-blocks"), special=False)


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_hostile_corpus_reads_the_same_in_blocks(monkeypatch: pytest.MonkeyPatch,
                                                 corpus: dict[str, Path], decoder: str,
                                                 mode: str) -> None:
    use_test_limits(monkeypatch)
    limits = Limits.from_environment()
    monkeypatch.setattr(reader, "_BLOCK", 256)
    compared = 0
    for name, path in corpus_files(corpus):
        assert read(path, mode, decoder, blocks=True, limits=limits) == \
            read(path, mode, decoder, blocks=False, limits=limits), name
        compared += 1
    assert compared >= 30


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_runs_of_blank_lines_are_reported_as_one_by_one(mode: str) -> None:
    """Runs of blank lines between, before and after entries, a line too long among them,
    with and without a last newline: the same entries, texts, positions and diagnostics
    as one ``_one_line`` call per line (the reference), and a file of nothing but newlines
    is counted in bulk (a gigabyte of them used to take twenty minutes)."""
    lines = [HEADER.encode(), b"", b"", *[h.encode() for h in HEALTHY[:3]], b"" * 1,
             *[b""] * 250, b"x" * 300, b"", HEALTHY[3].encode(), *[b""] * 5]
    limits = Limits(max_examples=4, max_line_bytes=200)
    for end in (b"\n", b""):
        data = b"\n".join(lines) + end
        blank_runs = read(data, mode, "stdlib", blocks=True, limits=limits)
        saved = reader._blank_mask
        reader._blank_mask = lambda _lines: None   # type: ignore[assignment]  # the reference
        try:
            one_by_one = read(data, mode, "stdlib", blocks=True, limits=limits)
        finally:
            reader._blank_mask = saved   # type: ignore[assignment]
        assert blank_runs == one_by_one

    log = reader.DiagnosticLog(100)
    parser = reader._LineParser("teaching", log, None, Limits(), None, None, None)
    found = [loaded for block in parser.parse_blocks(
        io.BytesIO(HEADER.encode() + b"\n" * 2_000_001)) for loaded in block]
    assert found[0].line == 1 and len(found) == 1
    assert log.counts["blank-line"] == 2_000_000 and len(log) == 100
