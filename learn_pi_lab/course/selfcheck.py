"""Self-check questions: multiple choice, immediate feedback, an explanation either way.

Questions are data, one file per chapter: ``learn_pi_lab/course/selfcheck/chNN.json``::

    {"ch02-q1": {"question": {"zh": "...", "en": "..."},
                 "choices": [{"zh": "...", "en": "..."}, ...],
                 "answer": "B",
                 "explanation": {"zh": "...", "en": "..."}}}

In a notebook, ``ask("ch02-q1")`` shows the question. With ipywidgets it is a set of radio
buttons and a "Check" button; without them (or in a saved notebook, where widgets are not
live) the same question is shown as text, and ``answer("ch02-q1", "B")`` gives the same
feedback. Both paths use ``feedback()``, so they can never disagree.
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
FIELDS = ("question", "choices", "answer", "explanation")
CSS_CLASS = "lpl-selfcheck"


class SelfCheckError(ValueError):
    """A question file breaks the format, or a question id does not exist."""


@dataclass(frozen=True)
class Question:
    """One question; texts are ``{"zh": ..., "en": ...}`` dicts, ``answer`` a choice index."""

    id: str
    question: dict[str, str]
    choices: tuple[dict[str, str], ...]
    answer: int
    explanation: dict[str, str]

    @property
    def letters(self) -> str:
        return LETTERS[:len(self.choices)]

    def choice_lines(self, lang: str) -> list[str]:
        return [f"{letter}. {choice[lang]}" for letter, choice in zip(self.letters, self.choices)]


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


def _parse_question(question_id: str, raw: object, where: str) -> Question:
    if not isinstance(raw, dict) or set(raw) != set(FIELDS):
        raise SelfCheckError(f"{where}: needs exactly the fields {list(FIELDS)}")
    choices = raw["choices"]
    if not isinstance(choices, list) or not 2 <= len(choices) <= len(LETTERS):
        raise SelfCheckError(f"{where}: needs 2 to {len(LETTERS)} choices")
    parsed = tuple(_both_languages(c, f"{where} choice {LETTERS[i]}")
                   for i, c in enumerate(choices))
    letters = LETTERS[:len(parsed)]
    if not isinstance(raw["answer"], str) or raw["answer"] not in letters:
        raise SelfCheckError(f"{where}: answer must be one of {list(letters)}")
    return Question(question_id, _both_languages(raw["question"], f"{where} question"), parsed,
                    letters.index(raw["answer"]),
                    _both_languages(raw["explanation"], f"{where} explanation"))


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


def feedback(question_id: str, choice: str, lang: str | None = None) -> str:
    """What a learner reads after choosing: right or wrong, then the explanation."""
    lang = current_language(lang)
    item = question(question_id)
    letter = choice.strip().upper() if isinstance(choice, str) else ""
    if len(letter) != 1 or letter not in item.letters:
        return t("course.selfcheck.bad_choice", lang, choice=repr(choice),
                 letters=", ".join(item.letters))
    right = LETTERS[item.answer]
    verdict = (t("course.selfcheck.right", lang) if letter == right else
               t("course.selfcheck.wrong", lang, choice=letter, answer=right))
    return f"{verdict}\n{item.explanation[lang]}"


def answer(question_id: str, choice: str, lang: str | None = None) -> None:
    """The text way to self-check: ``answer("ch02-q1", "B")`` prints the feedback."""
    print(feedback(question_id, choice, lang))


class SelfCheck:
    """What ``ask`` displays: the live widget when there is one, and always the same
    question as plain text and as HTML (class ``lpl-selfcheck``) for every other reader."""

    def __init__(self, question_id: str, lang: str | None = None) -> None:
        self.question = question(question_id)
        self.lang = current_language(lang)
        self.widget = _make_widget(self.question, self.lang)

    def text(self) -> str:
        item, lang = self.question, self.lang
        lines = [f"[{t('course.selfcheck.label', lang)} {item.id}] {item.question[lang]}"]
        lines += [f"  {line}" for line in item.choice_lines(lang)]
        lines.append(t("course.selfcheck.how_to_answer", lang, qid=item.id))
        return "\n".join(lines)

    def html(self) -> str:
        item, lang = self.question, self.lang
        choices = "".join(f"<li>{html.escape(line)}</li>" for line in item.choice_lines(lang))
        return (f'<div class="{CSS_CLASS}" data-question="{item.id}">'
                f"<p><b>{html.escape(t('course.selfcheck.label', lang))} {item.id}</b> "
                f"{html.escape(item.question[lang])}</p>"
                f'<ul style="list-style: none">{choices}</ul>'
                f"<p><small>{html.escape(t('course.selfcheck.how_to_answer', lang, qid=item.id))}"
                f"</small></p></div>")

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
    """Radio buttons + a Check button + a feedback line, or None without ipywidgets."""
    try:
        import ipywidgets as widgets
    except ImportError:
        return None
    picker = widgets.RadioButtons(
        options=[(line, letter) for line, letter in zip(item.choice_lines(lang), item.letters)],
        value=None, layout=widgets.Layout(width="auto"))
    check = widgets.Button(description=t("course.selfcheck.check", lang))
    result = widgets.HTML()

    def on_check(_button) -> None:
        if picker.value is None:
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
