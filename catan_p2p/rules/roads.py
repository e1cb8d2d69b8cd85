"""Longest road: the longest trail through one player's roads.

A trail may not use a road twice (loops count once) and may not pass through a
vertex holding another player's settlement or city: such a building breaks the road.
"""

from __future__ import annotations

from catan_p2p.rules.board import BoardGraph
from catan_p2p.rules.state import NOBODY, GameState


# Long on purpose (about 90 lines): the hot path of every road built and of the bots'
# searches; its walk closes over the tables built at the top, which a split would pass
# on every step.
def longest_road(
    graph: BoardGraph, roads: frozenset[int], vertex_owner: tuple[int, ...], seat: int
) -> int:
    """Length of the longest trail in ``roads`` for ``seat`` (0 when it has no road).

    Every trail is walked, but over a smaller network: a run of roads through vertices
    with exactly two of them and no break is one weighted link (a trail that enters it
    runs to its end). And a walk only starts where a longest trail can: think of a
    broken vertex as split into one dead end per road; a longest trail ending at a
    vertex of even degree could be extended by an unused road there, so it ends at an
    odd-degree vertex or a break, unless its part of the network has neither and it is
    a circuit through every road.
    """
    if not roads:
        return 0
    edge_vertices = graph.edge_vertices
    at: dict[int, list[int]] = {}  # the seat's roads at each vertex of its network
    for e in roads:
        a, b = edge_vertices[e]
        at.setdefault(a, []).append(e)
        at.setdefault(b, []).append(e)
    broken = {v for v in at if vertex_owner[v] != NOBODY and vertex_owner[v] != seat}
    junctions = [v for v, es in at.items() if len(es) != 2 or v in broken]

    # Links: maximal runs of roads between junctions, as (link id, far end, length).
    links: dict[int, list[tuple[int, int, int]]] = {v: [] for v in junctions}
    seen: set[int] = set()
    for j in junctions:
        for e in at[j]:
            if e in seen:
                continue
            seen.add(e)
            length, here, road = 1, j, e
            a, b = edge_vertices[road]
            there = b if a == here else a
            while there not in links:  # an unbroken vertex with two roads: go on
                first, second = at[there]
                road = second if first == road else first
                seen.add(road)
                length += 1
                a, b = edge_vertices[road]
                here, there = there, (b if a == there else a)
            links[j].append((e, there, length))
            links[there].append((e, j, length))

    best = 0
    if len(seen) < len(roads):
        # What is left are rings without a junction: each one is a trail through all its roads.
        best = _longest_ring(set(roads) - seen, at, edge_vertices)

    starts = [v for v in junctions if len(at[v]) % 2 or v in broken]
    begins = set(starts)
    unreached = set(junctions)
    while unreached:  # a part with only even junctions: start anywhere in it
        first = unreached.pop()
        stack, found = [first], first in begins
        while stack:
            v = stack.pop()
            if v in broken and v != first:
                continue
            for _, w, _ in links[v]:
                if w in unreached:
                    unreached.remove(w)
                    found = found or w in begins
                    if w not in broken:
                        stack.append(w)
        if not found:
            starts.append(first)

    used: set[int] = set()

    def walk(vertex: int, length: int) -> None:
        nonlocal best
        if length > best:
            best = length
        if length and vertex in broken:
            return  # an opponent's building breaks the road here
        for link, far, size in links[vertex]:
            if link not in used:
                used.add(link)
                walk(far, length + size)
                used.discard(link)

    total = len(roads)
    for v in starts:
        if best == total:
            break
        walk(v, 0)
    return best


def _longest_ring(
    edges: set[int], at: dict[int, list[int]], edge_vertices: tuple[tuple[int, int], ...]
) -> int:
    """Size of the largest ring among ``edges`` (each one a closed run of roads)."""
    best = 0
    while edges:
        stack, size = [edges.pop()], 0
        while stack:
            e = stack.pop()
            size += 1
            for v in edge_vertices[e]:
                for f in at[v]:
                    if f in edges:
                        edges.remove(f)
                        stack.append(f)
        best = max(best, size)
    return best


def road_edges(state: GameState, seat: int) -> list[int]:
    """Edges where the seat may build a road now (ignoring cost)."""
    graph = state.board.graph
    owner_v = state.vertex_owner
    owner_e = state.edge_owner
    hand = state.hands[seat]
    frontier: set[int] = set()
    for v in hand.settlements:
        frontier.add(v)
    for v in hand.cities:
        frontier.add(v)
    for e in hand.roads:
        for v in graph.edge_vertices[e]:
            if owner_v[v] == NOBODY or owner_v[v] == seat:
                frontier.add(v)
    found = set()
    for v in frontier:
        for e in graph.vertex_edges[v]:
            if owner_e[e] == NOBODY:
                found.add(e)
    return sorted(found)


def setup_settlement_without_road(state: GameState, seat: int) -> int:
    """The set-up settlement of ``seat`` that its set-up road must touch (NOBODY when none)."""
    graph = state.board.graph
    for v in state.hands[seat].settlements:
        if not any(state.edge_owner[e] == seat for e in graph.vertex_edges[v]):
            return v
    return NOBODY
