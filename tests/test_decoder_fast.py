"""The optional fast decoder (msgspec) gives exactly what the standard library gives.

``learn_pi_lab.jsonl.fast_decoder`` promises identical results: the same entries (line,
text, value with its types and key order), the same diagnostics and the same refusals, in
both modes. Checked here on generated lines (hypothesis, with the lines where msgspec and
``json`` disagree mixed in: big integers, 1e400, NaN, lone surrogates, invalid UTF-8, a BOM,
CRLF, glued and torn lines, ...) and on every file of the hostile corpus. The comparison
itself is shown to catch a decoder that is almost right (one that reads a big integer as a
float, as orjson does), and the fast path is shown to be really used.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from learn_pi_lab.cli import commands as cli
from learn_pi_lab.i18n import explain
from learn_pi_lab.jsonl import fast_decoder, reader
from learn_pi_lab.jsonl.fast_decoder import DecoderUnavailable, decoder_name, fast_decode_for
from learn_pi_lab.jsonl.reader import Limits, NotASessionFile, read_session, read_session_text
from learn_pi_lab.pi.session import load_session
from tests.hostile.make_corpus import SPECIAL, TEST_LIMITS, build_corpus
from tests.reading_cases import AWKWARD, HEADER, JSON_VALUES, session_bytes, snapshot

if os.environ.get("CI"):
    importlib.import_module("msgspec")   # CI must compare both decoders: missing fails here
else:
    pytest.importorskip("msgspec", reason="msgspec is a dependency of learn-pi-lab")

def both_decoders(data: bytes, mode: str, limits: Limits | None = None) -> tuple[Any, Any]:
    text = data.decode("utf-8", "surrogateescape")
    plain = snapshot(lambda: reader._load(io.BytesIO(data), None, mode, limits or Limits()))
    fast = snapshot(lambda: reader._load(io.BytesIO(data), None, mode, limits or Limits(),
                                         fast_decode_for("msgspec")))
    assert text is not None
    return plain, fast


EQUAL = settings(derandomize=True, database=None, deadline=None, max_examples=400,
                 suppress_health_check=[HealthCheck.too_slow])


@EQUAL
@given(session_bytes(), st.sampled_from(["teaching", "pi"]))
def test_generated_files_read_the_same_with_both_decoders(data: bytes, mode: str) -> None:
    plain, fast = both_decoders(data, mode)
    assert fast == plain


@EQUAL
@given(JSON_VALUES)
def test_any_value_msgspec_accepts_equals_the_standard_library(value: Any) -> None:
    raw = json.dumps(value).encode()
    fast = fast_decode_for("msgspec")(raw)
    assert repr(fast) == repr(json.loads(raw))


@EQUAL
@given(JSON_VALUES, JSON_VALUES)
def test_the_canonical_texts_part_values_as_json_does(first: Any, second: Any) -> None:
    """The inspector's fingerprints: the standard library's text is ``canonical_json``'s,
    and msgspec's texts of two values are equal exactly when ``canonical_json``'s are."""
    stdlib, fast = (fast_decoder.canonical_encoder_for(name) for name in ("stdlib", "msgspec"))
    assert stdlib(first) == reader.canonical_json(first)
    for a, b in ((first, second), (first, json.loads(json.dumps(first))),
                 (first, {"k": first}), ({"a": first, "b": second}, {"b": second, "a": first})):
        assert (fast(a) == fast(b)) == (reader.canonical_json(a) == reader.canonical_json(b))


def test_every_awkward_piece_is_refused_or_equal() -> None:
    """Where msgspec accepts an awkward piece, it gives the standard value; else it refuses."""
    fast = fast_decode_for("msgspec")
    for piece in AWKWARD.elements:   # type: ignore[attr-defined]
        value = fast(piece.encode("utf-8", "surrogatepass"))
        if value is fast_decoder.REFUSED:
            continue
        assert repr(value) == repr(json.loads(piece)), piece


# --------------------------------------------------------------------------------------
# The hostile corpus
# --------------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def test_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The corpus's own limits (the same code paths as the defaults, faster)."""
    for name, value in TEST_LIMITS.items():
        monkeypatch.setenv(name, value)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_corpus(tmp_path_factory.mktemp("hostile-decoders"), special=False)


