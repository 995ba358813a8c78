"""``learn-pi-lab class-report GRADES --out REPORT``: the class at a glance, after ``grade``.

``grade`` writes the gradebook (every learner x every exercise, with the failing test and its
message); this turns it into what a teacher looks at before the next lesson:

* ``report.html``: one page, nothing to install: the pass rate of every exercise as a chart
  (how many passed, failed, timed out, handed in code that is not their own, or have not
  started), who has not started at all, each exercise's most common failing test and message
  (where the class is stuck), and one row per learner;
* ``class-report.ipynb``: the same figures in a notebook, already run, to look further
  (``ClassReport`` is all it uses);
* ``lms.csv``: for a learning-management system's grade import: one row per learner, one
  column of points per exercise (1 for a pass, else 0), and the total.

With ``--submissions`` (the folder ``collect`` made) the learners who never opened the
course are in all three, as not started, with zero points.
"""

from __future__ import annotations

import argparse
import csv
import html
import io
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from learn_pi_lab.arguments import OneLineParser, UserError, parsed_or_said
from learn_pi_lab.errors import Explained
from learn_pi_lab.harness import catalog
from learn_pi_lab.harness.grade import spreadsheet_safe
from learn_pi_lab.harness.report import STATUS_MARK
from learn_pi_lab.i18n import current_language, explain, t

STATUSES = ("passed", "failed", "timed_out", "not_own_code", "not_started")
COLOURS = {"passed": "#1a7f37", "failed": "#cf222e", "timed_out": "#bf8700",
           "not_own_code": "#8250df", "not_started": "#afb8c1"}
FAILING = ("failed", "timed_out")
COLLECTED = ".collected.json"   # written by ``collect`` (learn_pi_lab.classroom.collect)


@dataclass
class ExerciseLine:
    """One exercise across the class."""
    id: str
    chapter: int
    title: str
    counts: Counter
    class_size: int
    common_test: str | None = None     # the most common failing test (or reason)
    common_message: str = ""           # that test's most common message (first line)
    common_count: int = 0

    @property
    def pass_rate(self) -> float:
        return self.counts["passed"] / self.class_size if self.class_size else 0.0


@dataclass
class LearnerLine:
    name: str
    statuses: dict[str, str]           # exercise id -> status
    notes: list[str] = field(default_factory=list)
    never_opened: bool = False

    @property
    def points(self) -> int:
        return sum(status == "passed" for status in self.statuses.values())


