"""A whole 4-player game recorded in one repository: every seat's branch, merges, verify."""

from __future__ import annotations

import json

import pytest
from gitgames import FOUR, cli, git

from catan_p2p import clock
from catan_p2p.protocol.audit import audit
from catan_p2p.protocol.message import MERGE, trailer
from catan_p2p.rules.invariants import check_invariants
from catan_p2p.store.refnames import player_ref

pytestmark = pytest.mark.slow  # starts processes (git, the CLI): see tests/conftest.py


def test_the_game_ends_with_a_winner_and_every_branch_at_the_same_commit(finished_game):
    path, session, result = finished_game
    assert result.winner in FOUR
    heads = {p: session.repo.refs.get(player_ref("g", p)) for p in FOUR}
    assert len(set(heads.values())) == 1
    state, _ = session.repo.state_of(session.head)
    check_invariants(state)
    assert state.is_over and state.points(state.winner) >= 10


def test_an_independent_audit_verifies_every_commit(finished_game):
    path, session, result = finished_game
    report = audit(session.repo, "g", clock.now)
    assert report.ok, report.problem
    assert report.commits >= result.actions  # every action, plus merges
    assert report.state == session.state


def test_discard_merges_take_several_concurrent_answers_off_the_roll(finished_game):
    path, session, _ = finished_game
    repo = session.repo
    merges = [
        repo.commit(c) for c in repo.first_parents(session.head) if len(repo.commit(c).parents) > 2
    ]
    discard = next(c for c in merges if json.loads(trailer(c, MERGE))["kind"] == "discard")
    opening = repo.commit(discard.parents[0])
    # the roll of a seven, or the seat before the roller's reveal_dice that gave it
    assert opening.summary.split(": ", 1)[1].startswith(("roll", "reveal the dice"))
    assert "=7" in opening.summary
    answers = [repo.commit(a) for a in discard.parents[1:]]
    assert all(a.parents == [opening.oid] for a in answers)
    assert [a.author for a in answers] == json.loads(trailer(discard, MERGE))["answers"]
    assert all("discard" in a.summary for a in answers)


def test_trade_answers_are_merged_before_the_offer_is_closed(finished_game):
    path, session, _ = finished_game
    repo = session.repo
    line = list(reversed(repo.first_parents(session.head)))
    for i, oid in enumerate(line):
        c = repo.commit(oid)
        if len(c.parents) > 1 and "trade answers" in c.summary:
            assert "offer" in repo.commit(c.parents[0]).summary
            closing = repo.commit(line[i + 1]).summary
            assert "trade with" in closing or "cancel trade" in closing
            return
    raise AssertionError("no trade merge in the game")


def test_temporary_answer_branches_are_deleted_when_their_step_is_over(finished_game):
    path, session, _ = finished_game
    refs = git("for-each-ref", "--format=%(refname)", "refs/heads/catan/g", cwd=path).split()
    assert sorted(refs) == sorted(player_ref("g", p) for p in FOUR)


def test_git_itself_finds_the_repository_sound(finished_game):
    path, _, _ = finished_game
    git("fsck", "--strict", cwd=path)


def test_cli_verify_log_and_show_read_the_game(finished_game):
    path, session, result = finished_game
    verify = cli("verify", "--repo", str(path), "--json")
    assert verify.returncode == 0, verify.stderr
    assert json.loads(verify.stdout)["ok"] is True
    log = cli("log", "--repo", str(path), "--json")
    entries = json.loads(log.stdout)
    assert len(entries) == len(session.history())
    claims = [e for e in entries if e["action"]["type"] == "claim_seat"]
    assert [e["author"] for e in claims] == list(session.players)
    first = entries[len(claims)]
    assert first["action"]["type"] == "build_settlement" and first["author"] == "red"
    show = cli("show", "--repo", str(path), "--json")
    shown = json.loads(show.stdout)
    assert shown["winner"] == result.winner and shown["commit"] == session.head
    text = cli("log", "--repo", str(path)).stdout
    assert "build settlement" in text and "roll" in text


def test_discards_and_trade_answers_never_sit_on_the_main_line(finished_game):
    """Even the active player's own discard is an answer on its branch, merged in."""
    path, session, _ = finished_game
    repo = session.repo
    for oid in repo.first_parents(session.head)[:-1]:
        c = repo.commit(oid)
        if len(c.parents) == 1:
            assert not c.summary.split(": ", 1)[1].startswith(("discard", "accept", "decline")), (
                c.summary
            )