@pytest.mark.parametrize("mode", ["teaching", "pi"])
def test_hostile_corpus_reads_the_same_with_both_decoders(corpus: dict[str, Path], mode: str
                                                          ) -> None:
    compared = 0
    for name, path in sorted(corpus.items()):
        if name in SPECIAL or not path.is_file():
            continue
        plain = snapshot(lambda: read_session(path, mode=mode, decoder="stdlib"))
        fast = snapshot(lambda: read_session(path, mode=mode, decoder="msgspec"))
        assert fast == plain, name
        compared += 1
    assert compared >= 30


def test_loaded_sessions_are_the_same(corpus: dict[str, Path]) -> None:
    """Up to the tree and the context: same diagnostics, leaf, branch and messages."""
    for name, path in sorted(corpus.items()):
        if name in SPECIAL or not path.is_file():
            continue
        for mode in ("teaching", "pi"):
            try:
                plain = load_session(path, mode=mode, decoder="stdlib")
            except Exception as error:   # noqa: BLE001  (the same refusal is expected)
                with pytest.raises(type(error)):
                    load_session(path, mode=mode, decoder="msgspec")
                continue
            fast = load_session(path, mode=mode, decoder="msgspec")
            assert fast.diagnostics == plain.diagnostics, name
            assert fast.leaf_id == plain.leaf_id and fast.detached == plain.detached, name
            assert [e.id for e in fast.tree.entries] == [e.id for e in plain.tree.entries]
            try:
                expected = repr(plain.context().messages)
            except Exception as error:   # noqa: BLE001
                with pytest.raises(type(error)):
                    fast.context()
                continue
            assert repr(fast.context().messages) == expected, name


