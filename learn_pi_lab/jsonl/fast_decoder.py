"""A faster JSON decoder for large files (a learner can skip this module).

The reader parses lines with the standard library's ``json``: the core models need nothing
but Python, and every chapter's reading is that one. On a session of hundreds of thousands
of entries, though, decoding alone takes about as long as Pi's whole load. So the reader
hands each healthy line to **msgspec** first when it is installed (a well-kept C library, a
dependency of the course: the default, ``auto``, for the teaching API and the command line
alike), and that halves the decoding time.

The promise: **the results are identical.** msgspec is only ever asked "is this line a
plain, healthy JSON object?". When it says yes, its value equals what ``json`` gives
(same keys in the same order, same ints, same floats, the later of two equal keys wins).
On anything unusual it *refuses* instead of guessing: a number too large for a double, NaN
or Infinity, a lone surrogate escape, invalid UTF-8, a control character, a BOM, two values
glued together, a torn line. Every refused line goes down the standard path, which produces
exactly the diagnostics, line numbers and repaired values it always did. (That is why
msgspec and not orjson, which was as fast here: orjson silently reads an integer beyond 64
bits as a float, so its "yes" could not be trusted without a second look at every line.)
``tests/test_decoder_fast.py`` checks the promise on generated lines and on the hostile
corpus, in both modes.

How a user chooses, from the narrowest to the widest (``stdlib`` for the standard library
alone, ``msgspec`` to insist on it, ``auto`` for the default):

* one call: ``read_session(path, decoder="stdlib")`` (also ``load_session``,
  ``session_from_text``, ``iter_entries_streaming``, ``read_session_text``);
* one command: ``python3 -m learn_pi_lab context FILE --decoder stdlib``;
* a whole run: ``LEARN_PI_LAB_DECODER=stdlib`` in the environment.

The same library writes ``context --json`` when it read the file (``items_encoder_for``),
with the same promise: the bytes are those the standard library writes.

``"auto"`` uses msgspec when it is installed and the standard library otherwise. Asking for
``"msgspec"`` when it is not installed raises ``DecoderUnavailable`` (a clear sentence with
the install command, never a traceback from deep inside the reader).
"""

from __future__ import annotations

import os
from bisect import bisect_right
from itertools import accumulate
from typing import Any, Callable, Mapping

from learn_pi_lab.errors import Explained

DECODERS = ("stdlib", "msgspec", "auto")
DEFAULT_DECODER = "auto"   # msgspec when it is installed, else the standard library
ENVIRONMENT_VARIABLE = "LEARN_PI_LAB_DECODER"

FastDecode = Callable[[bytes], Any]
"""Bytes of one line in, the JSON value out; raises on anything it will not vouch for."""


class DecoderUnavailable(Explained, ValueError):
    """The decoder asked for is unknown, or its library is not installed.

    ``decoder`` is the name asked for; ``reason`` is ``"unknown"`` or ``"not-installed"``;
    ``choices`` lists the names there are.
    """

    def __init__(self, decoder: str, reason: str) -> None:
        self.decoder = decoder
        self.reason = reason
        self.choices = ", ".join(DECODERS)
        if reason == "unknown":
            text = f"unknown JSON decoder {decoder!r}: use one of {self.choices}"
        else:
            text = (f"the JSON decoder {decoder!r} is not installed: "
                    f"pip install {decoder} (a dependency of learn-pi-lab: "
                    f"reinstall it), or use the decoder 'stdlib'")
        super().__init__(text)

    @property
    def message_key(self) -> str:  # type: ignore[override]
        return f"jsonl.decoder.{self.reason}"


def decoder_name(requested: str | None = None,
                 environ: Mapping[str, str] | None = None) -> str:
    """The decoder to use: the one asked for, else ``$LEARN_PI_LAB_DECODER``, else ``auto``."""
    if requested is None:
        environ = os.environ if environ is None else environ
        requested = environ.get(ENVIRONMENT_VARIABLE, "").strip() or DEFAULT_DECODER
    if requested not in DECODERS:
        raise DecoderUnavailable(requested, "unknown")
    return requested


def fast_decode_for(requested: str | None = None) -> FastDecode | None:
    """The fast line decoder for a request, or None for the standard library alone."""
    name = decoder_name(requested)
    if name == "stdlib":
        return None
    try:
        import msgspec
    except ImportError:
        if name == "auto":
            return None
        raise DecoderUnavailable(name, "not-installed") from None
    return _msgspec_decode(msgspec)


def _msgspec_decode(msgspec: Any) -> FastDecode:
    decode = msgspec.json.Decoder().decode
    refused = msgspec.MsgspecError   # DecodeError and ValidationError (number out of range)

    def fast_decode(raw: bytes) -> Any:
        try:
            return decode(raw)
        except (refused, RecursionError):   # too deep for the stack: the standard path says so
            return REFUSED
    return fast_decode


REFUSED = object()
"""What a fast decoder returns for a line it will not vouch for: the standard path decides."""


# --------------------------------------------------------------------------------------
# Writing: the same library, the same promise
# --------------------------------------------------------------------------------------

ItemsEncode = Callable[[list, str], str]
"""JSON values in, their texts joined by a separator out: ``separator.join(...)`` of
``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` for each value."""


