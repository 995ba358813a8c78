"""Exceptions that speak English and carry what a translator needs.

A core module (``session_tree``, ``jsonl``, ``pi``, ``session_inspector``, ``store``) raises
with a stable English message: that is what ``str(error)`` shows, in a log, in a test, under
any locale. The facts behind the message (ids, line numbers, paths) are fields of the
exception. Where a message is *shown* to a learner (the command line, a notebook, the grading
harness) ``learn_pi_lab.i18n.explain(error)`` turns the same facts into the learner's
language. So core modules never import ``i18n``: translating is the edge's job.

A class opts in by mixing in ``Explained`` and naming its catalog entry::

    class SelfParent(Explained, TranscriptError):
        message_key = "tree.self-parent"          # fields: entry_id

        def __init__(self, entry_id: str) -> None:
            super().__init__(f"self parent is not allowed: {entry_id!r}")
            self.entry_id = entry_id

``message_fields()`` gives the catalog's ``{placeholders}``: by default every public
attribute of the exception.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar


class Explained:
    """Mixin for an exception whose message can be shown in the learner's language."""

    message_key: ClassVar[str | None] = None   # key in learn_pi_lab/messages/*.json

    def message_fields(self) -> dict[str, Any]:
        """The values the catalog message fills in (public attributes by default)."""
        return {name: value for name, value in vars(self).items() if not name.startswith("_")}


class UnknownChoice(Explained, ValueError):
    """An argument that must be one of a few words is not one of them (``mode="Pi"``,
    ``pi_version="1.6"``). ``argument``, ``value`` (as written) and ``choices``."""

    message_key = "api.unknown-choice"

    def __init__(self, argument: str, value: Any, choices: tuple[str, ...]) -> None:
        self.argument = argument
        self.value = repr(value)
        self.choices = ", ".join(repr(choice) for choice in choices)
        super().__init__(f"{argument} must be one of {self.choices}, not {self.value}")


class NotEntries(Explained, TypeError):
    """A function that reads a list of dicts (entries, such as ``session.branch()``, or
    messages, such as ``session.context().messages``) was given something else: ``None``,
    one dict, a ``Session``, the ``TranscriptEntry`` values of a tree. ``argument`` names the
    argument, ``got`` what it was (``NoneType``, ``list[TranscriptEntry]``)."""

    ENGLISH = {"entries": "{argument} must be a list of entry dicts (such as session.branch() "
                          "or session.entries; a TranscriptEntry's dict is its .payload), "
                          "not {got}",
               "messages": "{argument} must be a list of message dicts (such as "
                           "session.context().messages), not {got}"}

    def __init__(self, argument: str, got: str, what: str = "entries") -> None:
        self.argument = argument
        self.got = got
        self.what = what
        super().__init__(self.ENGLISH[what].format(argument=argument, got=got))

    @property
    def message_key(self) -> str:  # type: ignore[override]
        return f"api.not-{self.what}"


def check_dicts(value: Any, argument: str, what: str = "entries") -> Any:
    """``value`` itself when it can be a list of dicts, else ``NotEntries``. Constant time,
    whatever the length: a list or tuple is judged by its first item, and an iterator is
    passed on unread (reading it would use it up)."""
    if isinstance(value, (list, tuple)):
        if value and not isinstance(value[0], Mapping):
            raise NotEntries(argument, f"{type(value).__name__}[{type(value[0]).__name__}]",
                             what)
        return value
    if isinstance(value, (Mapping, str, bytes, bytearray)) or not isinstance(value, Iterable):
        raise NotEntries(argument, type(value).__name__, what)
    return value


class ReferenceHidden(Exception):
    """Raised by the package's own solution of an exercise while a learner's is graded
    (``harness.worker.hide_the_reference``): ``name`` is the function that refused."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} is the package's own solution: it does not run while "
                         f"yours is graded")
        self.name = name
