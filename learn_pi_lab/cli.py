"""``python3 -m learn_pi_lab ...``: look at session files from a terminal, read-only.

Commands (``--help`` on any of them says more):

=========================================  ===============================================
``lab session-tree [--leaf ID]``           one branch of the built-in example, as JSON
``inspect FILE [--json]``                  the inspector's report
``tree FILE [--leaf ID]``                  the tree as text, like Pi's ``/tree``
``path FILE [--leaf ID] [--pi-compat]``    ``{"leaf", "path": [ids, root first]}``
``context FILE [--leaf ID] [--pi-compat]`` ``{"leaf", "model", "thinkingLevel", "messages"}``
``migrate FILE --out NEW``                 a v1/v2 file brought to v3, as a *new* file
``fork FILE (--before ID | --at ID) --out NEW``  Pi's ``/fork``, into a *new* file
``verify ...``, ``grade ...``              the exercise harness
=========================================  ===============================================

The contract with the person typing: exit 0 on success. A mistake on their side (a missing
file, a directory, a file that is not a session, an unknown id, a bad option, an output
file that already exists) exits 2 with **one** line on stderr, in their language, never a
traceback. Nothing here ever writes to an input file; ``migrate`` and ``fork`` create a new
file and refuse to overwrite one.

``--pi-compat`` reads the file the way Pi v0.84.2 does (a later duplicate wins, an orphan
is a root, ...); the default teaching mode refuses to walk through damage and says why.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from learn_pi_lab import labs
from learn_pi_lab.entry_text import short_text
from learn_pi_lab.i18n import LANGUAGES, t
from learn_pi_lab.jsonl.reader import NotASessionFile, read_session
from learn_pi_lab.errors import Explained
from learn_pi_lab.i18n import explain
from learn_pi_lab.jsonl.writer import check_new_path, write_new_file
from learn_pi_lab.pi.context import build_session_context
from learn_pi_lab.pi.navigation import is_user_message, kind_and_role, write_fork
from learn_pi_lab.pi.session import Session, load_session
from learn_pi_lab.report_text import render_report
from learn_pi_lab.session_inspector import inspect_session
from learn_pi_lab.session_tree import (ParentCycle, SelfParent, TranscriptEntry,
                                       TranscriptError, UnknownTranscriptEntry)

USER_ERROR = 2
FOLD_EDGE = 2         # entries shown at each end of a folded linear run
FOLD_MIN_HIDDEN = 3   # never fold fewer entries than this (the fold line would not save much)


class UserError(Exception):
    """A mistake the person at the terminal can fix: a message key and its fields.

    The message is translated only when it is printed, in the language of the run.
    """

    def __init__(self, key: str, **fields: Any) -> None:
        super().__init__(key)
        self.key = key
        self.fields = fields


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad option becomes a ``UserError`` instead of usage text and exit."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UserError("cli.bad_usage", detail=message, prog=self.prog)


# --------------------------------------------------------------------------------------
# Reading the input
# --------------------------------------------------------------------------------------

def _open_session(args: argparse.Namespace) -> Session:
    return load_session(args.file, mode="pi" if getattr(args, "pi_compat", False) else "teaching")


def _leaf(session: Session, requested: str | None) -> str | None:
    """The leaf to use: the one asked for (it must exist), else the session's own."""
    if requested is None:
        return session.leaf_id
    session.entry(requested)  # UnknownTranscriptEntry if the file has no such id
    return requested


def _refuse_existing(out: str) -> Path:
    try:   # BadOutputPath (an empty name, a folder) is explained by the writer itself
        return check_new_path(out)
    except FileExistsError:
        raise UserError("cli.out_exists", path=out) from None


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2))


# --------------------------------------------------------------------------------------
# The commands
# --------------------------------------------------------------------------------------

