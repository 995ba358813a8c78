"""One Chinese word per idea: the terms chosen in chapter 00's table are the ones used in
the chapters, the messages, the self-checks and README_zh.md (issue 10, item 4).

``learn_pi_lab/course/glossary.json`` is the table's data, with the Chinese variants to
avoid for each term. The scan below finds every use of a variant. Texts owned by other
parts of the project that still use one are listed in ``KNOWN_DRIFT`` (file, variant): a
new variant anywhere fails, and so does a listed one that has been fixed (remove it here),
so the list can only shrink.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from learn_pi_lab.course.cells import Markdown
from learn_pi_lab.course.editions import load_source
from learn_pi_lab.course.glossary import (Term, course_zh_texts, find_variants, glossary_table,
                                          load_glossary)

REPO = Path(__file__).resolve().parents[1]

# Variants still used in texts this branch does not own; their owners replace them.
KNOWN_DRIFT: set[tuple[str, str]] = set()


def drift() -> set[tuple[str, str]]:
    return {(variant.where.split(" ")[0], variant.variant)
            for variant in find_variants(course_zh_texts(REPO))}


def test_the_glossary_loads_with_both_languages():
    terms = load_glossary()
    assert len(terms) >= 40
    assert {"游乐场", "父节点", "会话", "条目"} <= {term.zh for term in terms}
    assert all(term.meaning["zh"] and term.meaning["en"] for term in terms)
    assert sum(bool(term.avoid) for term in terms) >= 15


def test_chapter_00_shows_the_glossary_table():
    source = load_source(next((REPO / "notebooks" / "source").glob("ch00_*.py")))
    for lang in ("zh", "en"):
        markdown = "\n".join(getattr(cell, lang) for cell in source.cells
                             if isinstance(cell, Markdown))
        assert glossary_table(lang) in markdown, f"ch00 ({lang}) does not show glossary_table"


def test_glossary_table_has_one_row_per_term_in_each_language():
    terms = load_glossary()
    zh_rows = glossary_table("zh").splitlines()[2:]
    en_rows = glossary_table("en").splitlines()[2:]
    assert [row.split(" | ")[0].strip("| ") for row in zh_rows] == [term.zh for term in terms]
    assert [row.split(" | ")[0].strip("| ") for row in en_rows] == sorted(
        (term.en for term in terms), key=str.lower)


def test_no_new_variant_anywhere_and_no_fixed_one_still_listed():
    found = drift()
    assert found - KNOWN_DRIFT == set(), "a variant of a glossary term is used (see above)"
    assert KNOWN_DRIFT - found == set(), "fixed: remove these from KNOWN_DRIFT"


def test_the_texts_this_branch_owns_use_only_the_chosen_terms():
    owned = ("learn_pi_lab/course/selfcheck/", "learn_pi_lab/messages/course.json",
             "learn_pi_lab/messages/drawing.json")
    assert [variant for variant in find_variants(course_zh_texts(REPO))
            if variant.where.startswith(owned)] == []


def test_the_scan_reads_every_kind_of_text():
    places = {where.split(" ")[0] for where, _ in course_zh_texts(REPO)}
    assert "README_zh.md" in places
    assert any(place.startswith("notebooks/source/ch03_") for place in places)
    assert "learn_pi_lab/messages/drawing.json" in places
    assert "learn_pi_lab/course/selfcheck/ch05.json" in places
    # (a language review found variants in hints, a stub's docstring and notebooks/README.md)
    assert {"learn_pi_lab/harness/exercises.json", "workspace/ch04_failures.py",
            "workspace/README.md", "notebooks/README.md"} <= places


def test_find_variants_sees_a_variant_and_not_the_term():
    terms = (Term("父节点", "parent", {"zh": "…", "en": "…"}, ("父条目",)),)
    found = find_variants([("a", "条目 a2 的父条目是 a1"), ("b", "条目 a2 的父节点是 a1")], terms)
    assert [(variant.where, variant.variant, variant.term) for variant in found] == [
        ("a", "父条目", "父节点")]
    assert "父条目是 a1" in found[0].excerpt


def test_a_broken_glossary_is_refused():
    good = {"zh": "父节点", "en": "parent", "meaning": {"zh": "x", "en": "y"}, "avoid": []}
    cases = {
        "twice": [good, dict(good)],
        "variant is a term": [dict(good, avoid=["根"]), dict(good, zh="根", en="root")],
        "no meaning": [dict(good, meaning={"zh": "x"})],
    }
    for name, content in cases.items():
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "glossary.json"
            path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
            with pytest.raises(ValueError):
                load_glossary.__wrapped__(path)


def test_the_scan_reads_the_workspace_files_and_skips_what_jupyterlab_adds(tmp_path):
    # (a learner's review: once a stub was edited in `make lab`, JupyterLab's
    # workspace/.ipynb_checkpoints/ folder stopped `make test` with IsADirectoryError)
    (tmp_path / "learn_pi_lab" / "harness").mkdir(parents=True)
    (tmp_path / "learn_pi_lab" / "harness" / "exercises.json").write_text("[]", encoding="utf-8")
    workspace = tmp_path / "workspace"
    (workspace / ".ipynb_checkpoints").mkdir(parents=True)
    (workspace / ".ipynb_checkpoints" / "ch05_x-checkpoint.py").write_text("旧的", encoding="utf-8")
    (workspace / ".ch05_x.py.swp").write_bytes(b"\xff\xfe")
    (workspace / "ch05_x.py").write_text("练习", encoding="utf-8")
    assert list(course_zh_texts(tmp_path)) == [("workspace/ch05_x.py", "练习")]
