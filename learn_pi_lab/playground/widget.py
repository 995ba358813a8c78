"""``TreePlayground``: the playground as an anywidget (click the tree, act like Pi).

The browser side (``playground.js``, ``playground.css``, read from the package, no network)
only draws ``view.view_state(pg)`` and sends commands back as messages; every command runs
here, in Python, on the ``Playground`` (``self.pg``). So a click and a call are the same:
``tp.pg.tree_to("u2")`` then ``tp.refresh()``, or simply ``tp.tree_to("u2")``.

Saved in a notebook, the output also carries ``text/html``: the same tree and file drawn
without JavaScript, for readers on a code host or nbviewer.

CSS classes (browser tests and styling): ``.lpl-playground`` (the whole widget),
``.lpl-pg-tree`` (your tree, focusable; nodes are ``g.lpl-node[data-id]`` with ``role=button``,
the leaf has ``.lpl-leaf``, the last command's nodes ``.lpl-new``, the selected one
``.lpl-selected``), ``.lpl-pg-target``, ``.lpl-pg-file`` (file view; appended lines
``.lpl-pg-added``, lines an undo took back ``.lpl-pg-taken`` while they fade),
``.lpl-pg-toolbar`` (the commands: ``.lpl-pg-tree-button``, ``.lpl-pg-summary-toggle``,
``.lpl-pg-label-open``, ``.lpl-pg-name-open``, ``.lpl-pg-undo``, ``.lpl-pg-reset``, the view
toggle), ``.lpl-pg-summary`` / ``.lpl-pg-label`` / ``.lpl-pg-name`` (the input strips),
``.lpl-pg-editor``, ``.lpl-pg-send``, ``.lpl-pg-answer``, ``.lpl-pg-keys`` (the keyboard line),
``.lpl-pg-list`` (branch or context list), ``.lpl-pg-level`` (level picker),
``.lpl-pg-status`` (check result; ``.lpl-solved`` when solved), ``.lpl-pg-note``,
``.lpl-pg-error``, ``.lpl-pg-hover``.

Colours come from JupyterLab's theme variables (light, dark and high-contrast themes are
measured for contrast by ``tests/test_browser_playground.py``); motion lasts at most 400 ms
and there is none under ``prefers-reduced-motion``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Callable

import anywidget
import traitlets

from learn_pi_lab.i18n import current_language, explain, t
from learn_pi_lab.playground.model import Playground, StartSpec
from learn_pi_lab.playground.view import static_html, view_state

_HERE = resources.files("learn_pi_lab.playground")


class TreePlayground(anywidget.AnyWidget):
    """Display it as a cell's last value; drive it by clicks or by the same-named methods."""

    _esm = _HERE.joinpath("playground.js").read_text(encoding="utf-8")
    _css = _HERE.joinpath("playground.css").read_text(encoding="utf-8")
    state = traitlets.Dict().tag(sync=True)

    def __init__(self, folder: str | Path, *, level: int | str | None = None,
                 start: StartSpec | None = None, lang: str | None = None,
                 progress: str | Path | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.pg = Playground(folder, start=start, lang=current_language(lang),
                             progress=progress)
        if level is not None:
            self.pg.level(level)
        self.on_msg(self._on_message)
        self.refresh()

    # -- Python API: each call is one click ------------------------------------------------

    def refresh(self, error: str = "") -> None:
        self.state = view_state(self.pg, error=error)

    _from_browser = False   # True while a click is handled: show a refusal, do not raise

    def _run(self, command: Callable[[], Any]) -> Any:
        """Run one command, then redraw. A refusal (Pi's rules, an unknown id) is shown in
        the widget; called from code it is also raised, so a cell shows it too."""
        try:
            result = command()
        except (ValueError, KeyError) as problem:
            self.refresh(error=explain(problem, self.pg.lang))
            if self._from_browser:
                return None
            raise
        self.refresh()
        return result

    def select(self, entry_id: str | None) -> None:
        self._run(lambda: self.pg.select(entry_id))

    def tree_to(self, entry_id: str, summary: str | None = None) -> Any:
        return self._run(lambda: self.pg.tree_to(entry_id, summary=summary))

    def append_user(self, text: str | None = None) -> Any:
        return self._run(lambda: self.pg.append_user(text))

    def append_assistant(self, text: str | None = None) -> Any:
        answer = text if text and text.strip() else t("playground.ui.default_answer", self.pg.lang)
        return self._run(lambda: self.pg.append_assistant(answer))

    def set_label(self, entry_id: str, label: str | None) -> Any:
        return self._run(lambda: self.pg.set_label(entry_id, label))

    def name(self, text: str) -> Any:
        return self._run(lambda: self.pg.name(text))

    def fork(self, entry_id: str, position: str = "before") -> Any:
        return self._run(lambda: self.pg.fork(entry_id, position))

    def clone(self) -> Any:
        return self._run(self.pg.clone)

    def undo(self) -> Any:
        return self._run(self.pg.undo)

    def reset(self) -> None:
        self._run(self.pg.reset)

    def set_view(self, view: str) -> None:
        self._run(lambda: self.pg.set_view(view))

    def level(self, number_or_id: int | str) -> Any:
        run = self._run(lambda: self.pg.level(number_or_id))
        return run

    def hint(self) -> str:
        text = self.pg.level_run.hint() if self.pg.level_run else ""
        self.refresh()
        return text

    # -- browser -> Python -----------------------------------------------------------------

    def _on_message(self, _widget: Any, content: dict, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        command, args = content.get("cmd"), content.get("args") or {}
        selected = args.get("id") or self.pg.selected
        need_selection = command in ("tree", "label", "clear_label", "fork", "fork_at")
        if need_selection and not selected:
            self.refresh(error=t("playground.ui.nothing_selected", self.pg.lang))
            return
        actions: dict[str, Callable[[], Any]] = {
            "select": lambda: self.select(args.get("id")),
            "tree": lambda: self.tree_to(selected, args.get("summary") or None),
            "user": lambda: self.append_user(args.get("text") or None),
            "assistant": lambda: self.append_assistant(args.get("text")),
            "label": lambda: self.set_label(selected, args.get("label") or None),
            "clear_label": lambda: self.set_label(selected, None),
            "name": lambda: self.name(args.get("text") or ""),
            "fork": lambda: self.fork(selected, "before"),
            "fork_at": lambda: self.fork(selected, "at"),
            "clone": self.clone,
            "undo": self.undo,
            "reset": self.reset,
            "view": lambda: self.set_view(args.get("view", "branch")),
            "level": lambda: self._pick_level(args.get("level")),
            "hint": self.hint,
            "check": self.refresh,
        }
        if command in actions:
            self._from_browser = True
            try:
                actions[command]()
            finally:
                self._from_browser = False

    def _pick_level(self, level: Any) -> None:
        if level in (None, "", "sandbox"):
            self._run(self.pg.leave_level)
        else:
            self.level(int(level))

    # -- a saved notebook ------------------------------------------------------------------

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget view, plus the same picture as HTML for readers without a kernel."""
        bundle = super()._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        data = dict(data or {})
        data["text/html"] = static_html(self.pg, self.state or None)
        data["image/svg+xml"] = (self.state or {}).get("tree_svg", "")
        data["text/plain"] = self.text_summary()
        return (data, metadata) if metadata else data

    def text_summary(self) -> str:
        pg = self.pg
        lines = [t("playground.ui.summary", pg.lang, file=pg.path.name, count=len(pg.entries),
                   leaf=pg.leaf_id)]
        if pg.level_run is not None:
            lines.append(repr(pg.level_run).splitlines()[0])
        return "\n".join(lines)
