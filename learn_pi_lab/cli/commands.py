"""``python3 -m learn_pi_lab ...``: look at session files from a terminal, read-only.

Commands (``--help`` on any of them says more):

=========================================  ===============================================
``lab session-tree [--leaf ID]``           one branch of the original course's 4-entry example
``lab session-story [--leaf ID]``          one branch of the 18-turn story, as JSON
``inspect FILE [--json]``                  the inspector's report
``tree FILE [--leaf ID]``                  the tree as text, like Pi's ``/tree``
``path FILE [--leaf ID] [--pi-compat]``    ``{"leaf", "path": [ids, root first]}``
``context FILE [--leaf ID] [--pi-compat]`` ``{"leaf", "model", "thinkingLevel", "messages"}``
(``inspect``, ``tree``, ``path``, ``context``, ``fork`` also take ``--pi-version {0.84.2,1.6.0}``;
``inspect``, ``tree``, ``path``, ``context`` take ``--decoder {stdlib,msgspec,auto}``: see below)
``migrate FILE --out NEW``                 a v1/v2 file brought to v3, as a *new* file
``fork FILE (--before ID | --at ID) --out NEW [--pi-compat]``  Pi's ``/fork``, into a *new* file
``export FILE --html --out PAGE [--leaf ID]``  the session as one page for any browser
``verify ...``, ``grade ...``              the exercise harness
``link ...``, ``collect ...``, ``report ...``  the classroom: hand out, collect, report
=========================================  ===============================================

The contract with the person typing: exit 0 on success. A mistake on their side (a missing
file, a directory, a file that is not a session, an unknown id, a bad option, an output
file that already exists) exits 2 with **one** line on stderr, in their language, never a
traceback. The models raise errors in English with their facts as fields; this is where they
are translated (``i18n.explain``). ``lab session-tree`` keeps the original course's contract
(see docs/coming-from-learn-pi.md): its JSON shape, and an error line that starts with
``session-tree:`` and gives the English message first.

Nothing here ever writes to an input file; ``migrate`` and ``fork`` create a new file and
refuse to overwrite one. ``path --json`` and ``context --json`` stream their output, one
list item per line, so a session of any size needs memory for one message, not all of them.

``--pi-compat`` reads the file the way Pi does (a later duplicate wins, an orphan is a
root, ...); the default teaching mode refuses to walk through damage and says why.
Large files are read with msgspec when it is installed (a dependency of the course), and
``context --json`` is written with it too; ``--decoder stdlib`` (or
``LEARN_PI_LAB_DECODER=stdlib``) uses the standard library alone, and the output is identical,
byte for byte (``learn_pi_lab.jsonl.fast_decoder``).
``--pi-version`` picks whose rules decide what the model sees: ``1.6.0`` by default, because
the files a learner opens today are written by Pi 1.x, or ``0.84.2``, the course's baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from learn_pi_lab import __version__
from learn_pi_lab.cli.arguments import OneLineParser, UserError, argparse_speaking, wanted_language
from learn_pi_lab.cli.report_text import render_report
from learn_pi_lab.cli.terminal_text import SafeTerminal, shown
from learn_pi_lab.cli.tree_text import entry_line, id_shown, render_tree
from learn_pi_lab.collector import collector_paused  # noqa: F401  (cli.collector_paused stays importable)
from learn_pi_lab.course import labs
from learn_pi_lab.entry_text import value_text
from learn_pi_lab.errors import Explained
from learn_pi_lab.i18n import LANGUAGES, explain, t
from learn_pi_lab.jsonl.fast_decoder import (DECODERS, DEFAULT_DECODER,
                                             ENVIRONMENT_VARIABLE as DECODER_VARIABLE,
                                             DecoderUnavailable, compact_json,
                                             items_encoder_for)
from learn_pi_lab.jsonl.index import IndexedBranch, NotPlain, SessionIndex
from learn_pi_lab.jsonl.reader import (SEVERITIES, TREE_FIELDS, NotASessionFile, SourceChanged,
                                      read_session)
from learn_pi_lab.jsonl.writer import check_new_path, write_new_file, write_new_text
from learn_pi_lab.pi.context import (CURRENT_PI_VERSION, DEFAULT_THINKING_LEVEL, PI_VERSIONS,
                                     context_messages, context_positions, state_at_end)
from learn_pi_lab.pi.navigation import is_user_message, kind_and_role, write_fork
from learn_pi_lab.pi.session import TREE_PROBLEM_CODES, Session, load_session, session_from_file
from learn_pi_lab.session_inspector import inspect_session_as
from learn_pi_lab.session_tree import (DanglingParent, TranscriptEntry,
                                       TranscriptError, TranscriptTree, UnknownTranscriptEntry)

USER_ERROR = 2


class LabError(Explained, Exception):
    """A built-in example refuses an argument that belongs to another example."""

    message_key = "cli.lab.not_supported"

    def __init__(self, example: str) -> None:
        super().__init__("positional directory and --boundary are not supported")
        self.example = example


class ExampleFailed(Exception):
    """An error in ``lab session-tree``, shown as ``session-tree: <English>`` (the original
    course's line) with the learner's language after it when that is not English."""

    def __init__(self, example: str, error: Exception) -> None:
        super().__init__(example)
        self.example, self.error = example, error


# --------------------------------------------------------------------------------------
# Reading the input
# --------------------------------------------------------------------------------------

def _open_session(args: argparse.Namespace, fields: tuple[str, ...] | None = None) -> Session:
    session = load_session(args.file,
                           mode="pi" if getattr(args, "pi_compat", False) else "teaching",
                           pi_version=getattr(args, "pi_version", CURRENT_PI_VERSION),
                           decoder=getattr(args, "decoder", None), fields=fields)
    if getattr(args, "pi_compat", None) is False:   # a command that could read it as Pi does
        args.note_when_done = _where_teaching_differs(session, args.lang)
    return outlives_the_command(session)


READ_APART_FROM_PI = ("conflicting-duplicate", "glued-objects", "missing-id")
"""Damage teaching mode reads differently from Pi: the first of two copies of an id (Pi:
the later), every object glued on one line (Pi: none), no entry without an id (Pi: one)."""


def _where_teaching_differs(session: Session, lang: str | None) -> str | None:
    """The note for stderr when the file holds damage teaching mode reads apart from Pi, so
    a Pi user is not shown, in silence, something Pi would not send (a Pi user's review).
    Said once the command has done its work (an error stays one line)."""
    counts = session.file.diagnostic_counts
    found = [code for code in READ_APART_FROM_PI if counts.get(code)]
    if not found:
        return None
    return t("cli.note.read_apart_from_pi", lang, codes=", ".join(found),
             count=sum(counts[code] for code in found))


# --------------------------------------------------------------------------------------
# Ending the process (a learner can skip this: it only saves time at the very end)
# --------------------------------------------------------------------------------------

_LEFT_FOR_EXIT: list[Any] | None = None
"""What a command built, kept until the process ends, when ``main`` runs as the program."""


def outlives_the_command(built: Any) -> Any:
    """``built``, kept alive until the process ends when this run is the whole program.

    A session of 200,000 entries is millions of small objects. When a command returns,
    Python frees them one at a time, about a third of a second that nobody needs: the
    process is about to end, and ending it returns all of its memory at once (Node never
    frees its heap at exit either). ``python3 -m learn_pi_lab`` runs ``main`` with
    ``ending_process=True``; then a command's session and context are kept here and
    ``end_process`` leaves without the teardown. Called from Python (a notebook, a test),
    ``main`` keeps nothing: what it built is freed when it returns, as usual.
    """
    if _LEFT_FOR_EXIT is not None:
        _LEFT_FOR_EXIT.append(built)
    return built


def end_process(code: int) -> None:
    """Flush what was printed, then end the process now (``os._exit``), skipping the teardown.

    Everything a command writes to a file is closed by then (``with`` blocks); only the
    standard streams may still hold text. A reader that went away (``| head``) is fine, as
    in ``main``; any other failure to write the last of the output (a full disk) is one
    line on stderr and exit code 2, as in ``main``.
    """
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass   # main says the same: the reader stopped reading, that is not a failure
    except OSError as error:
        _say_error(t("cli.error", None, message=_os_error_text(error, None)))
        code = code or USER_ERROR
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)


def _leaf(session: Session, requested: str | None) -> str | None:
    """The leaf to use: the one asked for (it must exist), else the session's own."""
    if requested is None:
        return session.leaf_id
    session.entry(requested)  # UnknownTranscriptEntry if the file has no such id
    return requested


PACKED_SUFFIXES = (".xz", ".gz", ".bz2", ".zst", ".zip", ".7z")
"""Names of compressed files. The writer writes plain JSONL, so such a name would lie: an
``.xz`` one the reader itself would then fail to unpack, the others ``gunzip`` & co. (a Pi
user's review: ``migrate --out s.jsonl.gz`` wrote plain text under a .gz name)."""


def _refuse_existing(out: str) -> Path:
    packed = next((suffix for suffix in PACKED_SUFFIXES if out.lower().endswith(suffix)), None)
    if packed:
        raise UserError("cli.out_packed", path=out, suffix=packed)
    try:   # BadOutputPath (an empty name, a folder) is explained by the writer itself
        return check_new_path(out)
    except FileExistsError:
        raise UserError("cli.out_exists", path=out) from None


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


def _stream_json(fields: dict[str, Any], items_key: str, items: Iterable[Any],
                 decoder: str | None = None) -> None:
    """Write ``{**fields, items_key: [items...]}`` as JSON, one item per line, as it goes.

    A session's context can hold hundreds of thousands of messages. Building the whole
    text first (``json.dumps(..., indent=2)``) would hold all of it in memory at once and
    use the slow pure-Python encoder; here the items are encoded a thousand at a time by a
    C encoder and written straight away, so memory stays at a thousand items and the output
    is still one JSON value. Each item is one line without spaces, as Pi writes a line of
    its file (easy to read and to ``grep``). With ``--decoder msgspec`` msgspec encodes
    them, byte for byte the same (``items_encoder_for``).
    """
    encode_items = items_encoder_for(decoder)
    encode = compact_json()
    out = sys.stdout
    out.write("{\n")
    for key, value in fields.items():
        out.write(f"  {encode(key)}: {encode(value)},\n")
    out.write(f"  {encode(items_key)}: [")
    wrote_any = False
    for chunk in _chunks(items, 1000):   # one write per thousand items, not two per item
        out.write((",\n    " if wrote_any else "\n    ") + encode_items(chunk, ",\n    "))
        wrote_any = True
    out.write("\n  ]\n}\n" if wrote_any else "]\n}\n")


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


# --------------------------------------------------------------------------------------
# The commands
# --------------------------------------------------------------------------------------

def cmd_lab(args: argparse.Namespace) -> int:
    if args.example == "session-tree":
        return _session_tree_lab(args)
    if args.directory is not None or args.boundary is not None:
        raise LabError(args.example)
    tree = labs.story_tree(args.lang)
    if args.leaf is not None and args.leaf not in tree:
        raise UnknownTranscriptEntry(args.leaf)
    _print_json(labs.branch_report(tree, args.leaf))
    return 0


def _session_tree_lab(args: argparse.Namespace) -> int:
    """The original course's lab: one branch of its 4-entry example, as one JSON line."""
    try:
        if args.directory is not None or args.boundary is not None:
            raise LabError("session-tree")
        path = TranscriptTree(labs.SESSION_TREE_FIXTURE).path_to(args.leaf or "leaf")
    except (LabError, UnknownTranscriptEntry) as error:
        raise ExampleFailed("session-tree", error) from error
    print(json.dumps({"path_ids": [entry.id for entry in path],
                      "texts": [entry.text for entry in path]},
                     ensure_ascii=False, sort_keys=True))
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    report = inspect_session_as(args.file, args.pi_version, decoder=args.decoder)
    if args.json:
        _print_json(report)
    else:
        print(render_report(report, args.lang))
    return 0


def _open_index(args: argparse.Namespace) -> SessionIndex | None:
    """The file's index (``jsonl.index``), when it is a plain file and the leaf asked for is
    one of its entries; None otherwise, and the command reads the file with the whole reader
    (the answers are the same either way: the index only leaves out what it cannot decide)."""
    try:
        index = SessionIndex(args.file, mode="pi" if args.pi_compat else "teaching",
                             decoder=args.decoder)
    except (NotPlain, NotASessionFile, DecoderUnavailable, OSError, ValueError):
        return None
    if args.leaf is not None and index.find(args.leaf) < 0:
        return None
    return outlives_the_command(index)


def _new_in_pi(args: argparse.Namespace) -> bool:
    """``--pi-compat`` on an empty file (0 bytes): Pi opens it as a new session, with an empty
    branch and context (and would write a fresh header into it on its first append). Said
    once the command is done; the file is never touched."""
    try:
        empty = args.pi_compat and os.path.isfile(args.file) and os.path.getsize(args.file) == 0
    except OSError:
        return False
    if empty:
        args.note_when_done = t("cli.note.empty_in_pi", args.lang, path=shown(args.file))
    return empty


def cmd_path(args: argparse.Namespace) -> int:
    if _new_in_pi(args):
        if args.json:
            _stream_json({"leaf": None}, "path", [], args.decoder)
        return 0
    index = _open_index(args)
    if index is not None:
        leaf = args.leaf if args.leaf is not None else index.leaf_id
        branch = IndexedBranch(index, index.branch(leaf) if leaf else [])
        if args.json:
            _stream_json({"leaf": leaf}, "path", branch.ids(), args.decoder)
        else:
            for entry in branch:
                print(entry_line(TranscriptEntry.from_json(entry)))
        return 0
    # The ids need only the tree's keys: a million-entry file fits in a fraction of the memory.
    session = _open_session(args, TREE_FIELDS if args.json else None)
    leaf = _leaf(session, args.leaf)
    branch = session.branch(leaf) if leaf else []   # "" (pi mode): no leaf, as Pi tests it
    if args.json:
        _stream_json({"leaf": leaf}, "path", (entry.get("id") for entry in branch))
    else:
        for entry in branch:
            print(entry_line(TranscriptEntry.from_json(entry)))
    return 0


def _message_id_shown(entry_id: object) -> str:
    """A context message's ``entryId`` as ``context`` prints it: ``-`` when it has none (pi
    mode: Pi's context keeps the message of a last line without an id), any other as
    ``tree`` prints ids."""
    return "-" if entry_id is None else id_shown(str(entry_id))


def _value_shown(value: object) -> str:
    """A field of a message from the file (its ``role``: a damaged file may hold a list,
    a number or nothing there) as one printable word; ``-`` when it is missing, since
    ``None`` is Python's word, not the file's."""
    return shown(value_text(value, missing="-"))


def cmd_context(args: argparse.Namespace) -> int:
    if _new_in_pi(args):
        _show_context(args, None, None, DEFAULT_THINKING_LEVEL, [])
        return 0
    index = _open_index(args)
    if index is not None:   # one entry decoded at a time, and written as it comes
        leaf = args.leaf if args.leaf is not None else index.leaf_id
        branch = IndexedBranch(index, index.branch(leaf) if leaf else [])
        kinds = branch.kinds()
        model, thinking_level = state_at_end(branch, kinds)
        positions = context_positions(branch, kinds, args.pi_version, branch.id_at,
                                      branch.is_system)
        messages = context_messages(branch, positions, kinds, args.pi_version)
        _show_context(args, leaf, model, thinking_level, messages)
        return 0
    session = _open_session(args)
    leaf = _leaf(session, args.leaf)
    context = outlives_the_command(session.context(leaf))
    for problem in context.problems:
        print(t("cli.context.problem", args.lang, entry_id=problem.entry_id, code=problem.code),
              file=sys.stderr)
    _show_context(args, leaf, context.model, context.thinking_level, context.messages)
    return 0


def _show_context(args: argparse.Namespace, leaf: str | None, model: dict | None,
                  thinking_level: Any, messages: Iterable[dict]) -> None:
    if args.json:
        _stream_json({"leaf": leaf, "model": model, "thinkingLevel": thinking_level},
                     "messages", messages, args.decoder)
        return
    shown_lines = [f"{_message_id_shown(message.get('entryId'))}  "
                   f"{_value_shown(message.get('role'))}" for message in messages]
    print(t("cli.context.header", args.lang, leaf=shown(leaf or "-"),
            model=shown(_model_shown(model)), thinking=shown(value_text(thinking_level)),
            count=len(shown_lines)))
    for line in shown_lines:
        print(line)


def cmd_tree(args: argparse.Namespace) -> int:
    if _new_in_pi(args):
        print(t("cli.tree.header", args.lang, session_id="-", entries=0, leaf="-"))
        return 0
    source: Session | SessionIndex | None = _open_index(args)   # a plain file: its index
    if source is not None:
        leaf = args.leaf if args.leaf is not None else source.leaf_id
        count = len(source.ids)
    else:
        source = _open_session(args)
        leaf = _leaf(source, args.leaf)
        if leaf is not None and leaf not in source.tree:   # pi mode leaves a cycle out
            raise UserError("cli.tree.leaf_left_out", entry_id=id_shown(leaf))
        count = len(source.tree)
    print(t("cli.tree.header", args.lang, session_id=source.header.get("id"),
            entries=count, leaf="-" if leaf is None else id_shown(leaf)))
    hidden = ("usage",) if args.pi_version == CURRENT_PI_VERSION else ()
    for line in render_tree(source, leaf, args.lang, hidden_kinds=hidden):
        print(line)
    return 0


def _model_shown(model: dict | None) -> str:
    """``provider/modelId``; ``-`` for no model, or one that names neither (an assistant
    message without them); ``?`` for the half that is missing."""
    parts = [(model or {}).get("provider"), (model or {}).get("modelId")]
    if all(part is None for part in parts):
        return "-"
    return "/".join(value_text(part) for part in parts)


def cmd_migrate(args: argparse.Namespace) -> int:
    out = _refuse_existing(args.out)
    mode = "pi" if args.pi_compat else "teaching"
    file = read_session(args.file, mode=mode)
    if file.migrated:  # changed objects must be written anew
        header: Any = file.header
        lines: list[Any] = file.objects()
    else:              # nothing to change: copy every kept line byte for byte
        header = file.header_line.text if file.header_line else file.header
        lines = file.texts()
    write_new_file(out, header, lines)
    # Every problem inspect counts, but the harmless ones: the reader's (all of them, also
    # those past max_examples) and the tree's (a missing parent, a self-parent, a loop),
    # which only building the session finds.
    tree_problems = [found for found in session_from_file(file, mode).diagnostics
                     if found.code in TREE_PROBLEM_CODES]
    found = len(tree_problems) + sum(count for code, count in file.diagnostic_counts.items()
                                     if SEVERITIES.get(code, "error") != "info")
    print(t("cli.migrate.done", args.lang, out=args.out, source=file.source_version,
            entries=len(file.entries), problems=found))
    conflicts = file.diagnostic_counts.get("conflicting-duplicate", 0)
    if conflicts and not args.pi_compat:   # the copy would no longer say what Pi reads
        later = next(found.line for found in file.diagnostics
                     if found.code == "conflicting-duplicate")
        print(t("cli.migrate.kept_first", args.lang, count=conflicts, line=later))
    return 0


def cmd_fork(args: argparse.Namespace) -> int:
    out = _refuse_existing(args.out)
    session = _open_session(args)
    position, entry_id = ("before", args.before) if args.before is not None else ("at", args.at)
    entry = TranscriptEntry.from_json(session.entry(entry_id))
    if position == "before" and not is_user_message(entry):
        raise UserError("cli.fork.before_needs_user", entry_id=entry_id, kind=kind_and_role(entry))
    write_fork(session, entry_id, position, out)
    with out.open(encoding="utf-8") as handle:
        written = sum(1 for _ in handle) - 1
    where = t(f"cli.fork.where.{position}", args.lang, entry_id=entry_id)
    print(t("cli.fork.done", args.lang, out=args.out, entries=written, where=where))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """One page for any browser (``learn_pi_lab.export``): the whole tree, or for a session
    too large for one page, the tree around the leaf, said here in plain words."""
    if not args.html:
        raise UserError("cli.export.needs_html")
    out = _refuse_existing(args.out)
    session = _open_session(args)
    leaf = _leaf(session, args.leaf)
    from learn_pi_lab.export.page import AROUND, MAX_ENTRIES, page_data, render_page
    data = page_data(session, leaf=leaf, lang=args.lang, source_name=Path(args.file).name)
    page = render_page(data)
    write_new_text(out, page)
    if data["leftOut"]:
        print(t("cli.export.around_leaf", args.lang, total=len(session.tree.entries),
                most=MAX_ENTRIES, around=AROUND, left_out=data["leftOut"]))
    print(t("cli.export.done", args.lang, out=args.out, size=_size_shown(len(page.encode())),
            entries=len(data["entries"]), diagnostics=len(data["diagnostics"])))
    return 0


def _size_shown(size: int) -> str:
    """A file's size as a person reads it: ``830 KB``, ``12.4 MB``."""
    return f"{size / 1e6:.1f} MB" if size >= 1e6 else f"{max(1, round(size / 1e3))} KB"


def cmd_harness(args: argparse.Namespace) -> int:
    """``verify`` and ``grade`` belong to the harness, ``link``, ``collect`` and ``report`` to
    the classroom; each is imported only when asked for, and parses its own arguments."""
    rest = list(args.rest)
    if args.lang is not None and not any(arg == "--lang" or arg.startswith("--lang=")
                                         for arg in rest):
        rest = ["--lang", args.lang, *rest]
    if args.command == "verify":
        from learn_pi_lab.harness import verify
        return verify.main(rest)
    if args.command == "grade":
        from learn_pi_lab.harness import grade
        return grade.main(rest)
    from learn_pi_lab.classroom import class_report, collect, link
    return {"link": link.main, "collect": collect.main, "report": class_report.main}[
        args.command](rest)


# --------------------------------------------------------------------------------------
# Arguments (the parser and argparse in the learner's language: learn_pi_lab/cli/arguments.py)
# --------------------------------------------------------------------------------------

def _add_pi_version(sub: argparse.ArgumentParser, lang: str | None) -> None:
    """``--pi-version``, shared by every command that reads a session."""
    sub.add_argument("--pi-version", choices=PI_VERSIONS, default=CURRENT_PI_VERSION,
                     help=t("cli.help.pi_version", lang))


def _add_decoder(sub: argparse.ArgumentParser, lang: str | None) -> None:
    """``--decoder``, shared by every command that reads a large file line by line."""
    sub.add_argument("--decoder", choices=DECODERS, default=None,
                     help=t("cli.help.decoder", lang))


def build_parser(lang: str | None = None) -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lang", choices=LANGUAGES, default=argparse.SUPPRESS,
                        help=t("cli.help.lang", lang))
    parser = OneLineParser(prog="python3 -m learn_pi_lab", description=t("cli.help.main", lang),
                     parents=[common])
    parser.add_argument("--version", action="version", version=__version__,
                        help=t("cli.help.version", lang))
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)

    def command(name: str, handler: Callable[[argparse.Namespace], int],
                **options: Any) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=t(f"cli.help.{name}", lang), parents=[common],
                                  description=t(f"cli.help.{name}", lang), **options)
        sub.set_defaults(handler=handler)
        return sub

    lab = command("lab", cmd_lab)
    lab.add_argument("example", choices=("session-tree", "session-story"),
                     help=t("cli.help.example", lang))
    lab.add_argument("--leaf", metavar="ID", help=t("cli.help.leaf", lang))
    # The original course's `lab` took these for other examples; accepted here only so
    # that an example can refuse them with its own message.
    lab.add_argument("directory", nargs="?", help=argparse.SUPPRESS)
    lab.add_argument("--boundary", help=argparse.SUPPRESS)

    inspect = command("inspect", cmd_inspect)
    inspect.add_argument("file", metavar="FILE", help=t("cli.help.file", lang))
    inspect.add_argument("--json", action="store_true", help=t("cli.help.json", lang))
    _add_pi_version(inspect, lang)
    _add_decoder(inspect, lang)

    for name, handler in (("tree", cmd_tree), ("path", cmd_path), ("context", cmd_context)):
        sub = command(name, handler)
        sub.add_argument("file", metavar="FILE", help=t("cli.help.file", lang))
        sub.add_argument("--leaf", metavar="ID", help=t("cli.help.leaf", lang))
        sub.add_argument("--pi-compat", action="store_true", help=t("cli.help.pi_compat", lang))
        _add_pi_version(sub, lang)
        _add_decoder(sub, lang)
        if name != "tree":
            sub.add_argument("--json", action="store_true", help=t("cli.help.json", lang))

    migrate = command("migrate", cmd_migrate)
    migrate.add_argument("file", metavar="FILE", help=t("cli.help.file", lang))
    migrate.add_argument("--out", metavar="NEW", required=True, help=t("cli.help.out", lang))
    migrate.add_argument("--pi-compat", action="store_true",
                         help=t("cli.help.migrate_pi_compat", lang))

    fork = command("fork", cmd_fork)
    fork.add_argument("file", metavar="FILE", help=t("cli.help.file", lang))
    where = fork.add_mutually_exclusive_group(required=True)
    where.add_argument("--before", metavar="ID", help=t("cli.help.before", lang))
    where.add_argument("--at", metavar="ID", help=t("cli.help.at", lang))
    fork.add_argument("--out", metavar="NEW", required=True, help=t("cli.help.out", lang))
    _add_pi_version(fork, lang)   # 1.6.0 re-points a compaction kept from a dropped label
    fork.add_argument("--pi-compat", action="store_true",   # Pi forks past an orphan: a root
                      help=t("cli.help.pi_compat", lang))

    export = command("export", cmd_export)
    export.add_argument("file", metavar="FILE", help=t("cli.help.file", lang))
    export.add_argument("--html", action="store_true", help=t("cli.help.html", lang))
    export.add_argument("--out", metavar="PAGE", required=True, help=t("cli.help.out_page", lang))
    export.add_argument("--leaf", metavar="ID", help=t("cli.help.leaf", lang))
    export.add_argument("--pi-compat", action="store_true", help=t("cli.help.pi_compat", lang))
    _add_pi_version(export, lang)

    for name in ("verify", "grade", "link", "collect", "report"):
        sub = commands.add_parser(name, help=t(f"cli.help.{name}", lang), add_help=False,
                                  prefix_chars="\0")  # every argument goes to the harness
        sub.add_argument("rest", nargs=argparse.REMAINDER)
        sub.set_defaults(handler=cmd_harness)
    return parser