def test_the_inspector_reports_the_same_with_both_decoders(corpus: dict[str, Path],
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """``inspect --decoder msgspec`` (the command line's default) and the standard library
    give one report, on the hostile corpus and on every file of ``data/``."""
    from learn_pi_lab.session_inspector import inspect_session_as
    for name, value in TEST_LIMITS.items():   # (the limits the corpus was made for)
        monkeypatch.setenv(name, value)
    repo = Path(__file__).resolve().parents[1]
    files = [path for name, path in sorted(corpus.items())
             if name not in SPECIAL and path.is_file()]
    files += sorted([*repo.glob("data/*.jsonl"), *repo.glob("data/pi/**/*.jsonl"),
                     *repo.glob("data/pi16/*.jsonl")])
    compared = 0
    for path in files:
        for version in ("0.84.2", "1.6.0"):
            try:
                plain = inspect_session_as(path, version, decoder="stdlib")
            except NotASessionFile as error:
                with pytest.raises(NotASessionFile) as caught:
                    inspect_session_as(path, version, decoder="msgspec")
                assert caught.value.reason == error.reason, path
                continue
            fast = inspect_session_as(path, version, decoder="msgspec")
            assert json.dumps(fast, sort_keys=True, default=repr) == \
                json.dumps(plain, sort_keys=True, default=repr), path
            compared += 1
    assert compared >= 60


# --------------------------------------------------------------------------------------
# The comparison can fail, and the fast path is really taken
# --------------------------------------------------------------------------------------

def test_the_comparison_catches_a_decoder_that_is_almost_right(monkeypatch) -> None:
    """A decoder that reads an integer beyond 64 bits as a float (orjson's way) is caught."""
    real = fast_decode_for("msgspec")

    def almost(raw: bytes) -> Any:
        value = real(raw)   # one line's object, or a whole block's array (reader._whole_block)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and isinstance(item.get("n"), int) and item["n"] >= 2**64:
                item["n"] = float(item["n"])
        return value

    data = (HEADER + '\n{"type":"x","id":"a","parentId":null,"n":123456789012345678901234567890}\n'
            ).encode()
    plain = snapshot(lambda: reader._load(io.BytesIO(data), None, "teaching", Limits()))
    wrong = snapshot(lambda: reader._load(io.BytesIO(data), None, "teaching", Limits(), almost))
    assert wrong != plain


def test_healthy_lines_take_the_fast_path_and_awkward_ones_do_not() -> None:
    asked: list[bytes] = []
    real = fast_decode_for("msgspec")

    def spy(raw: bytes) -> Any:
        asked.append(raw)
        return real(raw)

    data = (HEADER + '\n{"type":"custom","id":"a","parentId":null}\n'
            '{"type":"custom","id":"b","parentId":"a","v":1e400}\n'
            '{"type":"custom","id":"c","parentId":"b"}\r\n').encode()
    file = reader._load(io.BytesIO(data), None, "teaching", Limits(), spy)
    assert [loaded.obj["id"] for loaded in file.entries] == ["a", "b", "c"]
    assert file.entries[1].obj["v"] == sys.float_info.max          # repaired by the stdlib path
    assert [d.code for d in file.diagnostics] == ["number-out-of-range", "crlf"]
    # The header goes the standard way (BOM check); a CRLF line never reaches msgspec.
    assert asked == [b'{"type":"custom","id":"a","parentId":null}',
                     b'{"type":"custom","id":"b","parentId":"a","v":1e400}']


# --------------------------------------------------------------------------------------
# Choosing the decoder
# --------------------------------------------------------------------------------------

def test_the_default_is_msgspec_when_it_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LEARN_PI_LAB_DECODER", raising=False)
    assert decoder_name() == "auto" and fast_decode_for() is not None   # (installed here)
    monkeypatch.setenv("LEARN_PI_LAB_DECODER", "stdlib")
    assert decoder_name() == "stdlib" and fast_decode_for() is None
    monkeypatch.setenv("LEARN_PI_LAB_DECODER", "msgspec")
    assert decoder_name() == "msgspec" and fast_decode_for() is not None
    assert fast_decode_for("stdlib") is None     # the argument wins over the environment


def test_unknown_decoder_is_a_typed_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(DecoderUnavailable) as caught:
        read_session_text(HEADER + "\n", decoder="orjsn")
    assert caught.value.reason == "unknown" and caught.value.decoder == "orjsn"
    assert "stdlib, msgspec, auto" in str(caught.value)


def test_missing_msgspec_is_a_typed_error_not_a_traceback(monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "msgspec", None)   # import msgspec now fails
    with pytest.raises(DecoderUnavailable) as caught:
        read_session_text(HEADER + "\n", decoder="msgspec")
    error = caught.value
    assert error.reason == "not-installed" and "pip install msgspec" in str(error)
    assert "pip install msgspec" in explain(error, "zh") and "未" not in explain(error, "en")
    assert fast_decode_for("auto") is None                # auto falls back quietly
    assert read_session_text(HEADER + "\n", decoder="auto").header["id"] == "s1"

    path = tmp_path / "s.jsonl"
    path.write_text(HEADER + "\n", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli.main(["path", str(path), "--json", "--decoder", "msgspec"])
    assert code == 2 and out.getvalue() == ""
    assert len(err.getvalue().splitlines()) == 1 and "Traceback" not in err.getvalue()
    assert "msgspec" in err.getvalue()


def test_cli_output_is_identical_with_both_decoders(corpus: dict[str, Path]) -> None:
    for name in sorted(corpus):
        path = corpus.get(name)
        if path is None or name in SPECIAL or not path.is_file():
            continue
        results = []
        for decoder in ("stdlib", "msgspec"):
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                code = cli.main(["context", str(path), "--json", "--decoder", decoder])
            results.append((code, out.getvalue(), err.getvalue()))
        assert results[0] == results[1], name


# --------------------------------------------------------------------------------------
# Writing: ``context --json --decoder msgspec`` encodes with msgspec, byte for byte the same
# --------------------------------------------------------------------------------------

ANY_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),   # lone surrogates too
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=4),
    max_leaves=16)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@EQUAL
@given(st.lists(ANY_VALUE, max_size=5), st.sampled_from([",\n    ", "", ",", " 1e16 "]))
def test_the_items_encoders_write_what_json_writes(values: list, separator: str) -> None:
    expected = separator.join(map(_dumps, values))
    assert fast_decoder.items_encoder_for("msgspec")(values, separator) == expected
    assert fast_decoder.items_encoder_for("stdlib")(values, separator) == expected


def test_floats_msgspec_spells_its_own_way_are_written_by_json() -> None:
    encode = fast_decoder.items_encoder_for("msgspec")
    values = [3e-05, -1e-05, 9.99e-05, 1e-07, 1.5e-10, 1e16, -1.5e300, 5e-324,
              1.7976931348623157e308, 0.0001, 1e15, 2**64, "\ud800", {"cost": [1e16, 3e-05]},
              "3e4 and 0.00001 as text", {"1e5": 0.1}, -0.0, [0.00001, 10.00001]]
    for value in values:
        assert encode([value], "") == _dumps(value), value
    assert encode(values, ",\n") == ",\n".join(map(_dumps, values))   # all at once
    for first in range(len(values)):   # each odd value among plain ones, at every place
        mixed = [{"n": n} for n in range(first)] + [values[first], {"text": "plain"}]
        assert encode(mixed, ", ") == ", ".join(map(_dumps, mixed)), values[first]


