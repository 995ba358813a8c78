"""Build the workbook: each ``notebooks/source/chNN_*.py`` -> ``notebooks/zh`` and ``notebooks/en``.

    python tools/build_notebooks.py                 # every chapter, executed
    python tools/build_notebooks.py --chapter 03    # one chapter
    python tools/build_notebooks.py --no-execute    # structure only, no outputs
    python tools/build_notebooks.py --retag         # only refresh cell tags, keep outputs

Each edition runs on a fresh kernel, in its own folder (``notebooks/<lang>/``), with
``LEARN_PI_LAB_LANG=<lang>`` so the package's messages print in the edition's language.
Outputs are kept; run-to-run noise (widget state, timings) is dropped, so rebuilding an
unchanged chapter rewrites identical files. A failing cell stops the build with the chapter,
the edition and the cell index.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from learn_pi_lab.course.editions import (  # noqa: E402  (needs the repo on sys.path first)
    CELL_TIMEOUT_SECONDS, LANGUAGES, ChapterSource, build_edition, kernel_environment, load_source,
    source_files, tidy_executed)

SOURCE_DIR = REPO / "notebooks" / "source"
# Run by the kernel before the first cell: PNG files without the "Software: matplotlib x.y"
# stamp, so a figure's bytes depend only on what is drawn.
KERNEL_STARTUP = ("get_ipython().run_line_magic('config', \"InlineBackend.print_figure_kwargs"
                  " = {'bbox_inches': 'tight', 'metadata': {'Software': None}}\")")


class BuildError(RuntimeError):
    """The build cannot produce a correct notebook; the message says which and why."""


def first_error(notebook: nbformat.NotebookNode) -> tuple[int, str] | None:
    """(cell index, "Name: value") of the first cell whose output is an error."""
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                return index, f"{output.get('ename')}: {output.get('evalue')}"
    return None


def machine_specific_text(notebook: nbformat.NotebookNode) -> tuple[int, str] | None:
    """A cell whose text output shows this machine's repository path (it would differ
    on the next machine: print ``show_path(p)`` instead)."""
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            texts = [output.get("text", "")]
            texts += [v for v in output.get("data", {}).values() if isinstance(v, str)]
            if any(str(REPO) in text for text in texts):
                return index, str(REPO)
    return None


def execute(notebook: nbformat.NotebookNode, where: str, lang: str) -> nbformat.NotebookNode:
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_SECONDS,
        kernel_name="python3",
        resources={"metadata": {"path": str(REPO / "notebooks" / lang)}},
        record_timing=False,
        store_widget_state=False,
        extra_arguments=[f"--IPKernelApp.exec_lines={KERNEL_STARTUP}"],
    )
    try:
        client.execute(env=kernel_environment(lang))
    except CellExecutionError as error:
        found = first_error(notebook)
        if found is None:
            raise BuildError(f"{where}: a cell failed:\n{error}") from None
        index, summary = found
        raise BuildError(f"{where}, cell {index}: {summary}\n{error}") from None
    except (CellTimeoutError, DeadKernelError) as error:
        raise BuildError(f"{where}: {type(error).__name__}: {error}") from None
    leaked = machine_specific_text(notebook)
    if leaked is not None:
        raise BuildError(f"{where}, cell {leaked[0]}: the output shows the local path "
                         f"{leaked[1]!r}; print learn_pi_lab.course.paths.show_path(p) instead")
    return tidy_executed(notebook)


def build_chapter(source: ChapterSource, run: bool) -> list[Path]:
    written = []
    for lang in LANGUAGES:
        notebook = build_edition(source, lang)
        target = REPO / "notebooks" / lang / source.chapter.filename
        where = f"chapter {source.chapter.number} ({lang}: {target.relative_to(REPO)})"
        if run:
            notebook = execute(notebook, where, lang)
        nbformat.validate(notebook)
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, str(target))
        written.append(target)
    return written


def retag_chapter(source: ChapterSource) -> list[Path]:
    """Copy the source's cell tags into the committed notebooks, keeping their outputs.

    For a change of tags only (no cell's text changed), so a chapter need not be executed
    again; a notebook whose cells no longer match the source must be rebuilt instead.
    """
    written = []
    for lang in LANGUAGES:
        target = REPO / "notebooks" / lang / source.chapter.filename
        built = build_edition(source, lang)
        stored = nbformat.read(str(target), as_version=4)
        same = len(stored.cells) == len(built.cells) and all(
            have.source == want.source for have, want in zip(stored.cells, built.cells))
        if not same:
            raise BuildError(f"chapter {source.chapter.number} ({lang}): the cells differ from "
                             "the source; rebuild it: --chapter " + source.chapter.number)
        changed = False
        for have, want in zip(stored.cells, built.cells):
            tags = want.metadata.get("tags", [])
            if have.metadata.get("tags", []) != tags:
                changed = True
                if tags:
                    have.metadata["tags"] = tags
                else:
                    have.metadata.pop("tags", None)
        if changed:
            nbformat.write(stored, str(target))
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", help="build only this chapter, e.g. 03")
    parser.add_argument("--no-execute", action="store_true",
                        help="write the notebooks without running them (no outputs)")
    parser.add_argument("--retag", action="store_true",
                        help="only copy the cell tags of the source into the committed notebooks")
    args = parser.parse_args(argv)
    paths = source_files(SOURCE_DIR)
    if args.chapter is not None:
        paths = [p for p in paths if p.name.startswith(f"ch{args.chapter.zfill(2)}_")]
        if not paths:
            print(f"no source notebooks/source/ch{args.chapter.zfill(2)}_*.py", file=sys.stderr)
            return 2
    for path in paths:
        try:
            source = load_source(path)
            targets = (retag_chapter(source) if args.retag
                       else build_chapter(source, run=not args.no_execute))
            for target in targets:
                print(f"wrote {target.relative_to(REPO)}", flush=True)
        except (BuildError, ValueError) as error:
            print(f"BUILD FAILED: {error}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
