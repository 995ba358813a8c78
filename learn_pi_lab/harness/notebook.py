"""Check a chapter's exercises from inside its notebook: ``check("02")``.

The same runner as ``make verify``, limited to one chapter, shown as a table in the notebook
(HTML) or as text anywhere else. No widgets: the result is an ordinary object whose
``_repr_html_`` Jupyter draws, so it also survives in a saved notebook.
"""

from __future__ import annotations

import html
import os
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Callable, Iterator

from learn_pi_lab.harness import catalog, report
from learn_pi_lab.harness.runner import (DEFAULT_TIMEOUT, ExerciseResult, default_sandbox,
                                         run_exercises)
from learn_pi_lab.i18n import current_language, t

STATUS_COLOUR = {"passed": "#1a7f37", "failed": "#cf222e", "timed_out": "#9a6700",
                 "not_started": "#57606a", "not_own_code": "#cf222e"}
"""On a light background (4.5:1 or more); ``DARK_STATUS_COLOUR`` on JupyterLab's dark themes."""
DARK_STATUS_COLOUR = {"passed": "#81c784", "failed": "#ff8a80", "timed_out": "#ffcc80",
                      "not_started": "#b0b0b0", "not_own_code": "#ff8a80"}


def _status_style() -> str:
    """The status colours as one style block: JupyterLab marks a dark theme on ``body``."""
    light = "".join(f".lpl-check .lpl-{status}{{color:{colour}}}"
                    for status, colour in STATUS_COLOUR.items())
    dark = "".join(f'body[data-jp-theme-light="false"] .lpl-check .lpl-{status}'
                   f"{{color:{colour}}}" for status, colour in DARK_STATUS_COLOUR.items())
    return f"<style>{light}{dark}</style>"


@dataclass
class ChapterCheck:
    """The results of one chapter's exercises; displays itself as a table."""

    chapter: int
    exercises: list[catalog.Exercise]
    results: list[ExerciseResult]
    lang: str
    workspace_label: str = "workspace"
    sandbox_note: str | None = None   # said when the check ran without the sandbox

    @property
    def passed(self) -> bool:
        return all(result.status == "passed" for result in self.results)

    def _details(self) -> tuple[catalog.Exercise, list[str]] | None:
        to_fix = report.first_to_fix(self.results)
        if to_fix is None:
            return None
        exercise = catalog.get(to_fix.exercise)
        return exercise, report.explanation(exercise, to_fix, self.lang, self.workspace_label)

    def __str__(self) -> str:
        lang = self.lang
        if not self.exercises:
            return t("harness.notebook.no_exercises", lang, chapter=f"{self.chapter:02d}")
        lines = [t("harness.notebook.heading", lang, chapter=f"{self.chapter:02d}",
                   workspace=self.workspace_label),
                 report.text_table(report.headers(lang),
                                   report.result_rows(self.exercises, self.results, lang)),
                 report.counts_line(self.results, lang)]
        if self.sandbox_note:
            lines.append(self.sandbox_note)
        details = self._details()
        if details is None:
            lines.append(report.all_passed_line(self.results, lang))
        else:
            exercise, explanation = details
            lines.append(t("harness.first_to_fix", lang, exercise=exercise.id,
                           chapter=f"{exercise.chapter:02d}", title=exercise.text("title", lang)))
            lines += ["  " + line for line in explanation]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        lang = self.lang
        if not self.exercises:
            return f"<p>{html.escape(str(self))}</p>"
        head = "".join(f"<th style='text-align:left'>{html.escape(h)}</th>"
                       for h in report.headers(lang))
        rows = []
        for cells, result in zip(report.result_rows(self.exercises, self.results, lang),
                                 self.results):
            tds = [f"<td>{html.escape(cell)}</td>" for cell in cells[:-1]]
            tds.append(f"<td class='lpl-{result.status}' style='font-weight:bold'>"
                       f"{html.escape(cells[-1])}</td>")
            rows.append("<tr>" + "".join(tds) + "</tr>")
        heading = t("harness.notebook.heading", lang, chapter=f"{self.chapter:02d}",
                    workspace=self.workspace_label)
        parts = [_status_style(), f"<div class='lpl-check'><p><b>{html.escape(heading)}</b></p>",
                 f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>",
                 f"<p>{html.escape(report.counts_line(self.results, lang))}</p>"]
        if self.sandbox_note:
            parts.append(f"<p>{html.escape(self.sandbox_note)}</p>")
        details = self._details()
        if details is None:
            all_passed = report.all_passed_line(self.results, lang)
            parts.append(f"<p>{html.escape(all_passed)}</p>")
        else:
            exercise, explanation = details
            title = t("harness.first_to_fix", lang, exercise=exercise.id,
                      chapter=f"{exercise.chapter:02d}", title=exercise.text("title", lang))
            body = html.escape("\n".join(explanation))
            parts.append(f"<p><b>{html.escape(title)}</b></p>"
                         f"<pre style='white-space:pre-wrap'>{body}</pre>")
        parts.append("</div>")
        return "".join(parts)


def chapter_number(chapter: int | str) -> int:
    """``2``, ``"2"``, ``"02"`` and ``"ch02"`` all mean chapter 2."""
    text = str(chapter).strip().lower().removeprefix("ch")
    if not text.isdigit():
        raise ValueError(t("harness.notebook.bad_chapter", chapter=chapter))
    return int(text)


