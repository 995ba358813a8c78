"""Every committed notebook runs from top to bottom on a fresh kernel without an error.

``make test`` also runs nbval, which compares each cell's output with the stored one; this
module is the other half: it runs each notebook once with nbclient (the way the builder
does), reports the first failing cell by index, and for chapter 03 checks the interactive
tree playground's widget state as the kernel left them: every entry is a clickable node,
the leaf is marked, the file view is filled, and the saved output has a static picture.
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
NOTEBOOKS = sorted(path.relative_to(REPO / "notebooks").as_posix()
                   for lang in LANGUAGES for path in (REPO / "notebooks" / lang).glob("*.ipynb"))
EXPLORER_CHAPTER = "03-rewind-and-branch.ipynb"
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


@pytest.mark.parametrize("relative", NOTEBOOKS)
def test_notebook_runs_without_errors(relative):
    notebook, _ = executed(relative)
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", (
                f"notebooks/{relative}, cell {index}: {output.get('ename')}: {output.get('evalue')}")


def test_there_are_notebooks_in_both_editions():
    for lang in LANGUAGES:
        assert any(name.startswith(f"{lang}/") for name in NOTEBOOKS), f"no notebooks/{lang}/*.ipynb"


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
