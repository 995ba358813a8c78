"""Self-check questions: immediate feedback, and a reason for every option.

Questions are data, one file per chapter: ``learn_pi_lab/course/selfcheck/chNN.json``.
There are two kinds.

A **choice** question lists 2 to 6 options; each option carries its own explanation
(``why``: why it is right, or why it is wrong), and all of them are shown once the learner
has answered, so a wrong pick teaches as much as a right one::

    {"ch02-q1": {"question": {"zh": "...", "en": "..."},
                 "choices": [{"text": {"zh": "...", "en": "..."},
                              "why": {"zh": "...", "en": "..."}}, ...],
                 "answer": "C",
                 "explanation": {"zh": "...", "en": "..."}}}      # optional closing note

A **value** question is answered by running code: the learner computes an id or a count in
the notebook and types it. ``answer`` says what kind of value it is and the right one;
the checker accepts exactly that value, after normalising how it was typed (spaces, quotes,
``1,000``)::

    {"ch06-q2": {"question": {...}, "answer": {"count": 5},        # or {"id": "feadd308"}
                 "explanation": {"zh": "...", "en": "..."}}}

In a notebook, ``ask("ch02-q1")`` shows the question. With ipywidgets it is a set of radio
buttons (or a text box) and a "Check" button; without them (or in a saved notebook, where
widgets are not live) the same question is shown as text, and ``answer("ch02-q1", "B")``
gives the same feedback. Both paths use ``feedback()``, so they can never disagree.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from learn_pi_lab.i18n import LANGUAGES, current_language, t

QUESTIONS_DIR = Path(__file__).with_name("selfcheck")
LETTERS = "ABCDEF"
QUESTION_ID = re.compile(r"^ch(\d{2})-q\d+$")
CHOICE_FIELDS = {"required": {"question", "choices", "answer"}, "optional": {"explanation"}}
VALUE_FIELDS = {"required": {"question", "answer", "explanation"}, "optional": set()}
OPTION_FIELDS = {"text", "why"}
VALUE_KINDS = ("count", "id")
CSS_CLASS = "lpl-selfcheck"


class SelfCheckError(ValueError):
    """A question file breaks the format, or a question id does not exist."""


@dataclass(frozen=True)
class Option:
    """One choice: its text and why it is right or wrong, each ``{"zh": ..., "en": ...}``."""

    text: dict[str, str]
    why: dict[str, str]


@dataclass(frozen=True)
class Question:
    """One question. A choice question has ``options`` and ``answer`` (an option index); a
    value question has no options, and ``answer`` is the right value (an int for a count,
    a string for an id)."""

    id: str
    question: dict[str, str]
    options: tuple[Option, ...]
    answer: int | str
    explanation: dict[str, str] | None
    value_kind: str | None = None   # "count" or "id" for a value question

    @property
    def is_value(self) -> bool:
        return self.value_kind is not None

    @property
    def letters(self) -> str:
        return LETTERS[:len(self.options)]

    @property
    def choices(self) -> tuple[dict[str, str], ...]:
        """The options' texts (what the learner picks from)."""
        return tuple(option.text for option in self.options)

    def choice_lines(self, lang: str) -> list[str]:
        return [f"{letter}. {option.text[lang]}"
                for letter, option in zip(self.letters, self.options)]


# -- reading and checking the files ----------------------------------------------------

def _reject_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise SelfCheckError(f"duplicate keys {repeated}")
    return dict(pairs)


