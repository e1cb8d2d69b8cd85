"""Longest road: the longest trail through one player's roads.

A trail may not use a road twice (loops count once) and may not pass through a
vertex holding another player's settlement or city: such a building breaks the road.
"""

from __future__ import annotations

from catan_p2p.rules.board import BoardGraph


def longest_road(
    graph: BoardGraph, roads: frozenset[int], vertex_owner: tuple[int, ...], seat: int
) -> int:
    """Length of the longest trail in ``roads`` for ``seat`` (0 when it has no road)."""
    if not roads:
        return 0
    edge_vertices = graph.edge_vertices
    vertex_edges = graph.vertex_edges
    best = 0

    def walk(vertex: int, used: set[int], length: int) -> None:
        nonlocal best
        if length > best:
            best = length
        owner = vertex_owner[vertex]
        if length and owner != -1 and owner != seat:
            return  # an opponent's building breaks the road here
        for e in vertex_edges[vertex]:
            if e in roads and e not in used:
                a, b = edge_vertices[e]
                used.add(e)
                walk(b if a == vertex else a, used, length + 1)
                used.discard(e)

    # Starting at every end of every road covers every trail.
    starts = {v for e in roads for v in edge_vertices[e]}
    for v in starts:
        walk(v, set(), 0)
        if best == len(roads):
            break
    return best
