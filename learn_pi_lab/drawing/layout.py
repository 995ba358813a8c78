"""A top-down tree layout computed from parent pointers, with no graphviz.

networkx's own layouts (spring, spectral...) do not draw trees as trees, and graphviz's
``dot`` is one more thing to install. A session tree only needs the simplest tidy layout:

* the depth of a node is its row (``y = -depth``, so the root is at the top);
* the leaves take consecutive columns ``x = 0, 1, 2, ...`` in the order the tree is walked,
  children in file order, so the oldest branch is on the left;
* a parent sits centred over its first and last child.

Each subtree owns a block of consecutive columns, so no two nodes ever overlap. The walk
uses an explicit stack: a 10,000-entry chain (drawn unfolded) cannot overflow Python's
recursion limit.
"""

from __future__ import annotations

from typing import Hashable

import networkx as nx


def tree_layout(graph: nx.DiGraph) -> dict[Hashable, tuple[float, float]]:
    """``{node: (x, y)}`` for a forest whose edges point parent -> child.

    Roots are laid out left to right in the graph's node order, children in the order their
    edges were added (``build_scene`` adds both in file order). Raises ``ValueError`` if a
    node has two parents or a loop leaves nodes without a root: that is not a tree.
    """
    if any(graph.in_degree(node) > 1 for node in graph):
        raise ValueError("tree_layout needs a forest: a node has two parents")
    positions: dict[Hashable, tuple[float, float]] = {}
    next_column = 0
    for root in (node for node in graph if graph.in_degree(node) == 0):
        stack: list[tuple[Hashable, int, bool]] = [(root, 0, False)]
        while stack:
            node, depth, children_placed = stack.pop()
            children = list(graph.successors(node))
            if not children:
                positions[node] = (float(next_column), float(-depth))
                next_column += 1
            elif children_placed:
                first, last = positions[children[0]][0], positions[children[-1]][0]
                positions[node] = ((first + last) / 2, float(-depth))
            else:
                stack.append((node, depth, True))   # come back once the children are placed
                stack.extend((child, depth + 1, False) for child in reversed(children))
    if len(positions) != len(graph):
        raise ValueError("tree_layout needs a forest: some nodes sit on a loop with no root")
    return positions


# -- long runs into side-by-side bands ---------------------------------------------------
#
# Session trees are deep and narrow: a 12-entry session is one or two columns and twelve
# rows, a picture far taller than wide. Like a newspaper, the drawing cuts such a layout
# into bands of at most ``MAX_BAND_ROWS`` rows and sets the bands side by side, left to
# right: the entry after the bottom of one band is at the top of the next. Each band keeps
# the tree's columns, so nothing overlaps; an edge from the last row of one band to the
# first row of the next is a "band crossing" (drawn as a dashed connector).

MAX_BAND_ROWS = 8
BAND_GAP = 0.8   # empty columns between two bands


def extent(positions: dict[Hashable, tuple[float, float]]) -> tuple[float, float]:
    """(columns, rows) a layout occupies."""
    if not positions:
        return 1.0, 1.0
    return (max(x for x, _ in positions.values()) + 1,
            -min(y for _, y in positions.values()) + 1)


def band_count(columns: float, rows: float, max_columns: float,
               max_rows: int = MAX_BAND_ROWS, gap: float = BAND_GAP) -> int:
    """How many bands: enough for at most ``max_rows`` rows each, but never so many that
    they need more than ``max_columns`` columns side by side (then fewer, taller bands)."""
    bands = max(1, -(-int(rows) // max_rows))
    while bands > 1 and bands * columns + (bands - 1) * gap > max_columns:
        bands -= 1
    return bands


def fold_into_bands(positions: dict[Hashable, tuple[float, float]], bands: int,
                    gap: float = BAND_GAP) -> tuple[dict[Hashable, tuple[float, float]], int]:
    """The layout cut into ``bands`` bands of equal height, side by side.

    Returns the new positions and the rows per band. A node at depth ``d`` goes to band
    ``d // rows_per_band``, row ``d % rows_per_band``, its column shifted right by the
    width of the bands before it.
    """
    columns, rows = extent(positions)
    rows_per_band = max(1, -(-int(rows) // max(1, bands)))
    folded = {}
    for node, (x, y) in positions.items():
        band, row = divmod(int(round(-y)), rows_per_band)
        folded[node] = (x + band * (columns + gap), float(-row))
    return folded, rows_per_band



def crosses_band(parent: tuple[float, float], child: tuple[float, float]) -> bool:
    """Whether the edge parent -> child runs from the bottom of one band to the top of the
    next (in one band a child is always exactly one row below its parent)."""
    return child[1] != parent[1] - 1