def _both_languages(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or set(value) != set(LANGUAGES):
        raise SelfCheckError(f"{where}: needs exactly the keys {list(LANGUAGES)}")
    for lang in LANGUAGES:
        if not isinstance(value[lang], str) or not value[lang].strip():
            raise SelfCheckError(f"{where}: the {lang} text is empty")
    return dict(value)


def _check_fields(raw: dict, fields: dict[str, set[str]], where: str) -> None:
    missing = sorted(fields["required"] - set(raw))
    unknown = sorted(set(raw) - fields["required"] - fields["optional"])
    if missing or unknown:
        allowed = sorted(fields["required"]) + [f"({name})" for name in sorted(fields["optional"])]
        raise SelfCheckError(f"{where}: needs exactly the fields {allowed} "
                             f"(missing {missing}, unknown {unknown})")


def _parse_option(raw: object, where: str) -> Option:
    if not isinstance(raw, dict) or set(raw) != OPTION_FIELDS:
        raise SelfCheckError(f"{where}: an option needs exactly the fields {sorted(OPTION_FIELDS)}"
                             " (its text, and why it is right or wrong)")
    return Option(_both_languages(raw["text"], f"{where} text"),
                  _both_languages(raw["why"], f"{where} why"))


def _parse_choice_question(question_id: str, raw: dict, where: str) -> Question:
    _check_fields(raw, CHOICE_FIELDS, where)
    choices = raw["choices"]
    if not isinstance(choices, list) or not 2 <= len(choices) <= len(LETTERS):
        raise SelfCheckError(f"{where}: needs 2 to {len(LETTERS)} choices")
    options = tuple(_parse_option(c, f"{where} choice {LETTERS[i]}")
                    for i, c in enumerate(choices))
    letters = LETTERS[:len(options)]
    if not isinstance(raw["answer"], str) or raw["answer"] not in letters:
        raise SelfCheckError(f"{where}: answer must be one of {list(letters)}")
    explanation = raw.get("explanation")
    return Question(question_id, _both_languages(raw["question"], f"{where} question"), options,
                    letters.index(raw["answer"]),
                    None if explanation is None else _both_languages(explanation,
                                                                     f"{where} explanation"))


def _parse_value_question(question_id: str, raw: dict, where: str) -> Question:
    _check_fields(raw, VALUE_FIELDS, where)
    answer = raw["answer"]
    if not isinstance(answer, dict) or len(answer) != 1 or next(iter(answer)) not in VALUE_KINDS:
        raise SelfCheckError(f"{where}: a value answer is one of "
                             + ", ".join(f'{{"{kind}": ...}}' for kind in VALUE_KINDS))
    kind, value = next(iter(answer.items()))
    if kind == "count" and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
        raise SelfCheckError(f"{where}: a count answer is a whole number >= 0")
    if kind == "id" and (not isinstance(value, str) or normalise_value(value, "id") != value
                         or not value):
        raise SelfCheckError(f"{where}: an id answer is a non-empty string without spaces "
                             "or quotes around it")
    return Question(question_id, _both_languages(raw["question"], f"{where} question"), (),
                    value, _both_languages(raw["explanation"], f"{where} explanation"), kind)


def _parse_question(question_id: str, raw: object, where: str) -> Question:
    if not isinstance(raw, dict):
        raise SelfCheckError(f"{where}: a question is a JSON object")
    if "choices" in raw:
        return _parse_choice_question(question_id, raw, where)
    return _parse_value_question(question_id, raw, where)


def load_questions(folder: Path = QUESTIONS_DIR) -> dict[str, Question]:
    """Every question in ``folder/chNN.json``, checked; a broken file names itself."""
    questions: dict[str, Question] = {}
    for path in sorted(Path(folder).glob("*.json")):
        match = re.fullmatch(r"ch(\d{2})\.json", path.name)
        if match is None:
            raise SelfCheckError(f"{path.name}: question files are named chNN.json")
        try:
            data = json.loads(path.read_text(encoding="utf-8"),
                              object_pairs_hook=_reject_duplicate_keys)
        except json.JSONDecodeError as error:
            raise SelfCheckError(f"{path.name}: not valid JSON: {error}") from None
        except SelfCheckError as error:
            raise SelfCheckError(f"{path.name}: {error}") from None
        if not isinstance(data, dict) or not data:
            raise SelfCheckError(f"{path.name}: must be a non-empty JSON object")
        for question_id, raw in data.items():
            where = f"{path.name} {question_id}"
            id_match = QUESTION_ID.match(question_id)
            if id_match is None or id_match.group(1) != match.group(1):
                raise SelfCheckError(f"{where}: ids in this file look like ch{match.group(1)}-q1")
            if question_id in questions:
                raise SelfCheckError(f"{where}: defined twice")
            questions[question_id] = _parse_question(question_id, raw, where)
    return questions


@lru_cache(maxsize=1)
def _all_questions() -> dict[str, Question]:
    return load_questions()


def question(question_id: str) -> Question:
    known = _all_questions()
    if question_id not in known:
        raise SelfCheckError(t("course.selfcheck.unknown_question", qid=question_id,
                               known=", ".join(sorted(known))))
    return known[question_id]


# -- answers ---------------------------------------------------------------------------

QUOTES = ("\"", "'", "`", "“", "”", "‘", "’")


def normalise_value(typed: object, kind: str) -> int | str | None:
    """What the learner typed, as the checker compares it; None when it cannot be that kind.

    Both kinds: surrounding spaces and one pair of quotes do not count (``"e8"`` is
    ``e8``). A count is a whole number, typed as a number or as digits, with ``,`` ``_`` or
    spaces between digit groups allowed (``1,000``). An id is compared exactly as written
    inside the quotes: ids are case-sensitive strings.
    """
    if kind == "count":
        if isinstance(typed, bool):
            return None
        if isinstance(typed, int):
            return typed
    if not isinstance(typed, (str, int)) or isinstance(typed, bool):
        return None
    text = str(typed).strip()
    if len(text) >= 2 and text[0] in QUOTES and text[-1] in QUOTES:
        text = text[1:-1].strip()
    if kind == "count":
        digits = re.fullmatch(r"\d{1,3}(?:[,_ ]\d{3})+|\d+", text)
        return int(re.sub(r"[,_ ]", "", text)) if digits else None
    return text if text and not any(ch.isspace() for ch in text) else None


def _choice_feedback(item: Question, choice: object, lang: str) -> str:
    letter = choice.strip().upper() if isinstance(choice, str) else ""
    if len(letter) != 1 or letter not in item.letters:
        return t("course.selfcheck.bad_choice", lang, choice=repr(choice),
                 letters=", ".join(item.letters))
    right = LETTERS[item.answer]
    lines = [t("course.selfcheck.right", lang) if letter == right else
             t("course.selfcheck.wrong", lang, choice=letter, answer=right)]
    for option_letter, option in zip(item.letters, item.options):
        key = ("course.selfcheck.option_right" if option_letter == right
               else "course.selfcheck.option_wrong")
        marker = "→" if option_letter == letter else " "
        lines.append(f"{marker} " + t(key, lang, letter=option_letter, why=option.why[lang]))
    if item.explanation is not None:
        lines.append(item.explanation[lang])
    return "\n".join(lines)


def _value_feedback(item: Question, typed: object, lang: str) -> str:
    value = normalise_value(typed, item.value_kind)
    if value is None:
        return t(f"course.selfcheck.bad_{item.value_kind}", lang, value=repr(typed))
    verdict = (t("course.selfcheck.right", lang) if value == item.answer else
               t("course.selfcheck.wrong_value", lang, value=value, answer=item.answer))
    return f"{verdict}\n{item.explanation[lang]}"


def feedback(question_id: str, choice: object, lang: str | None = None) -> str:
    """What a learner reads after answering: right or wrong, then why.

    For a choice question ``choice`` is a letter, and the feedback explains every option;
    for a value question it is the value the learner computed (``5``, ``"feadd308"``).
    """
    lang = current_language(lang)
    item = question(question_id)
    if item.is_value:
        return _value_feedback(item, choice, lang)
    return _choice_feedback(item, choice, lang)


def answer(question_id: str, choice: object, lang: str | None = None) -> None:
    """The text way to self-check: ``answer("ch02-q1", "B")`` or ``answer("ch06-q2", 5)``
    prints the feedback."""
    print(feedback(question_id, choice, lang))


# -- display ---------------------------------------------------------------------------

class SelfCheck:
    """What ``ask`` displays: the live widget when there is one, and always the same
    question as plain text and as HTML (class ``lpl-selfcheck``) for every other reader."""

    def __init__(self, question_id: str, lang: str | None = None) -> None:
        self.question = question(question_id)
        self.lang = current_language(lang)
        self.widget = _make_widget(self.question, self.lang)

    def how_to_answer(self) -> str:
        item = self.question
        if item.is_value:
            return t(f"course.selfcheck.how_to_answer_{item.value_kind}", self.lang, qid=item.id)
        return t("course.selfcheck.how_to_answer", self.lang, qid=item.id)

    def text(self) -> str:
        item, lang = self.question, self.lang
        lines = [f"[{t('course.selfcheck.label', lang)} {item.id}] {item.question[lang]}"]
        lines += [f"  {line}" for line in item.choice_lines(lang)]
        lines.append(self.how_to_answer())
        return "\n".join(lines)

    def html(self) -> str:
        item, lang = self.question, self.lang
        choices = "".join(f"<li>{html.escape(line)}</li>" for line in item.choice_lines(lang))
        listing = f'<ul style="list-style: none">{choices}</ul>' if choices else ""
        return (f'<div class="{CSS_CLASS}" data-question="{item.id}">'
                f"<p><b>{html.escape(t('course.selfcheck.label', lang))} {item.id}</b> "
                f"{html.escape(item.question[lang])}</p>"
                f"{listing}"
                f"<p><small>{html.escape(self.how_to_answer())}</small></p></div>")

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, object]:
        bundle: dict[str, object] = {}
        if self.widget is not None:
            bundle.update(self.widget._repr_mimebundle_() or {})
        bundle["text/plain"] = self.text()
        bundle["text/html"] = self.html()
        return bundle


