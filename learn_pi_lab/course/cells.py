"""The three building blocks of a chapter source file: ``chapter``, ``md`` and ``code``.

A chapter is written once, in ``notebooks/source/chNN_slug.py``::

    CHAPTER = chapter("02", "parent-pointers", zh="认父不认子", en="Parent pointers only")
    CELLS = [md(zh="## 学习目标 ...", en="## Learning goals ..."),
             code("tree = ...")]

Markdown carries both languages side by side; code is written once and shared by both
editions, so the Chinese and the English notebooks cannot drift apart. Only a code cell's
comments may differ: a comment written ``# zh: 中文`` / ``# en: English`` (a line of its own,
or both on one line: ``# zh: 中文 # en: English``) or ``x = 1  # zh: 一 # en: one`` (after
code) is kept in its edition only, as a plain ``#`` comment (see ``edition_code``). The
checks here run when the source file is imported, so a mistake fails the build at the line
that made it.

Cells may carry tags (``tags=("predict",)``), written into the notebook cell's metadata so
tools and tests can find the cells where the learner acts: ``predict`` (commit a guess, then
run), ``your-turn`` (runs the learner's own ``workspace/`` code), ``rerun`` (change a value
and run again), ``self-check`` (added automatically to any cell that calls ``ask(``).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

CHAPTER_NUMBER = re.compile(r"^\d{2}$")
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


COURSE_TAGS = ("predict", "your-turn", "rerun", "self-check")
SELF_CHECK_CALL = re.compile(r"\bask\(")
# "# zh: text" on a line of its own, "# zh: text # en: text" (both languages) on a line of
# its own, and "code  # zh: text # en: text" after code.
EDITION_COMMENT_PAIR = re.compile(
    r"^(?P<indent>\s*)#\s*zh:\s?(?P<zh>.*?)\s+#\s*en:\s?(?P<en>.*)$")
EDITION_COMMENT_LINE = re.compile(r"^(?P<indent>\s*)#\s*(?P<lang>zh|en):\s?(?P<text>.*)$")
EDITION_COMMENT_TAIL = re.compile(
    r"^(?P<code>.*?\S)(?P<gap>\s+)#\s*zh:\s?(?P<zh>.*?)\s+#\s*en:\s?(?P<en>.*)$")


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
    tags: tuple[str, ...] = ()

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
    tags: tuple[str, ...] = ()

    def text(self, lang: str) -> str:
        """The cell's code as the ``lang`` edition shows it (see ``edition_code``)."""
        return edition_code(self.source, lang)


def edition_code(source: str, lang: str) -> str:
    """Keep the ``lang`` comments of a code cell and drop the other language's.

    ``# zh: 读取文件`` on its own line becomes ``# 读取文件`` in the Chinese edition and
    disappears from the English one; ``# zh: 读取 # en: read it`` on its own line becomes
    ``# 读取`` or ``# read it``; ``n = 3  # zh: 三条 # en: three entries`` becomes
    ``n = 3  # 三条`` or ``n = 3  # three entries``. Everything else is left as written.
    """
    lines = []
    for line in source.split("\n"):
        pair = EDITION_COMMENT_PAIR.match(line)
        if pair:
            lines.append(f"{pair['indent']}# {pair[lang]}".rstrip())
            continue
        whole = EDITION_COMMENT_LINE.match(line)
        if whole:
            if whole["lang"] == lang:
                lines.append(f"{whole['indent']}# {whole['text']}".rstrip())
            continue
        tail = EDITION_COMMENT_TAIL.match(line)
        if tail:
            line = f"{tail['code']}{tail['gap']}# {tail[lang]}".rstrip()
        lines.append(line)
    return "\n".join(lines)


def _checked_tags(tags: object, what: str) -> tuple[str, ...]:
    if isinstance(tags, str) or not isinstance(tags, (tuple, list)):
        raise ChapterSourceError(f"{what}: tags must be a tuple like ('predict',), got {tags!r}")
    for tag in tags:
        if tag not in COURSE_TAGS:
            raise ChapterSourceError(f"{what}: unknown tag {tag!r}; allowed: {COURSE_TAGS}")
    return tuple(dict.fromkeys(tags))


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


def md(*, zh: str, en: str, tags: tuple[str, ...] = ()) -> Markdown:
    """A markdown cell: both languages are required, neither may be empty."""
    return Markdown(_required_text(zh, "md(zh=...)"), _required_text(en, "md(en=...)"),
                    _checked_tags(tags, "md(tags=...)"))


def code(source: str, volatile: str | None = None, tags: tuple[str, ...] = ()) -> Code:
    """A code cell; give ``volatile`` (the reason) only for timings and widgets, ``tags``
    for the cells where the learner acts (``predict``, ``your-turn``, ``rerun``)."""
    if volatile is not None:
        volatile = _required_text(volatile, "code(volatile=...)")
    source = _required_text(source, "code(source)")
    tags = _checked_tags(tags, "code(tags=...)")
    if SELF_CHECK_CALL.search(source) and "self-check" not in tags:
        tags = (*tags, "self-check")
    for lang in ("zh", "en"):
        if not edition_code(source, lang).strip():
            raise ChapterSourceError(f"code(source): nothing left in the {lang} edition "
                                     "once the other language's comments are dropped")
    return Code(source, volatile, tags)
