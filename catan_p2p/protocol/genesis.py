"""The genesis: the first commit of a game, derived from what it declares, never trusted.

A genesis declares its game id, players, seed and victory points in its trailer; its
tree must be exactly the initial state those values give on the board its tree holds
(full bank and deck, no pieces, every seat open). The board is the one part a creator
chooses; it is public before anyone claims a seat, so joining is agreeing to it.
"""

from __future__ import annotations

from catan_p2p.errors import BoardError, StateFileError, VerificationError
from catan_p2p.protocol.graph import CommitGraph
from catan_p2p.protocol.message import (
    GENESIS,
    PROTOCOL_VERSION,
    GenesisInfo,
    parse_genesis,
    trailer,
)
from catan_p2p.rules.board import Board
from catan_p2p.rules.cards import MAX_PLAYERS
from catan_p2p.rules.state import GameState, new_game
from catan_p2p.store import schema
from catan_p2p.store.codec import BANK, GameInfo, StateWriter
from catan_p2p.store.formats import Commit, HashingStore, ObjectStore, parse_tree, player_email
from catan_p2p.store.reading import MAX_FILE
from catan_p2p.store.refnames import check_name


def initial_state(declared: GenesisInfo, board: Board) -> tuple[GameState, GameInfo]:
    """The state a genesis with these declared values must hold."""
    state = new_game(declared.players, board, declared.victory_points, seated=True)
    return state, GameInfo(declared.game, declared.seed, declared.timeout)


def check_declared(declared: GenesisInfo) -> None:
    """Refuse declared values ``catan-p2p new`` would refuse (ValueError naming the rule)."""
    check_name("game id", declared.game)
    for p in declared.players:
        check_name("player", p)
    if BANK in declared.players:
        raise ValueError(f"{BANK!r} cannot be a player's name")
    n = len(declared.players)
    if not 2 <= n <= MAX_PLAYERS or len(set(declared.players)) != n:
        raise ValueError(f"a game has 2 to {MAX_PLAYERS} players with different names")
    if declared.timeout and not 60 <= declared.timeout <= schema.MAX_TIMEOUT:
        raise ValueError(f"a timeout is 1 minute to {schema.MAX_TIMEOUT // 86400} days, or none")


def _board_of(store: ObjectStore, tree: str) -> Board:
    """The board in a genesis tree: the one file read from it before derivation."""
    kind, data = store.read(tree)
    if kind != b"tree":
        raise ValueError("its tree is not a tree")
    root = parse_tree(data)
    is_tree, board_tree = root.get("board", (False, ""))
    if not is_tree:
        raise ValueError("its tree has no board/ folder")
    kind, data = store.read(board_tree)
    is_tree, blob = parse_tree(data).get("board.json", (True, ""))
    if kind != b"tree" or is_tree:
        raise ValueError("its tree has no board/board.json")
    kind, data = store.read(blob)
    if kind != b"blob" or len(data) > MAX_FILE:
        raise ValueError(f"board/board.json is not a file of at most {MAX_FILE} B")
    model = schema.BoardFile.model_validate_json(data)
    return Board.from_data(model.model_dump())


def derive_genesis(store: ObjectStore, commit: Commit) -> tuple[GameState, GameInfo]:
    """Check a genesis commit against what it declares; its state and game info.

    Raises:
        VerificationError: anything in it that the declared values do not give, named.
    """
    who = f"genesis {commit.oid[:10]}"
    if commit.parents:
        raise VerificationError(f"{who} is refused: a genesis has no parents")
    if not commit.canonical or commit.signature is not None:
        raise VerificationError(
            f"{who} is refused: its header is not the canonical unsigned form of protocol {PROTOCOL_VERSION}"
        )
    declared = parse_genesis(commit)
    try:
        check_declared(declared)
    except ValueError as exc:
        raise VerificationError(f"{who} is refused: {exc}") from None
    if commit.author != declared.players[0] or commit.email != player_email(commit.author):
        raise VerificationError(f"{who} is refused: its author is not the first player")
    try:
        board = _board_of(store, commit.tree)
    except (ValueError, StateFileError, BoardError) as exc:
        raise VerificationError(f"{who} is refused: its board cannot be read ({exc})") from None
    state, info = initial_state(declared, board)
    tree = StateWriter(HashingStore(), info).write(state)
    if tree != commit.tree:
        raise VerificationError(
            f"{who} is refused: its tree {commit.tree[:10]} is not the initial state its "
            f"trailer declares ({tree[:10]}); the starting position was altered"
        )
    return state, info


def open_genesis(repo: CommitGraph, oid: str) -> tuple[GameState, GameInfo]:
    """The initial state a genesis commit declares, checked against its tree.

    Raises:
        VerificationError: the genesis is not the derived one (rigged or altered).
    """
    return derive_genesis(repo.store, repo.commit(oid))


def genesis_of(repo: CommitGraph, oid: str) -> str:
    """The genesis commit ``oid``'s first-parent line starts from."""
    root = repo.first_parents(oid)[-1]
    if trailer(repo.commit(root), GENESIS) is None:
        raise StateFileError(f"history of {oid[:10]} does not start with a genesis commit")
    return root
