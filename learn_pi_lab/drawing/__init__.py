"""Pictures of session trees: a static drawing and the course roadmap.

``draw_session(session_or_tree, ...)`` returns a matplotlib figure of the whole tree with the
current branch highlighted; ``draw_side_by_side(left, right)`` puts two such drawings in one
figure; ``draw_roadmap(part)`` shows where a chapter sits in the course (file bytes, tree,
model context). The interactive tree is the playground (``learn_pi_lab.playground``).

Unlike the core models, this package uses third-party libraries (networkx, matplotlib,
ipywidgets). The modules, in reading order:

* ``snapshot``: what a drawing reads from a ``Session`` or a ``TranscriptTree``;
* ``scene``: what the picture shows (a networkx graph with plain-data marks, folded runs);
* ``layout``: where each node goes (a small tidy tree layout, no graphviz);
* ``style`` and ``static``: how it looks (fonts, sizes, one colour per concept), and
  ``draw_session`` itself; ``roadmap``: the course roadmap.
"""

from learn_pi_lab.drawing.roadmap import draw_roadmap
from learn_pi_lab.drawing.static import Panel, draw_session, draw_side_by_side
from learn_pi_lab.drawing.style import concept_colour, figure_png, use_course_style

__all__ = ["Panel", "concept_colour", "draw_roadmap", "draw_session", "draw_side_by_side",
           "figure_png", "use_course_style"]
