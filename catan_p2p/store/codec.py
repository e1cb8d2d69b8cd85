"""State <-> files: the canonical serialisation of a GameState as a Git tree.

The same state always gives the same bytes, so the tree id is a pure function of
the state and a peer verifies a commit by comparing tree ids. Files are sorted-key
JSON with one entry per line, so ``git diff`` between two commits reads naturally.
The board sits in its own subtree that is never rewritten.

Writing (``StateWriter``) is the hot path: plain dicts and ``json.dumps``, with
caches so unchanged files and subtrees are not even re-serialised. Reading
(``read_state``) validates every file with the pydantic models of schema.py and
names the file, commit and field of the first problem.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from json.encoder import encode_basestring
from operator import attrgetter
from typing import Any

from pydantic import BaseModel, ValidationError

from catan_p2p.errors import BoardError, StateFileError
from catan_p2p.rules import deck as cards_deck
from catan_p2p.rules.board import Board
from catan_p2p.rules.cards import DEV_CARDS, RESOURCES, Counts
from catan_p2p.rules.deck import Deck, deck_size
from catan_p2p.rules.hexgrid import format_place, format_tile, parse_place
from catan_p2p.rules.roads import longest_road
from catan_p2p.rules.state import (
    NOBODY,
    Answer,
    GameState,
    Phase,
    PlayerState,
    Steal,
    TradeOffer,
    setup_order,
)
from catan_p2p.store import schema
from catan_p2p.store.objects import ObjectStore, parse_tree, tree_data

_RES = tuple(r.label for r in RESOURCES)
_DEV = tuple(d.name.lower() for d in DEV_CARDS)
_ANSWER = {Answer.PENDING: "pending", Answer.ACCEPT: "accept", Answer.DECLINE: "decline"}
_ANSWER_BACK = {v: k for k, v in _ANSWER.items()}
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


def _render(value: Any, pad: str) -> str:
    # Strings and integers, most of every file, skip the encoder's own dispatch: the C
    # string encoder and int's repr are what it calls for them (bool is no int here).
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is int:
        return int.__repr__(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = pad + " "
        items = ",\n".join(
            f"{inner}{encode_basestring(k) if type(k) is str else _compact(k)}: "
            f"{_render(value[k], inner)}"
            for k in sorted(value)
        )
        return f"{{\n{items}\n{pad}}}"
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
    return dict(zip(_DEV, c, strict=True))


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


def turn_data(state: GameState) -> dict:
    """``turn.json``; keys at their default (no dice yet, no trade, ...) are left out.

    The resource cards live here too: a roll, a trade or a build then rewrites one
    file instead of the bank's and several players', which keeps diffs and packs small.
    """
    players = state.players
    data: dict[str, Any] = {
        "phase": state.phase.name.lower(),
        "current": players[state.current],
        "turn": state.turn,
        "robber": format_tile(state.board.graph.tiles[state.robber]),
        "resources": resource_table(state),
    }
    if state.is_setup:
        data["setup_step"] = state.setup_step
    if state.dice is not None:
        data["dice"] = list(state.dice)
    if state.dev_played:
        data["dev_played"] = True
    if state.free_roads:
        data["free_roads"] = state.free_roads
    if any(state.discards):
        data["discards"] = {players[s]: n for s, n in enumerate(state.discards) if n}
    if state.trade is not None:
        data["trade"] = {
            "give": _some(_RES, state.trade.give),
            "get": _some(_RES, state.trade.get),
            "answers": {
                players[s]: _ANSWER[a]
                for s, a in enumerate(state.trade.answers)
                if s != state.current
            },
        }
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
                "hand": _some(_RES, s.hand),
            }
            for s in state.steals
        ]
    if state.monopoly != NOBODY:
        data["monopoly"] = _RES[state.monopoly]
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
        for i, name in enumerate(_RES)
    }


def player_data(hand: PlayerState, cards: tuple = (), players: tuple[str, ...] = ()) -> dict:
    data: dict[str, Any] = {
        "dev_cards": _some(_DEV, hand.dev_cards),
        "new_dev_cards": _some(_DEV, hand.new_dev_cards),
        "played": _some(_DEV, hand.played),
    }
    if cards:
        data["cards"] = [_drawn_data(card, players) for card in cards]
    return data


def drawn_cards(deck: Deck | None, seat: int) -> tuple:
    """``(position, bought, opened, shared, shown)`` of each card ``seat`` drew."""
    if deck is None:
        return ()
    mine = ~(1 << seat)
    return tuple(
        (p, deck.bought[p], deck.opened[p], deck.shared[p] & mine, deck.shown[p])
        for p, h in enumerate(deck.holders)
        if h == seat
    )


def _drawn_data(card: tuple, players: tuple[str, ...]) -> dict:
    pos, bought, opened, shared, shown = card
    data: dict[str, Any] = {
        "position": pos,
        "bought": bought,
        "opened": opened,
        "shared": [p for s, p in enumerate(players) if shared >> s & 1],
    }
    if shown >= 0:
        data["shown"] = _DEV[shown]
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
                    [drawn_cards(deck, s) for s in range(len(players))],
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
            ("turn.json", (False, self._valued(turn_key, lambda: turn_data(state)))),
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


# --- reading ---------------------------------------------------------------------------


def _validate(model: type[BaseModel], path: str, data: bytes, where: str) -> Any:
    try:
        return model.model_validate_json(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"]) or "(whole file)"
        raise StateFileError(
            f"{path} in {where} is malformed at field {field!r}: {err['msg']}; "
            "the commit cannot be trusted, fetch it again from its owner or run `catan-p2p verify`"
        ) from None


def _counts(model: BaseModel, names: tuple[str, ...]) -> Counts:
    return tuple(getattr(model, n) for n in names)  # type: ignore[return-value]


def decode(files: dict[str, bytes], where: str) -> tuple[GameState, GameInfo]:
    """Rebuild a state from its files (``path -> bytes``); ``where`` names the commit."""

    def need(path: str) -> bytes:
        if path not in files:
            raise StateFileError(f"{path} is missing from {where}; the state tree is incomplete")
        return files[path]

    game = _validate(schema.GameFile, "game.json", need("game.json"), where)
    if game.schema_version > schema.SCHEMA_VERSION:
        raise StateFileError(
            f"game.json in {where} uses schema version {game.schema_version}; this catan_p2p "
            f"reads up to {schema.SCHEMA_VERSION}, please upgrade"
        )
    if game.schema_version < schema.SCHEMA_VERSION:
        raise StateFileError(
            f"game.json in {where} uses schema version {game.schema_version}, an older layout "
            f"this catan_p2p (version {schema.SCHEMA_VERSION}) no longer reads; finish or "
            "replay that game with the catan_p2p release that started it"
        )
    board_file = _validate(schema.BoardFile, "board/board.json", need("board/board.json"), where)
    try:
        board = Board.from_data(board_file.model_dump())
    except BoardError as exc:
        raise StateFileError(f"board/board.json in {where}: {exc}") from None
    graph = board.graph
    players = tuple(game.players)
    seat = {name: i for i, name in enumerate(players)}

    def player_of(path: str, name: str | None) -> int:
        if name is None:
            return NOBODY
        if name not in seat:
            raise StateFileError(
                f"{path} in {where} names {name!r}, who is not a player of this game"
            )
        return seat[name]

    turn = _validate(schema.TurnFile, "turn.json", need("turn.json"), where)
    deck = _validate(schema.DeckFile, "deck.json", need("deck.json"), where)
    table = turn.resources
    if BANK in seat:
        raise StateFileError(f"game.json in {where}: {BANK!r} cannot be a player's name")
    holders = {BANK, *players}
    for name in _RES:
        found = set(getattr(table, name))
        if found != holders:
            odd = sorted(found ^ holders)
            raise StateFileError(
                f"turn.json in {where}: resources.{name} must list the bank and every player "
                f"exactly once, not {', '.join(odd)}"
            )

    def held(holder: str) -> Counts:
        return tuple(getattr(table, name)[holder] for name in _RES)  # type: ignore[return-value]

    awards = _validate(schema.AwardsFile, "awards.json", need("awards.json"), where)

    def places(path: str, kind: str) -> dict[int, int]:
        mapping = _validate(schema.PlacesFile, path, need(path), where).root
        out = {}
        index = graph.vertex_index if kind == "vertex" else graph.edge_index
        for text, owner in mapping.items():
            try:
                place = index[parse_place(text)]  # type: ignore[index]
            except (KeyError, ValueError):
                raise StateFileError(
                    f"{path} in {where}: {text!r} is not a {kind} of this board"
                ) from None
            out[place] = player_of(path, owner)
        return out

    settlements = places("map/settlements.json", "vertex")
    cities = places("map/cities.json", "vertex")
    roads = places("map/roads.json", "edge")
    both = set(settlements) & set(cities)
    if both:
        raise StateFileError(f"map/ in {where} puts a settlement and a city on one vertex")

    vertex_owner = [NOBODY] * len(graph.vertices)
    for v, o in {**settlements, **cities}.items():
        vertex_owner[v] = o
    edge_owner = [NOBODY] * len(graph.edges)
    for e, o in roads.items():
        edge_owner[e] = o
    vo, eo = tuple(vertex_owner), tuple(edge_owner)

    hands = []
    drawn: dict[int, tuple] = {}
    for s, name in enumerate(players):
        path = f"players/{name}.json"
        pf = _validate(schema.PlayerFile, path, need(path), where)
        for card in pf.cards:
            if card.position in drawn:
                raise StateFileError(f"{path} in {where}: card {card.position} is drawn twice")
            mask = 1 << s
            for other in card.shared:
                if player_of(path, other) == s:
                    raise StateFileError(f"{path} in {where}: {name} shares its own card")
                mask |= 1 << player_of(path, other)
            shown = -1 if card.shown is None else _DEV.index(card.shown)
            drawn[card.position] = (s, card.bought, card.opened, mask, shown)
        own_s = frozenset(v for v, o in settlements.items() if o == s)
        own_c = frozenset(v for v, o in cities.items() if o == s)
        own_r = frozenset(e for e, o in roads.items() if o == s)
        ports = frozenset(graph.vertex_port[v] for v in own_s | own_c if graph.vertex_port[v] >= 0)
        hands.append(
            PlayerState(
                resources=held(name),
                dev_cards=_counts(pf.dev_cards, _DEV),
                new_dev_cards=_counts(pf.new_dev_cards, _DEV),
                played=_counts(pf.played, _DEV),
                settlements=own_s,
                cities=own_c,
                roads=own_r,
                road_length=longest_road(graph, own_r, vo, s),
                ports=ports,
            )
        )

    try:
        robber = graph.tile_index[parse_place(turn.robber)[0]]
    except (KeyError, ValueError, IndexError):
        raise StateFileError(
            f"turn.json in {where}: robber {turn.robber!r} is not a land tile"
        ) from None
    phase = Phase[turn.phase.upper()]
    if (turn.setup_step is None) == (phase <= Phase.SETUP_ROAD):
        raise StateFileError(
            f"turn.json in {where}: setup_step belongs in the file during set-up and only then "
            f"(phase {turn.phase})"
        )
    trade = None
    if turn.trade is not None:
        answers = [Answer.PENDING] * len(players)
        for name, ans in turn.trade.answers.items():
            answers[player_of("turn.json", name)] = _ANSWER_BACK[ans]
        trade = TradeOffer(
            _counts(turn.trade.give, _RES), _counts(turn.trade.get, _RES), tuple(answers)
        )
    steals = _read_steals(turn.steals, player_of, where)
    for st in steals:  # the hands' hidden counts are derived from the steals
        hands[st.mover] = hands[st.mover]._replace(hidden=hands[st.mover].hidden + 1)
        hands[st.victim] = hands[st.victim]._replace(hidden=hands[st.victim].hidden - 1)
    discards = [0] * len(players)
    for name, n in turn.discards.items():
        discards[player_of("turn.json", name)] = n
    state = GameState(
        board=board,
        players=players,
        phase=phase,
        current=player_of("turn.json", turn.current),
        setup_step=len(setup_order(len(players))) if turn.setup_step is None else turn.setup_step,
        turn=turn.turn,
        dice=tuple(turn.dice) if turn.dice is not None else None,  # type: ignore[arg-type]
        bank=held(BANK),
        dev_deck=_counts(deck, _DEV),
        hands=tuple(hands),
        vertex_owner=vo,
        edge_owner=eo,
        robber=robber,
        longest_road=player_of("awards.json", awards.longest_road),
        largest_army=player_of("awards.json", awards.largest_army),
        dev_played=turn.dev_played,
        discards=tuple(discards),
        trade=trade,
        free_roads=turn.free_roads,
        winner=player_of("turn.json", turn.winner),
        victim=player_of("turn.json", turn.victim),
        token=turn.token or "",
        steals=steals,
        monopoly=NOBODY if turn.monopoly is None else _RES.index(turn.monopoly),
        abandoned=player_of("turn.json", turn.abandoned),
        victory_points=game.victory_points,
        seats=(seats := _per_player(files, "seats.json", schema.SeatsFile, players, where)),
        reveals=_chain(files, players, where) if seats else (),
        deck=_read_deck(files, players, drawn, where, turn.turn, phase) if seats else None,
    )
    return state, GameInfo(game.game, game.seed, game.timeout or 0)


def _read_steals(entries: list, player_of: Callable, where: str) -> tuple[Steal, ...]:
    """The pending steals of ``turn.json``, checked for what the file can say alone."""
    out = []
    for e in entries:
        mover, victim = player_of("turn.json", e.mover), player_of("turn.json", e.victim)
        if mover == victim:
            raise StateFileError(f"turn.json in {where}: a pending steal robs its robber")
        if not (cards_deck.is_point(e.token) and cards_deck.is_point(e.answer)):
            raise StateFileError(
                f"turn.json in {where}: a pending steal's values are not points of the group"
            )
        hand = _counts(e.hand, _RES)
        if not any(hand):
            raise StateFileError(f"turn.json in {where}: a pending steal robbed an empty hand")
        out.append(Steal(mover, victim, e.turn, e.token, e.answer, hand))
    return tuple(out)


def _read_deck(
    files: dict[str, bytes],
    players: tuple[str, ...],
    drawn: dict[int, tuple],
    where: str,
    turn: int,
    phase: Phase,
) -> Deck:
    """The hidden deck from ``deck/<player>.json`` and the players' drawn cards.

    Only what the files can say alone is checked here (a tree may come from anyone);
    whether the cards are honest is for the verifier, which replays the moves.
    """
    keys, passes, secrets = [], [], []
    for name in players:
        path = f"deck/{name}.json"
        if path not in files:
            keys.append("")
            secrets.append("")
            continue
        f = _validate(schema.SeatDeckFile, path, files[path], where)
        if f.secret and phase is not Phase.GAME_OVER:
            raise StateFileError(
                f"{path} in {where}: a deck secret is revealed only after the game"
            )
        keys.append(f.key)
        secrets.append(f.secret or "")
        if f.shuffle:
            if len(passes) != len(keys) - 1 or len(f.shuffle) != deck_size(len(players)):
                raise StateFileError(
                    f"{path} in {where}: the seats shuffle in seat order, each all {deck_size(len(players))} cards"
                )
            passes.append(tuple(f.shuffle))
    if sorted(drawn) != list(range(len(drawn))):
        raise StateFileError(f"players/ in {where}: the drawn cards' positions have gaps")
    if drawn and len(passes) != len(players):
        raise StateFileError(f"players/ in {where}: cards were drawn before every seat shuffled")
    cards = [drawn[p] for p in range(len(drawn))]
    for p, card in enumerate(cards):
        if card[1] > turn:
            raise StateFileError(f"players/ in {where}: card {p} was bought after this turn")
        if not cards_deck.is_point(card[2]):
            raise StateFileError(
                f"players/ in {where}: card {p} is not a point of the deck's group"
            )
    return Deck(
        keys=tuple(keys),
        passes=tuple(passes),
        holders=tuple(c[0] for c in cards),
        bought=tuple(c[1] for c in cards),
        opened=tuple(c[2] for c in cards),
        shared=tuple(c[3] for c in cards),
        shown=tuple(c[4] for c in cards),
        secrets=tuple(secrets),
    )


def _chain(files: dict[str, bytes], players: tuple[str, ...], where: str) -> tuple[str, ...]:
    """Each player's last revealed dice-chain element, from ``chain/<player>.json``."""
    out = []
    for name in players:
        path = f"chain/{name}.json"
        out.append(
            _validate(schema.ChainFile, path, files[path], where).root if path in files else ""
        )
    return tuple(out)


