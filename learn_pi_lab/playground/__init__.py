"""The tree playground: act on a real session file like Pi, see the one new line, solve levels.

* ``model``: ``Playground``, the commands, undo and reset (plain Python, no widgets);
* ``levels`` and ``levels.json``: goal-driven levels and their checks (no browser needed);
* ``svg``: the tree as SVG, same layout and colours as ``drawing.draw_session``;
* ``widget``: ``TreePlayground``, the anywidget view (imported on demand).
"""

from learn_pi_lab.playground.levels import get_level, load_levels
from learn_pi_lab.playground.model import Playground, PlaygroundError

__all__ = ["Playground", "PlaygroundError", "get_level", "load_levels"]