@dataclass
class ClassReport:
    """A gradebook (``gradebook.json``), and what ``collect`` said, as a teacher reads them."""
    exercise_ids: list[str]
    rows: list[dict]                   # the gradebook's results
    graded: list[str]
    never_opened: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    lang: str = "en"
    seed: str | None = None
    sandbox: str | None = None

    @classmethod
    def load(cls, grades: str | Path, submissions: str | Path | None = None,
             lang: str | None = None) -> "ClassReport":
        path = Path(grades)
        path = path if path.suffix == ".json" else path / "gradebook.json"
        try:
            book = json.loads(path.read_text(encoding="utf-8"))
            exercise_ids, rows, graded = book["exercises"], book["results"], book["learners"]
        except FileNotFoundError:
            raise UserError("classroom.report.no_gradebook", path=str(path)) from None
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise UserError("classroom.report.bad_gradebook", path=str(path),
                            detail=str(error)[:200]) from None
        collected: dict = {}
        if submissions is not None:
            manifest = Path(submissions) / COLLECTED
            try:
                collected = json.loads(manifest.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise UserError("classroom.report.no_manifest", path=str(manifest)) from None
            except (OSError, ValueError) as error:
                raise UserError("classroom.report.bad_gradebook", path=str(manifest),
                                detail=str(error)[:200]) from None
        never = sorted(set(collected.get("not_started", [])) - set(graded))
        return cls(exercise_ids, rows, list(graded), never,
                   dict(collected.get("skipped", {})), current_language(lang),
                   book.get("drawn_seed"), book.get("sandbox"))

    # --- the figures -------------------------------------------------------------------

    @property
    def class_size(self) -> int:
        return len(self.graded) + len(self.never_opened)

    def status(self, learner: str, exercise: str) -> str:
        return self.by_pair.get((learner, exercise), {}).get("status", "not_started")

    @cached_property
    def by_pair(self) -> dict[tuple[str, str], dict]:
        return {(row["learner"], row["exercise"]): row for row in self.rows}

    def exercise_lines(self) -> list[ExerciseLine]:
        lines = []
        for exercise_id in self.exercise_ids:
            counts = Counter(self.status(learner, exercise_id) for learner in self.graded)
            counts["not_started"] += len(self.never_opened)
            line = ExerciseLine(exercise_id, *self._chapter_and_title(exercise_id), counts,
                                self.class_size)
            failing = [row for row in self.rows
                       if row["exercise"] == exercise_id and row["status"] in FAILING]
            tests = Counter(row.get("test") or row.get("reason") or "?" for row in failing)
            if tests:
                line.common_test, line.common_count = tests.most_common(1)[0]
                messages = Counter(first_line(row.get("detail") or row.get("reason") or "")
                                   for row in failing
                                   if (row.get("test") or row.get("reason") or "?")
                                   == line.common_test)
                line.common_message = messages.most_common(1)[0][0]
            lines.append(line)
        return lines

    def _chapter_and_title(self, exercise_id: str) -> tuple[int, str]:
        try:
            exercise = catalog.get(exercise_id)
        except catalog.UnknownExercise:
            return 0, exercise_id
        return exercise.chapter, exercise.text("title", self.lang)

    def learner_lines(self) -> list[LearnerLine]:
        lines = []
        for learner in sorted([*self.graded, *self.never_opened]):
            statuses = {exercise: self.status(learner, exercise)
                        for exercise in self.exercise_ids}
            notes = [f"{row['exercise']}: {row['note']}" for row in self.rows
                     if row["learner"] == learner and row.get("note")]
            lines.append(LearnerLine(learner, statuses, notes, learner in self.never_opened))
        return lines

    def started_nothing(self) -> list[str]:
        """Graded learners who opened the course but have not started any exercise."""
        return [learner for learner in self.graded
                if all(self.status(learner, exercise) == "not_started"
                       for exercise in self.exercise_ids)]

    # --- shown in a notebook -----------------------------------------------------------

    def figure(self):
        """The pass rate of every exercise as stacked bars (a matplotlib figure)."""
        from matplotlib import rc_context

        from learn_pi_lab.drawing import style
        lang = style.figure_language(self.lang)
        lines = self.exercise_lines()
        height = 1.6 + 0.32 * max(len(lines), 1)
        figure = style.SessionFigure(figsize=(9.5, height), dpi=style.DPI)
        with rc_context(style.drawing_rc(lang)):
            axes = figure.add_axes((0.27, 1.05 / height, 0.63, 1 - 1.55 / height))
            labels = [f"{line.chapter:02d}  {line.id}" for line in lines]
            positions = list(range(len(lines)))[::-1]
            left = [0.0] * len(lines)
            for status in STATUSES:
                shares = [line.counts[status] / line.class_size if line.class_size else 0
                          for line in lines]
                axes.barh(positions, shares, left=left, color=COLOURS[status], height=0.7,
                          label=t(f"harness.status.{status}", lang), edgecolor="white",
                          linewidth=0.5)
                left = [a + b for a, b in zip(left, shares)]
            for position, line in zip(positions, lines):
                axes.text(1.01, position, f"{100 * line.pass_rate:.0f}%", va="center",
                          fontsize=style.TEXT_POINTS)
            axes.set_yticks(positions, labels)
            axes.set_xlim(0, 1)
            axes.set_xticks([0, 0.25, 0.5, 0.75, 1], ["0", "25%", "50%", "75%", "100%"])
            axes.spines[["top", "right"]].set_visible(False)
            axes.set_xlabel(t("classroom.report.chart.share", lang, count=self.class_size))
            figure.text(0.02, 1 - 0.3 / height, t("classroom.report.chart.title", lang),
                        fontsize=style.TITLE_POINTS, fontweight="bold", va="top")
            figure.legend(loc="lower center", ncol=len(STATUSES), frameon=False,
                          bbox_to_anchor=(0.5, 0.0))
        return figure

    def figure_svg(self) -> str:
        """The chart as SVG text, its letters drawn as shapes (no font needed to view it)."""
        from matplotlib import rc_context
        buffer = io.StringIO()
        with rc_context({"svg.fonttype": "path", "svg.hashsalt": "learn-pi-lab"}):
            self.figure().savefig(buffer, format="svg", metadata={"Date": None})
        text = buffer.getvalue()
        return text[text.index("<svg"):]

    def exercise_table(self) -> "Html":
        lang = self.lang
        head = [t(key, lang) for key in (
            "harness.col.chapter", "harness.col.exercise", "harness.col.title",
            "harness.grade.col.passed", "harness.grade.col.rate",
            "harness.grade.col.not_started", "classroom.report.col.stuck")]
        body = []
        for line in self.exercise_lines():
            stuck = ""
            if line.common_test:
                stuck = (f"<code>{esc(line.common_test)}</code> ×{line.common_count}"
                         f"<br><span class='msg'>{esc(line.common_message)}</span>")
            body.append([f"{line.chapter:02d}", f"<code>{esc(line.id)}</code>", esc(line.title),
                         f"{line.counts['passed']}/{line.class_size}",
                         f"{100 * line.pass_rate:.0f}%", str(line.counts["not_started"]),
                         stuck])
        return Html(table(head, body, "exercises"))

    def not_started_table(self) -> "Html":
        lang = self.lang
        parts = []
        if self.never_opened:
            parts.append(f"<p>{esc(t('classroom.report.never_opened', lang, count=len(self.never_opened)))} "
                         f"{esc(', '.join(self.never_opened))}</p>")
        nothing = self.started_nothing()
        if nothing:
            parts.append(f"<p>{esc(t('classroom.report.started_nothing', lang, count=len(nothing)))} "
                         f"{esc(', '.join(nothing))}</p>")
        for name, reason in self.skipped.items():
            parts.append(f"<p>{esc(t('classroom.report.skipped', lang, learner=name, reason=reason))}</p>")
        if not parts:
            parts.append(f"<p>{esc(t('classroom.report.everyone_started', lang))}</p>")
        return Html("".join(parts))

    def learner_table(self) -> "Html":
        lang = self.lang
        head = [t("harness.grade.col.learner", lang), t("classroom.report.col.points", lang),
                *[f"<code class='ex'>{esc(exercise)}</code>" for exercise in self.exercise_ids],
                t("harness.grade.col.notes", lang)]
        body = []
        for line in self.learner_lines():
            cells = [esc(line.name) + (f" <span class='msg'>({esc(t('classroom.report.never_opened_short', lang))})</span>"
                                       if line.never_opened else ""),
                     f"{line.points}/{len(self.exercise_ids)}"]
            for exercise in self.exercise_ids:
                status = line.statuses[exercise]
                cells.append(f"<span class='st {status}' title='{esc(t('harness.status.' + status, lang))}'>"
                             f"{STATUS_MARK[status]}</span>")
            cells.append("<br>".join(esc(note) for note in line.notes))
            body.append(cells)
        return Html(table(head, body, "learners", raw_head=True))

    # --- the files -----------------------------------------------------------------------

    def html_page(self) -> str:
        lang = self.lang
        legend = " ".join(f"<span class='st {status}'>{STATUS_MARK[status]}</span> "
                          f"{esc(t('harness.status.' + status, lang))}" for status in STATUSES)
        summary = t("classroom.report.summary", lang, learners=self.class_size,
                    graded=len(self.graded), never=len(self.never_opened),
                    exercises=len(self.exercise_ids))
        seed = (f"<p class='msg'>{esc(t('classroom.report.seed', lang, seed=self.seed))}</p>"
                if self.seed else "")
        return PAGE.format(
            lang="zh-CN" if lang == "zh" else "en", title=esc(t("classroom.report.title", lang)),
            summary=esc(summary), chart=self.figure_svg(),
            h_stuck=esc(t("classroom.report.h.exercises", lang)),
            exercises=self.exercise_table().html,
            h_not_started=esc(t("classroom.report.h.not_started", lang)),
            not_started=self.not_started_table().html,
            h_learners=esc(t("classroom.report.h.learners", lang)), legend=legend,
            learners=self.learner_table().html, seed=seed, style=STYLE)

    def lms_rows(self) -> list[list[object]]:
        header = ["username", *self.exercise_ids, "total"]
        rows = [header]
        for line in self.learner_lines():
            points = [1 if line.statuses[exercise] == "passed" else 0
                      for exercise in self.exercise_ids]
            rows.append([spreadsheet_safe(line.name), *points, sum(points)])
        return rows

    def write(self, out: Path, grades: Path, submissions: Path | None,
              run_notebook: bool = True) -> dict[str, Path]:
        out.mkdir(parents=True, exist_ok=True)
        written = {"html": out / "report.html", "csv": out / "lms.csv",
                   "notebook": out / "class-report.ipynb"}
        written["html"].write_text(self.html_page(), encoding="utf-8")
        with written["csv"].open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle).writerows(self.lms_rows())
        write_notebook(written["notebook"], grades, submissions, self.lang, run_notebook)
        return written


