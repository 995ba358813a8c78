"""Write and execute the teachers' class-report notebooks (``classroom/class-report-zh.ipynb``
and ``-en``): the class report's figures, drawn by ``learn_pi_lab.classroom.class_report``
from a gradebook (the sample in ``classroom/sample-gradebook/`` until a teacher points it at
their own ``grade --out`` folder). ``make notebooks`` runs this too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from learn_pi_lab.course.editions import kernel_environment, tidy_executed  # noqa: E402

TEXT = {
    "zh": {
        "title": "# 班级报告（给老师）\n\n"
                 "和 `grade` 写出的 `report.html` 同样的图表，画图的是同一套函数"
                 "（`learn_pi_lab.classroom.class_report`）。把 `GRADES` 改成你的 `grade --out` "
                 "文件夹，然后运行全部单元格；现在它读的是 `classroom/sample-gradebook/` 里的样例成绩表"
                 "（6 位学员、4 个练习）。",
        "chart": "## 每个练习的完成情况\n\n每个练习一条横条，按状态分段：多少人通过、未通过、超时、未开始、不是自己的代码。",
        "summary": "## 全班卡在哪里\n\n每个练习最常见的失败测试：先在课上讲它。",
        "idle": "## 一个练习都还没开始的学员",
        "learners": "## 每位学员\n\n✓ 通过，✗ 未通过，∞ 超时，· 未开始，⊘ 不是自己的代码。",
    },
    "en": {
        "title": "# The class report (for teachers)\n\n"
                 "The same figures as the `report.html` that `grade` writes, drawn by the same "
                 "functions (`learn_pi_lab.classroom.class_report`). Set `GRADES` to your "
                 "`grade --out` folder and run all cells; it reads the sample gradebook in "
                 "`classroom/sample-gradebook/` now (6 learners, 4 exercises).",
        "chart": "## Where the class stands, per exercise\n\nOne bar per exercise, split by status: "
                 "how many passed, failed, timed out, have not started, or used code not their own.",
        "summary": "## Where the class struggles\n\nEach exercise's most common failing test: "
                   "the one to talk about in class first.",
        "idle": "## Learners who have started nothing yet",
        "learners": "## Each learner\n\n✓ passed, ✗ failed, ∞ timed out, · not started, "
                    "⊘ not own code.",
    },
}


def build(lang: str) -> nbformat.NotebookNode:
    words = TEXT[lang]
    cells = [
        nbformat.v4.new_markdown_cell(words["title"]),
        nbformat.v4.new_code_cell(
            "from pathlib import Path\n\n"
            "from learn_pi_lab.classroom.class_report import (learners_text, load_gradebook,\n"
            "                                                  not_started, pass_rate_figure,\n"
            "                                                  summary_text)\n\n"
            "GRADES = Path(\"sample-gradebook\")\n"
            "book = load_gradebook(GRADES)\n"
            f"LANG = {lang!r}"),
        nbformat.v4.new_markdown_cell(words["chart"]),
        nbformat.v4.new_code_cell("pass_rate_figure(book, LANG)"),
        nbformat.v4.new_markdown_cell(words["summary"]),
        nbformat.v4.new_code_cell("print(summary_text(book, LANG))"),
        nbformat.v4.new_markdown_cell(words["idle"]),
        nbformat.v4.new_code_cell("print(\", \".join(not_started(book)) or \"-\")"),
        nbformat.v4.new_markdown_cell(words["learners"]),
        nbformat.v4.new_code_cell("print(learners_text(book, LANG))"),
    ]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(REPO / "classroom")}}).execute(
        env=kernel_environment(lang))
    return tidy_executed(notebook)


def main() -> int:
    for lang in ("zh", "en"):
        path = REPO / "classroom" / f"class-report-{lang}.ipynb"
        nbformat.write(build(lang), path)
        print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
