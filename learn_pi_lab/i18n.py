"""Every sentence a learner reads, in Chinese and English, from one catalog.

The catalog is data, not code: ``learn_pi_lab/messages/*.json``, one file per area, each
mapping a key to ``{"zh": ..., "en": ...}``. Keeping both languages side by side in one
entry is what keeps the two editions in step: a message cannot be added in one language
and forgotten in the other without a test noticing (``tests/test_i18n.py``).
"""

from __future__ import annotations

import json
import os
import string
import unicodedata
from functools import lru_cache
from pathlib import Path

LANGUAGES = ("zh", "en")
FALLBACK = "en"
MESSAGES_DIR = Path(__file__).with_name("messages")
STRICT_ENV = "LEARN_PI_LAB_STRICT_MESSAGES"   # "1": a missing message or field raises


@lru_cache(maxsize=1)
def catalog() -> dict[str, dict[str, str]]:
    """All messages, merged from every file; a key defined twice is a bug, so it raises."""
    merged: dict[str, dict[str, str]] = {}
    for path in sorted(MESSAGES_DIR.glob("*.json")):
        with path.open(encoding="utf-8") as handle:
            for key, texts in json.load(handle).items():
                if key in merged:
                    raise ValueError(f"message key {key!r} defined twice (again in {path.name})")
                merged[key] = texts
    return merged


def notebook_edition(cwd: Path | None = None) -> str | None:
    """``zh`` or ``en`` when running inside ``notebooks/zh`` or ``notebooks/en``.

    A learner who opens the Chinese edition expects Chinese messages from the package even
    when their system locale is English; JupyterLab starts each kernel in the notebook's own
    folder, so the folder says which edition is open.

    Without ``cwd``: the working directory. A directory that was deleted under the process
    (``mkdir d; cd d; rmdir d``) is no edition, quietly. The answer is remembered per
    working directory (``_edition_in``): every message asks for it, and resolving the path
    each time made a command on a damaged file, with a message per entry, ten times slower.
    """
    if cwd is not None:
        return _edition_of(Path(cwd).resolve())
    try:
        here = os.getcwd()   # the kernel's own answer, no symlinks; changes when it chdirs
    except OSError:          # FileNotFoundError: the working directory is gone
        return None
    return _edition_in(here)


@lru_cache(maxsize=16)
def _edition_in(cwd: str) -> str | None:
    """The edition of the working directory ``cwd`` (``os.getcwd()``), looked up once.

    Keyed on the directory's name, so a notebook kernel that changes directory (``%cd``,
    ``os.chdir``) gets the edition of where it is now, never a remembered one."""
    try:
        return _edition_of(Path(cwd).resolve())
    except (OSError, RuntimeError):   # RuntimeError: a symlink loop (older Pythons)
        return None


def _edition_of(here: Path) -> str | None:
    for folder in (here, *here.parents):
        if folder.parent.name == "notebooks" and folder.name in LANGUAGES:
            return folder.name
    return None


EDITION_VARIABLE = "LEARN_PI_LAB_EDITION"
"""Set by ``make lab`` (``learn_pi_lab.course.lab``) to the edition it opened."""


def current_language(lang: str | None = None) -> str:
    """Pick the language: explicit argument, then LEARN_PI_LAB_LANG, then the notebook
    edition being run, then the edition ``make lab`` opened (LEARN_PI_LAB_EDITION, which a
    terminal opened in that JupyterLab inherits), then LC_ALL / LANG; English when nothing
    says otherwise.

    Any ``zh*`` value (zh, zh_CN.UTF-8, zh_TW, ...) means Chinese; anything else English.
    """
    for choose in (lambda: lang, lambda: os.environ.get("LEARN_PI_LAB_LANG"), notebook_edition,
                   lambda: os.environ.get(EDITION_VARIABLE), lambda: os.environ.get("LC_ALL"),
                   lambda: os.environ.get("LANG")):
        candidate = choose()   # one at a time: the notebook's folder is looked up only if needed
        if candidate:
            return "zh" if candidate.lower().startswith("zh") else "en"
    return FALLBACK


def plural(count: object, one: str, many: str) -> str:
    """``one`` for a count of 1 (or -1), ``many`` otherwise: "1 entry", "2 entries".

    In a catalog message write ``{count:entry|entries}`` for the word alone, so English can
    say "{count} {count:entry|entries}" while Chinese, which has no plural, writes
    "{count} 个条目".
    """
    return one if count in (1, -1) else many