def items_encoder_for(requested: str | None = None) -> ItemsEncode:
    """How ``context --json`` and ``path --json`` write their items, a few thousand at a time.

    With the standard library each value goes through ``json``'s C encoder (``compact_json``).
    When the fast decoder read the file, msgspec writes them instead, four times faster and
    with the same promise as for reading: **the bytes are those ``json`` writes**. msgspec
    writes strings, integers, ``true``, ``false``, ``null`` and the usual floats exactly as
    ``json`` does, with no spaces (``separators=(",", ":")``, which is also how Pi writes
    a line). Floats below 1e-4 or from 1e16 up are spelled differently (``0.00003``,
    ``1e-9`` and ``1e16`` where Python writes ``3e-05``, ``1e-09`` and ``1e+16``): every
    value whose text may hold one is written by ``json`` instead (``spelled_apart``), and
    so is a value msgspec refuses (an integer beyond 64 bits, a lone surrogate).
    ``tests/test_decoder_fast.py`` compares both on generated values.
    """
    plain = compact_json()
    if fast_decode_for(requested) is None:
        return lambda values, separator: separator.join(map(plain, values))
    import msgspec
    return _msgspec_items_encoder(msgspec, plain)


def compact_json() -> Callable[[Any], str]:
    """``json.dumps(value, ensure_ascii=False, separators=(",", ":"))`` for a value read
    from JSON (it holds no loops and nothing but JSON's types), without the set-up
    ``json.dumps`` repeats on each call: a fifth of the time for a message of 60 words."""
    return _json_writer(",", ":", sort_keys=False)


def _json_writer(item_separator: str, key_separator: str, *, sort_keys: bool
                 ) -> Callable[[Any], str]:
    """``json``'s text of a value read from JSON, with json's C encoder made once."""
    from json import JSONEncoder, encoder
    if encoder.c_make_encoder is None:   # an interpreter without json's C part
        return JSONEncoder(ensure_ascii=False, separators=(item_separator, key_separator),
                           sort_keys=sort_keys).encode
    write = encoder.c_make_encoder(None, None, encoder.encode_basestring, None, key_separator,
                                   item_separator, sort_keys, False, True)
    return lambda value: "".join(write(value, 0))


def _msgspec_items_encoder(msgspec: Any, plain: Callable[[Any], str]) -> ItemsEncode:
    encode = msgspec.json.Encoder().encode
    refused = (msgspec.MsgspecError, TypeError, OverflowError, UnicodeEncodeError,
               RecursionError)

    def one(value: Any) -> str:
        try:
            text = encode(value)
        except refused:
            return plain(value)
        return plain(value) if spelled_apart(text) else text.decode("utf-8")

    def encode_items(values: list, separator: str) -> str:
        try:
            texts = list(map(encode, values))
        except refused:   # one value msgspec will not write: each on its own
            return separator.join(map(one, values))
        glue = separator.encode("utf-8")
        joined = glue.join(texts)
        suspects = spelled_apart(joined)
        if suspects:   # the values whose text holds one are written by json instead
            ends = list(accumulate(len(text) + len(glue) for text in texts))
            for index in {bisect_right(ends, offset) for offset in suspects}:
                texts[index] = plain(values[index]).encode("utf-8")
            joined = glue.join(texts)
        return joined.decode("utf-8")
    return encode_items


_DIGITS_TO_ZERO = bytes.maketrans(b"123456789-", b"0000000000")   # "1e-9" reads "0e00"
_IN_A_NUMBER = frozenset(b"0.")
_NOT_BEFORE_A_NUMBER = frozenset(b'"\\_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')


def spelled_apart(text: bytes) -> list[int]:
    """Where msgspec's ``text`` may hold a float that ``json`` spells another way.

    Those floats show in msgspec's text as ``0.0000…`` (``0.00003``), or as a digit, ``e``
    and a digit or ``-`` (``1e16``, ``1e-9``). A string may look like one too: Pi's ids are
    hex, and ``"4f0e91a2"`` holds a digit, ``e`` and a digit. So each place found is kept
    only if it can start a number: what stands before its digits is not a letter, ``_``,
    a backslash or a quote (in JSON without spaces a number follows ``:``, ``,`` or ``[``).
    A string that still looks like one (``"3e5 apples"``) is a false yes: the slow path,
    never a different byte.
    """
    found = []
    at = text.find(b"0.0000")
    while at >= 0:
        if _can_start_a_number(text, at):
            found.append(at)
        at = text.find(b"0.0000", at + 6)
    if b"e" not in text:
        return found
    digits = text.translate(_DIGITS_TO_ZERO)   # one search finds both forms
    at = digits.find(b"0e0")
    while at >= 0:
        if _can_start_a_number(digits, at):
            found.append(at)
        at = digits.find(b"0e0", at + 2)
    return found


def _can_start_a_number(text: bytes, at: int) -> bool:
    while at > 0 and text[at - 1] in _IN_A_NUMBER:   # back over the number's digits and sign
        at -= 1
    return at == 0 or text[at - 1] not in _NOT_BEFORE_A_NUMBER


# --------------------------------------------------------------------------------------
# Comparing: one text per JSON value, for fingerprints
# --------------------------------------------------------------------------------------

def canonical_encoder_for(requested: str | None = None) -> Callable[[Any], str | bytes]:
    """A text for each JSON value, equal for two values exactly when they are equal as JSON
    (keys sorted; ``1``, ``1.0`` and ``true`` apart), for the inspector's fingerprints.

    With the standard library it is ``reader.canonical_json``'s text, made without the set-up
    ``json.dumps`` repeats on each call; with msgspec, msgspec's bytes with sorted keys,
    several times faster (a value it refuses goes to the standard library's). The two
    spell some values differently, so compare only texts made by one encoder.
    """
    plain = _json_writer(", ", ": ", sort_keys=True)   # json.dumps(sort_keys=True)'s text
    if fast_decode_for(requested) is None:
        return plain
    import msgspec
    encode = msgspec.json.Encoder(order="sorted").encode

    def canonical(value: Any) -> str | bytes:
        try:
            return encode(value)
        except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
            return plain(value)
    return canonical

