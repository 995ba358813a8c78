"""The committed notebooks are what their sources build, and the two editions agree.

``notebooks/source/chNN_*.py`` is the truth; ``notebooks/zh`` and ``notebooks/en`` are built
from it by ``tools/build_notebooks.py``. Someone may still edit a notebook in JupyterLab and
commit it: these tests catch that, naming the chapter and the cell. The fix is always the
same: edit the source, then ``make notebooks`` (or ``python tools/build_notebooks.py
--chapter NN``).
"""

from __future__ import annotations

import unittest
from pathlib import Path

import nbformat

from learn_pi_lab.course.editions import (IGNORE_OUTPUT_TAG, KERNELSPEC, LANGUAGES, WIDGET_VIEW,
                                          build_edition, load_source, source_files,
                                          without_comments)

REPO = Path(__file__).resolve().parent.parent
SOURCES = source_files(REPO / "notebooks" / "source")
FIX = "edit notebooks/source, then run: python tools/build_notebooks.py --chapter {number}"
ACTING_TAGS = ("predict", "your-turn", "rerun")
# Chapters whose acting cells are still being written elsewhere: none. A number listed here
# must still miss a tag (the test fails otherwise), so the list cannot go stale.
ACTING_TAGS_PENDING: set[str] = set()


def committed(lang: str, filename: str) -> nbformat.NotebookNode:
    path = REPO / "notebooks" / lang / filename
    if not path.is_file():
        raise AssertionError(f"notebooks/{lang}/{filename} is missing; "
                             + FIX.format(number=filename[:2]))
    return nbformat.read(path, as_version=4)


