"""``catan-p2p stats`` of a finished 4-player game against a recount from ``log --json``.

The statistics are counted from states replayed through the rules; the recount here
reads only the log's actions (and the bank's rates the log words), so the two agree
only when both read the same game the same way.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict

import pytest
from gitgames import FOUR, cli

from catan_p2p.rules.cards import DEV_CARDS, RESOURCES

pytestmark = pytest.mark.slow  # starts processes (git, the CLI): see tests/conftest.py

PLAY = {
    "play_knight": "knight",
    "play_road_building": "road building",
    "play_year_of_plenty": "year of plenty",
    "play_monopoly": "monopoly",
}


def recount(entries: list[dict]) -> dict:
    """The figures a reader of the log alone can count."""
    zero = {r.label: 0 for r in RESOURCES}
    out: dict = defaultdict(
        lambda: {
            "bank_got": dict(zero),
            "bank_gave": dict(zero),
            "trade_got": dict(zero),
            "trade_gave": dict(zero),
            "discarded": dict(zero),
            "robbed": 0,
            "stole": 0,
            "dev_bought": 0,
            "dev_played": {d.label: 0 for d in DEV_CARDS},
        }
    )
    dice: Counter = Counter()
    offer = robber = None
    counters: dict = {}
    for e in entries:
        a, who = e["action"], e["author"]
        kind = a["type"]
        if kind in ("roll_dice", "reveal_dice") and a.get("dice"):
            dice[sum(a["dice"])] += 1
        elif kind == "maritime_trade":
            rate = int(re.search(r"trade (\d+) ", e["words"]).group(1))
            out[who]["bank_gave"][a["give"]] += rate
            out[who]["bank_got"][a["get"]] += 1
        elif kind == "offer_trade":
            offer, counters = a, {}
        elif kind == "answer_trade" and a.get("give"):  # a counter, from its player's side
            counters[who] = {"give": a["get"], "get": a["give"]}
        elif kind == "confirm_trade":
            taken = counters.get(a["partner"], offer)  # the offer, or the partner's counter
            for r, n in taken["give"].items():
                out[who]["trade_gave"][r] += n
                out[a["partner"]]["trade_got"][r] += n
            for r, n in taken["get"].items():
                out[who]["trade_got"][r] += n
                out[a["partner"]]["trade_gave"][r] += n
        elif kind == "discard":
            for r, n in a["cards"].items():
                out[who]["discarded"][r] += n
        elif kind == "move_robber":
            robber = who
        elif kind == "give_card":  # with seat keys the robbed player's answer takes the card
            out[who]["robbed"] += 1
            out[robber]["stole"] += 1
        elif kind == "buy_dev_card":
            out[who]["dev_bought"] += 1
        elif kind in PLAY:
            out[who]["dev_played"][PLAY[kind]] += 1
    return {"dice": dice, "players": out}


def test_stats_of_a_finished_game_agree_with_a_recount_of_its_log(finished_game, tmp_path):
    path, session, result = finished_game
    stats = cli("stats", "--repo", str(path), "--json", "--png", str(tmp_path / "stats.png"))
    assert stats.returncode == 0, stats.stderr
    got = json.loads(stats.stdout)
    log = json.loads(cli("log", "--repo", str(path), "--json").stdout)
    expected = recount(log)

    assert got["over"] and got["winner"] == result.winner
    assert {int(s): d["rolled"] for s, d in got["dice"].items()} == {
        s: expected["dice"][s] for s in range(2, 13)
    }
    assert got["rolls"] == sum(expected["dice"].values())
    assert got["dice"]["7"]["expected"] == round(got["rolls"] * 6 / 36, 2)
    for player in FOUR:
        mine, theirs = got["per_player"][player], expected["players"][player]
        for figure, value in theirs.items():
            assert mine[figure] == value, f"{player}'s {figure}"
        assert mine["points"] == session.state.points(FOUR.index(player))
        assert mine["victory_cards"] is not None, "the game's end shows them"
    # every card moved between players is counted on both sides
    for figure in ("trade_got", "robbed"):
        other = {"trade_got": "trade_gave", "robbed": "stole"}[figure]
        total = lambda f: sum(  # noqa: E731
            sum(v.values()) if isinstance(v, dict) else v
            for v in (got["per_player"][p][f] for p in FOUR)
        )
        assert total(figure) == total(other)
    assert len(got["points"]) == got["turns"] + 1
    assert (tmp_path / "stats.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    text = cli("stats", "--repo", str(path)).stdout
    assert f"{result.winner.capitalize()} won in {got['turns']} turns" in text


def test_the_game_so_far_shows_no_hidden_card(finished_game):
    """Before the end a victory point card in hand is not counted, and a face-down card
    or a stolen card is a number, never a type."""
    from catan_p2p.session.review import verified_game
    from catan_p2p.store.repo import GameRepo

    path, _, _ = finished_game
    review = verified_game(GameRepo(path), "g")
    for n in (len(review.entries) // 3, 2 * len(review.entries) // 3):
        state = review.states[n]
        stats = review.stats(upto=n)
        assert not stats.over and stats.winner is None
        for seat, player in enumerate(state.players):
            s = stats.per_player[player]
            assert s.victory_cards is None
            assert s.points == state.public_points(seat)
            assert isinstance(s.robbed, int) and isinstance(s.dev_bought, int)
