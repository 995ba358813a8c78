"""Session files to read two ways and compare: generated lines and a snapshot of a read.

Shared by the tests that prove a faster path reads exactly like the plain one: the optional
decoder (``test_decoder_fast.py``) and the block decoding (``test_reader_blocks.py``).
``session_bytes`` mixes healthy lines with every kind of line where two readers could part
ways (big integers, 1e400, NaN, lone surrogates, invalid UTF-8, a BOM, CRLF, glued and
torn lines, ...); ``snapshot`` is everything a read gives, as text that tells 1 from 1.0
from True and keeps key order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from hypothesis import strategies as st

from learn_pi_lab.jsonl.reader import NotASessionFile
from tests.hostile.make_corpus import SPECIAL, TEST_LIMITS

HEADER = '{"type":"session","version":3,"id":"s1","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/w"}'


def snapshot(read: Any) -> Any:
    """Everything a read gives, as text that tells 1 from 1.0 from True and keeps key order."""
    try:
        file = read()
    except NotASessionFile as refused:
        return ("refused", refused.reason, refused.line, str(refused))
    return ("read", repr(file.header), file.header_line and (file.header_line.line,
                                                             file.header_line.text),
            [(loaded.line, loaded.text, repr(loaded.obj)) for loaded in file.entries],
            file.diagnostics, file.source_version, file.migrated, file.ends_with_newline,
            file.diagnostic_counts)


# --------------------------------------------------------------------------------------
# Generated lines
# --------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=4),
    max_leaves=12)

# Pieces of text where the two decoders could part ways; each makes a line msgspec refuses
# or a value the standard path must repair, or is plain valid JSON written unusually.
AWKWARD = st.sampled_from([
    '1e400', '-1e400', '1E309', 'NaN', 'Infinity', '-Infinity', '123456789012345678901234567890',
    '-9223372036854775809', '18446744073709551616', '9' * 4300, '-' + '9' * 4300, '9' * 4301,
    '"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"\\u0000"', '1.0', '-0', '-0.0',
    '2.2250738585072011e-308', '5e-324', '1e-400', '0.1', '1.7976931348623157e308',
    '"\\/"', '"é"', '"\u2028"', ' 1 ', '[1,]', '01', 'true', 'null', '{"a":1,"a":2}',
])


@st.composite
def entry_line(draw: st.DrawFn) -> bytes:
    entry: dict[str, Any] = {"type": draw(st.sampled_from(["message", "label", "custom", "x"])),
                             "id": draw(st.sampled_from(["a", "b", "c", "d", ""])),
                             "parentId": draw(st.sampled_from([None, "a", "b", "z"]))}
    entry["data"] = draw(JSON_VALUES)
    text = json.dumps(entry, ensure_ascii=draw(st.booleans()),
                      separators=draw(st.sampled_from([(",", ":"), (", ", ": ")])))
    damage = draw(st.sampled_from(["none", "none", "none", "awkward", "awkward", "bytes",
                                   "crlf", "glued", "torn", "blank", "space", "bare"]))
    if damage == "awkward":
        text = text[:-1] + ',"odd":' + draw(AWKWARD) + "}"
    elif damage == "glued":
        text += draw(st.sampled_from(['{"type":"x","id":"g"}', '{"torn', ' 1']))
    elif damage == "torn":
        text = text[:draw(st.integers(0, max(0, len(text) - 1)))]
    elif damage == "blank":
        text = draw(st.sampled_from(["", "   ", "\t"]))
    elif damage == "space":
        text = " " + text + "\t"
    elif damage == "bare":
        text = draw(AWKWARD)
    raw = text.encode("utf-8", "surrogatepass")
    if damage == "bytes":   # invalid UTF-8 or a raw control byte inside a string
        cut = raw.rfind(b'"')
        raw = raw[:cut] + draw(st.sampled_from([b"\xff", b"\xed\xa0\x80", b"\xc3", b"\x01"])) \
            + raw[cut:]
    if damage == "crlf":
        raw += b"\r"
    return raw


@st.composite
def session_bytes(draw: st.DrawFn) -> bytes:
    head = draw(st.sampled_from([HEADER.encode(), b"\xef\xbb\xbf" + HEADER.encode(),
                                 HEADER.encode() + b"\r", b"", b"not json"]))
    lines = [head] + draw(st.lists(entry_line(), max_size=12))
    return b"\n".join(lines) + draw(st.sampled_from([b"\n", b""]))


def use_test_limits(monkeypatch: Any) -> None:
    """The hostile corpus's own limits (the same code paths as the defaults, faster)."""
    for name, value in TEST_LIMITS.items():
        monkeypatch.setenv(name, value)


def corpus_files(corpus: dict[str, Path]) -> Iterator[tuple[str, Path]]:
    """The corpus's regular files, by name (no FIFO, device, link or folder)."""
    for name, path in sorted(corpus.items()):
        if name not in SPECIAL and path.is_file():
            yield name, path

