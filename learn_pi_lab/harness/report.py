"""Say what happened, for a person: status words, tables, the one failure worth reading.

``verify`` (terminal), ``notebook.check`` (Jupyter) and ``grade`` (a teacher's summary) all
show results; the wording lives here once, in both languages, from the message catalog.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
from pathlib import Path
from typing import Iterable, Sequence, TextIO

from learn_pi_lab.harness import sandbox
from learn_pi_lab.harness.catalog import Exercise
from learn_pi_lab.harness.proxy import before_stop_report
from learn_pi_lab.harness.runner import (DEFAULT_OUTPUT_LIMIT, DEFAULT_TIMEOUT, REFERENCE_FACTOR,
                                         STATUSES, ExerciseResult)
from learn_pi_lab.i18n import catalog as messages, current_language, display_width, t
from learn_pi_lab.cli.terminal_text import SafeTerminal, shown

STATUS_MARK = {"passed": "✔", "failed": "✘", "timed_out": "◷", "not_started": "·",
               "not_own_code": "✘"}
"""One mark per status, each one DejaVu Sans draws (a timer sign, U+23F1, was an empty box)."""
OUTPUT_LINES_SHOWN = 15


def status_text(status: str, lang: str | None = None) -> str:
    """``✔ passed`` / ``✔ 通过``."""
    return f"{STATUS_MARK[status]} {t('harness.status.' + status, lang)}"


def text_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A plain table that stays aligned with Chinese text in it."""
    rows = [list(headers)] + [list(row) for row in rows]
    widths = [max(display_width(row[col]) for row in rows) for col in range(len(headers))]
    lines = []
    for row in rows:
        cells = [cell + " " * (widths[col] - display_width(cell)) for col, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def result_rows(exercises: Sequence[Exercise], results: Sequence[ExerciseResult],
                lang: str | None = None) -> list[list[str]]:
    return [[f"{exercise.chapter:02d}", exercise.id, exercise.text("title", lang),
             status_text(result.status, lang)]
            for exercise, result in zip(exercises, results)]


def headers(lang: str | None = None) -> list[str]:
    return [t("harness.col.chapter", lang), t("harness.col.exercise", lang),
            t("harness.col.title", lang), t("harness.col.status", lang)]


def counts_line(results: Sequence[ExerciseResult], lang: str | None = None) -> str:
    counts = {status: sum(1 for r in results if r.status == status) for status in STATUSES}
    return t("harness.counts", lang, total=len(results), **counts)


def all_passed_line(results: Sequence[ExerciseResult], lang: str | None = None) -> str:
    """What to say when every exercise checked passes ("all 1 exercises" reads badly)."""
    if len(results) == 1:
        return t("harness.one_passed", lang, exercise=results[0].exercise)
    return t("harness.all_passed", lang, count=len(results))


def first_to_fix(results: Sequence[ExerciseResult]) -> ExerciseResult | None:
    """The result a learner should look at first: the first real failure (a failed or timed
    out exercise, in course order), else the first one not started yet."""
    for wanted in (("failed", "timed_out", "not_own_code"), ("not_started",)):
        for result in results:
            if result.status in wanted:
                return result
    return None


HARNESS_FOLDER = "learn_pi_lab/harness/"
TRACEBACK_START = "Traceback (most recent call last):"


def learner_output(output: str) -> str:
    """What the learner's code printed, without what the harness's own process wrote when
    it failed: from a traceback through the harness's files (``worker.py``) on, everything
    (the traceback, ``lost sys.stderr``, object addresses) is not the learner's to read. A
    traceback the learner printed of their own code stays. The stack report of a run that
    ran out of time (``proxy.stopped_at``) is cut too: the report names the line instead."""
    output = before_stop_report(output)   # where the time ran out: named apart
    lines = output.splitlines(keepends=True)
    offset = 0
    for number, line in enumerate(lines):
        if line.rstrip() == TRACEBACK_START:
            block = []
            for following in lines[number + 1:]:
                if not following.startswith(" "):
                    break
                block.append(following)
            if HARNESS_FOLDER in "".join(block).replace("\\", "/"):
                return output[:offset]
        offset += len(line)
    return output


def effective_reason(result: ExerciseResult) -> str:
    """``result.reason``, except that a worker that died with a ``MemoryError`` of its own
    (it printed one through the harness's files, then ended: ``crashed``) ran out of memory."""
    reason = result.reason or "assertion"
    if reason == "crashed":
        dropped = result.output[len(learner_output(result.output)):]
        if "MemoryError" in dropped:
            return "memory-limit"
    return reason


def memory_text(size: int) -> str:
    """``1 GiB``, ``512 MiB``."""
    for unit, scale in (("GiB", 1024 ** 3), ("MiB", 1024 ** 2)):
        if size >= scale:
            value = size / scale
            return f"{value:g} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} B"


def timeout_lines(exercise: Exercise, seconds: float, lang: str | None) -> list[str]:
    """Why a run may not finish, in general, then this exercise's usual suspects if the
    catalog has them."""
    lines = [t("harness.learner.reason.timeout", lang, seconds=round(seconds))]
    example = "harness.learner.timeout.example." + exercise.id
    if example in messages():
        lines[0] += ("" if current_language(lang) == "zh" else " ") + t(example, lang)
    if round(seconds) > DEFAULT_TIMEOUT:   # the limit was calibrated on the reference
        lines.append(t("harness.learner.timeout.calibrated", lang, seconds=round(seconds),
                       floor=round(DEFAULT_TIMEOUT), factor=round(REFERENCE_FACTOR)))
    return lines


def explanation(exercise: Exercise, result: ExerciseResult, lang: str | None = None,
                workspace_label: str = "workspace", *, memory: int | None = None) -> list[str]:
    """What went wrong, where, and what to try: a few short lines, no traceback.
    ``memory``: the worker's address-space limit (the sandbox's default when not given)."""
    reason = effective_reason(result)
    memory = sandbox.Limits().memory if memory is None else memory
    fields = dict(test=result.test, file=exercise.filename, function=exercise.function,
                  workspace=workspace_label, detail=result.detail, exercise=exercise.id,
                  seconds=round(result.seconds), limit=f"{DEFAULT_OUTPUT_LIMIT // 1_000_000} MB",
                  memory=memory_text(memory))
    if reason == "timeout":
        lines = timeout_lines(exercise, result.seconds, lang)
    elif reason == "memory-limit":
        lines = [t("harness.learner.reason.memory-limit" + ("" if result.test else ".import"),
                   lang, **fields)]
    elif reason == "error" and not result.where:
        # no frame of the learner's file: the test failed while using the returned value
        lines = [t("harness.learner.reason.error-in-test", lang, **fields)]
    elif reason == "not-own-code" and _reaches_same_name(result.where, exercise.function):
        lines = [t("harness.reason.not-own-code.same-name", lang, **fields)]
    else:
        lines = [t("harness.reason." + reason, lang, **fields)]
    if result.detail and reason in ("assertion", "error", "import-error"):
        lines += ["    " + line for line in result.detail.splitlines()]
    if result.test and reason == "timeout":
        lines.append(t("harness.timeout.test", lang, test=result.test))
    elif result.test and reason in ("output-limit", "crashed"):
        lines.append(t("harness.learner.running_test", lang, test=result.test))
    if result.where and reason != "not-implemented":  # the stub's own raise: no news
        lines.append(t("harness.where.stopped" if reason == "timeout" else "harness.where",
                       lang, where=result.where))
    printed = learner_output(result.output).strip()
    if printed and reason in ("assertion", "error", "crashed", "import-error", "timeout",
                              "memory-limit"):
        lines.append(t("harness.printed", lang))
        printed_lines = printed.splitlines()
        lines += ["    | " + line for line in printed_lines[:OUTPUT_LINES_SHOWN]]
        if len(printed_lines) > OUTPUT_LINES_SHOWN:
            lines.append("    | ...")
    lines.append(t("harness.hint", lang, hint=exercise.text("hint", lang)))
    lines.append(t("harness.rerun", lang, exercise=exercise.id))
    return lines


def sandbox_fallback(mode: str, lang: str | None = None) -> str | None:
    """What a learner's own check says when it runs without the sandbox (``mode`` is not
    ``bwrap``): bubblewrap is missing, or it is installed but this machine refuses it the
    namespaces it needs (a container, a hub on Kubernetes or Binder); None with the sandbox."""
    if mode == "bwrap":
        return None
    missing = shutil.which("bwrap") is None
    return t("harness.verify.no_sandbox" if missing else "harness.verify.sandbox_refused", lang)


def relative_label(path: Path, base: Path) -> str:
    """``workspace`` rather than ``/home/me/learn-pi-lab/workspace`` when it is inside ``base``."""
    try:
        return str(path.resolve().relative_to(base.resolve())) or "."
    except ValueError:
        return str(path)


class ProgressBar:
    """``[########------] 9/15`` redrawn in place on a terminal; silent when piped."""

    def __init__(self, total: int, stream: TextIO, width: int = 24) -> None:
        self.total, self.done, self.width = total, 0, width
        # The command line's stdout shows escape sequences instead of obeying them
        # (``SafeTerminal``), the bar's own ``\r`` too: the bar writes to the terminal behind
        # it, and makes its label (a learner's folder name) safe itself.
        self.stream = stream.out if isinstance(stream, SafeTerminal) else stream
        self.live = self.stream.isatty()
        self.lock = threading.Lock()   # results arrive from several threads

    def advance(self, label: str) -> None:
        with self.lock:
            self.done += 1
            if self.live:
                filled = self.width * self.done // max(self.total, 1)
                bar = "#" * filled + "-" * (self.width - filled)
                label = shown(label)[:30]
                self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label:<30}")
                self.stream.flush()

    def finish(self) -> None:
        if self.live:
            self.stream.write("\r" + " " * (self.width + 50) + "\r")
            self.stream.flush()


