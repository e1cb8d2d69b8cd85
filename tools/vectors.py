#!/usr/bin/env python3
"""Write or check the protocol test vectors in ``state_schema/vectors/vectors.json``.

A short game written with fixed keys (Ed25519 seeds ``b"red" * ...``) and fixed commit
times: the genesis, the seat claims, their merge and the first set-up moves (each
first settlement carries its seat's shuffle of the hidden deck). Each entry
holds the commit's raw bytes, its id and its tree id, so another implementation can check
that it writes and accepts exactly these commits.

    python tools/vectors.py          # rewrite the vectors
    python tools/vectors.py --check  # exit 1 when the code no longer writes them
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from catan_p2p.rules.board import STANDARD_BOARD
from catan_p2p.rules.chance import derive_chance
from catan_p2p.rules.engine import legal_actions, step
from catan_p2p.session.git import write_genesis
from catan_p2p.sync.concurrent import Answer, merge_commit
from catan_p2p.sync.peer import Peer
from catan_p2p.sync.protocol import PROTOCOL_VERSION, GenesisInfo, action_message
from catan_p2p.sync.repo import GameRepo, init_repo
from catan_p2p.sync.signing import SeatKey
from catan_p2p.sync.verify import Verifier

OUT = Path(__file__).resolve().parents[1] / "state_schema" / "vectors" / "vectors.json"
PLAYERS = ("red", "blue")
WHEN = 1_767_225_600  # 2026-01-01T00:00:00Z


def key_of(player: str) -> SeatKey:
    return SeatKey.from_seed((player.encode() * 32)[:32])


def vectors(where: Path | None = None) -> dict:
    """The vectors, computed now, written into the repository ``where`` (else a throw-away one)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(where or tmp)
        init_repo(path)
        repo = GameRepo(path)
        declared = GenesisInfo("vectors", PLAYERS, "seed-1", 10)
        entries = []

        def record(name: str, oid: str) -> None:
            c = repo.commit(oid)
            entries.append({"name": name, "commit": oid, "tree": c.tree, "raw": c.data.decode()})

        genesis = write_genesis(repo, declared, STANDARD_BOARD, when=WHEN)
        record("genesis", genesis)
        state, info = repo.open_genesis(genesis)
        writer = repo.writer(info)
        verifier = Verifier(repo, info, genesis, state)
        peers = {p: Peer(repo, info, p, genesis, key_of(p), verifier) for p in PLAYERS}
        answers = []
        for i, p in enumerate(PLAYERS):
            action = peers[p].claim_seat()  # its keys, dice anchor and deck key
            tree = writer.write(step(state, action)[0])
            oid = repo.write_commit(
                tree, [genesis], p, action_message(action, info.game), key_of(p), WHEN + 1 + i
            )
            record(f"claim_seat {p}", oid)
            answers.append(Answer(p, oid, action))
        merge = merge_commit(info.game, "red", "seat", genesis, state, answers)
        head = repo.write_commit(
            writer.write(merge.state),
            list(merge.parents),
            "red",
            merge.message,
            key_of("red"),
            WHEN + 10,
        )
        record("seat merge", head)
        state = merge.state
        for n in range(4):  # red's first settlement and road, then blue's
            player = state.players[state.current]
            chosen = peers[player].with_secrets(legal_actions(state, player)[0], state)
            state, resolved = step(state, chosen, derive_chance(info.seed, head))
            head = repo.write_commit(
                writer.write(state),
                [head],
                player,
                action_message(resolved, info.game),
                key_of(player),
                WHEN + 20 + n,
            )
            record(str(resolved), head)
        repo.close()
    keys = {p: key_of(p).public for p in PLAYERS}
    return {"protocol": PROTOCOL_VERSION, "seat_keys": keys, "commits": entries}


def main(argv: list[str]) -> int:
    now = json.dumps(vectors(), indent=1, sort_keys=True) + "\n"
    if "--check" in argv:
        if not OUT.exists() or OUT.read_text() != now:
            print(f"{OUT} is out of step with the code; run `python tools/vectors.py`")
            return 1
        print(f"{OUT.name}: the code writes exactly the vectors")
        return 0
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(now)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
