"""Command-line arguments in the learner's language, for every command of the course.

``python3 -m learn_pi_lab``, ``verify`` and ``grade`` parse with a ``OneLineParser``: a wrong
option is one translated line (``UserError``), never argparse's usage text and exit, and
argparse's own words (``usage:``, ``options``, ``unrecognized arguments: ...``) are said in
the language ``--lang`` asks for, even when parsing fails before ``--lang`` is read.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from typing import IO, Any, Callable, Iterator, Sequence

from learn_pi_lab.i18n import LANGUAGES, t


class UserError(Exception):
    """A mistake the person at the terminal can fix: a message key and its fields.

    The message is translated only when it is printed, in the language of the run.
    """

    def __init__(self, key: str, **fields: Any) -> None:
        super().__init__(key)
        self.key = key
        self.fields = fields



class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad option becomes a ``UserError`` instead of usage text and exit
    (every command's mistakes are one translated line; ``verify`` and ``grade`` use it too)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError("cli.bad_usage", detail=message, prog=self.prog)

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None
                         ) -> tuple[argparse.Namespace, list[str]]:
        """As argparse's, but an argument nobody takes is this parser's error, so a wrong
        option after a command names that command's help (``tree --help``, which lists
        ``tree``'s options), not the top-level one (a Pi user's review: ``tree FILE
        --json`` pointed at ``python3 -m learn_pi_lab --help``). Nothing is lost: after a
        command, the top level has no argument left to take them."""
        parsed, extra = super().parse_known_args(args, namespace)
        if extra:
            self.error(argparse._("unrecognized arguments: %s") % " ".join(extra))  # type: ignore[attr-defined]
        return parsed, extra

    def _print_message(self, message: str, file: IO[str] | None = None) -> None:
        """As argparse's, but a failed write is not swallowed: help text that could not be
        written (a full disk, ``--help > /dev/full``) is an error line and exit 2 in ``main``,
        like any other output that could not be written."""
        if message:
            (file or sys.stderr).write(message)


def wanted_language(argv: Sequence[str]) -> str | None:
    """``--lang`` read before parsing, so even a parsing error speaks the right language
    (given twice, the last one counts, as for every other option)."""
    wanted = None
    for index, arg in enumerate(argv):
        if arg == "--lang" and index + 1 < len(argv) and argv[index + 1] in LANGUAGES:
            wanted = argv[index + 1]
        elif arg.startswith("--lang=") and arg.split("=", 1)[1] in LANGUAGES:
            wanted = arg.split("=", 1)[1]
    return wanted


ARGPARSE_WORDS = {
    'usage: ': 'cli.argparse.usage',
    'positional arguments': 'cli.argparse.positional',
    'options': 'cli.argparse.options',
    'show this help message and exit': 'cli.argparse.help',
    'ambiguous option: %(option)s could match %(matches)s': 'cli.argparse.ambiguous',
    'argument %(argument_name)s: %(message)s': 'cli.argparse.argument',
    'expected at least one argument': 'cli.argparse.at-least-one',
    'expected at most one argument': 'cli.argparse.at-most-one',
    'expected one argument': 'cli.argparse.one',
    'ignored explicit argument %r': 'cli.argparse.ignored',
    'invalid %(type)s value: %(value)r': 'cli.argparse.invalid-value',
    'invalid choice: %(value)r (choose from %(choices)s)': 'cli.argparse.invalid-choice',
    'not allowed with argument %s': 'cli.argparse.not-allowed',
    'one of the arguments %s is required': 'cli.argparse.one-of',
    'the following arguments are required: %s': 'cli.argparse.required',
    'unexpected option string: %s': 'cli.argparse.unexpected',
    'unrecognized arguments: %s': 'cli.argparse.unrecognized',
    'expected %s argument': 'cli.argparse.expected-n',
    'expected %s arguments': 'cli.argparse.expected-n-many',
}
"""argparse's own words (it looks each up through ``gettext`` when it uses it) and the
catalog entries that say them; their texts keep argparse's ``%s`` fields."""


@contextmanager
def argparse_speaking(lang: str | None) -> Iterator[None]:
    """While parsing and printing help, argparse's own words (``usage:``, ``options``,
    ``unrecognized arguments: …``) in the chosen language, like the rest of the command."""
    original, original_plural = argparse._, argparse.ngettext   # type: ignore[attr-defined]

    def said(text: str) -> str:
        key = ARGPARSE_WORDS.get(text)
        return t(key, lang) if key else original(text)

    def said_plural(one: str, many: str, count: int) -> str:
        return said(one if count == 1 else many)
    argparse._, argparse.ngettext = said, said_plural   # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = original, original_plural   # type: ignore[attr-defined]


def parsed_or_said(parse: Callable[[list[str]], argparse.Namespace], argv: list[str]
                   ) -> argparse.Namespace | None:
    """``parse(argv)`` with a ``OneLineParser``, or None once a wrong usage is said in one
    line, in the language asked for (``verify`` and ``grade``, which then exit 2)."""
    try:
        with argparse_speaking(wanted_language(argv)):
            return parse(argv)
    except UserError as wrong:
        print(t(wrong.key, wanted_language(argv), **wrong.fields), file=sys.stderr)
        return None
