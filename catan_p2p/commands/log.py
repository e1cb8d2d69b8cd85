"""``catan-p2p log``: the game as a readable table of actions."""

from __future__ import annotations

import argparse

from catan_p2p.commands._common import open_session, print_json, viewer_session
from catan_p2p.commands._options import add_json, add_repo, add_viewer
from catan_p2p.net.game import LogEntry
from catan_p2p.protocol.concurrent import is_answer
from catan_p2p.rules.cards import DevCard, Resource
from catan_p2p.rules.places import in_words
from catan_p2p.session.git import GitSession
from catan_p2p.store.reading import read_state
from catan_p2p.trust.views import own_cards, stolen_card


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``catan-p2p log``."""
    parser.add_argument(
        "--chat", action="store_true", help="list the players' chat instead of the actions"
    )
    add_repo(parser)
    add_json(parser)
    add_viewer(parser)


def drawn_by(session: GitSession, viewer: str, entries: list[LogEntry]) -> dict[str, str]:
    """Commit -> the card ``viewer`` drew there, for its purchases it can read now.

    A player's purchases take the deck's positions it holds, in the order it drew them.
    """
    state = session.state
    deck = state.deck
    if deck is None:
        return {}
    seat = state.players.index(viewer)
    readable = dict(own_cards(state, seat, session.peers[viewer].deck_secret))
    readable.update({p: type_ for p, type_ in enumerate(deck.shown) if type_ >= 0})
    mine = [p for p, h in enumerate(deck.holders) if h == seat]
    buys = [e.commit for e in entries if e.author == viewer and e.action.kind == "buy_dev_card"]
    return {
        commit: DevCard(readable[pos]).label
        for commit, pos in zip(buys, mine, strict=False)
        if pos in readable
    }


def stolen_for(session: GitSession, viewer: str, entries: list[LogEntry]) -> dict[str, str]:
    """Commit -> the card taken, for the steals ``viewer`` made or suffered.

    Only robber and robbed can read a steal's card (``trust.views.stolen_card``); the
    card is read from the pending steal in the robbed player's ``give_card`` answer.
    """
    store = session.repo.store
    secret = session.peers[viewer].deck_secret
    out = {}
    for e in entries:
        if e.action.kind != "give_card":
            continue
        state = read_state(store, session.repo.commit(e.commit).tree, e.commit)[0]
        seat = state.players.index(viewer)
        steal = state.steals[-1] if state.steals else None
        if steal is not None and seat in (steal.mover, steal.victim):
            out[e.commit] = Resource(stolen_card(steal, seat, secret)).label
    return out


def run(args: argparse.Namespace) -> int:
    if args.chat:
        from catan_p2p.commands import chat

        args.text = None
        return chat.run(args)
    session = open_session(args.repo, args.game, read_only=True)
    entries = session.history()
    board = session.state.board
    said = session.said(entries)
    cards: dict[str, str] = {}
    stolen: dict[str, str] = {}
    if args.viewer:
        viewer = viewer_session(args.repo, args.game, args.viewer, args.key)
        cards = drawn_by(viewer, args.viewer, entries)
        stolen = stolen_for(viewer, args.viewer, entries)
    if args.json:
        print_json(
            [
                {
                    "commit": e.commit,
                    "author": e.author,
                    "action": e.action.to_json(),
                    "summary": e.summary,
                    "words": in_words(board, said.get(e.commit, e.summary)),
                    **({"drew": cards[e.commit]} if e.commit in cards else {}),
                    **({"stolen": stolen[e.commit]} if e.commit in stolen else {}),
                }
                for e in entries
            ]
        )
        return 0
    print(f"{'#':>5}  {'commit':10}  {'player':8}  action")
    for i, e in enumerate(entries, 1):
        summary = in_words(board, said.get(e.commit, e.summary).split(": ", 1)[-1])
        if e.commit in cards:
            summary += f" (drew a {cards[e.commit]})"
        if e.commit in stolen:
            summary += f" (the card: {stolen[e.commit]})"
        print(f"{i:>5}  {e.commit[:10]}  {e.author:8}  {summary}")
    print(count_note(entries))
    return 0


def count_note(entries: list) -> str:  # type: ignore[type-arg]
    """What the table counts, so it can be set beside ``verify`` and ``bisect``."""
    answers = sum(1 for e in entries if is_answer(e.action))
    return (
        f"{len(entries)} action{'s' * (len(entries) != 1)}: {len(entries) - answers} on the "
        f"game's main line and {answers} answer{'s' * (answers != 1)} (seat claims, discards, trade answers) made on side branches; the genesis "
        "commit and the merges that collect answers are commits, not actions"
    )