class _MessageFormatter(string.Formatter):
    """``str.format`` plus one spec: ``{n:one|many}`` picks a word by the count ``n``."""

    def format_field(self, value: object, format_spec: str) -> str:
        if "|" in format_spec:
            one, many = format_spec.split("|", 1)
            return plural(value, one, many)
        return super().format_field(value, format_spec)


_FORMATTER = _MessageFormatter()


class MessageError(LookupError):
    """A message key that is not in the catalog, or a field its text needs and did not get.

    Raised only in strict mode (``LEARN_PI_LAB_STRICT_MESSAGES=1``, which the test suite
    sets); a learner's kernel never sees it.
    """


def strict() -> bool:
    return os.environ.get(STRICT_ENV, "") not in ("", "0")


def t(key: str, lang: str | None = None, **fields: object) -> str:
    """The message ``key`` in the chosen language, with ``fields`` filled in.

    An unknown key is returned as itself, and a text whose fields are missing as it is, so
    a missing message is visible but never crashes a learner's kernel. Under the tests
    (strict mode) either one raises ``MessageError`` instead, so it cannot ship.
    """
    texts = catalog().get(key)
    if texts is None:
        if strict():
            raise MessageError(f"no message {key!r} in learn_pi_lab/messages/*.json")
        return key
    text = texts.get(current_language(lang)) or texts.get(FALLBACK) or key
    try:
        return _FORMATTER.vformat(text, (), fields)
    except (KeyError, IndexError, AttributeError, ValueError) as error:
        if strict():
            raise MessageError(f"message {key!r} needs a field it did not get: {error!r} "
                               f"(given: {sorted(fields)})") from error
        return text


def explain(error: BaseException, lang: str | None = None) -> str:
    """``error`` in the learner's language, for showing it (CLI, notebook, harness).

    Exceptions of the core modules speak English (``str(error)``) and carry their facts as
    fields (``learn_pi_lab.errors.Explained``); this is where they are translated. Anything
    without a catalog message is shown as ``str(error)``.
    """
    if hasattr(error, "severity") and hasattr(error, "line"):   # a reader Diagnostic
        return _explain_diagnostic(error, lang)
    key = getattr(error, "message_key", None)
    fields = getattr(error, "message_fields", None)
    if key and key in catalog() and callable(fields):
        try:
            return t(key, lang, **_shown_fields(fields(), lang))
        except Exception:  # a broken field must never hide the error itself...
            if strict():   # ...but under the tests it must not ship
                raise
            return str(error)
    return str(error)


def _explain_diagnostic(found: object, lang: str | None) -> str:
    """"line 7: ..." / "第 7 行：...": the place, the message, then any fact it did not place."""
    line = getattr(found, "line")
    where = t("diag.where.line", lang, line=line) if line is not None else t("diag.where.file", lang)
    key, fields = getattr(found, "message_key"), _shown_fields(getattr(found, "message_fields")(), lang)
    text = t(key, lang, **fields)
    template = catalog().get(key, {}).get(current_language(lang), "")
    if fields.get("detail") and "{detail}" not in template:
        text += t("diag.detail", lang, detail=fields["detail"])
    if fields.get("raw_error") and "{raw_error}" not in template:
        text += t("diag.raw-error", lang, raw_error=fields["raw_error"])
    return where + text


LONGEST_SHOWN = 300
"""Characters of one text a message shows whole; a longer one is ``shortened``."""


def shortened(text: str, lang: str | None = None, longest: int = LONGEST_SHOWN) -> str:
    """``text`` as a message shows it: whole when it has at most ``longest`` characters,
    else its start and its end around how long it was. An id, a cwd or a parent id in a
    damaged or hostile file can be megabytes long, and an error naming it was one line of a
    megabyte (a Pi user's review); its start and end still tell it apart."""
    if len(text) <= longest:
        return text
    return t("text.shortened", lang, start=text[:longest * 2 // 3], end=text[-(longest // 6):],
             count=len(text))


def _shown_fields(fields: dict[str, object], lang: str | None) -> dict[str, object]:
    """An error's fields as its message shows them: long texts ``shortened``."""
    return {name: shortened(value, lang) if isinstance(value, str) else value
            for name, value in fields.items()}


def display_width(text: str) -> int:
    """Columns a terminal gives ``text``: a Chinese character takes two, so tables and
    aligned labels need this instead of ``len`` to line up in both languages."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)
