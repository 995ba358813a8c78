"""Check a chapter's exercises from inside its notebook: ``check("02")``.

The same runner as ``make verify``, limited to one chapter, shown as a table in the notebook
(HTML) or as text anywhere else. No widgets: the result is an ordinary object whose
``_repr_html_`` Jupyter draws, so it also survives in a saved notebook.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

from learn_pi_lab.harness import catalog, report
from learn_pi_lab.harness.runner import DEFAULT_TIMEOUT, ExerciseResult, run_exercises
from learn_pi_lab.i18n import current_language, t

STATUS_COLOUR = {"passed": "#1a7f37", "failed": "#cf222e", "timed_out": "#9a6700",
                 "not_started": "#57606a", "not_own_code": "#cf222e"}


@dataclass
class ChapterCheck:
    """The results of one chapter's exercises; displays itself as a table."""

    chapter: int
    exercises: list[catalog.Exercise]
    results: list[ExerciseResult]
    lang: str
    workspace_label: str = "workspace"

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
        details = self._details()
        if details is None:
            lines.append(t("harness.all_passed", lang, count=len(self.results)))
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
            colour = STATUS_COLOUR[result.status]
            tds = [f"<td>{html.escape(cell)}</td>" for cell in cells[:-1]]
            tds.append(f"<td style='color:{colour};font-weight:bold'>{html.escape(cells[-1])}</td>")
            rows.append("<tr>" + "".join(tds) + "</tr>")
        heading = t("harness.notebook.heading", lang, chapter=f"{self.chapter:02d}",
                    workspace=self.workspace_label)
        parts = [f"<div class='lpl-check'><p><b>{html.escape(heading)}</b></p>",
                 f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>",
                 f"<p>{html.escape(report.counts_line(self.results, lang))}</p>"]
        details = self._details()
        if details is None:
            all_passed = t("harness.all_passed", lang, count=len(self.results))
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


def check(chapter: int | str, *, workspace: str | Path | None = None,
          lang: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> ChapterCheck:
    """Run chapter ``chapter``'s exercises against your workspace and show the results."""
    number = chapter_number(chapter)
    folder = Path(workspace) if workspace is not None else catalog.default_workspace()
    language = current_language(lang)
    exercises = list(catalog.for_chapter(number))
    results = run_exercises(exercises, folder, timeout=timeout, lang=language)
    label = report.relative_label(folder, catalog.REPO_ROOT)
    return ChapterCheck(number, exercises, results, language, label)
