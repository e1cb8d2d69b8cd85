"""The concurrent step decided without a repository: where an action goes, when to merge."""

from __future__ import annotations

import pytest
from builders import BLUE, RED, WHITE, at_turn, cards, fresh, give, play, roll

from catan_p2p.errors import IllegalAction, VerificationError
from catan_p2p.protocol import concurrent
from catan_p2p.protocol.concurrent import (
    Answer,
    AnswerOnBranch,
    MergeThenRecord,
    Record,
    SettleThenRecord,
)
from catan_p2p.protocol.message import MergeInfo, parse_merge
from catan_p2p.rules.actions import (
    AnswerTrade,
    CancelTrade,
    ConfirmTrade,
    Discard,
    EndTurn,
    OfferTrade,
)
from catan_p2p.rules.state import Phase
from catan_p2p.store.formats import Commit, commit_data

OPENING = "a" * 40


def _none() -> list[Answer]:
    raise AssertionError("answers were collected although no step is open")


def _seven():
    """Red rolled a seven; Red owes 4 cards and Blue owes 5."""
    state = give(fresh(3), RED, cards(lumber=2, brick=2, wool=2, grain=2))
    state = give(state, BLUE, cards(ore=5, grain=5))
    return roll(at_turn(state, RED, Phase.ROLL), 7)


def _offer():
    state = give(fresh(3), RED, cards(lumber=2))
    state = give(state, BLUE, cards(ore=2))
    return play(at_turn(state, RED), OfferTrade(RED, cards(lumber=1), cards(ore=1)))


def _answer(player, action, n=1):
    return Answer(player, str(n) * 40, action)


def _commit(author: str, parents: list[str]) -> Commit:
    data = commit_data("b" * 40, parents, author, f"{author}@catan-p2p", 0, "x\n")
    return Commit("c" * 40, data)


def test_plain_action_is_recorded_without_collecting_answers():
    state = at_turn(fresh(3), RED)
    assert concurrent.plan_action("g", OPENING, state, EndTurn(RED), _none) == Record()


def test_discard_goes_on_its_answer_branch_off_the_opening():
    plan = concurrent.plan_action(
        "g", OPENING, _seven(), Discard(BLUE, cards(ore=3, grain=2)), list
    )
    assert plan == AnswerOnBranch("discard", f"refs/heads/catan/g/discard/{OPENING}/blue")


def test_illegal_answer_is_refused_before_anything_is_written():
    with pytest.raises(IllegalAction):
        concurrent.plan_action("g", OPENING, _seven(), Discard(BLUE, cards(ore=1)), list)


def test_second_trade_answer_of_a_player_is_refused_on_top_of_the_first():
    first = [_answer(BLUE, AnswerTrade(BLUE, True))]
    with pytest.raises(IllegalAction):
        concurrent.plan_action("g", OPENING, _offer(), AnswerTrade(BLUE, False), lambda: first)


def test_confirming_a_trade_merges_the_answers_first():
    answers = [_answer(BLUE, AnswerTrade(BLUE, True))]
    plan = concurrent.plan_action("g", OPENING, _offer(), ConfirmTrade(RED, BLUE), lambda: answers)
    assert plan == MergeThenRecord("trade", tuple(answers))


def test_confirming_with_an_acceptor_who_did_not_answer_is_refused():
    with pytest.raises(IllegalAction):
        concurrent.plan_action("g", OPENING, _offer(), ConfirmTrade(RED, BLUE), list)


def test_cancelling_an_unanswered_offer_is_a_plain_commit():
    assert concurrent.plan_action("g", OPENING, _offer(), CancelTrade(RED), list) == Record()


def test_other_action_during_discards_settles_the_merge_first():
    plan = concurrent.plan_action("g", OPENING, _seven(), EndTurn(RED), list)
    assert plan == SettleThenRecord("discard")


def test_discard_merge_is_due_only_when_every_owed_discard_is_in():
    state = _seven()
    red = _answer(RED, Discard(RED, cards(lumber=2, brick=2)), 1)
    blue = _answer(BLUE, Discard(BLUE, cards(ore=3, grain=2)), 2)
    assert concurrent.owed_discards(state) == {RED, BLUE}
    assert concurrent.merge_due(state, {RED}, lambda: [red]) is None
    merge = concurrent.merge_due(state, {RED}, lambda: [red, blue])
    assert merge == concurrent.Merge("discard", RED, (red, blue))


def test_discard_merge_is_never_due_for_a_remote_active_player():
    assert concurrent.merge_due(_seven(), {BLUE, WHITE}, _none) is None


def test_merge_commit_takes_the_opening_then_the_answers_in_order():
    state = _seven()
    red = _answer(RED, Discard(RED, cards(lumber=2, brick=2)), 1)
    blue = _answer(BLUE, Discard(BLUE, cards(ore=3, grain=2)), 2)
    merge = concurrent.merge_commit("g", RED, "discard", OPENING, state, [red, blue])
    assert merge.parents == (OPENING, red.commit, blue.commit)
    assert merge.state.phase is Phase.MOVE_ROBBER
    assert merge.message.startswith("Red: merge discards of Red, Blue\n")
    c = Commit("d" * 40, commit_data("b" * 40, list(merge.parents), RED, "r", 0, merge.message))
    assert parse_merge(c) == MergeInfo("discard", (RED, BLUE))


def test_answers_sort_by_seat():
    white = _answer(WHITE, AnswerTrade(WHITE, False), 3)
    blue = _answer(BLUE, AnswerTrade(BLUE, True), 2)
    assert concurrent.in_seat_order([white, blue], (RED, BLUE, WHITE)) == [blue, white]


def test_answer_on_a_players_log_is_rejected():
    with pytest.raises(VerificationError, match="concurrent answer"):
        concurrent.check_not_answer(_commit(BLUE, [OPENING]), AnswerTrade(BLUE, True))


def test_merge_by_anyone_but_the_active_player_is_rejected():
    with pytest.raises(VerificationError, match="only Red may merge"):
        concurrent.check_merger(_commit(BLUE, [OPENING]), MergeInfo("discard", ()), _seven())


def test_discard_merge_missing_an_owed_discard_is_rejected():
    with pytest.raises(VerificationError, match="every discard owed"):
        concurrent.check_merged(_commit(RED, [OPENING]), "discard", _seven())


def test_the_ref_names_know_every_kind_of_concurrent_step():
    from catan_p2p.protocol.concurrent import ANSWER_KINDS
    from catan_p2p.store.refnames import KINDS

    assert set(KINDS) == set(ANSWER_KINDS)
