"""Files -> state: a state tree read back, every file checked before it is believed.

A tree may come from anyone, so ``read_files`` reads only the layout of section 4 of
PROTOCOL.md and ``decode`` validates every file with the pydantic models of
``schema`` and names the file, commit and field of the first problem
(``codec`` is the other direction, the writer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from catan_p2p.errors import BoardError, StateFileError
from catan_p2p.rules.board import Board, BoardGraph
from catan_p2p.rules.cards import Counts
from catan_p2p.rules.deck import Deck, deck_size
from catan_p2p.rules.hexgrid import parse_place
from catan_p2p.rules.roads import longest_road
from catan_p2p.rules.state import (
    NOBODY,
    Answer,
    GameState,
    Phase,
    PlayerState,
    Steal,
    Terms,
    TradeOffer,
    setup_order,
)
from catan_p2p.store import schema
from catan_p2p.store.codec import ANSWER_OF_WORD, BANK, DEV_CARD_WORDS, RESOURCE_WORDS, GameInfo
from catan_p2p.store.formats import ObjectStore, parse_tree
from catan_p2p.trust import poker as cards_deck


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


class _Tree:
    """The files of one state tree being decoded, and the errors that name them."""

    def __init__(self, files: dict[str, bytes], where: str) -> None:
        self.files, self.where = files, where
        self.seat: dict[str, int] = {}

    def read(self, model: type[BaseModel], path: str) -> Any:
        """File ``path``, which every state tree holds, validated as ``model``."""
        if path not in self.files:
            raise StateFileError(
                f"{path} is missing from {self.where}; the state tree is incomplete"
            )
        return _validate(model, path, self.files[path], self.where)

    def player_of(self, path: str, name: str | None) -> int:
        """The seat of ``name`` (NOBODY for None), refused when no player has it."""
        if name is None:
            return NOBODY
        if name not in self.seat:
            raise StateFileError(
                f"{path} in {self.where} names {name!r}, who is not a player of this game"
            )
        return self.seat[name]

    def places(self, graph: BoardGraph, path: str, kind: str) -> dict[int, int]:
        """A ``map/`` file: place index -> owner's seat."""
        mapping = self.read(schema.PlacesFile, path).root
        out = {}
        index = graph.vertex_index if kind == "vertex" else graph.edge_index
        for text, owner in mapping.items():
            try:
                place = index[parse_place(text)]  # type: ignore[index]
            except (KeyError, ValueError):
                raise StateFileError(
                    f"{path} in {self.where}: {text!r} is not a {kind} of this board"
                ) from None
            out[place] = self.player_of(path, owner)
        return out


def _check_version(game: Any, where: str) -> None:
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


def _board(tree: _Tree) -> Board:
    board_file = tree.read(schema.BoardFile, "board/board.json")
    try:
        return Board.from_data(board_file.model_dump())
    except BoardError as exc:
        raise StateFileError(f"board/board.json in {tree.where}: {exc}") from None


def _holdings(tree: _Tree, turn: Any, players: tuple[str, ...]) -> Callable[[str], Counts]:
    """``turn.json``'s resource table, checked: each holder's cards by its name."""
    table = turn.resources
    if BANK in tree.seat:
        raise StateFileError(f"game.json in {tree.where}: {BANK!r} cannot be a player's name")
    holders = {BANK, *players}
    for name in RESOURCE_WORDS:
        found = set(getattr(table, name))
        if found != holders:
            odd = sorted(found ^ holders)
            raise StateFileError(
                f"turn.json in {tree.where}: resources.{name} must list the bank and every "
                f"player exactly once, not {', '.join(odd)}"
            )
    return lambda holder: tuple(getattr(table, name)[holder] for name in RESOURCE_WORDS)  # type: ignore[return-value]


def _hand(
    tree: _Tree, s: int, name: str, held: Counts, graph: BoardGraph, owners: tuple, drawn: dict
) -> PlayerState:
    """Seat ``s``'s hand from ``players/<name>.json``; its drawn cards go into ``drawn``.

    ``owners`` is (settlements, cities, roads, vertex owners) of the map.
    """
    settlements, cities, roads, vo = owners
    path = f"players/{name}.json"
    pf = tree.read(schema.PlayerFile, path)
    for card in pf.cards:
        if card.position in drawn:
            raise StateFileError(f"{path} in {tree.where}: card {card.position} is drawn twice")
        mask = 1 << s
        for other in card.shared:
            if tree.player_of(path, other) == s:
                raise StateFileError(f"{path} in {tree.where}: {name} shares its own card")
            mask |= 1 << tree.player_of(path, other)
        shown = -1 if card.shown is None else DEV_CARD_WORDS.index(card.shown)
        drawn[card.position] = (s, card.bought, card.opened, mask, shown)
    own_s = frozenset(v for v, o in settlements.items() if o == s)
    own_c = frozenset(v for v, o in cities.items() if o == s)
    own_r = frozenset(e for e, o in roads.items() if o == s)
    ports = frozenset(graph.vertex_port[v] for v in own_s | own_c if graph.vertex_port[v] >= 0)
    return PlayerState(
        resources=held,
        dev_cards=_counts(pf.dev_cards, DEV_CARD_WORDS),
        new_dev_cards=_counts(pf.new_dev_cards, DEV_CARD_WORDS),
        played=_counts(pf.played, DEV_CARD_WORDS),
        settlements=own_s,
        cities=own_c,
        roads=own_r,
        road_length=longest_road(graph, own_r, vo, s),
        ports=ports,
    )


