"""One chapter source -> two notebooks: what goes into the ``.ipynb`` files, and nothing else.

``tools/build_notebooks.py`` uses this module to build and execute the editions;
``tests/test_editions.py`` uses it to check that the committed notebooks still match their
source. Keeping the "what a notebook should contain" rules here, in one place, is what lets
the test and the builder agree.

Rebuilding must give byte-identical files, so every cell gets a stable id derived from the
chapter and its position (``c02-007``), and everything that changes on each run (widget
state, timings, the exact Python version) is left out of the stored file.
"""

from __future__ import annotations

import importlib.util
import io
import os
import tokenize
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from learn_pi_lab.course.cells import Chapter, ChapterSourceError, Code, Markdown

LANGUAGES = ("zh", "en")
OTHER_EDITION = {"zh": ("en", "English edition"), "en": ("zh", "中文版")}
IGNORE_OUTPUT_TAG = "nbval-ignore-output"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# What the kernel reports, minus its exact version (that differs between machines).
LANGUAGE_INFO = {
    "codemirror_mode": {"name": "ipython", "version": 3},
    "file_extension": ".py",
    "mimetype": "text/x-python",
    "name": "python",
    "nbconvert_exporter": "python",
    "pygments_lexer": "ipython3",
}


CELL_TIMEOUT_SECONDS = 180


def kernel_environment(lang: str) -> dict[str, str]:
    """The environment a notebook runs in when it is built or tested: the edition's language
    for every package message, inline figures, and a fixed hash seed (set order)."""
    env = dict(os.environ)
    env["LEARN_PI_LAB_LANG"] = lang
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    env["PYTHONHASHSEED"] = "0"
    return env


@dataclass(frozen=True)
class ChapterSource:
    """A loaded ``notebooks/source/chNN_*.py``: its chapter, its cells and where it lives."""

    path: Path
    chapter: Chapter
    cells: tuple[Markdown | Code, ...]


def source_files(source_dir: Path) -> list[Path]:
    """Every chapter source, in chapter order."""
    return sorted(source_dir.glob("ch[0-9][0-9]_*.py"))


def load_source(path: Path) -> ChapterSource:
    """Import a chapter source file and check it holds ``CHAPTER`` and ``CELLS``."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"notebook_source_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ChapterSourceError(f"{path.name}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    chapter = getattr(module, "CHAPTER", None)
    cells = getattr(module, "CELLS", None)
    if not isinstance(chapter, Chapter):
        raise ChapterSourceError(f"{path.name}: CHAPTER = chapter(...) is missing")
    if not path.stem.startswith(f"ch{chapter.number}_"):
        raise ChapterSourceError(f"{path.name}: file name does not start with ch{chapter.number}_")
    if not isinstance(cells, (list, tuple)) or not cells:
        raise ChapterSourceError(f"{path.name}: CELLS must be a non-empty list")
    for index, cell in enumerate(cells):
        if not isinstance(cell, (Markdown, Code)):
            raise ChapterSourceError(
                f"{path.name}: CELLS[{index}] is {type(cell).__name__}, not md(...) or code(...)")
    return ChapterSource(path, chapter, tuple(cells))


def cell_id(chapter: Chapter, index: int) -> str:
    """``c02-007``: the same id on every rebuild, so diffs show only real changes."""
    return f"c{chapter.number}-{index:03d}"


def title_cell_text(chapter: Chapter, lang: str) -> str:
    """The first cell: the title and a link to the same chapter in the other language."""
    other, label = OTHER_EDITION[lang]
    link = f"../{other}/{chapter.filename}"
    return f"# {chapter.number} · {chapter.title(lang)}\n\n{label}: [{link}]({link})"


def build_edition(source: ChapterSource, lang: str) -> NotebookNode:
    """The unexecuted notebook of one edition: title cell, then the source cells in order."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
    chapter = source.chapter
    cells = [new_markdown_cell(title_cell_text(chapter, lang), id=cell_id(chapter, 0))]
    for index, cell in enumerate(source.cells, start=1):
        if isinstance(cell, Markdown):
            node = new_markdown_cell(cell.text(lang), id=cell_id(chapter, index))
            if cell.tags:
                node.metadata["tags"] = list(cell.tags)
            cells.append(node)
            continue
        node = new_code_cell(cell.text(lang), id=cell_id(chapter, index))
        tags = list(cell.tags)
        if cell.volatile:
            tags.append(IGNORE_OUTPUT_TAG)
            node.metadata["learn_pi_lab"] = {"volatile": cell.volatile}
        if tags:
            node.metadata["tags"] = tags
        cells.append(node)
    notebook = new_notebook(cells=cells)
    notebook.nbformat_minor = 5
    notebook.metadata = nbformat.from_dict({
        "kernelspec": KERNELSPEC,
        "language_info": LANGUAGE_INFO,
        "learn_pi_lab": {"chapter": chapter.number, "lang": lang,
                         "source": f"notebooks/source/{source.path.name}"},
    })
    return notebook


def tidy_executed(notebook: NotebookNode) -> NotebookNode:
    """Drop what changes on every run, keep the outputs a reader needs.

    * ``metadata.widgets``: stored widget state would be different on each run;
    * execution timings in cell metadata;
    * the widget-view part of an output (a random model id that means nothing once the
      kernel is gone): the output's text/plain and text/html fallbacks stay;
    * the kernel's exact Python version in ``language_info``;
    * how printed text happened to arrive: consecutive chunks of the same stream are joined
      into one output, so rebuilding an unchanged chapter gives the same file.
    """
    notebook.metadata.pop("widgets", None)
    notebook.metadata["language_info"] = nbformat.from_dict(LANGUAGE_INFO)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
        if "outputs" in cell:
            cell.outputs = _joined_streams(cell.outputs)
    return notebook


def _joined_streams(outputs: list) -> list:
    """``print`` output may reach the notebook in several chunks; store it as one."""
    joined: list = []
    for output in outputs:
        previous = joined[-1] if joined else None
        if (output.get("output_type") == "stream" and previous is not None
                and previous.get("output_type") == "stream"
                and previous.get("name") == output.get("name")):
            previous["text"] = "".join([previous["text"], output["text"]])
        else:
            joined.append(output)
    return joined


def without_comments(source: str) -> str:
    """A code cell's code with every ``#`` comment and blank line removed: what must be the
    same in both editions (comments are in the edition's language)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    lines = source.split("\n")
    for token in reversed(tokens):
        if token.type == tokenize.COMMENT:
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col]
    return "\n".join(line.rstrip() for line in lines if line.strip())