def _make_widget(item: Question, lang: str):
    """Radio buttons (or, for a value question, a text box) + a Check button + a feedback
    area, or None without ipywidgets."""
    try:
        import ipywidgets as widgets
    except ImportError:
        return None
    if item.is_value:
        picker = widgets.Text(value="", placeholder=t("course.selfcheck.value_placeholder", lang),
                              layout=widgets.Layout(width="20em"))
    else:
        picker = widgets.RadioButtons(
            options=[(line, letter) for line, letter in zip(item.choice_lines(lang), item.letters)],
            value=None, layout=widgets.Layout(width="auto"))
    check = widgets.Button(description=t("course.selfcheck.check", lang))
    result = widgets.HTML()

    def on_check(_button) -> None:
        if picker.value is None or (item.is_value and not picker.value.strip()):
            result.value = html.escape(t("course.selfcheck.pick_first", lang))
            return
        result.value = html.escape(feedback(item.id, picker.value, lang)).replace("\n", "<br>")

    check.on_click(on_check)
    title = widgets.HTML(f"<b>{html.escape(t('course.selfcheck.label', lang))} {item.id}</b> "
                         f"{html.escape(item.question[lang])}")
    box = widgets.VBox([title, picker, check, result])
    box.add_class(CSS_CLASS)
    return box


def ask(question_id: str, lang: str | None = None) -> None:
    """Show one self-check question in the notebook (``ask("ch02-q1")``)."""
    from IPython.display import display

    display(SelfCheck(question_id, lang))
