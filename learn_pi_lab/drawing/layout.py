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
