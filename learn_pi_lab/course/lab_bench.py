"""Chapter 04's lab bench: copies of the example data to damage, and a loader that reports.

    LAB = scratch_dir("ch04")
    torn = damaged_copy(LAB, "torn.jsonl")     # a private copy of data/linear.jsonl
    session = report(torn)                     # prints entries, leaf and every diagnostic

``report`` prints what the loader noticed. Pi itself says nothing about damage; in pi mode
the course still lists the problems, marked ``[silent in Pi]``, so you see what Pi swallowed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from learn_pi_lab.course.paths import data_file, show_path
from learn_pi_lab.course.text import L
from learn_pi_lab.drawing.style import figure_language
from learn_pi_lab.i18n import explain
from learn_pi_lab.pi.session import Session, load_session


def damaged_copy(folder: Path, new_name: str, source: str = "linear.jsonl") -> Path:
    """A private copy of ``data/<source>`` in ``folder``: the only file an experiment breaks."""
    target = Path(folder) / new_name
    shutil.copyfile(data_file(source), target)
    return target


def report(path: Path, mode: str = "teaching") -> Session:
    """Load ``path``, print what the loader saw (entries, leaf, diagnostics), return it."""
    session = load_session(path, mode=mode)
    count, leaf = len(session.entries), session.leaf_id
    print(f"{show_path(path)} [{mode}]: "
          + L(f"{count} 个条目，叶子 = {leaf}", f"{count} entries, leaf = {leaf}"))
    for problem in session.diagnostics:
        print(L("    [Pi 不作声]", "    [silent in Pi]") if mode == "pi" else "   ", explain(problem))
    return session


def in_figure_language(zh: str, en: str) -> str:
    """A drawing's title in the language the drawing itself uses (English without a CJK font)."""
    return zh if figure_language() == "zh" else en


def text_of(entry: dict) -> str:
    """A short text for a message entry: its first text block, or the command of a !command."""
    message = entry.get("message", {})
    if message.get("role") == "bashExecution":
        return "!" + message.get("command", "")
    content = message.get("content")
    if isinstance(content, str):
        return content
    return next((block.get("text", "") for block in content or [] if block.get("type") == "text"), "")
