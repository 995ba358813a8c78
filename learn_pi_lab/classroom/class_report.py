"""The class report a teacher looks at, and the CSV a learning-management system imports.

``grade`` writes both beside its gradebook (``report.html``, ``lms.csv``);
``python -m learn_pi_lab report GRADEBOOK_DIR`` writes them again from ``gradebook.json``.
A teachers' notebook shows the same figures (``classroom/class-report-zh.ipynb``, ``-en``),
drawn by the same functions:

* ``exercise_summary``: per exercise, the pass rate, how many have not started, and the most
  common failing test with its most common message (where the class struggles);
* ``pass_rate_figure``: the same as a chart, one bar per exercise split by status;
* ``not_started``: who has started nothing, and per exercise who has not started it;
* ``learner_rows``: each learner's row, one mark per exercise, and their total;
* ``lms_rows``: one row per learner, one column of points per exercise, and a total.

The page is one file, for a browser: the chart is inline SVG, every text from the gradebook
(learners' folder names, messages their code printed) is escaped, nothing is fetched.
"""

from __future__ import annotations

import argparse
import csv
import html
import io
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from learn_pi_lab.cli.arguments import OneLineParser, UserError, parsed_or_said
from learn_pi_lab.harness import catalog
from learn_pi_lab.i18n import current_language, t

STATUSES = ("passed", "failed", "timed_out", "not_started", "not_own_code")
MARKS = {"passed": "✓", "failed": "✗", "timed_out": "∞", "not_started": "·",
         "not_own_code": "⊘"}
COLOURS = {"passed": "#2e7d32", "failed": "#c62828", "timed_out": "#ef6c00",
           "not_started": "#9e9e9e", "not_own_code": "#6a1b9a"}
MESSAGE_SHOWN = 200   # characters of a failing test's message in the report


def load_gradebook(folder: Path) -> dict:
    """``folder/gradebook.json`` as ``grade`` wrote it (``UserError`` when it is not one)."""
    path = Path(folder) / "gradebook.json"
    try:
        book = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise UserError("classroom.report.no_gradebook", path=str(path)) from None
    if not (isinstance(book, dict) and isinstance(book.get("results"), list)
            and isinstance(book.get("learners"), list)
            and isinstance(book.get("exercises"), list)):
        raise UserError("classroom.report.no_gradebook", path=str(path))
    return book


def _results(book: dict) -> list[dict]:
    return [row for row in book["results"] if isinstance(row, dict)]


def exercise_summary(book: dict) -> list[dict]:
    """Per exercise, in the gradebook's order: ``exercise``, ``chapter``, ``counts`` (per
    status), ``total``, ``pass_rate``, ``not_started`` (learners), ``common_test``,
    ``common_count`` and ``common_message`` (the most common failing test, and the most
    common message it gave)."""
    summary = []
    for exercise in book["exercises"]:
        rows = [row for row in _results(book) if row.get("exercise") == exercise]
        counts = Counter(row.get("status") for row in rows)
        failing = [row for row in rows if row.get("status") in ("failed", "timed_out")]
        tests = Counter(row.get("test") or row.get("reason") or "?" for row in failing)
        common_test, common_count = tests.most_common(1)[0] if tests else (None, 0)
        messages = Counter(str(row.get("detail") or "")[:MESSAGE_SHOWN] for row in failing
                           if (row.get("test") or row.get("reason") or "?") == common_test)
        summary.append({
            "exercise": exercise, "chapter": _chapter(exercise),
            "counts": {status: counts.get(status, 0) for status in STATUSES},
            "total": len(rows),
            "pass_rate": counts.get("passed", 0) / len(rows) if rows else 0.0,
            "not_started": sorted(str(row.get("learner")) for row in rows
                                  if row.get("status") == "not_started"),
            "common_test": common_test, "common_count": common_count,
            "common_message": messages.most_common(1)[0][0] if messages else "",
        })
    return summary


def _chapter(exercise: str) -> int | None:
    try:
        return catalog.get(exercise).chapter
    except Exception:   # an exercise this course no longer has
        return None


def learner_rows(book: dict) -> list[dict]:
    """Each learner: ``learner``, ``statuses`` (exercise -> status), ``passed``, ``total``,
    ``notes`` (how many exercises carry a note)."""
    rows = []
    for learner in book["learners"]:
        mine = {row.get("exercise"): row for row in _results(book)
                if row.get("learner") == learner}
        statuses = {exercise: mine.get(exercise, {}).get("status", "not_started")
                    for exercise in book["exercises"]}
        rows.append({"learner": str(learner), "statuses": statuses,
                     "passed": sum(status == "passed" for status in statuses.values()),
                     "total": len(statuses),
                     "notes": sum(1 for row in mine.values() if row.get("note"))})
    return rows


def not_started(book: dict) -> list[str]:
    """The learners who have started no exercise at all."""
    return [row["learner"] for row in learner_rows(book)
            if all(status == "not_started" for status in row["statuses"].values())]