@dataclass
class Html:
    """HTML that shows itself as HTML in a notebook."""
    html: str

    def _repr_html_(self) -> str:
        return f"<style>{STYLE}</style>{self.html}"


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def first_line(text: str) -> str:
    line = (text.strip().splitlines() or [""])[0]
    return line if len(line) <= 160 else line[:157] + "..."


def table(head: list[str], body: list[list[str]], css: str, raw_head: bool = False) -> str:
    heads = "".join(f"<th>{cell if raw_head else esc(cell)}</th>" for cell in head)
    rows = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
                   for row in body)
    return f"<table class='{css}'><thead><tr>{heads}</tr></thead><tbody>{rows}</tbody></table>"


STYLE = """
body { font-family: "DejaVu Sans", "Noto Sans CJK SC", sans-serif; margin: 2em; color: #1f2328; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border-bottom: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
.msg { color: #57606a; font-size: 90%; }
.st { font-weight: bold; }
.st.passed { color: #1a7f37; } .st.failed { color: #cf222e; } .st.timed_out { color: #bf8700; }
.st.not_own_code { color: #8250df; } .st.not_started { color: #8c959f; }
table.learners td { text-align: center; } table.learners td:first-child,
table.learners td:last-child { text-align: left; }
svg { max-width: 100%; height: auto; }
code.ex { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; }
"""

