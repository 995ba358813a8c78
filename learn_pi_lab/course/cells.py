"""The three building blocks of a chapter source file: ``chapter``, ``md`` and ``code``.

A chapter is written once, in ``notebooks/source/chNN_slug.py``::

    CHAPTER = chapter("02", "parent-pointers", zh="认父不认子", en="Parent pointers only")
    CELLS = [md(zh="## 学习目标 ...", en="## Learning goals ..."),
             code("tree = ...")]

Markdown carries both languages side by side; code is written once and shared by both
editions, so the Chinese and the English notebooks cannot drift apart. The checks here run
when the source file is imported, so a mistake fails the build at the line that made it.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

CHAPTER_NUMBER = re.compile(r"^\d{2}$")
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


class ChapterSourceError(ValueError):
    """A chapter source breaks the format: the message says what and where."""


@dataclass(frozen=True)
class Chapter:
    """A chapter's number, file slug and title in both languages."""

    number: str
    slug: str
    zh: str
    en: str

    @property
    def filename(self) -> str:
        """``02-parent-pointers.ipynb``: the same name in ``notebooks/zh`` and ``notebooks/en``."""
        return f"{self.number}-{self.slug}.ipynb"

    def title(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class Markdown:
    """One markdown cell, written in both languages."""

    zh: str
    en: str

    def text(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class Code:
    """One code cell, shared by both editions.

    ``volatile`` is the reason this cell's output may differ between runs (a timing, a
    widget). Such a cell is tagged ``nbval-ignore-output``: it must still run without error,
    but its output is not compared with the stored one.
    """

    source: str
    volatile: str | None = None


def _tidy(text: str) -> str:
    """Drop the indentation of a triple-quoted string and the blank lines around it."""
    return textwrap.dedent(text).strip("\n").rstrip()


def _required_text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ChapterSourceError(f"{what} must be a non-empty string, got {value!r}")
    return _tidy(value)


def chapter(number: str, slug: str, *, zh: str, en: str) -> Chapter:
    """Declare the chapter: ``chapter("02", "parent-pointers", zh=..., en=...)``."""
    if not isinstance(number, str) or not CHAPTER_NUMBER.match(number):
        raise ChapterSourceError(f"chapter number must be two digits like '02', got {number!r}")
    if not isinstance(slug, str) or not SLUG.match(slug):
        raise ChapterSourceError(f"slug must be lowercase words joined by '-', got {slug!r}")
    return Chapter(number, slug, _required_text(zh, "chapter title zh"),
                   _required_text(en, "chapter title en"))


def md(*, zh: str, en: str) -> Markdown:
    """A markdown cell: both languages are required, neither may be empty."""
    return Markdown(_required_text(zh, "md(zh=...)"), _required_text(en, "md(en=...)"))


def code(source: str, volatile: str | None = None) -> Code:
    """A code cell; give ``volatile`` (the reason) only for timings and widgets."""
    if volatile is not None:
        volatile = _required_text(volatile, "code(volatile=...)")
    return Code(_required_text(source, "code(source)"), volatile)