def lms_rows(book: dict) -> list[list[Any]]:
    """The CSV a learning-management system imports: a header, then one row per learner:
    the learner, one column of points per exercise (1 when it passed, else 0), the total."""
    header = ["learner", *book["exercises"], "total"]
    rows: list[list[Any]] = [header]
    for row in learner_rows(book):
        points = [1 if row["statuses"][exercise] == "passed" else 0
                  for exercise in book["exercises"]]
        rows.append([row["learner"], *points, sum(points)])
    return rows


def write_lms_csv(book: dict, path: Path) -> None:
    from learn_pi_lab.harness.report import spreadsheet_safe   # (the gradebook's own rule)
    with Path(path).open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        for row in lms_rows(book):
            writer.writerow([spreadsheet_safe(cell) for cell in row])


def pass_rate_figure(book: dict, lang: str | None = None):
    """One horizontal bar per exercise, split by status (how many learners in each)."""
    from matplotlib import rc_context

    from learn_pi_lab.drawing.style import SessionFigure, drawing_rc
    summary = exercise_summary(book)
    height = max(2.8, 0.38 * len(summary) + 1.8)
    with rc_context(drawing_rc(lang)):
        figure = SessionFigure(figsize=(9, height))   # (shows itself in a notebook)
        axes = figure.subplots()
        labels = [f"{item['chapter']:02d} {item['exercise']}" if item["chapter"] is not None
                  else item["exercise"] for item in summary]
        positions = list(range(len(summary)))[::-1]
        left = [0] * len(summary)
        for status in STATUSES:
            widths = [item["counts"][status] for item in summary]
            axes.barh(positions, widths, left=left, color=COLOURS[status],
                      label=t(f"harness.status.{status}", lang), height=0.7)
            left = [a + b for a, b in zip(left, widths)]
        axes.set_yticks(positions, labels)
        axes.set_xlabel(t("classroom.report.learners_axis", lang))
        axes.set_title(t("classroom.report.chart_title", lang))
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.55 / height * 3),
                    ncol=len(STATUSES), fontsize="small", frameon=False)
        axes.set_xlim(0, max([item["total"] for item in summary] + [1]))
        for spine in ("top", "right"):
            axes.spines[spine].set_visible(False)
        figure.tight_layout()
    return figure


def figure_svg(figure, lang: str | None = None) -> str:
    """The figure as SVG text, to put in a page (no XML prologue)."""
    from matplotlib import rc_context

    from learn_pi_lab.drawing.style import drawing_rc
    buffer = io.StringIO()
    with rc_context(drawing_rc(lang)):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buffer.getvalue()
    return text[text.index("<svg"):]


STYLE = """
body{font-family:system-ui,"Noto Sans CJK SC",sans-serif;margin:2em;color:#222;max-width:75em}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:.3em .6em;
text-align:left;vertical-align:top}th{background:#f3f3f3}td.mark{text-align:center}
.passed{color:#2e7d32}.failed{color:#c62828}.timed_out{color:#ef6c00}.not_started{color:#777}
.not_own_code{color:#6a1b9a}code{font-size:90%}.small{font-size:90%;color:#555}
"""