# What the checks said of each exercise file, by its saved version: the cells after a check
# (``course.act.model_answer``, ``implementation``) do not grade the same file again.
_verdicts: dict[tuple[str, str, int, int], str] = {}


def _saved_version(exercise: catalog.Exercise, folder: Path) -> tuple[str, str, int, int]:
    path = Path(folder) / exercise.filename
    info = path.stat() if path.is_file() else None
    return (exercise.id, str(path.resolve()), info.st_mtime_ns if info else -1,
            info.st_size if info else -1)


def verdict(exercise: catalog.Exercise, folder: Path) -> str:
    """The checks' status for ``exercise`` in ``folder``: graded once per saved version of
    its file (a check cell's grading counts)."""
    key = _saved_version(exercise, folder)
    if key not in _verdicts:
        [result] = run_exercises([exercise], Path(folder))
        _verdicts[key] = result.status
    return _verdicts[key]


def check(chapter: int | str, *, workspace: str | Path | None = None,
          lang: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> ChapterCheck:
    """Run chapter ``chapter``'s exercises against your workspace and show the results."""
    number = chapter_number(chapter)
    folder = Path(workspace) if workspace is not None else catalog.default_workspace()
    language = current_language(lang)
    exercises = list(catalog.for_chapter(number))
    walls = default_sandbox()
    # the versions read before the run: a file saved while it runs is graded again later
    versions = [_saved_version(exercise, folder) for exercise in exercises]
    results = run_exercises(exercises, folder, timeout=timeout, lang=language, walls=walls)
    _verdicts.update(zip(versions, (result.status for result in results)))
    label = report.relative_label(folder, catalog.REPO_ROOT)
    return ChapterCheck(number, exercises, results, language, label,
                        report.sandbox_fallback(walls.mode, language))


# --------------------------------------------------------------------------------------
# A time limit for the learner's code run inside the kernel (``your_turn`` cells)
# --------------------------------------------------------------------------------------

YOUR_TURN_SECONDS = 20.0   # a your_turn cell runs the learner's function once, on the
                           # chapter's data: the reference takes well under a second


class TimeLimitReached(BaseException):
    """The learner's code ran past the cell's time limit. A ``BaseException``, like
    ``KeyboardInterrupt``, so an ``except Exception`` in the learner's loop cannot swallow it.
    ``where``: ``workspace/ch01_jsonl.py:12``, the learner's line it was stopped at, when
    known (see ``time_limit_message``)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def can_limit_time() -> bool:
    """``SIGALRM`` can stop a call only on Unix and only on the main thread (where Jupyter
    runs a cell)."""
    return (hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")
            and threading.current_thread() is threading.main_thread())


@contextmanager
def time_limit(seconds: float = YOUR_TURN_SECONDS) -> Iterator[bool]:
    """Raise ``TimeLimitReached`` in the block once it has run ``seconds`` (wall clock).
    Yields whether a limit is in force (``can_limit_time``); without one the block simply
    runs. Any earlier ``SIGALRM`` handler and timer are put back afterwards, the timer with
    the time it had left (at once, if that ran out meanwhile)."""
    if not can_limit_time() or seconds <= 0:
        yield False
        return

    def stop(signum: int, frame: Any) -> None:
        raise TimeLimitReached(seconds)

    started = time.monotonic()
    previous_handler = signal.signal(signal.SIGALRM, stop)
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield True
    finally:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:   # even if the alarm struck just now, in the line above
            signal.signal(signal.SIGALRM, previous_handler)
            if previous_delay > 0:
                left = previous_delay - (time.monotonic() - started)
                signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), previous_interval)


def learner_line(error: BaseException, path: Path, shown: str | None = None) -> str | None:
    """``workspace/ch01_jsonl.py:12``: the innermost line of ``path`` in the traceback."""
    target = os.path.realpath(path)
    found = None
    tb: TracebackType | None = error.__traceback__
    while tb is not None:
        if os.path.realpath(tb.tb_frame.f_code.co_filename) == target:
            found = tb.tb_lineno
        tb = tb.tb_next
    if found is None:
        return None
    return f"{shown or path.name}:{found}"


def time_limit_message(error: TimeLimitReached, function: str, path: Path,
                       lang: str | None = None, shown: str | None = None) -> str:
    """What to print when ``time_limit`` stopped the learner's ``function`` (from ``path``,
    shown as ``shown``): how long, the line it was at, and that Kernel -> Interrupt works."""
    where = learner_line(error, path, shown)
    return t("harness.learner.your_turn.timeout", lang, function=function,
             seconds=f"{error.seconds:g}",
             where=t("harness.learner.your_turn.where", lang, where=where) if where else "")


def no_limit_message(function: str, lang: str | None = None) -> str:
    return t("harness.learner.your_turn.no_limit", lang, function=function)


def call_with_time_limit(call: Callable[[], Any], *, function: str, path: Path,
                         seconds: float = YOUR_TURN_SECONDS, lang: str | None = None,
                         shown: str | None = None) -> tuple[bool, Any]:
    """Run ``call()`` (the learner's code: loading their file and calling their function)
    under ``time_limit``. ``(True, result)`` when it finished, whatever it raised propagating
    as usual; ``(False, None)`` after printing a short message when the time ran out. Where no
    limit can be set, a one-line note says how to stop a cell that hangs, then it runs."""
    try:
        with time_limit(seconds) as limited:
            if not limited:
                print(no_limit_message(function, lang))
            result = call()
    except TimeLimitReached as error:
        print(time_limit_message(error, function, path, lang, shown))
        return False, None
    return True, result
