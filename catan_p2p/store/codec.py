"""State <-> files: the canonical serialisation of a GameState as a Git tree.

The same state always gives the same bytes, so the tree id is a pure function of
the state and a peer verifies a commit by comparing tree ids. Files are sorted-key
JSON with one entry per line, so ``git diff`` between two commits reads naturally.
The board sits in its own subtree that is never rewritten.

Writing (``StateWriter``) is the hot path: plain dicts and ``json.dumps``, with
caches so unchanged files and subtrees are not even re-serialised. Reading is
``store.reading`` (``read_state``), which validates every file with the pydantic models
of schema.py and names the file, commit and field of the first problem.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from json.encoder import encode_basestring
from operator import attrgetter
from typing import Any

from catan_p2p.rules.board import Board
from catan_p2p.rules.cards import DEV_CARDS, RESOURCES, Counts
from catan_p2p.rules.deck import Deck
from catan_p2p.rules.hexgrid import format_place, format_tile
from catan_p2p.rules.state import (
    NOBODY,
    Answer,
    GameState,
    PlayerState,
)
from catan_p2p.store import schema
from catan_p2p.store.formats import ObjectStore, tree_data

# The files' words for resources, development cards and trade answers (``store.reading``
# reads them back).
RESOURCE_WORDS = tuple(r.label for r in RESOURCES)
DEV_CARD_WORDS = tuple(d.name.lower() for d in DEV_CARDS)
ANSWER_WORDS = {
    Answer.PENDING: "pending",
    Answer.ACCEPT: "accept",
    Answer.DECLINE: "decline",
    Answer.COUNTER: "counter",
}
ANSWER_OF_WORD = {v: k for k, v in ANSWER_WORDS.items()}
BANK = "bank"  # the holder of the bank's cards in turn.json's resources (not a player name)


@dataclass(frozen=True)
class GameInfo:
    """What a game is besides its state: its id, seed and the time the players agreed a
    silent player may take before the others may end the game (all in ``game.json``)."""

    game: str
    seed: str
    timeout: int = 0  # seconds; 0: the others wait for ever


#: What each file is made of: the ``GameState`` fields (and, per seat, ``PlayerState``
#: fields) whose values alone decide its bytes. The writer keys its caches on exactly
#: these, so a file is rewritten whenever one of them changes; a field in no entry here
#: fails tests/store/test_codec.py, so adding a field to the state means deciding here
#: which file holds it (and the test then checks that the file really depends on it).
STATE_FIELDS_BY_FILE: dict[str, tuple[str, ...]] = {
    "turn.json": (
        "players",
        "phase",
        "current",
        "turn",
        "setup_step",
        "dice",
        "dev_played",
        "fresh_beacon",
        "free_roads",
        "robber",
        "discards",
        "trade",
        "winner",
        "victim",
        "token",
        "steals",
        "monopoly",
        "abandoned",
        "bank",
    ),
    "game.json": ("players", "victory_points"),
    "awards.json": ("players", "longest_road", "largest_army"),
    "deck.json": ("dev_deck",),
    "map/": ("players", "vertex_owner", "edge_owner"),
    "board/": ("board",),
    "players/": ("players", "hands"),
    "seats.json": ("players", "seats"),
    "chain/": ("players", "reveals"),
    "deck/": ("players", "deck"),  # and each player's drawn cards, in players/
}
HAND_FIELDS_BY_FILE: dict[str, tuple[str, ...]] = {
    "turn.json": ("resources",),
    "players/": ("dev_cards", "new_dev_cards", "played"),
    "map/": ("cities",),
}
#: ``PlayerState`` fields the decoder derives from the files (never written).
DERIVED_HAND_FIELDS = ("settlements", "roads", "road_length", "ports", "hidden")

_turn_fields = attrgetter(*STATE_FIELDS_BY_FILE["turn.json"])
_turn_hand_fields = attrgetter(*HAND_FIELDS_BY_FILE["turn.json"])
_player_fields = attrgetter(*HAND_FIELDS_BY_FILE["players/"])

_compact = json.JSONEncoder(sort_keys=True, separators=(", ", ": "), ensure_ascii=False).encode


class Rendered(str):
    """A value already rendered at the depth it is written at, put in as it is."""


def _render(value: Any, pad: str) -> str:
    # Strings and integers, most of every file, skip the encoder's own dispatch: the C
    # string encoder and int's repr are what it calls for them (bool is no int here).
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is int:
        return int.__repr__(value)
    if kind is Rendered:
        return value
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = pad + " "
        lines = []
        for k in sorted(value):
            v = value[k]
            kind = type(v)  # the scalars inline: a call per value cost more than the rest
            text = (
                encode_basestring(v)
                if kind is str
                else int.__repr__(v)
                if kind is int
                else _render(v, inner)
            )
            name = encode_basestring(k) if type(k) is str else _compact(k)
            lines.append(f"{inner}{name}: {text}")
        return "{\n" + ",\n".join(lines) + f"\n{pad}}}"
    if isinstance(value, list) and value and isinstance(value[0], dict):
        items = ",\n".join(f"{pad}  {_compact(v)}" for v in value)
        return f"[\n{items}\n{pad} ]"
    return _compact(value)


def dumps(data: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, one entry per line, trailing newline.

    Objects are opened one entry per line at every depth, indented one space per level,
    so ``git diff`` shows exactly the counts that changed; lists are written on one line
    (a list of objects gets a line per object). Everything else is the C encoder's.
    """
    return (_render(data, "") + "\n").encode()