def _explain(error: Exception, lang: str | None, pi_compat: bool = False,
             offers_pi_compat: bool = True) -> str:
    """The one line a user error prints, in the learner's language.

    The models' errors carry their facts as fields and are translated by ``i18n.explain``;
    the command line adds only what it knows better: which option would help, and only
    when the command has it (``offers_pi_compat``) and it is not given yet.
    """
    if isinstance(error, UserError):
        return t(error.key, lang, **error.fields)
    if isinstance(error, FileExistsError):
        return t("cli.out_exists", lang, path=error.filename or "")
    if isinstance(error, OSError) and not isinstance(error, Explained):
        return _os_error_text(error, lang)
    message = explain(error, lang)
    if _pi_compat_walks_past(error) and offers_pi_compat and not pi_compat:
        message += t("cli.hint.pi_compat", lang)   # (the English one starts with its space)
    return message


def _pi_compat_walks_past(error: Exception) -> bool:
    """Whether ``--pi-compat`` gets past this damage: Pi's walk stops at a missing parent
    (the entry is a root), but it never returns from an entry that is its own parent, so
    pi mode refuses that one too (a cycle) and the hint would send the user to a second
    error (a Pi user's review)."""
    return isinstance(error, DanglingParent)


def _os_error_text(error: OSError, lang: str | None) -> str:
    """A file that could not be read or written, named; no name: it was the output."""
    detail = " ".join(str(error.strerror or error).split())
    if error.filename is None:
        return t("cli.output_error", lang, detail=detail)
    return t("cli.os_error", lang, path=error.filename, detail=detail)


