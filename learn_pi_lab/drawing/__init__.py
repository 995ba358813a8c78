"""Pictures of session trees: a static drawing and an interactive explorer.

``draw_session(session_or_tree, ...)`` returns a matplotlib figure of the whole tree with the
current branch highlighted; ``SessionExplorer(session)`` wraps the same picture in widgets
to pick a leaf, rewind, append and fork, in memory.

Unlike the core models, this package uses third-party libraries (networkx, matplotlib,
ipywidgets). The modules, in reading order:

* ``snapshot``: what a drawing reads from a ``Session`` or a ``TranscriptTree``;
* ``scene``: what the picture shows (a networkx graph with plain-data marks, folded runs);
* ``layout``: where each node goes (a small tidy tree layout, no graphviz);
* ``style`` and ``static``: how it looks, and ``draw_session`` itself;
* ``explorer_model`` and ``explorer``: the explorer's state, then its widgets.
"""

from learn_pi_lab.drawing.explorer import SessionExplorer
from learn_pi_lab.drawing.static import draw_session
from learn_pi_lab.drawing.style import figure_png

__all__ = ["SessionExplorer", "draw_session", "figure_png"]
