"""An optional faster JSON decoder for large files (a learner can skip this module).

The reader parses every line with the standard library's ``json``, and that stays the
default: the core of the course needs nothing but Python. On a session of hundreds of
thousands of entries, though, decoding alone takes about as long as Pi's whole load. For
those files the reader can hand each healthy line to **msgspec** first (a well-kept C
library, installed with ``pip install 'learn-pi-lab[fast]'``), and that halves the decoding
time.

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

How a user turns it on, from the narrowest to the widest:

* one call: ``read_session(path, decoder="msgspec")`` (also ``load_session``,
  ``session_from_text``, ``iter_entries_streaming``, ``read_session_text``);
* one command: ``python3 -m learn_pi_lab context FILE --decoder msgspec``;
* a whole run: ``LEARN_PI_LAB_DECODER=msgspec`` in the environment.

The same library writes ``context --json`` when it read the file (``fast_encode_for``), with
the same promise: the bytes are those the standard library writes.

``"auto"`` uses msgspec when it is installed and the standard library otherwise. Asking for
``"msgspec"`` when it is not installed raises ``DecoderUnavailable`` (a clear sentence with
the install command, never a traceback from deep inside the reader).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Mapping

from learn_pi_lab.errors import Explained

DECODERS = ("stdlib", "msgspec", "auto")
DEFAULT_DECODER = "stdlib"
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
                    f"pip install 'learn-pi-lab[fast]' (or pip install {decoder}), "
                    f"or use the default decoder 'stdlib'")
        super().__init__(text)

    @property
    def message_key(self) -> str:  # type: ignore[override]
        return f"jsonl.decoder.{self.reason}"


def decoder_name(requested: str | None = None,
                 environ: Mapping[str, str] | None = None) -> str:
    """The decoder to use: the one asked for, else ``$LEARN_PI_LAB_DECODER``, else stdlib."""
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

ItemEncode = Callable[[Any], str]
"""One JSON value in, its text out, exactly as ``json.dumps(value, ensure_ascii=False)``."""

_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")


def fast_encode_for(requested: str | None = None) -> ItemEncode | None:
    """The encoder that goes with the fast decoder (``context --json`` writes with it), or
    None for the standard library's.

    msgspec encodes four times faster than ``json`` and writes strings, integers, ``true``,
    ``false``, ``null`` and the usual floats byte for byte as ``json.dumps`` does (with
    ``msgspec.json.format(..., indent=0)`` for the spaces after ``,`` and ``:``). Floats
    below 1e-4 or from 1e16 up are spelled differently (``0.00003``, ``1e-9`` and ``1e16``
    where Python writes ``3e-05``, ``1e-09`` and ``1e+16``); a value whose text may hold such
    a float is written by ``json`` instead (``needs_json_spelling``). So does anything
    msgspec refuses (an integer beyond 64 bits, a lone surrogate).
    ``tests/test_decoder_fast.py`` compares both on generated values.
    """
    if fast_decode_for(requested) is None:
        return None
    import json

    import msgspec
    encode, spaced = msgspec.json.Encoder().encode, msgspec.json.format
    plain = json.JSONEncoder(ensure_ascii=False).encode

    def fast_encode(value: Any) -> str:
        try:
            text = spaced(encode(value), indent=0)
        except (msgspec.MsgspecError, TypeError, OverflowError, UnicodeEncodeError,
                RecursionError):
            return plain(value)
        if needs_json_spelling(text):
            return plain(value)      # a float msgspec spells its own way (or a look-alike)
        return text.decode("utf-8")
    return fast_encode


_ENTRY_ID_KEY = b'"entryId": "'


def needs_json_spelling(text: bytes) -> bool:
    """Whether msgspec's ``text`` may hold a float that ``json`` spells another way.

    Those floats show in msgspec's text as ``0.0000…`` (``0.00003``), as a digit, ``e`` and a
    digit (``1e16``) or as a digit, ``e-`` and a digit (``1e-9``). A string that merely looks
    like one (``"3e5 apples"``) gives a false yes: the slow path, never a different byte.
    One look-alike is too common to pay for: an entry id such as ``"4f0e91a2"``, the
    ``entryId`` the course adds as the last key of every context message. So when the text
    ends with that key and a plain string (no escapes), the search stops before it.
    """
    if b"0.0000" in text:
        return True
    digits = text.translate(_DIGITS_TO_ZERO)
    if b"0e" not in digits:
        return False   # the usual answer, in two passes over the text
    end = len(text)
    tail = text.rfind(_ENTRY_ID_KEY)
    if tail > 0 and text.endswith(b'"}') and text.find(b'"', tail + len(_ENTRY_ID_KEY)) == end - 2 \
            and text.find(b"\\", tail) < 0:
        end = tail   # the id is a plain string: no number is spelled inside it
    return digits.find(b"0e0", 0, end) >= 0 or digits.find(b"0e-0", 0, end) >= 0
