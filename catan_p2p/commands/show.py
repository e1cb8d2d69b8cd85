"""``catan-p2p show``: the state at a commit (text, JSON or a PNG of the board)."""

from __future__ import annotations

import argparse

from catan_p2p.commands._common import open_repo, print_json, seen_by
from catan_p2p.commands._options import add_json, add_repo, add_viewer
from catan_p2p.errors import UsageError
from catan_p2p.rules.cards import DEV_CARDS, RESOURCES, format_counts
from catan_p2p.rules.places import tile_name
from catan_p2p.rules.state import NOBODY, GameState
from catan_p2p.rules.waiting import expecting
from catan_p2p.store import gitcmd
from catan_p2p.store.codec import player_data, turn_data
from catan_p2p.store.repo import Repository
from catan_p2p.trust.views import hidden_count, pending_cards


def resolve(repo: Repository, rev: str) -> str:
    """A commit id from anything ``git rev-parse`` understands."""
    proc = gitcmd.run(repo.git_dir, "rev-parse", "--verify", "--quiet", rev + "^{commit}")
    if proc.returncode != 0:
        raise UsageError(f"{rev!r} is not a commit of {repo.path}; see `catan-p2p log` for ids")
    return proc.stdout.strip()


def describe(state: GameState, mine: GameState | None = None, viewer: str | None = None) -> str:
    """The state in a few lines; ``mine`` is ``viewer``'s view (its own cards shown)."""
    mine = state if mine is None else mine
    left = state.deck.left if state.deck is not None else sum(state.dev_deck)
    lines = [f"Turn {state.turn}: {expecting(state)}"]
    if state.dice:
        lines.append(f"Dice: {state.dice[0]}+{state.dice[1]}={sum(state.dice)}")
    lines.append(f"Robber: on {tile_name(state.board, state.board.graph.tiles[state.robber])}")
    lines.append(f"Bank: {format_counts(state.bank)}; development cards left {left}")
    for s, name in enumerate(state.players):
        h = state.hands[s]
        own = name == viewer
        points = mine.points(s) if own or state.deck is None else state.points(s)
        awards = []
        if state.longest_road == s:
            awards.append("longest road")
        if state.largest_army == s:
            awards.append("largest army")
        cards = format_counts(mine.hands[s].resources if own else h.resources)
        if not own and h.hidden:  # a steal whose card only robber and robbed know yet
            cards += f" {'+' if h.hidden > 0 else '-'} {abs(h.hidden)} unknown"
        lines.append(
            f"  {name:7} {points:2} pts  cards: {cards}; "
            f"dev {hidden_count(state, s)}{_own_cards(mine, s, pending_cards(state, s)) if own else ''}, "
            f"knights {h.knights}; "
            f"pieces left {h.roads_left}/{h.settlements_left}/{h.cities_left}"
            + (f"; {', '.join(awards)}" if awards else "")
        )
    return "\n".join(lines)


def _own_cards(view: GameState, seat: int, unopened: int) -> str:
    """The viewer's own cards by name, and those the other seats have not opened yet."""
    hand = view.hands[seat]
    names = [
        f"{n} {card.label}"
        for card in DEV_CARDS
        for n in (hand.dev_cards[card] + hand.new_dev_cards[card],)
        if n
    ]
    if unopened:
        names.append(f"{unopened} not readable until the others' next rolls open it")
    return f" ({', '.join(names)})" if names else ""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p show``."""
    parser.add_argument(
        "commit",
        nargs="?",
        default=None,
        help="any commit Git understands: an id from `catan-p2p log`, a branch (default: the game's head)",
    )
    parser.add_argument(
        "--png", default=None, metavar="FILE", help="also draw the board at that commit to FILE"
    )
    add_repo(parser)
    add_json(parser)
    add_viewer(parser)


def run(args: argparse.Namespace) -> int:
    repo = open_repo(args.repo)
    if args.commit:
        oid = resolve(repo, args.commit)
    else:
        from catan_p2p.commands._common import open_session

        oid = open_session(args.repo, args.game, read_only=True).head
    state, info = repo.state_of(oid)
    mine = seen_by(args.repo, args.game, args.viewer, args.key)(state)
    if args.png:
        from catan_p2p.client.render import save_png

        save_png(state.board, args.png, state)
    if args.json:
        print_json(
            {
                "commit": oid,
                "game": info.game,
                "turn": turn_data(state),
                "bank": dict(zip((r.label for r in RESOURCES), state.bank, strict=True)),
                "viewer": args.viewer,
                "points": {
                    p: (mine if p == args.viewer else state).points(s)
                    for s, p in enumerate(state.players)
                },
                "players": {
                    p: player_data((mine if p == args.viewer else state).hands[s])
                    | {"face_down": hidden_count(state, s)}
                    for s, p in enumerate(state.players)
                },
                "winner": None if state.winner == NOBODY else state.players[state.winner],
            }
        )
    else:
        print(f"Commit {oid[:10]} of game {info.game}")
        print(describe(state, mine, args.viewer))
        if args.png:
            print(f"Board written to {args.png}")
    return 0