def cmd_lab(args: argparse.Namespace) -> int:
    tree = labs.story_tree(args.lang)
    if args.leaf is not None and args.leaf not in tree:
        raise UnknownTranscriptEntry(args.leaf)
    _print_json(labs.branch_report(tree, args.leaf))
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    report = inspect_session(args.file)
    if args.json:
        _print_json(report)
    else:
        print(render_report(report, args.lang))
    return 0


def cmd_path(args: argparse.Namespace) -> int:
    session = _open_session(args)
    leaf = _leaf(session, args.leaf)
    branch = session.branch(leaf) if leaf is not None else []
    if args.json:
        _print_json({"leaf": leaf, "path": [entry.get("id") for entry in branch]})
    else:
        for entry in branch:
            print(_entry_line(TranscriptEntry.from_json(entry)))
    return 0


def cmd_context(args: argparse.Namespace) -> int:
    session = _open_session(args)
    leaf = _leaf(session, args.leaf)
    context = build_session_context(session.branch(leaf) if leaf is not None else [])
    if args.json:
        _print_json({"leaf": leaf, "model": context.model,
                     "thinkingLevel": context.thinking_level, "messages": context.messages})
    else:
        model = context.model or {}
        print(t("cli.context.header", args.lang, leaf=leaf or "-",
                model=f"{model.get('provider')}/{model.get('modelId')}" if model else "-",
                thinking=context.thinking_level, count=len(context.messages)))
        for message in context.messages:
            print(f"{message.get('entryId')}  {message.get('role')}")
    return 0


def cmd_tree(args: argparse.Namespace) -> int:
    session = _open_session(args)
    leaf = _leaf(session, args.leaf)
    if leaf is not None and leaf not in session.tree:   # pi mode leaves a cycle out of the tree
        raise UserError("cli.tree.leaf_left_out", entry_id=leaf)
    print(t("cli.tree.header", args.lang, session_id=session.header.get("id"),
            entries=len(session.tree), leaf=leaf or "-"))
    for line in render_tree(session, leaf, args.lang):
        print(line)
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    out = _refuse_existing(args.out)
    file = read_session(args.file)
    if file.migrated:  # changed objects must be written anew
        header: Any = file.header
        lines: list[Any] = file.objects()
    else:              # nothing to change: copy every kept line byte for byte
        header = file.header_line.text if file.header_line else file.header
        lines = [loaded.text for loaded in file.entries]
    write_new_file(out, header, lines)
    dropped = sum(1 for found in file.diagnostics if found.severity != "info")
    print(t("cli.migrate.done", args.lang, out=args.out, source=file.source_version,
            entries=len(file.entries), problems=dropped))
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
    print(t("cli.fork.done", args.lang, out=args.out, entries=written, position=position,
            entry_id=entry_id))
    return 0


def cmd_harness(args: argparse.Namespace) -> int:
    """``verify`` and ``grade`` belong to the harness; import it only when asked for."""
    rest = list(args.rest)
    if args.lang is not None and not any(arg == "--lang" or arg.startswith("--lang=")
                                         for arg in rest):
        rest = ["--lang", args.lang, *rest]
    if args.command == "verify":
        from learn_pi_lab.harness import verify
        return verify.main(rest)
    from learn_pi_lab.harness import grade
    return grade.main(rest)


# --------------------------------------------------------------------------------------
# The tree as text
# --------------------------------------------------------------------------------------

def _entry_line(entry: TranscriptEntry) -> str:
    text = short_text(entry)
    if entry.kind != "message" and text != entry.kind:
        text = f"{entry.kind}: {text}"
    return f"{entry.id}  {text}"


def _linear_runs(session: Session, first: str) -> list[str]:
    """``first`` and the entries below it while each has exactly one child."""
    run = [first]
    while True:
        children = session.tree.children(run[-1])
        if len(children) != 1:
            return run
        run.append(children[0].id)


