"""Chapter 03's tree playground, as the kernel leaves it after the whole chapter ran.

Every notebook is executed once per edition by nbval in ``make test`` (``tools/run_tests.py``:
no error, and every text output as stored). What nbval cannot see is the state of the
playground's widgets in the kernel: this module runs chapter 03 (both editions) with nbclient,
as the builder does, and checks that state: every entry is a clickable node, the leaf is
marked, the file view is filled, and the saved output has a static picture.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from learn_pi_lab.course.editions import CELL_TIMEOUT_SECONDS, LANGUAGES, kernel_environment

REPO = Path(__file__).resolve().parent.parent
EXPLORER_CHAPTER = "03-rewind-and-branch.ipynb"
NOTEBOOKS = sorted(f"{lang}/{EXPLORER_CHAPTER}" for lang in LANGUAGES
                   if (REPO / "notebooks" / lang / EXPLORER_CHAPTER).is_file())
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

# Run in the same kernel after the explorer chapter: for every TreePlayground still alive,
# its widget model id, the entries of its file and its leaf (see
# learn_pi_lab/playground/widget.py for these names).
EXPLORER_PROBE = '''
import gc as _gc, json as _json
from learn_pi_lab.playground.widget import TreePlayground as _TreePlayground
print("EXPLORER-PROBE " + _json.dumps([
    {"model": _widget.model_id, "entries": [entry["id"] for entry in _widget.pg.entries],
     "leaf": _widget.pg.leaf_id}
    for _widget in _gc.get_objects() if isinstance(_widget, _TreePlayground)]))
'''


class NotebookFailed(AssertionError):
    pass


@lru_cache(maxsize=None)
def executed(relative: str) -> tuple[nbformat.NotebookNode, list | None]:
    """Run one notebook (once per test session); for the explorer chapter, also the probe."""
    path = REPO / "notebooks" / relative
    lang = path.parent.name
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    is_explorer = path.name == EXPLORER_CHAPTER
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT_SECONDS, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}},
                            store_widget_state=is_explorer, record_timing=False)
    probe_report = None
    with client.setup_kernel(env=kernel_environment(lang)):
        for index, cell in enumerate(notebook.cells):
            try:
                client.execute_cell(cell, index)
            except CellExecutionError as error:
                raise NotebookFailed(f"notebooks/{relative}, cell {index} failed:\n{error}") from None
        if is_explorer:
            probe = nbformat.v4.new_code_cell(EXPLORER_PROBE)
            notebook.cells.append(probe)
            try:
                client.execute_cell(probe, len(notebook.cells) - 1)
            except CellExecutionError as error:
                raise NotebookFailed(f"notebooks/{relative}: the explorer probe failed:\n{error}") from None
            finally:
                notebook.cells.pop()
            lines = [line for output in probe.outputs if output.get("name") == "stdout"
                     for line in output["text"].splitlines() if line.startswith("EXPLORER-PROBE ")]
            probe_report = json.loads(lines[-1].split(" ", 1)[1]) if lines else None
            client.set_widgets_metadata()
    return notebook, probe_report


def test_there_are_notebooks_in_both_editions():
    for lang in LANGUAGES:
        assert len(list((REPO / "notebooks" / lang).glob("*.ipynb"))) >= 9, f"notebooks/{lang}/"


def widget_models(notebook: nbformat.NotebookNode) -> dict[str, dict]:
    return notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})


@pytest.mark.parametrize("lang", LANGUAGES)
def test_explorer_state_after_running_chapter_03(lang):
    relative = f"{lang}/{EXPLORER_CHAPTER}"
    assert relative in NOTEBOOKS, f"notebooks/{relative} is missing: the explorer chapter is mandatory"
    notebook, report = executed(relative)
    assert report, f"notebooks/{relative}: no TreePlayground is alive after running the chapter"
    models = widget_models(notebook)
    assert models, f"notebooks/{relative}: no widget state was recorded"
    for number, playground in enumerate(report):
        where = f"notebooks/{relative}, playground {number}"
        state = models.get(playground["model"], {}).get("state", {})
        assert state.get("_esm") and "export default" in state["_esm"], f"{where}: no ESM stored"
        view = state.get("state", {})
        svg = view.get("tree_svg", "")
        # every entry of the file is a clickable node, and the leaf is marked
        for entry_id in playground["entries"]:
            assert f'data-id="{entry_id}"' in svg, f"{where}: entry {entry_id} is not drawn"
        assert view.get("leaf") == playground["leaf"], f"{where}: the stored leaf differs"
        assert f'lpl-leaf" data-id="{playground["leaf"]}"' in svg or re.search(
            rf'lpl-leaf[^"]*" data-id="{re.escape(str(playground["leaf"]))}"', svg), (
            f"{where}: the leaf {playground['leaf']} is not marked in the drawing")
        assert view.get("file", {}).get("lines"), f"{where}: the file view is empty"
    # a reader without a kernel sees a picture, not a bare widget repr
    fallbacks = [output for cell in notebook.cells for output in cell.get("outputs", [])
                 if "<svg" in output.get("data", {}).get("text/html", "")
                 and "lpl-playground-static" in output["data"]["text/html"]]
    assert fallbacks, f"notebooks/{relative}: the playground output has no static HTML picture"
