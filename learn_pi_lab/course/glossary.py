"""The course's terminology: one Chinese word per idea, used the same way everywhere.

``glossary.json`` lists, in the order the course meets them, each term in Chinese and
English, what it means, and the Chinese variants to avoid (``"avoid"``): a learner who reads
父节点 in chapter 02 and 父条目 in a message will wonder whether they are two things.
Chapter 00 shows the table (``glossary_table(lang)``); ``tests/test_glossary.py`` scans the
Chinese text of the chapters, the messages, the self-checks and ``README_zh.md`` for the
variants (``find_variants``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator

GLOSSARY_FILE = Path(__file__).with_name("glossary.json")


@dataclass(frozen=True)
class Term:
    zh: str
    en: str
    meaning: dict[str, str]        # {"zh": ..., "en": ...}
    avoid: tuple[str, ...]         # Chinese variants not to use for this idea


@dataclass(frozen=True)
class Variant:
    """A place where a text uses a variant instead of the chosen term."""

    where: str      # file (and cell or key)
    variant: str
    term: str       # the chosen Chinese term
    excerpt: str    # the variant with a few characters around it


@lru_cache(maxsize=1)
def load_glossary(path: Path = GLOSSARY_FILE) -> tuple[Term, ...]:
    """Every term, checked: both languages, no term twice, no variant that is itself a term."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    terms = tuple(Term(item["zh"], item["en"], dict(item["meaning"]), tuple(item["avoid"]))
                  for item in raw)
    for field in ("zh", "en"):
        names = [getattr(term, field) for term in terms]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"{path.name}: {field} terms listed twice: {repeated}")
    chosen = {term.zh for term in terms}
    for term in terms:
        if not term.zh.strip() or not term.en.strip() or set(term.meaning) != {"zh", "en"}:
            raise ValueError(f"{path.name}: {term.en!r} needs zh, en and a meaning in both")
        clash = [variant for variant in term.avoid if variant in chosen]
        if clash:
            raise ValueError(f"{path.name}: {term.zh} avoids {clash}, which are terms themselves")
    return terms


def glossary_table(lang: str) -> str:
    """The markdown terminology table of chapter 00: 中文 | English | 含义 in course order in
    the Chinese edition; English | 中文 | Meaning from A to Z in the English one."""
    terms = load_glossary()
    if lang == "zh":
        lines = ["| 中文 | English | 含义 |", "|---|---|---|"]
        lines += [f"| {term.zh} | {term.en} | {term.meaning['zh']} |" for term in terms]
    else:
        lines = ["| English | 中文 | Meaning |", "|---|---|---|"]
        lines += [f"| {term.en} | {term.zh} | {term.meaning['en']} |"
                  for term in sorted(terms, key=lambda term: term.en.lower())]
    return "\n".join(lines)


def find_variants(texts: Iterable[tuple[str, str]],
                  terms: tuple[Term, ...] | None = None) -> list[Variant]:
    """Every use of an avoided variant in ``(where, Chinese text)`` pairs, in order."""
    terms = load_glossary() if terms is None else terms
    found = []
    for where, text in texts:
        for term in terms:
            for variant in term.avoid:
                start = text.find(variant)
                while start != -1:
                    excerpt = text[max(0, start - 8):start + len(variant) + 8].replace("\n", " ")
                    found.append(Variant(where, variant, term.zh, excerpt))
                    start = text.find(variant, start + 1)
    return found


def _zh_of(value: object) -> Iterator[str]:
    """Every Chinese text inside a catalog value or a question: each {"zh", "en"} pair's zh."""
    if isinstance(value, dict):
        if "zh" in value and "en" in value and isinstance(value["zh"], str):
            yield value["zh"]
        for key, inner in value.items():
            if key not in ("zh", "en"):
                yield from _zh_of(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _zh_of(inner)


def course_zh_texts(repo: Path) -> Iterator[tuple[str, str]]:
    """The Chinese a learner reads: the chapters' zh markdown, the messages, the
    self-check questions, the exercises' titles and hints, the workspace's files,
    notebooks/README.md and README_zh.md, as ``(where, text)`` pairs."""
    from learn_pi_lab.course.cells import Markdown
    from learn_pi_lab.course.editions import load_source

    for path in sorted((repo / "notebooks" / "source").glob("ch*.py")):
        for index, cell in enumerate(load_source(path).cells):
            if isinstance(cell, Markdown):
                yield f"notebooks/source/{path.name} cell {index}", cell.zh
    for folder in ("learn_pi_lab/messages", "learn_pi_lab/course/selfcheck"):
        for path in sorted((repo / folder).glob("*.json")):
            for key, value in json.loads(path.read_text(encoding="utf-8")).items():
                for text in _zh_of(value):
                    yield f"{folder}/{path.name} {key}", text
    exercises = repo / "learn_pi_lab" / "harness" / "exercises.json"
    for exercise in json.loads(exercises.read_text(encoding="utf-8")):
        for text in _zh_of(exercise):
            yield f"learn_pi_lab/harness/exercises.json {exercise.get('id')}", text
    for path in sorted((repo / "workspace").glob("*.*")):   # stubs (their docstrings), README
        # not .ipynb_checkpoints/, the folder JupyterLab adds once a stub is edited there
        # (`make test` then stopped on "IsADirectoryError"), nor an editor's hidden file
        if path.is_file() and not path.name.startswith("."):
            yield f"workspace/{path.name}", path.read_text(encoding="utf-8")
    for readme in (repo / "notebooks" / "README.md", repo / "README_zh.md"):
        if readme.exists():
            yield str(readme.relative_to(repo)), readme.read_text(encoding="utf-8")