def _devs(c: Counts) -> dict[str, int]:
    return dict(zip(DEV_CARD_WORDS, c, strict=True))


def _some(names: tuple[str, ...], c: Counts) -> dict[str, int]:
    """Only the kinds with a count: a trade side, a discard, a group of development cards."""
    return {n: k for n, k in zip(names, c, strict=True) if k}


def game_data(state: GameState, info: GameInfo) -> dict:
    return {
        "schema_version": schema.SCHEMA_VERSION,
        "game": info.game,
        "players": list(state.players),
        "seed": info.seed,
        "victory_points": state.victory_points,
        **({"timeout": info.timeout} if info.timeout else {}),
    }


def _trade_data(state: GameState) -> dict:
    """``turn.json``'s ``trade``: the offer, the answers of the players it is made to,
    whom it is made to (when one) and the counter-offers (when any), as the offerer
    would trade them."""
    offer = state.trade
    assert offer is not None
    players = state.players
    data: dict = {
        "give": _some(RESOURCE_WORDS, offer.give),
        "get": _some(RESOURCE_WORDS, offer.get),
        "answers": {
            players[s]: ANSWER_WORDS[a]
            for s, a in enumerate(offer.answers)
            if s != state.current and offer.may_answer(s)
        },
    }
    if offer.to != NOBODY:
        data["to"] = players[offer.to]
    counters = {
        players[s]: {"give": _some(RESOURCE_WORDS, t.give), "get": _some(RESOURCE_WORDS, t.get)}
        for s, t in enumerate(offer.counters)
        if t is not None
    }
    if counters:
        data["counters"] = counters
    return data