def _per_player(
    files: dict[str, bytes], path: str, model: Any, players: tuple[str, ...], where: str
) -> tuple[str, ...]:
    """A ``player -> text`` file (``seats.json``) in seat order, "" if unset."""
    if path not in files:
        return ()
    found = _validate(model, path, files[path], where).root
    odd = set(found) - set(players)
    if odd:
        raise StateFileError(f"{path} in {where} names {sorted(odd)}, who are not players")
    return tuple(found.get(p, "") for p in players)


#: Names a state tree may hold, per folder ("*.json": any player's file).
TREE_NAMES: dict[str, frozenset[str]] = {
    "": frozenset(
        {
            "awards.json",
            "board",
            "chain",
            "deck",
            "deck.json",
            "game.json",
            "map",
            "players",
            "seats.json",
            "turn.json",
        }
    ),
    "board/": frozenset({"board.json"}),
    "deck/": frozenset({"*.json"}),
    "chain/": frozenset({"*.json"}),
    "map/": frozenset({"cities.json", "roads.json", "settlements.json"}),
    "players/": frozenset({"*.json"}),
}
#: Largest state file read (the board of a radius-5 island is about 20 KB).
MAX_FILE = 256 * 1024


def read_files(store: ObjectStore, tree: str, where: str) -> dict[str, bytes]:
    """Every file of a state tree as ``path -> bytes``.

    The tree may come from anyone, so only the layout of section 4 of PROTOCOL.md is
    read: known names, two levels, bounded files. Anything else is one clear error.
    """
    out: dict[str, bytes] = {}

    def walk(oid: str, prefix: str) -> None:
        kind, data = store.read(oid)
        if kind != b"tree":
            raise StateFileError(
                f"{prefix or 'the root'} in {where} is a {kind.decode()}, not a tree"
            )
        try:
            entries = parse_tree(data)
        except (UnicodeDecodeError, ValueError):
            raise StateFileError(
                f"{prefix or 'the root'} in {where} is not a well-formed tree"
            ) from None
        allowed = TREE_NAMES[prefix]
        for name, (is_tree, child) in entries.items():
            path = f"{prefix}{name}"
            wildcard = "*.json" in allowed and name.endswith(".json") and "/" not in name
            if name not in allowed and not wildcard:
                raise StateFileError(f"{where} holds {path!r}, which no state tree has")
            if is_tree != (path + "/" in TREE_NAMES):
                raise StateFileError(f"{path} in {where} has the wrong type")
            if is_tree:
                walk(child, path + "/")
                continue
            kind, blob = store.read(child)
            if kind != b"blob" or len(blob) > MAX_FILE:
                raise StateFileError(f"{path} in {where} is not a file of at most {MAX_FILE} B")
            out[path] = blob

    walk(tree, "")
    return out


def read_state(store: ObjectStore, tree: str, where: str) -> tuple[GameState, GameInfo]:
    """Decode the state stored in ``tree`` (``where`` names the commit for errors)."""
    return decode(read_files(store, tree, where), where)
