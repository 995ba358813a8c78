"""``SessionExplorer``: pick a leaf, rewind, append, fork, and watch the tree change.

Chapter 03 now uses the tree playground (``learn_pi_lab.playground``), which acts on its own
sandbox file with levels and undo. The explorer stays for what the playground does not do:
looking around ANY loaded session (a real Pi file included), in memory, read-only.

Built from stock ipywidgets only (no JavaScript build, no network), so it works offline in
JupyterLab and its last state is saved with the notebook. The drawing is a PNG in an
``Image`` widget, the same picture ``draw_session`` makes.

All the logic lives in ``ExplorerModel`` (``explorer_model.py``); the widgets call its
methods and then redraw. Calling the explorer's own methods (``pick_leaf``,
``append_message``, ``fork``, ``set_view``) does the same as clicking.

CSS classes for browser tests (Playwright) and custom styling:

==========================  ==============================================================
``.lpl-explorer``           the whole explorer (a VBox)
``.lpl-leaf-picker``        Dropdown of exactly the tree's leaves (file order); its ``select``
                            element switches branch. A new branch adds exactly one option;
                            after a rewind to an inner entry nothing is selected here
``.lpl-rewind-picker``      Dropdown of every entry, showing the current leaf: rewind the
                            leaf to any of them
``.lpl-append-text``        Text box for a new user message (its ``input`` element)
``.lpl-append-button``      Button: append that message at the current leaf
``.lpl-fork-before``        Button: ``/fork`` before the current leaf (a user message)
``.lpl-fork-at``            Button: ``/fork`` at the current leaf
``.lpl-view-toggle``        ToggleButtons: button 0 "current branch", button 1 "what the
                            model sees"
``.lpl-drawing``            Box around the drawing; the picture is its ``img`` element
``.lpl-path-list``          HTML list of the branch's entries (or the context's messages)
``.lpl-fork-output``        HTML result of the last fork (or why it was refused)
==========================  ==============================================================
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as widgets

from learn_pi_lab.drawing.explorer_model import ExplorerModel, ListedMessage
from learn_pi_lab.i18n import t
from learn_pi_lab.pi.session import Session
from learn_pi_lab.session_tree import TranscriptTree


class SessionExplorer:
    """An interactive view of one session. Display it as the last value of a cell."""

    def __init__(self, session: Session | TranscriptTree, *, lang: str | None = None,
                 fold_runs: bool = True) -> None:
        self.model = ExplorerModel(session, lang=lang, fold_runs=fold_runs)
        self.lang = lang
        self._syncing = False   # True while _refresh sets widget values: not a user action

        picker_layout = widgets.Layout(width="440px")
        self.leaf_picker = widgets.Dropdown(description=t("drawing.explorer.leaf", lang),
                                            layout=picker_layout)
        self.rewind_picker = widgets.Dropdown(description=t("drawing.explorer.rewind", lang),
                                              layout=picker_layout)
        self.append_text = widgets.Text(
            placeholder=t("drawing.explorer.append_placeholder", lang))
        self.append_button = widgets.Button(description=t("drawing.explorer.append", lang))
        self.fork_before_button = widgets.Button(
            description=t("drawing.explorer.fork_before", lang))
        self.fork_at_button = widgets.Button(description=t("drawing.explorer.fork_at", lang))
        self.view_toggle = widgets.ToggleButtons(options=[
            (t("drawing.explorer.view_branch", lang), "branch"),
            (t("drawing.explorer.view_context", lang), "context")],
            style={"button_width": "auto"})
        self.image = widgets.Image(format="png")
        self.drawing = widgets.Box([self.image], layout=widgets.Layout(
            max_width="62%", overflow="auto"))
        self.path_list = widgets.HTML(layout=widgets.Layout(width="38%"))
        self.fork_output = widgets.HTML()

        for widget, css_class in (
                (self.leaf_picker, "lpl-leaf-picker"), (self.rewind_picker, "lpl-rewind-picker"),
                (self.append_text, "lpl-append-text"), (self.append_button, "lpl-append-button"),
                (self.fork_before_button, "lpl-fork-before"),
                (self.fork_at_button, "lpl-fork-at"), (self.view_toggle, "lpl-view-toggle"),
                (self.drawing, "lpl-drawing"), (self.path_list, "lpl-path-list"),
                (self.fork_output, "lpl-fork-output")):
            widget.add_class(css_class)

        self.leaf_picker.observe(self._on_leaf_picked, names="value")
        self.rewind_picker.observe(self._on_leaf_picked, names="value")
        self.view_toggle.observe(self._on_view_toggled, names="value")
        self.append_button.on_click(lambda _button: self._on_append())
        self.fork_before_button.on_click(lambda _button: self.fork("before", self.model.leaf_id))
        self.fork_at_button.on_click(lambda _button: self.fork("at", self.model.leaf_id))

        self.widget = widgets.VBox([
            widgets.HBox([self.leaf_picker, self.rewind_picker]),
            widgets.HBox([self.append_text, self.append_button,
                          self.fork_before_button, self.fork_at_button]),
            self.view_toggle,
            widgets.HBox([self.drawing, self.path_list]),
            self.fork_output,
        ])
        self.widget.add_class("lpl-explorer")
        self._refresh()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """Jupyter shows the explorer by showing its widget tree."""
        return self.widget._repr_mimebundle_(**kwargs)

    # -- the four actions (each redraws) ---------------------------------------------------

    def pick_leaf(self, entry_id: str) -> None:
        self.model.pick_leaf(entry_id)
        self._refresh()

    def append_message(self, text: str) -> str:
        entry_id = self.model.append_message(text)
        self._refresh()
        return entry_id

    def fork(self, position: str, entry_id: str | None) -> list[dict]:
        lines = self.model.fork(position, entry_id) if entry_id is not None else []
        self._refresh()
        return lines

    def set_view(self, view: str) -> None:
        self.model.set_view(view)
        self._refresh()

    # -- what tests and notebooks read -----------------------------------------------------

    @property
    def leaf_options(self) -> list[tuple[str, str]]:
        return list(self.leaf_picker.options)

    @property
    def path_ids(self) -> tuple[str, ...]:
        return self.model.path_ids

    @property
    def listed_messages(self) -> list[ListedMessage]:
        return self.model.listed_messages

    @property
    def image_png(self) -> bytes:
        return bytes(self.image.value)

    # -- widgets -> model ------------------------------------------------------------------

    def _on_leaf_picked(self, change: dict) -> None:
        if not self._syncing and change["new"] is not None and change["new"] != self.model.leaf_id:
            self.pick_leaf(change["new"])

    def _on_view_toggled(self, change: dict) -> None:
        if not self._syncing:
            self.set_view(change["new"])

    def _on_append(self) -> None:
        text = self.append_text.value.strip()
        if text:
            self.append_message(text)
            self.append_text.value = ""

    # -- model -> widgets ------------------------------------------------------------------

    def _refresh(self) -> None:
        """Make every widget show the model's state; observers ignore these changes."""
        self._syncing = True
        try:
            for picker, options in ((self.leaf_picker, self.model.leaf_options),
                                    (self.rewind_picker, self.model.entry_options)):
                if tuple(picker.options) != tuple(options):
                    picker.options = options
                offered = {entry_id for _text, entry_id in options}
                picker.value = self.model.leaf_id if self.model.leaf_id in offered else None
            self.view_toggle.value = self.model.view
            self.image.value = self.model.image_png
            self.path_list.value = self._path_html()
            self.fork_output.value = self._fork_html()
        finally:
            self._syncing = False

    def _path_html(self) -> str:
        rows = self.model.listed_messages
        key = ("drawing.explorer.context_heading" if self.model.view == "context"
               else "drawing.explorer.branch_heading")
        heading = html.escape(t(key, self.lang, count=len(rows)))
        body = "".join(self._row_html(number, row) for number, row in enumerate(rows, 1))
        return f"<div><b>{heading}</b><table style='font-size:12px;line-height:1.35'>{body}</table></div>"

    def _row_html(self, number: int, row: ListedMessage) -> str:
        weight = "bold" if row.entry_id == self.model.leaf_id else "normal"
        cells = (str(number), row.entry_id or "", row.kind, row.text)
        return (f"<tr style='font-weight:{weight}'>"
                + "".join(f"<td style='padding:1px 6px;vertical-align:top'>"
                          f"{html.escape(cell)}</td>" for cell in cells) + "</tr>")

    def _fork_html(self) -> str:
        if self.model.fork_error:
            return f"<div style='color:#d62728'>{html.escape(self.model.fork_error)}</div>"
        if self.model.fork_lines is None:
            return ""
        lines = self.model.fork_lines
        heading = t("drawing.explorer.fork_heading", self.lang, count=len(lines))
        items = "".join(
            f"<li>{html.escape(str(line.get('id')))} {html.escape(str(line.get('type')))}"
            f" &larr; {html.escape(str(line.get('parentId')))}</li>" for line in lines)
        return f"<div><b>{html.escape(heading)}</b><ol>{items}</ol></div>"