def turn_data(state: GameState, resources: Rendered | None = None) -> dict:
    """``turn.json``; keys at their default (no dice yet, no trade, ...) are left out.

    The resource cards live here too: a roll, a trade or a build then rewrites one
    file instead of the bank's and several players', which keeps diffs and packs small.
    ``resources``: the table already rendered (``StateWriter`` keeps it while no count
    changes, as most moves leave it).
    """
    players = state.players
    data: dict[str, Any] = {
        "phase": state.phase.name.lower(),
        "current": players[state.current],
        "turn": state.turn,
        "robber": format_tile(state.board.graph.tiles[state.robber]),
        "resources": resource_table(state) if resources is None else resources,
    }
    if state.is_setup:
        data["setup_step"] = state.setup_step
    if state.dice is not None:
        data["dice"] = list(state.dice)
    if state.dev_played:
        data["dev_played"] = True
    if state.fresh_beacon:
        data["fresh_beacon"] = True
    if state.free_roads:
        data["free_roads"] = state.free_roads
    if any(state.discards):
        data["discards"] = {players[s]: n for s, n in enumerate(state.discards) if n}
    if state.trade is not None:
        data["trade"] = _trade_data(state)
    if state.winner != NOBODY:
        data["winner"] = players[state.winner]
    if state.victim != NOBODY:
        data["victim"] = players[state.victim]
    if state.token:
        data["token"] = state.token
    if state.steals:
        data["steals"] = [
            {
                "mover": players[s.mover],
                "victim": players[s.victim],
                "turn": s.turn,
                "token": s.token,
                "answer": s.answer,
                "hand": _some(RESOURCE_WORDS, s.hand),
            }
            for s in state.steals
        ]
    if state.monopoly != NOBODY:
        data["monopoly"] = RESOURCE_WORDS[state.monopoly]
    if state.abandoned != NOBODY:
        data["abandoned"] = players[state.abandoned]
    return data


def resource_table(state: GameState) -> dict:
    """Resource -> holder (``bank`` and each player) -> cards, for ``turn.json``."""
    players = state.players
    return {
        name: {
            BANK: state.bank[i],
            **{p: h.resources[i] for p, h in zip(players, state.hands, strict=True)},
        }
        for i, name in enumerate(RESOURCE_WORDS)
    }


def player_data(hand: PlayerState, cards: tuple = (), players: tuple[str, ...] = ()) -> dict:
    data: dict[str, Any] = {
        "dev_cards": _some(DEV_CARD_WORDS, hand.dev_cards),
        "new_dev_cards": _some(DEV_CARD_WORDS, hand.new_dev_cards),
        "played": _some(DEV_CARD_WORDS, hand.played),
    }
    if cards:
        data["cards"] = [_drawn_data(card, players) for card in cards]
    return data


def drawn_cards(deck: Deck | None, seats: int) -> tuple[tuple, ...]:
    """For each of ``seats`` seats, ``(position, bought, opened, shared, shown)`` of each
    card it drew (one pass over the deck)."""
    drawn: list[list[tuple]] = [[] for _ in range(seats)]
    if deck is not None:
        for p, h in enumerate(deck.holders):
            if 0 <= h < seats:
                drawn[h].append(
                    (p, deck.bought[p], deck.opened[p], deck.shared[p] & ~(1 << h), deck.shown[p])
                )
    return tuple(map(tuple, drawn))


def _drawn_data(card: tuple, players: tuple[str, ...]) -> dict:
    pos, bought, opened, shared, shown = card
    data: dict[str, Any] = {
        "position": pos,
        "bought": bought,
        "opened": opened,
        "shared": [p for s, p in enumerate(players) if shared >> s & 1],
    }
    if shown >= 0:
        data["shown"] = DEV_CARD_WORDS[shown]
    return data


def seat_deck_data(deck: Deck, seat: int) -> dict:
    """``deck/<player>.json``: the seat's deck key, its shuffle once made, its secret."""
    data: dict[str, Any] = {"key": deck.keys[seat]}
    if seat < len(deck.passes):
        data["shuffle"] = list(deck.passes[seat])
    if deck.secrets[seat]:
        data["secret"] = deck.secrets[seat]
    return data