def _visible(run: list[str], keep: set[str]) -> list[str | int]:
    """The run with long stretches of unremarkable entries replaced by their count.

    Always shown: ``FOLD_EDGE`` entries at each end and every entry in ``keep`` (the leaf,
    labelled and damaged entries). A stretch is folded only if it hides at least
    ``FOLD_MIN_HIDDEN`` entries. Deterministic: the same file prints the same lines.
    """
    shown = [i < FOLD_EDGE or i >= len(run) - FOLD_EDGE or entry_id in keep
             for i, entry_id in enumerate(run)]
    visible: list[str | int] = []
    i = 0
    while i < len(run):
        if shown[i]:
            visible.append(run[i])
            i += 1
            continue
        j = i
        while j < len(run) and not shown[j]:
            j += 1
        visible.extend([j - i] if j - i >= FOLD_MIN_HIDDEN else run[i:j])
        i = j
    return visible


def render_tree(session: Session, leaf: str | None, lang: str | None = None) -> list[str]:
    """Lines like Pi's ``/tree``: branches indented, the current branch marked.

    ``●`` marks the entries on the branch to ``leaf`` and ``← leaf`` the leaf itself;
    ``[label]`` shows a label; a damaged entry (shown as a root) says what is wrong. A
    linear run continues at the same indent; only a branch point indents its children
    (``├─``/``└─``, oldest first, as Pi sorts them). Walked with a stack, no recursion.
    """
    labels = session.labels()
    on_branch = {entry.id for entry in session.tree.path_to(leaf)} if leaf else set()
    keep = set(labels) | set(session.detached) | ({leaf} if leaf else set())
    lines: list[str] = []
    roots = [entry["id"] for entry in session.children(None)]
    # Stack items: (first entry of a linear run, connector, prefix of later lines)
    stack: list[tuple[str, str, str]] = [
        (root, "", "") for root in reversed(roots)]
    while stack:
        first, connector, prefix = stack.pop()
        run = _linear_runs(session, first)
        for position, item in enumerate(_visible(run, keep)):
            lead = connector if position == 0 else prefix
            if isinstance(item, int):
                lines.append(f"{lead}  {t('cli.tree.folded', lang, count=item)}")
                continue
            entry = session.tree[item]
            line = f"{lead}{'●' if item in on_branch else '○'} {_entry_line(entry)}"
            if item in labels:
                line += f"  [{labels[item]}]"
            if item in session.detached:
                line += "  " + t("cli.tree.detached", lang, code=session.detached[item])
            if item == leaf:
                line += "  " + t("cli.tree.leaf", lang)
            lines.append(line)
        children = [entry["id"] for entry in session.children(run[-1])]
        for index in reversed(range(len(children))):
            last = index == len(children) - 1
            stack.append((children[index], prefix + ("└─ " if last else "├─ "),
                          prefix + ("   " if last else "│  ")))
    return lines


# --------------------------------------------------------------------------------------
# Arguments and errors
# --------------------------------------------------------------------------------------

def _wanted_language(argv: Sequence[str]) -> str | None:
    """``--lang`` read before parsing, so even a parsing error speaks the right language."""
    for index, arg in enumerate(argv):
        if arg == "--lang" and index + 1 < len(argv) and argv[index + 1] in LANGUAGES:
            return argv[index + 1]
        if arg.startswith("--lang=") and arg.split("=", 1)[1] in LANGUAGES:
            return arg.split("=", 1)[1]
    return None