PAGE = """<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>
<style>{style}</style></head>
<body>
<h1>{title}</h1>
<p>{summary}</p>
{chart}
<h2>{h_stuck}</h2>
{exercises}
<h2>{h_not_started}</h2>
{not_started}
<h2>{h_learners}</h2>
<p>{legend}</p>
{learners}
{seed}
</body></html>
"""


def write_notebook(path: Path, grades: Path, submissions: Path | None, lang: str,
                   run: bool) -> None:
    """The teachers' notebook: the same figures, computed by ``ClassReport``; run once here
    (with the kernel ``python3``) so it opens with its results."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
    load = (f"from learn_pi_lab.classroom.class_report import ClassReport\n"
            f"report = ClassReport.load({str(grades.resolve())!r}, "
            f"submissions={str(submissions.resolve()) if submissions else None!r}, "
            f"lang={lang!r})")
    cells = [new_markdown_cell(t("classroom.report.notebook.intro", lang)),
             new_code_cell(load),
             new_code_cell("report.figure()"),
             new_markdown_cell("## " + t("classroom.report.h.exercises", lang)),
             new_code_cell("report.exercise_table()"),
             new_markdown_cell("## " + t("classroom.report.h.not_started", lang)),
             new_code_cell("report.not_started_table()"),
             new_markdown_cell("## " + t("classroom.report.h.learners", lang)),
             new_code_cell("report.learner_table()")]
    notebook = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    if run:
        from nbclient import NotebookClient
        NotebookClient(notebook, timeout=120, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute(
            stderr=subprocess.DEVNULL)   # (the kernel's own start-up notes: not the teacher's concern)
    nbformat.write(notebook, str(path))


# --------------------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------------------

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(prog="learn-pi-lab class-report",
                           description="The class report: report.html, class-report.ipynb and "
                                       "lms.csv from a gradebook.")
    parser.add_argument("grades", type=Path, metavar="GRADES",
                        help="the folder grade wrote (gradebook.json)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="where the report is written")
    parser.add_argument("--submissions", type=Path, metavar="DIR",
                        help="the folder collect made: lists who never opened the course")
    parser.add_argument("--no-run", action="store_true",
                        help="write the notebook without running it")
    parser.add_argument("--lang", choices=("zh", "en"), help="language of the report")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parsed_or_said(parse_args, sys.argv[1:] if argv is None else argv)
    if args is None:
        return 2
    lang = current_language(args.lang)
    try:
        report = ClassReport.load(args.grades, args.submissions, lang)
        existing = [name for name in ("report.html", "lms.csv", "class-report.ipynb")
                    if (args.out / name).exists()]
        if existing:
            raise UserError("classroom.report.out_exists", path=str(args.out / existing[0]))
        written = report.write(args.out, args.grades, args.submissions, not args.no_run)
    except UserError as error:
        print(t(error.key, lang, **error.fields), file=sys.stderr)
        return 2
    except Explained as error:   # a Chinese report on a machine without a Chinese font
        print(explain(error, lang), file=sys.stderr)
        return 2
    except OSError as error:
        print(t("classroom.report.unwritable", lang, path=str(args.out),
                detail=error.strerror or str(error)), file=sys.stderr)
        return 2
    print(t("classroom.report.written", lang, **{key: str(path) for key, path in written.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