def _example_line(failed: ExampleFailed, lang: str | None) -> str:
    """``session-tree: <the English message>`` and, in Chinese, the same in Chinese."""
    english = str(failed.error)
    translated = explain(failed.error, lang)
    shown = english if translated == english else f"{english} ({translated})"
    return f"{failed.example}: {shown}"


@contextmanager
def _terminal_safe(text_output: bool) -> Iterator[None]:
    """Text output goes through ``terminal_text.SafeTerminal``: an escape sequence in a
    session file (an id, a label, a message) is printed as ``\x1b``, never obeyed by the
    terminal. JSON output escapes what it must itself and is left alone."""
    if not text_output:
        yield
        return
    saved, sys.stdout = sys.stdout, SafeTerminal(sys.stdout)
    try:
        yield
    finally:
        sys.stdout = saved


def main(argv: Sequence[str] | None = None, *, ending_process: bool = False) -> int:
    """Run one command; return the exit code (0 ok, 2 user error).

    ``ending_process=True``: the process ends right after (``python3 -m learn_pi_lab`` then
    calls ``end_process``), so what the command built may stay alive until then
    (``outlives_the_command``).
    """
    global _LEFT_FOR_EXIT
    _LEFT_FOR_EXIT = [] if ending_process else None   # called from Python: keep nothing
    _streams_that_exist()
    # Notes and errors name ids and files from outside (SafeTerminal), in both output modes
    saved_errors, sys.stderr = sys.stderr, SafeTerminal(sys.stderr)
    try:
        return _run(list(sys.argv[1:] if argv is None else argv))
    finally:
        sys.stderr = saved_errors