def _reaches_same_name(where: str | None, function: str) -> bool:
    """Whether the construct a not-own-code check found (``file:line: code``) reaches an
    attribute with the graded name (``tree.branch_from(...)``): a learner's own ``def``
    that calls someone else's answer, which the general message would call no def at all."""
    code = (where or "").partition(": ")[2]
    return re.search(rf"\.{re.escape(function)}\b", code) is not None


def json_file_bytes(document: object) -> bytes:
    """``document`` as the bytes of a JSON file a person can read (non-ASCII kept as it is)
    that can always be written and shown: a lone surrogate from a learner's message or value
    (``json.loads('"\\ud800"')``, common in session data) has no UTF-8 form, so it is
    written as its JSON escape ``\\ud800``, which reads back as the same string."""
    text = json.dumps(document, ensure_ascii=False, indent=1).translate(_C1_ESCAPED) + "\n"
    return text.encode("utf-8", "backslashreplace")


_C1_ESCAPED = {code: f"\\u{code:04x}" for code in range(0x80, 0xA0)}
"""The 8-bit controls (CSI, OSC, ST), which json writes as they are: written as escapes,
so ``cat gradebook.json`` cannot be redrawn (they can only stand inside a JSON string)."""


def writable_text(text: str) -> str:
    """``text`` with each lone surrogate written as its escape (``\\ud800``): for a CSV
    cell or a line of a file, which must be UTF-8."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CONTROL = dict.fromkeys(code for code in [*range(32), *range(127, 160)]
                        if chr(code) not in "\n\t")
"""Dropped from a CSV cell: C0 controls, DEL, and the 8-bit C1 controls (U+0080-U+009F:
CSI, OSC, ST), which some terminals obey in UTF-8 too (an attacker's review)."""


def spreadsheet_safe(value):
    """A CSV cell a spreadsheet shows as text: a learner's printed output or folder name that
    starts like a formula (``=HYPERLINK(...)``) gets a leading ``'``, and control characters
    (a terminal escape that would redraw ``cat gradebook.csv``) are dropped."""
    if not isinstance(value, str):
        return value
    value = writable_text(value.translate(CONTROL))
    return "'" + value if value.startswith(FORMULA_STARTS) else value
