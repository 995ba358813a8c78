"""Say what happened, for a person: status words, tables, the one failure worth reading.

``verify`` (terminal), ``notebook.check`` (Jupyter) and ``grade`` (a teacher's summary) all
show results; the wording lives here once, in both languages, from the message catalog.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Iterable, Sequence, TextIO

from learn_pi_lab.harness.catalog import Exercise
from learn_pi_lab.harness.runner import DEFAULT_OUTPUT_LIMIT, STATUSES, ExerciseResult
from learn_pi_lab.i18n import display_width, t

STATUS_MARK = {"passed": "✔", "failed": "✘", "timed_out": "⏱", "not_started": "·",
               "not_own_code": "✘"}
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


def first_to_fix(results: Sequence[ExerciseResult]) -> ExerciseResult | None:
    """The result a learner should look at first: the first real failure (a failed or timed
    out exercise, in course order), else the first one not started yet."""
    for wanted in (("failed", "timed_out", "not_own_code"), ("not_started",)):
        for result in results:
            if result.status in wanted:
                return result
    return None


def explanation(exercise: Exercise, result: ExerciseResult, lang: str | None = None,
                workspace_label: str = "workspace") -> list[str]:
    """What went wrong, where, and what to try: a few short lines, no traceback."""
    fields = dict(test=result.test, file=exercise.filename, function=exercise.function,
                  workspace=workspace_label, detail=result.detail, exercise=exercise.id,
                  seconds=round(result.seconds), limit=f"{DEFAULT_OUTPUT_LIMIT // 1_000_000} MB")
    lines = [t("harness.reason." + (result.reason or "assertion"), lang, **fields)]
    if result.detail and result.reason in ("assertion", "error", "import-error"):
        lines += ["    " + line for line in result.detail.splitlines()]
    if result.test and result.reason in ("timeout", "output-limit", "crashed"):
        lines.append(t("harness.timeout.test", lang, test=result.test))
    if result.where and result.reason != "not-implemented":  # the stub's own raise: no news
        lines.append(t("harness.where", lang, where=result.where))
    if result.output.strip() and result.reason in ("assertion", "error", "crashed",
                                                   "import-error", "timeout", "memory-limit"):
        lines.append(t("harness.printed", lang))
        printed = result.output.strip().splitlines()
        lines += ["    | " + line for line in printed[:OUTPUT_LINES_SHOWN]]
        if len(printed) > OUTPUT_LINES_SHOWN:
            lines.append("    | ...")
    lines.append(t("harness.hint", lang, hint=exercise.text("hint", lang)))
    lines.append(t("harness.rerun", lang, exercise=exercise.id))
    return lines


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
        self.stream = stream
        self.live = stream.isatty()
        self.lock = threading.Lock()   # results arrive from several threads

    def advance(self, label: str) -> None:
        with self.lock:
            self.done += 1
            if self.live:
                filled = self.width * self.done // max(self.total, 1)
                bar = "#" * filled + "-" * (self.width - filled)
                self.stream.write(f"\r[{bar}] {self.done}/{self.total} {label[:30]:<30}")
                self.stream.flush()

    def finish(self) -> None:
        if self.live:
            self.stream.write("\r" + " " * (self.width + 50) + "\r")
            self.stream.flush()
