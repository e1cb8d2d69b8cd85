"""Grinding: trying many variants of a commit offline must not choose a roll, draw or steal.

The player before you could once vary its ``end_turn`` (its time, its message bytes)
until your roll was what it wanted. Since protocol 3 a roll is derived from dice-chain
elements fixed before the game began, so every canonical variant gives the same roll and
every other variant is refused. A development card is the next card of a deck every
seat shuffled before the game began, so no variant of the purchase changes it either,
and a stolen card is picked by the robber's token and the robbed player's answer, each
unique to its seat's key and given only after the robber moved.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest
from gitgames import REPOSITORIES, copy_game, new_repo, play_some, sign_commit

from catan_p2p.errors import IllegalAction, NotYetValid, VerificationError
from catan_p2p.protocol.message import action_message
from catan_p2p.rules.actions import BuyDevCard, EndTurn, GiveCard, MoveRobber, RollDice
from catan_p2p.rules.chance import derive_chance, stolen_index
from catan_p2p.rules.menu import legal_actions
from catan_p2p.rules.state import Phase
from catan_p2p.session.git import GitSession
from catan_p2p.session.start import create_game
from catan_p2p.store.formats import commit_data, object_id, player_email
from catan_p2p.store.repo import Repository
from catan_p2p.trust import poker as cards_deck
from catan_p2p.trust.engine import step
from catan_p2p.trust.steals import steal_context
from catan_p2p.trust.views import own_cards

VARIANTS = 10_000


@pytest.fixture(scope="module", params=REPOSITORIES)
def red_rolled(request, tmp_path_factory) -> Path | Repository:
    """The game each test starts from, played once (in memory, and slow on disk): each
    test gets a copy of it."""
    path = new_repo(request.param, tmp_path_factory.mktemp("grind"))
    create_game(path, ["red", "blue", "white"], seed="grind", game_id="g")
    everyone = GitSession(path, "g")
    play_some(everyone, 12)
    everyone.submit(RollDice("red"))
    while everyone.state.phase is not Phase.MAIN:  # a seven: discards and the robber
        play_some(everyone, 1)
    everyone.close()
    return path


@pytest.fixture()
def red_ends(red_rolled: Path | Repository, tmp_path: Path):
    """A 3-player game where Red, in its main phase, is about to end its turn."""
    everyone = GitSession(copy_game(red_rolled, tmp_path / "game"), "g")
    assert everyone.state.phase is Phase.MAIN and everyone.state.current == 0
    return everyone


def _blues_roll(everyone: GitSession, state, parent: str) -> tuple[int, int]:
    roll = everyone.peers["blue"].with_reveal(RollDice("blue"), state)
    return step(state, roll, derive_chance(everyone.info.seed, parent))[1].dice


def test_ten_thousand_end_turn_times_give_blue_one_roll(red_ends):
    everyone = red_ends
    state = everyone.committed_state
    end = everyone.peers["red"].with_reveal(EndTurn("red"), state)
    after = step(state, end)[0]
    tree = everyone.repo.writer(everyone.info).write(after)
    message = action_message(end, "g")
    key = everyone.keys["red"]
    rolls = set()
    ids = []
    for when in range(1_700_000_000, 1_700_000_000 + VARIANTS):
        fields = (tree, [everyone.head], "red", player_email("red"), when, message)
        plain = commit_data(*fields)
        oid = object_id(b"commit", commit_data(*fields, key.sign(plain)))
        ids.append(oid)
        rolls.add(_blues_roll(everyone, after, oid))
    assert len(set(ids)) == VARIANTS  # every variant is a different commit ...
    assert len(rolls) == 1  # ... and none changes Blue's roll
    # The variants are honest commits: a peer accepts them (a sample, each verified).
    verifier = everyone.peers["blue"].verifier
    for when in (0, 1, 1_700_000_000, int(time.time())):
        fields = (tree, [everyone.head], "red", player_email("red"), when, message)
        data = commit_data(*fields, key.sign(commit_data(*fields)))
        assert verifier.verify(everyone.repo.store.write(b"commit", data)) == after
    # One dated far ahead is refused only for now (Liveness), with the same outcome later.
    fields = (tree, [everyone.head], "red", player_email("red"), 4_000_000_000, message)
    data = commit_data(*fields, key.sign(commit_data(*fields)))
    with pytest.raises(NotYetValid, match="dated in the future"):
        verifier.verify(everyone.repo.store.write(b"commit", data))


@pytest.mark.parametrize(
    "variant",
    [
        lambda m: m.replace("\n\n", "  \n\n", 1),
        lambda m: m.replace('{"player"', '{ "player"'),
        lambda m: m.replace("Catan-Game: g\n", "Catan-Game:  g\n"),
        lambda m: m + "\n",
        lambda m: m.replace("Red: end turn", "Red: end turn."),
    ],
)
def test_every_other_byte_variant_of_end_turn_is_refused(red_ends, variant):
    everyone = red_ends
    state = everyone.committed_state
    end = everyone.peers["red"].with_reveal(EndTurn("red"), state)
    tree = everyone.repo.writer(everyone.info).write(step(state, end)[0])
    message = variant(action_message(end, "g"))
    oid = sign_commit(everyone.repo, everyone.head, "red", end, tree, everyone.keys["red"], message)
    with pytest.raises(VerificationError, match="canonical|belongs to game ' g'"):
        everyone.peers["blue"].verifier.verify(oid)


def test_no_choice_of_moves_before_ending_the_turn_changes_the_next_roll(red_ends):
    everyone = red_ends
    state = everyone.committed_state
    rolls = set()
    alternatives = [a for a in legal_actions(state, "red") if a.kind != "end_turn"][:40]
    for first in [None, *alternatives]:
        s = state if first is None else step(state, first, derive_chance("grind", "x"))[0]
        if s.phase is not Phase.MAIN:
            continue
        end = everyone.peers["red"].with_reveal(EndTurn("red"), s)
        after = step(s, end)[0]
        rolls.add(_blues_roll(everyone, after, "any-parent"))
    assert len(alternatives) > 3 and len(rolls) == 1


def _rich(state):
    """``state`` with every hand able to buy (the bank pays for it)."""
    return state._replace(
        hands=tuple(h._replace(resources=(5, 5, 5, 5, 5)) for h in state.hands),
        bank=(19 - 15,) * 5,
    )


def test_a_draw_cannot_be_ground_nor_read_before_the_others_open_it(red_ends):
    everyone = red_ends
    state = _rich(everyone.committed_state)
    # Ten thousand parents (every variant of the commit before the purchase) ...
    after = {
        step(state, BuyDevCard("red"), derive_chance("grind", f"{n:040x}"))[0]
        for n in range(VARIANTS)
    }
    assert len(after) == 1  # ... give one state: the card is the deck's next, fixed
    drawn = after.pop()
    deck = drawn.deck
    pos = len(deck.holders) - 1
    peers = everyone.peers
    # Paid for, and still unreadable, the buyer included, until every other seat shares.
    assert own_cards(drawn, 0, peers["red"].deck_secret) == []
    opened = deck.opened[pos]
    for seat, p in ((1, "blue"), (2, "white")):
        proof = cards_deck.share(peers[p].deck_secret, opened, deck.keys[seat])
        opened = cards_deck.check_share(proof, opened, deck.keys[seat])
    card = cards_deck.peek(peers["red"].deck_secret, opened)
    assert card is not None  # the buyer reads it ...
    assert cards_deck.card_type(opened) is None  # ... nobody else can
    for p in ("blue", "white"):
        assert cards_deck.peek(peers[p].deck_secret, opened) is None


def test_a_steal_cannot_be_ground_nor_foreseen_by_the_robber(red_ends):
    everyone = red_ends
    state = _rich(everyone.committed_state)._replace(phase=Phase.MOVE_ROBBER)
    moves = [
        a for a in legal_actions(state, "red") if isinstance(a, MoveRobber) and a.victim is not None
    ]
    move = everyone.peers["red"].with_secrets(moves[0], state)
    # Ten thousand variants of the commit before the robber move give one state: the
    # robber takes no card yet, it waits for the robbed player's answer ...
    after = {step(state, move, derive_chance("grind", f"{n:040x}"))[0] for n in range(VARIANTS)}
    assert len(after) == 1
    waiting = after.pop()
    assert waiting.phase is Phase.STEAL and waiting.hands == state.hands
    victim = move.victim
    # ... whose value for this steal (unique to its key, secret until it answers) picks
    # the card with the robber's token: the robber could not compute it when choosing
    # whom to rob. The answer is forced: a value for another steal, another key's, or
    # none, is refused.
    answer = everyone.peers[victim].with_secrets(GiveCard(victim), waiting)
    robbed = step(waiting, answer)[0]
    assert len(robbed.steals) == 1 and robbed.hands[0].hidden == 1
    seat = state.players.index(victim)
    wrong_tile = (state.robber + 1) % len(state.board.graph.tiles)
    for value in (
        "0" * 192,
        cards_deck.token(everyone.peers[victim].deck_secret, steal_context(1, wrong_tile, seat)),
        cards_deck.token(
            everyone.peers["red"].deck_secret, steal_context(waiting.turn, waiting.robber, seat)
        ),
    ):
        with pytest.raises(IllegalAction, match="its value for this steal"):
            step(waiting, GiveCard(victim, value))
    with pytest.raises(IllegalAction, match="its value for this steal"):
        step(waiting, GiveCard(victim))


def test_a_knight_before_the_roll_that_robs_the_previous_seat_does_not_reroll(red_ends):
    """Robbing the seat before you must not change the roll you are about to make: the
    robbed seat's answer reveals no dice-chain element, so the roll uses the elements it
    had when your turn began (a knight is no re-roll whose outcome you see first)."""
    everyone = red_ends
    state = everyone.committed_state
    end = everyone.peers["red"].with_reveal(EndTurn("red"), state)
    blues_turn = step(state, end)[0]
    direct = _blues_roll(everyone, blues_turn, "any-parent")
    knighted = _rich(blues_turn)._replace(phase=Phase.MOVE_ROBBER)  # as a knight leaves it
    robs_red = [
        a
        for a in legal_actions(knighted, "blue")
        if isinstance(a, MoveRobber) and a.victim == "red"
    ]
    assert robs_red, "no tile to rob Red from"
    waiting = step(knighted, everyone.peers["blue"].with_secrets(robs_red[0], knighted))[0]
    answer = everyone.peers["red"].with_secrets(GiveCard("red"), waiting)
    back = step(waiting, answer)[0]
    assert back.phase is Phase.ROLL and back.reveals == blues_turn.reveals
    assert _blues_roll(everyone, back, "any-parent") == direct


def test_the_victim_cannot_lay_out_its_hand_to_choose_the_card_it_loses(red_ends):
    """The victim knows its own value for a steal long before it is robbed, and may
    discard or trade first; the robber's token, unknown to it until the robber moves,
    decides with it. Other robbers (other keys) would take other cards from the same
    hand, and the token is the only one a robber can give for that steal."""
    everyone = red_ends
    state = _rich(everyone.committed_state)._replace(phase=Phase.MOVE_ROBBER)
    move = next(a for a in legal_actions(state, "red") if isinstance(a, MoveRobber) and a.victim)
    victim = state.players.index(move.victim)
    tile = state.board.graph.tile_index[move.tile]
    context = steal_context(state.turn, tile, victim)
    answer = cards_deck.token(everyone.peers[move.victim].deck_secret, context)[:64]
    picks = {
        stolen_index(
            state.turn,
            cards_deck.shared_value(bytes([n]) * 32, answer),
            state.hands[victim].card_count,
        )
        for n in range(40)
    }
    assert len(picks) > 5  # the victim's value alone does not say which card goes
    honest = everyone.peers["red"].with_secrets(move, state)
    assert step(state, honest)[0].token
    # Red cannot give another value: one made for another steal, another key's, or a
    # well-formed value with a forged proof, are all refused.
    other_turn = cards_deck.token(
        everyone.peers["red"].deck_secret, steal_context(999, tile, victim)
    )
    blues = cards_deck.token(everyone.peers["blue"].deck_secret, context)
    forged = honest.token[:64] + blues[64:]
    for token in (other_turn, blues, forged, "0" * 192, "not hex"):
        with pytest.raises(IllegalAction, match="token"):
            step(state, replace(move, token=token))
    with pytest.raises(IllegalAction, match="token"):
        step(state, move)  # none at all
    nobody = (
        next(a for a in legal_actions(state, "red") if isinstance(a, MoveRobber) and not a.victim)
        if any(isinstance(a, MoveRobber) and not a.victim for a in legal_actions(state, "red"))
        else None
    )
    if nobody is not None:
        with pytest.raises(IllegalAction, match="only a move that robs"):
            step(state, replace(nobody, token=honest.token))