def test_where_a_float_may_be_spelled_apart() -> None:
    apart = fast_decoder.spelled_apart
    assert apart(b'{"cost":1e16}') and apart(b'[1e-9]') and apart(b'0.00003')
    assert apart(b'{"c":[2,-1.5e300]}') and apart(b'-3e-7')
    assert apart(b'{"text":"buy 3e5 apples"}')           # a look-alike: the slow path, safely
    assert not apart(b'{"text":"3e5 apples"}')           # a quote never stands before a number
    assert not apart(b'{"cost":0.0123,"text":"e5 3e x0e"}')   # no float spelled apart
    for entry_id in (b"4f0e91a2", b"40e12345", b"a1e-2345", b"x\\1e16", b"\\u00e9"):
        assert not apart(b'{"role":"user","entryId":"' + entry_id + b'"}'), entry_id
    assert apart(b'{"cost":1e16,"entryId":"4f0e91a2"}')
    assert apart(b'{"entryId":"4f0e91a2","cost":1e16}')
    assert apart(b'{"details":{"entryId":"1e16"},"n":1e16}')
    assert apart(b'{"a":{"b":1e16,"entryId":"x"}}')
    assert apart(b'{"b":[1,2,1e16]}') and apart(b'{"b":-0.00001}')


@pytest.mark.parametrize("float_value", [1e16, 3e-05, 1e-09, 1.5e300])
@pytest.mark.parametrize("entry_id", ["4f0e91a2", "1e16", "a\"b", "x\\1e9"])
def test_messages_with_entry_ids_are_written_as_json_writes_them(float_value: float,
                                                                  entry_id: str) -> None:
    encode = fast_decoder.items_encoder_for("msgspec")
    for message in ({"usage": {"cost": float_value}, "entryId": entry_id},
                    {"entryId": entry_id, "cost": float_value},
                    {"details": {"cost": float_value, "entryId": entry_id}},
                    {"text": str(float_value), "entryId": entry_id}):
        assert encode([message, {"entryId": entry_id}], "\n") == \
            _dumps(message) + "\n" + _dumps({"entryId": entry_id}), message


def test_plain_messages_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast encoder really is msgspec for the usual message; json only where it must."""
    calls = []
    real = fast_decoder.compact_json

    def counted() -> Any:
        plain = real()
        return lambda value: calls.append(value) or plain(value)
    monkeypatch.setattr(fast_decoder, "compact_json", counted)
    encode = fast_decoder.items_encoder_for("msgspec")
    message = {"role": "assistant", "content": [{"type": "text", "text": "é, ok: \n"}],
               "usage": {"input": 900, "cost": {"input": 0.0027, "total": 0.0123}},
               "timestamp": 1772359234265, "entryId": "00000004"}
    hex_id = {**message, "entryId": "4f0e91a2"}   # Pi's ids: hex, often a digit then e
    assert encode([message, hex_id], ",") == _dumps(message) + "," + _dumps(hex_id)
    assert calls == []
    assert encode([message, {"cost": 3e-05}, hex_id], ",") == \
        ",".join(map(_dumps, [message, {"cost": 3e-05}, hex_id]))
    assert calls == [{"cost": 3e-05}], "only the value with the odd float"


@pytest.mark.parametrize("depth", [300, 498, 499, 983, 3000])
def test_a_line_too_deep_for_the_stack_reads_the_same(depth: int) -> None:
    """With the depth limit raised, msgspec may run out of stack: it refuses, never raises;
    past the ceiling (500) both say ``too-deep``."""
    line = ('{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":'
            + "[" * depth + "]" * depth + "}}")
    data = (HEADER + "\n" + line + "\n").encode()
    for mode in ("teaching", "pi"):
        plain, fast = both_decoders(data, mode, Limits(max_depth=5000))
        assert fast == plain
        assert bool(plain[3]) == (depth <= reader.MAX_DEPTH_CEILING - 2)   # (its entries)