class StateWriter:
    """Writes states of one game as trees, reusing every unchanged file and subtree.

    Three caches keep serialising off the hot path: files of parts that ``apply``
    shares between states are remembered by identity (road and settlement owners); small
    files by the values they are made of (turn, resources, deck, players' development
    cards, awards, cities); trees by their entries.
    A cache hit returns an id that this writer's store already holds.
    """

    def __init__(self, store: ObjectStore, info: GameInfo) -> None:
        self.store = store
        self.info = info
        self._board_tree: dict[int, str] = {}  # id(board) -> tree id
        self._game_blob: dict[tuple, str] = {}
        self._by_identity: dict[tuple[str, int], tuple[object, str]] = {}
        self._by_value: dict[tuple, str] = {}
        self._trees: dict[tuple, str] = {}
        self._file_names: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._drawn_of: tuple[object, int, tuple] | None = None  # the last deck's cards
        self._resources_of: tuple[tuple, Rendered] | None = None  # the last counts, written

    def _blob(self, data: bytes) -> str:
        return self.store.write(b"blob", data)

    def _tree(self, entries: tuple[tuple[str, tuple[bool, str]], ...]) -> str:
        oid = self._trees.get(entries)
        if oid is None:
            oid = self.store.write(b"tree", tree_data(dict(entries)))
            if len(self._trees) > 4096:
                self._trees.clear()
            self._trees[entries] = oid
        return oid

    def _cached(self, kind: str, obj: object, make: Any) -> str:
        """Blob id of ``make(obj)``, remembered by the identity of ``obj``.

        States share unchanged parts (apply never copies them), so identity is a cheap
        and exact key; the cache keeps ``obj`` alive so its id cannot be reused.
        """
        key = (kind, id(obj))
        hit = self._by_identity.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        oid = self._blob(dumps(make(obj)))
        if len(self._by_identity) > 8192:
            self._by_identity.clear()
        self._by_identity[key] = (obj, oid)
        return oid

    def _valued(self, key: tuple, make: Any) -> str:
        """Blob id of ``make()``, remembered by ``key``: every value the file is made of."""
        oid = self._by_value.get(key)
        if oid is None:
            oid = self._blob(dumps(make()))
            if len(self._by_value) > 8192:
                self._by_value.clear()
            self._by_value[key] = oid
        return oid

    def board_tree(self, board: Board) -> str:
        oid = self._board_tree.get(id(board))
        if oid is None:
            oid = self._tree((("board.json", (False, self._blob(dumps(board.to_data())))),))
            self._board_tree[id(board)] = oid
        return oid

    # Long on purpose (about 100 lines): one pass on the hot path, run for every commit;
    # each file's cache look-up sits inline, where a call per file costs more than a
    # split would read better.
    def write(self, state: GameState) -> str:
        """Write ``state`` and return its tree id."""
        graph = state.board.graph
        players = state.players
        key = (players, state.victory_points)
        game_blob = self._game_blob.get(key)
        if game_blob is None:
            game_blob = self._game_blob[key] = self._blob(dumps(game_data(state, self.info)))
        names = self._file_names.get(players)
        if names is None:
            names = self._file_names[players] = tuple(f"{p}.json" for p in players)
        deck = state.deck
        players_tree = self._tree(
            tuple(
                (
                    name,
                    (
                        False,
                        self._valued(
                            ("player", players, _player_fields(hand), cards),
                            lambda hand=hand, cards=cards: player_data(hand, cards, players),
                        ),
                    ),
                )
                for name, hand, cards in zip(
                    names,
                    state.hands,
                    self._drawn(deck, len(players)),
                    strict=True,
                )
            )
        )

        def settlements(owner: tuple[int, ...]) -> dict:
            return {
                format_place(graph.vertices[v]): players[o]
                for v, o in enumerate(owner)
                if o != NOBODY and v not in state.hands[o].cities
            }

        def cities() -> dict:
            return {
                format_place(graph.vertices[v]): players[s]
                for s, h in enumerate(state.hands)
                for v in h.cities
            }

        def roads(owner: tuple[int, ...]) -> dict:
            return {
                format_place(graph.edges[e]): players[o] for e, o in enumerate(owner) if o != NOBODY
            }

        city_sets = tuple(h.cities for h in state.hands)
        map_tree = self._tree(
            (
                (
                    "settlements.json",
                    (False, self._settlements_blob(state, settlements, city_sets)),
                ),
                ("cities.json", (False, self._valued(("cities", players, city_sets), cities))),
                ("roads.json", (False, self._cached("roads", state.edge_owner, roads))),
            )
        )
        turn_key = ("turn", _turn_fields(state), *map(_turn_hand_fields, state.hands))
        longest, largest = state.longest_road, state.largest_army
        root = (
            (
                "awards.json",
                (
                    False,
                    self._valued(
                        ("awards", players, longest, largest),
                        lambda: {
                            "longest_road": None if longest == NOBODY else players[longest],
                            "largest_army": None if largest == NOBODY else players[largest],
                        },
                    ),
                ),
            ),
            ("board", (True, self.board_tree(state.board))),
            (
                "deck.json",
                (False, self._valued(("deck", state.dev_deck), lambda: _devs(state.dev_deck))),
            ),
            ("game.json", (False, game_blob)),
            ("map", (True, map_tree)),
            ("players", (True, players_tree)),
            (
                "turn.json",
                (
                    False,
                    self._valued(turn_key, lambda: turn_data(state, self._resources(state))),
                ),
            ),
        )
        if state.seats:
            root = (
                *root,
                ("seats.json", (False, self._per_player("seats", players, state.seats))),
            )
            if any(state.reveals):
                root = (*root, ("chain", (True, self._chain_tree(names, state.reveals))))
        if deck is not None and any(deck.keys):
            root = (*root, ("deck", (True, self._deck_tree(deck, players, names))))
        return self._tree(root)

    def _resources(self, state: GameState) -> Rendered:
        """``turn.json``'s resource table as written (at depth 1), kept for the last counts."""
        key = (state.players, state.bank, tuple(h.resources for h in state.hands))
        last = self._resources_of
        if last is not None and last[0] == key:
            return last[1]
        text = Rendered(_render(resource_table(state), " "))
        self._resources_of = (key, text)
        return text

    def _drawn(self, deck: Deck | None, seats: int) -> tuple[tuple, ...]:
        """``drawn_cards``, remembered for the last deck (most actions leave it as it is)."""
        last = self._drawn_of
        if last is not None and last[0] is deck and last[1] == seats:
            return last[2]
        drawn = drawn_cards(deck, seats)
        self._drawn_of = (deck, seats, drawn)
        return drawn

    def _deck_tree(self, deck: Deck, players: tuple[str, ...], names: tuple[str, ...]) -> str:
        entries = []
        for s, name in enumerate(names):
            if not deck.keys[s]:
                continue
            made = deck.passes[s] if s < len(deck.passes) else ()
            key = ("seat-deck", deck.keys[s], made, deck.secrets[s])
            blob = self._valued(key, lambda s=s: seat_deck_data(deck, s))
            entries.append((name, (False, blob)))
        return self._tree(tuple(entries))

    def _chain_tree(self, names: tuple[str, ...], reveals: tuple[str, ...]) -> str:
        """``chain/<player>.json``: one file per player, so a reveal rewrites one line."""
        return self._tree(
            tuple(
                (name, (False, self._valued(("chain", value), lambda value=value: value)))
                for name, value in zip(names, reveals, strict=True)
                if value
            )
        )

    def _per_player(self, kind: str, players: tuple[str, ...], values: tuple[str, ...]) -> str:
        """Blob of a ``player -> text`` file, listing the players whose value is set."""
        return self._valued(
            (kind, players, values),
            lambda: {p: v for p, v in zip(players, values, strict=True) if v},
        )

    def _settlements_blob(self, state: GameState, make: Any, city_sets: tuple) -> str:
        # Settlements change with the vertex owners and with cities (an upgrade).
        key = ("settlements", id(state.vertex_owner))
        hit = self._by_identity.get(key)
        if hit is not None and hit[0] == (state.vertex_owner, city_sets):
            return hit[1]
        oid = self._blob(dumps(make(state.vertex_owner)))
        self._by_identity[key] = ((state.vertex_owner, city_sets), oid)
        return oid