def _turn_parts(tree: _Tree, turn: Any, graph: BoardGraph, players: tuple[str, ...]) -> tuple:
    """``turn.json``'s robber, phase, trade offer and discards, checked."""
    where = tree.where
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
    trade = None if turn.trade is None else _trade(tree, turn.trade, players)
    return robber, phase, trade


def _trade(tree: _Tree, entry: Any, players: tuple[str, ...]) -> TradeOffer:
    """``turn.json``'s open offer, checked: a counter-offer's counts stand exactly beside
    a ``counter`` answer, and an offer to one player has that player's answer alone."""
    answers = [Answer.PENDING] * len(players)
    for name, ans in entry.answers.items():
        answers[tree.player_of("turn.json", name)] = ANSWER_OF_WORD[ans]
    to = NOBODY if entry.to is None else tree.player_of("turn.json", entry.to)
    if to != NOBODY and set(entry.answers) != {entry.to}:
        raise StateFileError(
            f"turn.json in {tree.where}: an offer made to {entry.to} has its answer alone"
        )
    counters: list[Terms | None] = [None] * len(players)
    for name, c in entry.counters.items():
        counters[tree.player_of("turn.json", name)] = Terms(
            _counts(c.give, RESOURCE_WORDS), _counts(c.get, RESOURCE_WORDS)
        )
    for s, ans in enumerate(answers):
        if (ans is Answer.COUNTER) != (counters[s] is not None):
            raise StateFileError(
                f"turn.json in {tree.where}: {players[s]}'s counter-offer counts stand "
                "beside a counter answer, and only there"
            )
    return TradeOffer(
        _counts(entry.give, RESOURCE_WORDS),
        _counts(entry.get, RESOURCE_WORDS),
        tuple(answers),
        to,
        tuple(counters),
    )


def decode(files: dict[str, bytes], where: str) -> tuple[GameState, GameInfo]:
    """Rebuild a state from its files (``path -> bytes``); ``where`` names the commit."""
    tree = _Tree(files, where)
    game = tree.read(schema.GameFile, "game.json")
    _check_version(game, where)
    board = _board(tree)
    graph = board.graph
    players = tuple(game.players)
    tree.seat = {name: i for i, name in enumerate(players)}
    player_of = tree.player_of
    turn = tree.read(schema.TurnFile, "turn.json")
    deck = tree.read(schema.DeckFile, "deck.json")
    held = _holdings(tree, turn, players)
    awards = tree.read(schema.AwardsFile, "awards.json")
    settlements = tree.places(graph, "map/settlements.json", "vertex")
    cities = tree.places(graph, "map/cities.json", "vertex")
    roads = tree.places(graph, "map/roads.json", "edge")
    if set(settlements) & set(cities):
        raise StateFileError(f"map/ in {where} puts a settlement and a city on one vertex")
    vertex_owner = [NOBODY] * len(graph.vertices)
    for v, o in {**settlements, **cities}.items():
        vertex_owner[v] = o
    edge_owner = [NOBODY] * len(graph.edges)
    for e, o in roads.items():
        edge_owner[e] = o
    vo, eo = tuple(vertex_owner), tuple(edge_owner)
    drawn: dict[int, tuple] = {}
    owners = (settlements, cities, roads, vo)
    hands = [
        _hand(tree, s, name, held(name), graph, owners, drawn) for s, name in enumerate(players)
    ]
    robber, phase, trade = _turn_parts(tree, turn, graph, players)
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
        dev_deck=_counts(deck, DEV_CARD_WORDS),
        hands=tuple(hands),
        vertex_owner=vo,
        edge_owner=eo,
        robber=robber,
        longest_road=player_of("awards.json", awards.longest_road),
        largest_army=player_of("awards.json", awards.largest_army),
        dev_played=turn.dev_played,
        fresh_beacon=turn.fresh_beacon,
        discards=tuple(discards),
        trade=trade,
        free_roads=turn.free_roads,
        winner=player_of("turn.json", turn.winner),
        victim=player_of("turn.json", turn.victim),
        token=turn.token or "",
        steals=steals,
        monopoly=NOBODY if turn.monopoly is None else RESOURCE_WORDS.index(turn.monopoly),
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
        hand = _counts(e.hand, RESOURCE_WORDS)
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