def build_parser(lang: str | None = None) -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lang", choices=LANGUAGES, default=argparse.SUPPRESS,
                        help=t("cli.help.lang", lang))
    parser = _Parser(prog="python3 -m learn_pi_lab", description=t("cli.help.main", lang),
                     parents=[common])
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def command(name: str, handler: Callable[[argparse.Namespace], int],
                **options: Any) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=t(f"cli.help.{name}", lang), parents=[common],
                                  description=t(f"cli.help.{name}", lang), **options)
        sub.set_defaults(handler=handler)
        return sub

    lab = command("lab", cmd_lab)
    lab.add_argument("example", choices=("session-tree",), help=t("cli.help.example", lang))
    lab.add_argument("--leaf", metavar="ID", help=t("cli.help.leaf", lang))

    inspect = command("inspect", cmd_inspect)
    inspect.add_argument("file", metavar="FILE", help=t("cli.help.file", lang))
    inspect.add_argument("--json", action="store_true", help=t("cli.help.json", lang))

    for name, handler in (("tree", cmd_tree), ("path", cmd_path), ("context", cmd_context)):
        sub = command(name, handler)
        sub.add_argument("file", metavar="FILE", help=t("cli.help.file", lang))
        sub.add_argument("--leaf", metavar="ID", help=t("cli.help.leaf", lang))
        sub.add_argument("--pi-compat", action="store_true", help=t("cli.help.pi_compat", lang))
        if name != "tree":
            sub.add_argument("--json", action="store_true", help=t("cli.help.json", lang))

    migrate = command("migrate", cmd_migrate)
    migrate.add_argument("file", metavar="FILE", help=t("cli.help.file", lang))
    migrate.add_argument("--out", metavar="NEW", required=True, help=t("cli.help.out", lang))

    fork = command("fork", cmd_fork)
    fork.add_argument("file", metavar="FILE", help=t("cli.help.file", lang))
    where = fork.add_mutually_exclusive_group(required=True)
    where.add_argument("--before", metavar="ID", help=t("cli.help.before", lang))
    where.add_argument("--at", metavar="ID", help=t("cli.help.at", lang))
    fork.add_argument("--out", metavar="NEW", required=True, help=t("cli.help.out", lang))

    for name in ("verify", "grade"):
        sub = commands.add_parser(name, help=t(f"cli.help.{name}", lang), add_help=False,
                                  prefix_chars="\0")  # every argument goes to the harness
        sub.add_argument("rest", nargs=argparse.REMAINDER)
        sub.set_defaults(handler=cmd_harness)
    return parser


def _explain(error: Exception, lang: str | None) -> str:
    """The one line a user error prints (the typed errors of the models, translated)."""
    if isinstance(error, UserError):
        return t(error.key, lang, **error.fields)
    if isinstance(error, NotASessionFile):
        return explain(error, lang)
    if isinstance(error, UnknownTranscriptEntry):
        if error.referenced_by is None:
            return t("cli.unknown_entry", lang, entry_id=error.entry_id)
        return t("cli.dangling_parent", lang, entry_id=error.referenced_by,
                 parent_id=error.entry_id)
    if isinstance(error, SelfParent):
        return t("cli.self_parent", lang, entry_id=error.entry_id)
    if isinstance(error, ParentCycle):
        return t("cli.cycle", lang, cycle=" -> ".join(error.cycle + error.cycle[:1]))
    if isinstance(error, FileExistsError):
        return t("cli.out_exists", lang, path=error.filename or "")
    if isinstance(error, Explained):
        return explain(error, lang)
    if isinstance(error, OSError):
        return t("cli.os_error", lang, path=error.filename or "", detail=error.strerror or error)
    return t("cli.transcript_error", lang, detail=error)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return the exit code (0 ok, 2 user error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    lang = _wanted_language(argv)
    try:
        args = build_parser(lang).parse_args(argv)
        args.lang = lang
        if getattr(args, "handler", None) is None:
            raise UserError("cli.no_command")
        return args.handler(args)
    except SystemExit as stop:  # --help prints and stops: that is a success
        return stop.code if isinstance(stop.code, int) else 0
    except BrokenPipeError:  # the output went to `| head`, which stopped reading: fine
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error at exit
        return 0
    except (UserError, NotASessionFile, TranscriptError, OSError) as error:
        message = " ".join(_explain(error, lang).split())  # one line, always
        print(t("cli.error", lang, message=message), file=sys.stderr)
        return USER_ERROR
