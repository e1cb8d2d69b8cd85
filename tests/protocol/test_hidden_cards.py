"""Privacy: nothing written before the end of a game shows a face-down development card.

A reader who holds no player's key gets every object of a recorded 4-player game: every
tree's every blob and every commit message up to the first deck secret. From those it
tries to read the cards in hands and the deck's composition, as an attacker would:
plain card names, the 25 card points of the protocol, and each drawn card's opened value
with any point it can find removed. Then the secrets are revealed and every card checks.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from gitgames import CLI, hotseat_game

from catan_p2p.rules.cards import DEV_DECK, DevCard
from catan_p2p.store.refnames import player_ref
from catan_p2p.trust import poker as cards_deck

pytestmark = pytest.mark.slow

HEX64 = re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")
LABELS = [c.name.lower() for c in DevCard]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    path = tmp_path_factory.mktemp("private") / "game"
    session, result = hotseat_game(path, seed="private", strategy="greedy")
    return path, session, result


def _log(path: Path, session) -> list[tuple[str, str, str]]:
    """(commit, tree, message) of the game's first-parent log, oldest first."""
    ref = player_ref(session.game_id, session.players[0])
    out = _git(path, "log", "--first-parent", "--reverse", "--format=%H %T%n%B%x00", ref)
    entries = []
    for chunk in out.split("\0"):
        chunk = chunk.strip("\n")
        if not chunk:
            continue
        head, _, message = chunk.partition("\n")
        commit, tree = head.split()
        entries.append((commit, tree, message))
    return entries


@contextmanager
def _cat_file(repo: Path) -> Iterator[Callable[[str], tuple[bytes, bytes]]]:
    """(type, bytes) of an object by id, all through one ``git cat-file --batch``.

    A ``git cat-file blob`` per file of every tree, then a ``git ls-tree`` per commit,
    were hundreds to thousands of processes, most of this file's run time.
    """
    proc = subprocess.Popen(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def read(oid: str) -> tuple[bytes, bytes]:
        stdin.write(oid.encode() + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        assert len(header) == 3 and header[1] in (b"blob", b"tree"), header
        data = stdout.read(int(header[2]))
        stdout.read(1)  # the newline after each object
        return header[1], data

    try:
        yield read
    finally:
        stdin.close()
        proc.wait()


def _blobs(path: Path, tree: str, read: Callable[[str], tuple[bytes, bytes]]) -> dict[str, str]:
    """Every file of ``tree`` by path (what ``git ls-tree -r`` lists), read as Git stores it."""
    files = {}
    kind, data = read(tree)
    assert kind == b"tree", kind
    while data:  # entries: "<mode> <name>\0" and 20 bytes of object id
        head, _, data = data.partition(b"\0")
        mode, _, name = head.partition(b" ")
        oid, data = data[:20].hex(), data[20:]
        if mode == b"40000":
            inner = _blobs(path, oid, read)
            files.update({f"{name.decode()}/{k}": v for k, v in inner.items()})
        else:
            kind, blob = read(oid)
            assert kind == b"blob", (name, kind)
            files[name.decode()] = blob.decode()
    return files


@pytest.fixture
def read(game):
    with _cat_file(game[0]) as blob:
        yield blob


def test_no_object_before_the_reveal_shows_a_face_down_card(game, read):
    path, session, result = game
    final = session.state
    assert final.settled and result.winner is not None
    drawn = len(final.deck.holders)
    assert drawn >= 4, "the bots drew too few cards for the test to mean anything"
    points = {m.hex() for m in cards_deck.card_points()}
    log = _log(path, session)
    first_secret = next(i for i, (_, _, m) in enumerate(log) if "reveal_deck" in m)
    assert first_secret > len(log) - 5  # the secrets come last, one per player
    seen_hidden = 0
    for commit, tree, message in log[:first_secret]:
        files = _blobs(path, tree, read)
        text = message + "".join(files.values())
        # 1. No card point of the protocol appears, anywhere.
        assert not points & set(HEX64.findall(text)), commit
        # 2. A purchase names no card; only shown cards are named in players' files.
        if '"type":"buy_dev_card"' in message:
            assert '"card"' not in message, commit
        for name, blob in files.items():
            if name.startswith("players/"):
                data = json.loads(blob)
                named = sum(data["dev_cards"].values()) + sum(data["new_dev_cards"].values())
                face_up = [c for c in data.get("cards", []) if "shown" in c]
                hidden = [c for c in data.get("cards", []) if "shown" not in c]
                seen_hidden += len(hidden)
                assert not data["new_dev_cards"], commit  # a new card is never named
                vp_shown = sum(1 for c in face_up if c["shown"] == "victory_point")
                assert named == vp_shown, commit  # only victory points shown to win
        # 3. The deck's counts change only when a card is shown, never at a draw.
        deck = json.loads(files["deck.json"])
        shown = [
            c["shown"]
            for n, b in files.items()
            if n.startswith("players/")
            for c in json.loads(b).get("cards", [])
            if "shown" in c
        ]
        expected = {label: DEV_DECK[i] - shown.count(label) for i, label in enumerate(LABELS)}
        assert deck == expected, commit
    assert seen_hidden > 0
    # 4. The last tree before the secrets: no face-down card reads as a card, nor does it
    #    with its holder's layer removed by any 64-digit value the reader finds there,
    #    taken as a deck secret or as the key itself.
    #    (The last tree that has one: the bots may have played every card by the end.)
    for at in range(first_secret - 1, 0, -1):
        files = _blobs(path, log[at][1], read)
        hidden = [
            c["opened"]
            for n, b in files.items()
            if n.startswith("players/")
            for c in json.loads(b).get("cards", [])
            if "shown" not in c
        ]
        if hidden:
            break
    assert hidden
    text = "".join(files.values())
    candidates = set(HEX64.findall(text))
    for opened in hidden:
        assert cards_deck.card_type(opened) is None
        for value in candidates:
            raw = bytes.fromhex(value)
            assert cards_deck.peek(raw, opened) is None
            scalar = cards_deck._scalar(raw)  # any value, reduced to a key
            unlayered = cards_deck._mul(cards_deck._invert(scalar), cards_deck._point(opened))
            assert cards_deck.card_type(unlayered.hex()) is None


def test_after_the_reveal_every_card_is_known_and_every_peer_verifies_the_game(game):
    path, session, _ = game
    final = session.state
    deck = final.deck
    assert "" not in deck.secrets and all(t >= 0 for t in deck.shown)
    held = [0] * 5
    for t in deck.shown:
        held[t] += 1
    counts = [
        sum(h.dev_cards[k] + h.played[k] for h in final.hands) + final.dev_deck[k] for k in range(5)
    ]
    assert counts == list(DEV_DECK)
    done = subprocess.run([*CLI, "verify", "--repo", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "wait" not in done.stdout, done.stdout
