"""The inspector's report as text, in the learner's language (the command line, chapter 07).

``session_inspector.inspect_session`` builds the report as plain data and speaks no
language; this module, at the edge, lays it out as aligned lines in Chinese or English.
"""

from __future__ import annotations

from typing import Any, Iterable

from learn_pi_lab.entry_text import value_text
from learn_pi_lab.i18n import current_language, display_width, explain, shortened, t
from learn_pi_lab.jsonl.reader import Diagnostic
from learn_pi_lab.pi.context import CURRENT_PI_VERSION
from learn_pi_lab.cli.terminal_text import shown


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{key} {value}" for key, value in counts.items()) or "-"


def _ids(ids: Iterable[str], lang: str, limit: int = 8) -> str:
    """The first ``limit`` ids, then how many more."""
    ids = list(ids)
    text = ", ".join(ids[:limit])
    if len(ids) > limit:
        text += ", " + t("inspect.more", lang, count=len(ids) - limit)
    return text or "-"


def render_report(report: dict[str, Any], lang: str | None = None) -> str:
    """The report as a few aligned lines of text, in Chinese or English."""
    lang = current_language(lang)   # decided once, not once per line
    usage = report["usage"]
    rows = [
        (t("inspect.session", lang), f"{report['session_id']}  (v{report['version']})"),
        (t("inspect.cwd", lang), str(report["cwd"])),
        (t("inspect.parent", lang), str(report["parent_session"] or "-")),
        (t("inspect.name", lang), str(report["name"] or "-")),
        (t("inspect.entries", lang), f"{report['entries']}  ({_counts(report['by_type'])})"),
        (t("inspect.roles", lang), _counts(report["by_role"])),
        (t("inspect.tree", lang), t("inspect.tree_shape", lang, roots=len(report["roots"]),
                                    leaves=len(report["leaves"]),
                                    branch_points=report["branch_points"],
                                    depth=report["max_depth"])),
        (t("inspect.roots", lang), _ids(report["roots"], lang)),
        (t("inspect.leaves", lang), _ids(report["leaves"], lang)),
        (t("inspect.leaf", lang), str(report["leaf"] or "-")),
        (t("inspect.compactions", lang), t("inspect.summaries", lang,
                                           compactions=report["compactions"],
                                           branch_summaries=report["branch_summaries"])),
        (t("inspect.labels", lang), ", ".join(f"{target}={value_text(label)}" for target, label
                                              in report["labels"].items()) or "-"),
        (t("inspect.models", lang), ", ".join(report["models"]) or "-"),
        (t("inspect.pi_1x", lang), t("inspect.pi_1x_line" if report.get("pi_version")
                                     == CURRENT_PI_VERSION else "inspect.pi_1x_line_unknown",
                                     lang,
                                     context_edits=report.get("context_edits", 0),
                                     usage_entries=report.get("usage_entries", 0),
                                     pi_version=report.get("pi_version", "0.84.2"))),
        (t("inspect.usage", lang), t("inspect.usage_line", lang, input=usage["input"],
                                     output=usage["output"], cost=usage["cost"])),
        # A prompt of several lines is shown on one, so the rows stay aligned.
        (t("inspect.first_message", lang),
         " ".join((report["first_user_message"] or "-").split())[:72]),
    ]
    width = max(display_width(label) for label, _ in rows)
    # one line per row and per problem, whatever the file's ids and texts hold (shown)
    lines = [label + " " * (width - display_width(label) + 2) + shown(shortened(value, lang))
             for label, value in rows]
    problems = report["problems"]
    total = sum(report.get("problem_counts", {}).values()) or len(problems)
    lines.append(t("inspect.problems", lang, count=total))
    for found in problems:
        lines.append("  " + shown(explain(Diagnostic(
            found["line"], found["code"], found["severity"], found["entry_id"], found["detail"],
            found.get("first_line"), found.get("raw_error", ""), found.get("count")), lang)))
    return "\n".join(lines)
