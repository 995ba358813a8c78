"""``learn-pi-lab class-report``: the page, the notebook and the LMS CSV say what the
gradebook says.

The gradebook here is written by hand in ``grade``'s format (``gradebook.json``: one row per
learner and exercise) so that every case is present at once: a pass, two failures of the same
test with different messages, a timeout, code that is not the learner's own, a learner who
started nothing, one who never opened the course and one ``collect`` could not read (from
``collect``'s ``.collected.json``), names that would be markup or a spreadsheet formula.
The end-to-end test makes the report from a real grading (``tests/test_classroom_hub.py``).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from learn_pi_lab.classroom import class_report
from learn_pi_lab.classroom.class_report import ClassReport

EXERCISES = ["tolerant-reader", "path-to", "validate"]
LEARNERS = ["ana", "bo", "<b>chen</b>", "=dan"]


def row(learner, exercise, status, test=None, detail="", reason=None, note=""):
    return {"learner": learner, "exercise": exercise, "chapter": 1 if exercise ==
            "tolerant-reader" else 2, "status": status, "seconds": 0.5, "reason": reason,
            "test": test, "detail": detail, "where": None, "output": "", "note": note}


@pytest.fixture
def class_folder(tmp_path: Path) -> dict[str, Path]:
    rows = [
        row("ana", "tolerant-reader", "passed", note="same as the reference solution"),
        row("ana", "path-to", "passed"),
        row("ana", "validate", "failed", "ValidateTests.test_cycle",
            "AssertionError: expected ParentCycle\nmore lines", "assertion"),
        row("bo", "tolerant-reader", "timed_out", reason="timeout"),
        row("bo", "path-to", "failed", "PathToTests.test_root_first",
            "AssertionError: path_to(..., 'c') should return the branch root first"),
        row("bo", "validate", "failed", "ValidateTests.test_cycle",
            "AssertionError: expected ParentCycle"),
        row("<b>chen</b>", "tolerant-reader", "not_own_code", reason="not-own-code"),
        row("<b>chen</b>", "path-to", "failed", "PathToTests.test_root_first",
            "AssertionError: path_to(..., 'c') should return the branch root first"),
        row("<b>chen</b>", "validate", "failed", "ValidateTests.test_cycle",
            "AssertionError: cycle <script>alert(1)</script>"),
        *[row("=dan", exercise, "not_started", reason="not-implemented")
          for exercise in EXERCISES],
    ]
    grades = tmp_path / "grades"
    grades.mkdir()
    (grades / "gradebook.json").write_text(json.dumps({
        "learners": LEARNERS, "exercises": EXERCISES, "results": rows, "summary": {},
        "drawn_seed": "12345", "sandbox": "bwrap"}), encoding="utf-8")
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    (submissions / ".collected.json").write_text(json.dumps({
        "learners": {name: {} for name in LEARNERS}, "not_started": ["eve"],
        "skipped": {"fay": "cannot be read: Permission denied"}}), encoding="utf-8")
    return {"grades": grades, "submissions": submissions, "out": tmp_path / "report"}


def test_the_figures_per_exercise(class_folder):
    report = ClassReport.load(class_folder["grades"], class_folder["submissions"], "en")
    assert report.class_size == 5   # four graded, eve never opened the course
    lines = {line.id: line for line in report.exercise_lines()}
    assert lines["path-to"].counts["passed"] == 1 and lines["path-to"].counts["failed"] == 2
    assert lines["path-to"].counts["not_started"] == 2          # =dan and eve
    assert lines["path-to"].pass_rate == pytest.approx(0.2)
    assert (lines["validate"].common_test, lines["validate"].common_count) == \
        ("ValidateTests.test_cycle", 3)
    assert lines["validate"].common_message == "AssertionError: expected ParentCycle"
    assert lines["tolerant-reader"].counts["timed_out"] == 1
    assert lines["tolerant-reader"].counts["not_own_code"] == 1
    assert lines["tolerant-reader"].common_test == "timeout"
    assert report.started_nothing() == ["=dan"]
    assert report.never_opened == ["eve"]


def test_the_page_shows_everything_and_obeys_no_name(class_folder, capsys):
    code = class_report.main([str(class_folder["grades"]), "--submissions",
                              str(class_folder["submissions"]), "--out",
                              str(class_folder["out"]), "--lang", "en", "--no-run"])
    assert code == 0, capsys.readouterr().err
    page = (class_folder["out"] / "report.html").read_text(encoding="utf-8")
    assert "<svg" in page and "Pass rate per exercise" in page
    assert "<b>chen</b>" not in page and "&lt;b&gt;chen&lt;/b&gt;" in page
    assert "<script>alert" not in page
    assert "ValidateTests.test_cycle</code> ×3" in page
    assert "Never opened the course (1): eve" in page
    assert "Opened the course but started no exercise (1): =dan" in page
    assert "Not collected: fay: cannot be read: Permission denied" in page
    assert page.count("<tr>") == 3 + 1 + 5 + 1   # exercises, learners (each with a header)
    assert "The drawn inputs of this grading came from seed 12345" in page


def test_the_lms_csv_has_one_row_per_learner_and_a_column_per_exercise(class_folder):
    report = ClassReport.load(class_folder["grades"], class_folder["submissions"], "en")
    report.write(class_folder["out"], class_folder["grades"], class_folder["submissions"],
                 run_notebook=False)
    with (class_folder["out"] / "lms.csv").open(encoding="utf-8", newline="") as handle:
        table = list(csv.reader(handle))
    assert table[0] == ["username", *EXERCISES, "total"]
    rows = {line[0]: line[1:] for line in table[1:]}
    assert rows == {"ana": ["1", "1", "0", "2"], "bo": ["0", "0", "0", "0"],
                    "<b>chen</b>": ["0", "0", "0", "0"], "'=dan": ["0", "0", "0", "0"],
                    "eve": ["0", "0", "0", "0"]}


def test_the_notebook_shows_the_same_figures_once_run(class_folder):
    report = ClassReport.load(class_folder["grades"], class_folder["submissions"], "zh")
    written = report.write(class_folder["out"], class_folder["grades"],
                           class_folder["submissions"])
    notebook = json.loads(written["notebook"].read_text(encoding="utf-8"))
    outputs = [output for cell in notebook["cells"] for output in cell.get("outputs", [])]
    assert not [output for output in outputs if output["output_type"] == "error"]
    assert any("image/png" in output.get("data", {}) for output in outputs)
    html = "".join("".join(output.get("data", {}).get("text/html", "")) for output in outputs)
    assert "ValidateTests.test_cycle</code> ×3" in html and "从没打开过课程（1 人）" in html


def test_bad_inputs_are_one_line_and_nothing_is_overwritten(class_folder, tmp_path, capsys):
    code = class_report.main([str(tmp_path / "none"), "--out", str(tmp_path / "r")])
    assert code == 2 and "gradebook.json not found" in capsys.readouterr().err
    code = class_report.main([str(class_folder["grades"]), "--submissions", str(tmp_path),
                              "--out", str(tmp_path / "r"), "--lang", "en"])
    assert code == 2 and ".collected.json not found" in capsys.readouterr().err
    (class_folder["grades"] / "broken").mkdir()
    (class_folder["grades"] / "broken" / "gradebook.json").write_text("{", encoding="utf-8")
    code = class_report.main([str(class_folder["grades"] / "broken"), "--out",
                              str(tmp_path / "r"), "--lang", "en"])
    assert code == 2 and "was not written by grade" in capsys.readouterr().err
    out = class_folder["out"]
    out.mkdir()
    (out / "lms.csv").write_text("mine\n", encoding="utf-8")
    code = class_report.main([str(class_folder["grades"]), "--out", str(out), "--no-run",
                              "--lang", "en"])
    assert code == 2 and "never overwrites" in capsys.readouterr().err
    assert (out / "lms.csv").read_text(encoding="utf-8") == "mine\n"