class Editions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sources = [load_source(path) for path in SOURCES]

    def test_chapter_00_exists(self):
        self.assertIn("ch00_start_here.py", [path.name for path in SOURCES])

    def test_every_source_has_both_editions_and_no_notebook_lacks_a_source(self):
        expected = {source.chapter.filename for source in self.sources}
        for lang in LANGUAGES:
            present = {path.name for path in (REPO / "notebooks" / lang).glob("*.ipynb")}
            self.assertEqual(sorted(expected - present), [],
                             f"notebooks/{lang}: missing editions (run make notebooks)")
            self.assertEqual(sorted(present - expected), [],
                             f"notebooks/{lang}: notebooks without a source in notebooks/source")

    def test_committed_cells_are_what_the_source_builds(self):
        for source in self.sources:
            number = source.chapter.number
            for lang in LANGUAGES:
                built = build_edition(source, lang)
                stored = committed(lang, source.chapter.filename)
                where = f"chapter {number} ({lang}/{source.chapter.filename})"
                self.assertEqual(len(stored.cells), len(built.cells),
                                 f"{where}: {len(stored.cells)} cells, the source builds "
                                 f"{len(built.cells)}; " + FIX.format(number=number))
                for index, (have, want) in enumerate(zip(stored.cells, built.cells)):
                    with self.subTest(chapter=number, lang=lang, cell=index):
                        message = f"{where}, cell {index}: differs from the source; " + \
                            FIX.format(number=number)
                        self.assertEqual(have.cell_type, want.cell_type, message)
                        self.assertEqual(have.source, want.source, message)
                        self.assertEqual(have.get("id"), want.get("id"), message)
                        self.assertEqual(have.metadata.get("tags", []),
                                         want.metadata.get("tags", []), message)

    def test_code_cells_identical_in_both_editions(self):
        # Comments are in the edition's language (# zh: / # en: in the source); the code is not.
        for source in self.sources:
            zh = committed("zh", source.chapter.filename)
            en = committed("en", source.chapter.filename)
            zh_code = [(i, without_comments(c.source)) for i, c in enumerate(zh.cells)
                       if c.cell_type == "code"]
            en_code = [(i, without_comments(c.source)) for i, c in enumerate(en.cells)
                       if c.cell_type == "code"]
            self.assertEqual(len(zh_code), len(en_code),
                             f"chapter {source.chapter.number}: zh has {len(zh_code)} code "
                             f"cells, en has {len(en_code)}")
            for (zi, zs), (ei, es) in zip(zh_code, en_code):
                self.assertEqual((zi, zs), (ei, es),
                                 f"chapter {source.chapter.number}: code cell at zh index {zi} "
                                 f"/ en index {ei} differs between the editions")

    def test_markdown_cells_are_non_empty(self):
        for source in self.sources:
            for lang in LANGUAGES:
                notebook = committed(lang, source.chapter.filename)
                for index, cell in enumerate(notebook.cells):
                    if cell.cell_type == "markdown":
                        self.assertTrue(cell.source.strip(),
                                        f"chapter {source.chapter.number} ({lang}), cell "
                                        f"{index}: empty markdown")

    def test_first_cell_links_to_the_other_edition(self):
        labels = {"zh": ("en", "English edition"), "en": ("zh", "中文版")}
        for source in self.sources:
            for lang, (other, label) in labels.items():
                first = committed(lang, source.chapter.filename).cells[0]
                link = f"../{other}/{source.chapter.filename}"
                self.assertEqual(first.cell_type, "markdown")
                self.assertTrue(first.source.startswith(f"# {source.chapter.number} "),
                                f"chapter {source.chapter.number} ({lang}): no title")
                self.assertIn(f"{label}: [{link}]({link})", first.source,
                              f"chapter {source.chapter.number} ({lang}): no link to {other}")
                self.assertTrue((REPO / "notebooks" / other / source.chapter.filename).is_file())

    def test_notebooks_were_executed_top_to_bottom_by_the_builder(self):
        for source in self.sources:
            for lang in LANGUAGES:
                notebook = committed(lang, source.chapter.filename)
                where = f"chapter {source.chapter.number} ({lang})"
                counts = [c.execution_count for c in notebook.cells if c.cell_type == "code"]
                self.assertEqual(counts, list(range(1, len(counts) + 1)),
                                 f"{where}: not executed once, top to bottom, on a fresh "
                                 f"kernel; " + FIX.format(number=source.chapter.number))
                self.assertEqual(notebook.metadata.get("kernelspec"), KERNELSPEC, where)
                self.assertNotIn("widgets", notebook.metadata, f"{where}: stored widget state")
                for index, cell in enumerate(notebook.cells):
                    self.assertNotIn("execution", cell.metadata, f"{where}, cell {index}: timings")
                    for output in cell.get("outputs", []):
                        self.assertNotEqual(output.get("output_type"), "error",
                                            f"{where}, cell {index}: stored an error")
                        self.assertNotIn(WIDGET_VIEW, output.get("data", {}),
                                         f"{where}, cell {index}: stored a widget model id")

    def test_every_chapter_01_to_08_lets_the_learner_act(self):
        """Issue 10: each chapter 01-08 has a predict, a your-turn and a rerun cell, in both
        editions (read from the committed notebooks, where tools find them)."""
        chapters = {source.chapter.number: source for source in self.sources}
        for number in [f"{n:02d}" for n in range(1, 9)]:
            self.assertIn(number, chapters, f"chapter {number} has no source")
            for lang in LANGUAGES:
                notebook = committed(lang, chapters[number].chapter.filename)
                present = {tag for cell in notebook.cells for tag in cell.metadata.get("tags", [])}
                missing = [tag for tag in ACTING_TAGS if tag not in present]
                where = f"chapter {number} ({lang})"
                if number in ACTING_TAGS_PENDING:
                    self.assertTrue(missing, f"{where} has every acting tag now: remove it from "
                                    "ACTING_TAGS_PENDING in tests/test_editions.py")
                    continue
                self.assertEqual(missing, [], f"{where}: no cell tagged {missing}; tag the cells "
                                 "where the learner acts: code(..., tags=(\"predict\",))")

    def test_volatile_cells_are_tagged_with_their_reason(self):
        for source in self.sources:
            notebook = committed("zh", source.chapter.filename)
            for index, cell in enumerate(notebook.cells):
                if IGNORE_OUTPUT_TAG in cell.metadata.get("tags", []):
                    reason = cell.metadata.get("learn_pi_lab", {}).get("volatile", "")
                    self.assertTrue(reason.strip(), f"chapter {source.chapter.number}, cell "
                                    f"{index}: ignored output without a reason")


if __name__ == "__main__":
    unittest.main()