def _run(argv: list[str]) -> int:
    """``main`` once the streams are set up."""
    lang = wanted_language(argv)
    args: argparse.Namespace | None = None
    try:
        with argparse_speaking(lang):
            args = build_parser(lang).parse_args(argv)
            if getattr(args, "handler", None) is None:  # no command: say what there is
                build_parser(lang).print_help()
                return 0
        args.lang = lang
        if hasattr(args, "decoder") and args.decoder is None:
            # (as every reader chooses: LEARN_PI_LAB_DECODER, else auto; fast_decoder)
            args.decoder = os.environ.get(DECODER_VARIABLE, "").strip() or DEFAULT_DECODER
        with collector_paused(), _terminal_safe(not getattr(args, "json", False)):
            code = args.handler(args)
        note = getattr(args, "note_when_done", None)
        if note and code == 0:
            print(note, file=sys.stderr)
        return code
    except SystemExit as stop:  # --help prints and stops: that is a success
        return stop.code if isinstance(stop.code, int) else 0
    except BrokenPipeError:  # the output went to `| head`, which stopped reading: fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
        return 0
    except ExampleFailed as failed:
        _say_error(" ".join(_example_line(failed, lang).split()))
        return USER_ERROR
    except (UserError, LabError, NotASessionFile, TranscriptError, DecoderUnavailable,
            SourceChanged, OSError) as error:
        pi_compat = bool(getattr(args, "pi_compat", False))
        offers = args is not None and hasattr(args, "pi_compat")   # this command has the option
        message = " ".join(_explain(error, lang, pi_compat, offers).split())  # one line, always
        _say_error(t("cli.error", lang, message=message))
        return USER_ERROR


def _say_error(line: str) -> None:
    """The one error line, on stderr; if even stderr cannot be written, the exit code says it."""
    try:
        print(line, file=sys.stderr)
        sys.stderr.flush()
    except OSError:
        pass


def _streams_that_exist() -> None:
    """A stream the shell closed (``>&-``, ``2>&-``) is ``None`` in Python: output to it is
    dropped, as the shell asked, instead of a traceback (or the error line on stdout)."""
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")