def report_html(book: dict, lang: str | None = None) -> str:
    """The class report as one page (see the module docstring)."""
    lang = current_language(lang)
    e = html.escape
    summary = exercise_summary(book)
    parts = [f"<!DOCTYPE html>\n<html lang=\"{'zh-CN' if lang == 'zh' else 'en'}\"><head>"
             f"<meta charset=\"utf-8\"><title>{e(t('classroom.report.title', lang))}</title>"
             f"<style>{STYLE}</style></head><body>",
             f"<h1>{e(t('classroom.report.title', lang))}</h1>",
             f"<p class=\"small\">{e(t('classroom.report.facts', lang, learners=len(book['learners']), exercises=len(book['exercises']), seed=book.get('drawn_seed', '-'), sandbox=book.get('sandbox', '-')))}</p>"]
    try:
        parts.append(figure_svg(pass_rate_figure(book, lang), lang))
    except Exception as error:   # no matplotlib, no CJK font: the tables still say it all
        parts.append(f"<p>{e(t('classroom.report.no_chart', lang, error=str(error)))}</p>")
    parts.append(f"<h2>{e(t('classroom.report.by_exercise', lang))}</h2><table><tr>")
    for column in ("chapter", "exercise", "passed", "rate", "not_started", "common",
                   "message"):
        parts.append(f"<th>{e(t(f'classroom.report.col.{column}', lang))}</th>")
    parts.append("</tr>")
    for item in summary:
        chapter = f"{item['chapter']:02d}" if item["chapter"] is not None else ""
        common = (f"<code>{e(str(item['common_test']))}</code> ({item['common_count']})"
                  if item["common_test"] else "")
        parts.append(
            f"<tr><td>{chapter}</td><td><code>{e(item['exercise'])}</code></td>"
            f"<td>{item['counts']['passed']}/{item['total']}</td>"
            f"<td>{100 * item['pass_rate']:.0f}%</td><td>{item['counts']['not_started']}</td>"
            f"<td>{common}</td><td class=\"small\">{e(item['common_message'])}</td></tr>")
    parts.append("</table>")
    idle = not_started(book)
    parts.append(f"<h2>{e(t('classroom.report.not_started', lang))}</h2>")
    parts.append(f"<p>{e(', '.join(idle)) if idle else e(t('classroom.report.everyone_started', lang))}</p>")
    parts.append(f"<h2>{e(t('classroom.report.by_learner', lang))}</h2><table><tr>"
                 f"<th>{e(t('classroom.report.col.learner', lang))}</th>")
    for exercise in book["exercises"]:
        parts.append(f"<th title=\"{e(exercise)}\"><code>{e(exercise)}</code></th>")
    parts.append(f"<th>{e(t('classroom.report.col.total', lang))}</th>"
                 f"<th>{e(t('classroom.report.col.notes', lang))}</th></tr>")
    for row in learner_rows(book):
        parts.append(f"<tr><td>{e(row['learner'])}</td>")
        for exercise in book["exercises"]:
            status = row["statuses"][exercise]
            label = t(f"harness.status.{status}", lang) if status in STATUSES else status
            parts.append(f"<td class=\"mark {e(status)}\" title=\"{e(label)}\">"
                         f"{MARKS.get(status, '?')}</td>")
        parts.append(f"<td>{row['passed']}/{row['total']}</td><td>{row['notes'] or ''}</td></tr>")
    parts.append("</table>")
    legend = ", ".join(f"{MARKS[status]} {t(f'harness.status.{status}', lang)}"
                       for status in STATUSES)
    parts.append(f"<p class=\"small\">{e(legend)}</p>")
    skipped = book.get("skipped") or {}
    if isinstance(skipped, dict) and skipped:
        parts.append(f"<h2>{e(t('classroom.report.skipped', lang))}</h2><ul>")
        for name, why in sorted(skipped.items()):
            parts.append(f"<li>{e(str(name))}: {e(str(why))}</li>")
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return "".join(parts)


def summary_text(book: dict, lang: str | None = None) -> str:
    """``exercise_summary`` as a text table (the teachers' notebook prints it)."""
    from learn_pi_lab.harness.report import text_table
    headers = [t(f"classroom.report.col.{column}", lang) for column in
               ("chapter", "exercise", "passed", "rate", "not_started", "common")]
    rows = [[f"{item['chapter']:02d}" if item["chapter"] is not None else "",
             item["exercise"], f"{item['counts']['passed']}/{item['total']}",
             f"{100 * item['pass_rate']:.0f}%", str(item["counts"]["not_started"]),
             f"{item['common_test']} ({item['common_count']})" if item["common_test"] else ""]
            for item in exercise_summary(book)]
    return text_table(headers, rows)


def learners_text(book: dict, lang: str | None = None) -> str:
    """``learner_rows`` as a text table, one mark per exercise (``MARKS``)."""
    from learn_pi_lab.harness.report import text_table
    headers = [t("classroom.report.col.learner", lang), *book["exercises"],
               t("classroom.report.col.total", lang)]
    rows = [[row["learner"], *(MARKS.get(row["statuses"][exercise], "?")
                               for exercise in book["exercises"]),
             f"{row['passed']}/{row['total']}"] for row in learner_rows(book)]
    return text_table(headers, rows)


def write_reports(folder: Path, book: dict, lang: str | None = None) -> tuple[Path, Path]:
    """``report.html`` and ``lms.csv`` in ``folder`` (beside the gradebook)."""
    page, table = Path(folder) / "report.html", Path(folder) / "lms.csv"
    from learn_pi_lab.harness.report import writable_text   # (a lone surrogate a learner's
    page.write_text(writable_text(report_html(book, lang)), encoding="utf-8")  # code printed)
    write_lms_csv(book, table)
    return page, table


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(prog="python3 -m learn_pi_lab report",
                           description="The class report and the LMS CSV, from a gradebook.")
    parser.add_argument("gradebook", type=Path, metavar="GRADEBOOK_DIR",
                        help="the folder grade wrote (gradebook.json is read)")
    parser.add_argument("--lang", choices=("zh", "en"), help="language of the report")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parsed_or_said(parse_args, sys.argv[1:] if argv is None else argv)
    if args is None:
        return 2
    lang = current_language(args.lang)
    try:
        book = load_gradebook(args.gradebook)
        page, table = write_reports(args.gradebook, book, lang)
    except UserError as wrong:
        print(t(wrong.key, lang, **wrong.fields), file=sys.stderr)
        return 2
    except OSError as error:
        print(t("classroom.report.unwritable", lang, error=str(error)), file=sys.stderr)
        return 2
    print(t("classroom.report.written", lang, page=str(page), table=str(table)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
