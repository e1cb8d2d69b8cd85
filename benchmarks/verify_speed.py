"""How fast ``catan-p2p verify`` re-checks a finished game, and what bounds it.

Two finished bot games (4 and 6 players, hot-seat, fixed seeds, as ``gitgames.play_hotseat``
records them) are verified by ``python -m catan_p2p verify --json`` in a **fresh process**
each round; its cost is the CPU (user + sys) the child used, read from ``RUSAGE_CHILDREN``
when it is reaped, so start-up, imports and the object reader's ``git cat-file`` child are
all counted. The figure is commits per CPU-second (``commits`` as ``verify`` reports them).

``--vs PYTHON`` runs a second build (another checkout's interpreter, e.g. a pristine
worktree of main) on the same games, the two in turn (A B A B ...), and reports the ratio
A/B of CPU round by round: the machine is shared, so only paired ratios mean much.

**The bound.** One more verify of each game runs in this process with the deck's group
operations counted (``trust.poker``: variable-base and base-point scalar multiplications,
point validity checks; the ed25519 signature checks beside them), and each operation's
cost is timed here with libsodium as PyNaCl gives it (OpenSSL's signature check beside). The
floor of a verify is then (operations x cost per operation) + an interpreter that imports
the verifier and exits; set beside the CPU budget of the goal (``commits / goal``).
The shuffle proofs alone are ``seats x SHUFFLE_ROUNDS x deck size`` multiplications: a
round's commitment is hashed into the proof (Fiat-Shamir), not sent, so no equation is
left to batch; each of its points must be recomputed exactly, and the points differ
(each round its own scalar), so none is computed twice. Two looser floors beside it: as
if libsodium's multiplication skipped its check that the input is in the prime-order
group (``mul - valid``: no binding offers that), and the only other exact route the
bindings give, two X25519 ladders per point (``u(kP)`` and ``u((k+1)P)``, then ``v`` by
Okeya-Sakurai's recovery for the sign): tried, it measured 1.03x the cost of one
libsodium multiplication (paired, 10 rounds of 500), so it was not kept.

Run::

    python -m benchmarks.verify_speed [--rounds 7] [--vs /path/to/other/.venv/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

GOALS = {4: 2000, 6: 1000}  # commits per CPU-second (issue 34)
SEED = "verify-speed-{n}"
MAX_ACTIONS = 3000
#: Rounds of a shuffle proof (``trust.poker.SHUFFLE_ROUNDS``). Each round's commitment is
#: hashed into the proof, not sent, so its check recomputes every card of the round
#: exactly: one variable-base multiplication per card, per round, per seat's shuffle
#: (a round opened by its seed needs ``e*h`` too; one opened as a map, ``k*G``).
SHUFFLE_ROUNDS = 64


def make_games(workdir: Path, max_actions: int = MAX_ACTIONS) -> dict[int, Path]:
    """The 4- and 6-player games, played once into ``workdir`` (reused when there)."""
    from benchmarks.gitgames import play_hotseat

    games = {}
    for n in GOALS:
        seed = SEED.format(n=n)
        path = workdir / f"hotseat-{n}p-{seed.replace('/', '-')}"
        if not (path / ".git").is_dir():
            play_hotseat(workdir, n, seed, max_actions, path)
        games[n] = path
    return games


def cpu_of(cmd: list[str], cwd: Path | None = None) -> tuple[float, str]:
    """CPU seconds (user + sys) a child command used, and what it printed.

    Run in ``cwd`` (the game's folder): ``python -m`` puts its working directory first on
    the path, so from a checkout every build would import that checkout's package.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, out.stdout


def verify_cmd(python: str, repo: Path) -> list[str]:
    return [python, "-m", "catan_p2p", "verify", "--json", "--repo", str(repo)]


def fresh_process(games: dict[int, Path], rounds: int, vs: str | None) -> dict:
    """Commits per CPU-second of ``verify`` in fresh processes (and A/B against ``vs``)."""
    out = {}
    for n, repo in games.items():
        a_cpu, b_cpu, ratios = [], [], []
        commits = None
        for _ in range(rounds + 1):  # the first round warms the page cache, not counted
            cpu, text = cpu_of(verify_cmd(sys.executable, repo), repo)
            report = json.loads(text)
            assert report["ok"], report
            commits = report["commits"]
            if vs:
                other, _ = cpu_of(verify_cmd(vs, repo), repo)
                b_cpu.append(other)
                ratios.append(cpu / other)
            a_cpu.append(cpu)
        a_cpu, b_cpu, ratios = a_cpu[1:], b_cpu[1:], ratios[1:]
        med = statistics.median(a_cpu)
        row = {
            "commits": commits,
            "cpu_s_median": round(med, 3),
            "cpu_s_min": round(min(a_cpu), 3),
            "cpu_s_max": round(max(a_cpu), 3),
            "commits_per_cpu_s": round(commits / med),
            "goal": GOALS[n],
        }
        if vs:
            row["vs_cpu_s_median"] = round(statistics.median(b_cpu), 3)
            row["ratio_a_over_b_median"] = round(statistics.median(ratios), 3)
            row["ratio_min"] = round(min(ratios), 3)
            row["ratio_max"] = round(max(ratios), 3)
        out[f"{n}p"] = row
    return out


def _per_op(fn, n: int = 2000) -> float:
    """Median over 5 batches of the CPU seconds of one call of ``fn``."""
    samples = []
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(n):
            fn()
        samples.append((time.process_time() - t0) / n)
    return statistics.median(samples)


def op_costs() -> dict[str, float]:
    """CPU seconds of one group operation, as PyNaCl (libsodium) and OpenSSL give them."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from nacl.bindings import (
        crypto_core_ed25519_add,
        crypto_core_ed25519_from_uniform,
        crypto_core_ed25519_is_valid_point,
        crypto_core_ed25519_scalar_reduce,
        crypto_scalarmult,
        crypto_scalarmult_ed25519_base_noclamp,
        crypto_scalarmult_ed25519_noclamp,
        crypto_sign_open,
    )

    p = crypto_core_ed25519_from_uniform(bytes(range(32)))
    q = crypto_core_ed25519_from_uniform(bytes(range(1, 33)))
    k = crypto_core_ed25519_scalar_reduce(bytes(range(64)))
    key = Ed25519PrivateKey.from_private_bytes(bytes(32))
    pub, sig = key.public_key(), key.sign(b"x" * 300)
    raw = pub.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return {
        "mul": _per_op(lambda: crypto_scalarmult_ed25519_noclamp(k, p)),
        "base": _per_op(lambda: crypto_scalarmult_ed25519_base_noclamp(k)),
        "valid": _per_op(lambda: crypto_core_ed25519_is_valid_point(p)),
        "add": _per_op(lambda: crypto_core_ed25519_add(p, q)),
        # What ``signing.check_signature`` pays for a good signature (libsodium), and
        # OpenSSL's cost beside it (the check before 2026-11-29; docs/ARCHITECTURE.md).
        "ed25519_verify": _per_op(lambda: crypto_sign_open(sig + b"x" * 300, raw), 1000),
        "ed25519_verify_openssl": _per_op(lambda: pub.verify(sig, b"x" * 300), 1000),
        "x25519": _per_op(lambda: crypto_scalarmult(k, p)),
    }


def count_ops(repo: Path) -> tuple[Counter, int, int]:
    """Group operations and signature checks of one verify of ``repo`` (this process),
    its commits and the cards shuffled (seats that shuffled x the deck's size)."""
    import threading

    from catan_p2p.protocol import audit, signing
    from catan_p2p.store.repo import GameRepo
    from catan_p2p.trust import poker

    counts: Counter = Counter()
    lock = threading.Lock()
    saved = {}

    def counted(owner, name: str, label: str) -> None:
        original = getattr(owner, name)
        saved[(owner, name)] = original

        def wrapper(*args):
            with lock:
                counts[label] += 1
            return original(*args)

        setattr(owner, name, wrapper)

    counted(poker, "crypto_scalarmult_ed25519_noclamp", "mul")
    counted(poker, "crypto_scalarmult_ed25519_base_noclamp", "base")
    counted(poker, "crypto_core_ed25519_is_valid_point", "valid")
    counted(poker, "crypto_core_ed25519_sub", "add")
    counted(poker, "crypto_core_ed25519_scalar_invert", "scalar_invert")
    poker.check_shuffle.cache_clear()  # and what this process made (the games, maybe)
    poker._proved.clear()
    poker._made.clear()
    poker.in_group.cache_clear()
    signing.check_signature.cache_clear()
    try:
        repo_ = GameRepo(repo)
        report = audit.audit(repo_, repo_.only_game(None), time.time)
        assert report.ok, report.problem
    finally:
        for (owner, name), original in saved.items():
            setattr(owner, name, original)
    counts["ed25519_verify"] = signing.check_signature.cache_info().misses
    deck = report.state.deck
    return counts, report.commits, len(deck.passes) * deck.size


def startup_cpu(rounds: int) -> float:
    """CPU of a fresh interpreter that imports what ``verify`` imports and exits."""
    code = "import catan_p2p.commands.verify, catan_p2p.store.repo, catan_p2p.trust.poker"
    away = Path(tempfile.gettempdir())  # not a checkout: the build of this interpreter
    return statistics.median(cpu_of([sys.executable, "-c", code], away)[0] for _ in range(rounds))


def bound(games: dict[int, Path], rounds: int) -> dict:
    """The floor of a verify's CPU from the proofs' arithmetic, beside the goal's budget."""
    costs = op_costs()
    start = startup_cpu(rounds)
    out: dict = {"cost_us": {k: round(v * 1e6, 1) for k, v in costs.items()}}
    out["startup_cpu_s"] = round(start, 3)
    for n, repo in games.items():
        counts, commits, shuffled = count_ops(repo)
        crypto = sum(counts[k] * costs.get(k, 0.0) for k in counts)
        shuffle_muls = SHUFFLE_ROUNDS * shuffled
        floor = crypto + start
        budget = commits / GOALS[n]
        # Generous: as if a multiplication skipped libsodium's subgroup check of its
        # input (no binding offers that; the points are checked once when read).
        bare_mul = costs["mul"] - costs["valid"]
        out[f"{n}p"] = {
            "commits": commits,
            "ops": dict(counts),
            "shuffle_proof_muls_min": shuffle_muls,
            "shuffle_proofs_cpu_s": round(shuffle_muls * costs["mul"], 3),
            "shuffle_proofs_cpu_s_bare_mul": round(shuffle_muls * bare_mul, 3),
            "shuffle_proofs_cpu_s_two_ladders": round(shuffle_muls * 2 * costs["x25519"], 3),
            "crypto_cpu_s": round(crypto, 3),
            "floor_cpu_s": round(floor, 3),
            "goal_budget_cpu_s": round(budget, 3),
            "floor_commits_per_cpu_s": round(commits / floor),
            "floor_cpu_s_bare_mul": round(floor - counts["mul"] * costs["valid"], 3),
            "floor_cpu_s_two_ladders": round(
                floor + counts["mul"] * (2 * costs["x25519"] - costs["mul"]), 3
            ),
            "goal": GOALS[n],
            # The most a multiplication could cost for the goal if nothing else did
            # (no start-up, no signature, no rule, no tree): set it beside ``cost_us``.
            "mul_us_goal_allows": round(budget / counts["mul"] * 1e6, 1),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="counted verifies per game")
    parser.add_argument("--vs", help="a second build's python, run in turn (A/B)")
    parser.add_argument("--games-dir", type=Path, help="where the games are (made if absent)")
    parser.add_argument("--no-bound", action="store_true", help="skip the bound")
    parser.add_argument(
        "--actions", type=int, default=MAX_ACTIONS, help="cut the games short (a smoke run)"
    )
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).parent / "results" / "verify_speed.json"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="verify-speed-") as tmp:
        workdir = args.games_dir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        games = make_games(workdir, args.actions)
        result = {
            "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "loadavg_before": os.getloadavg(),
            "cores": os.cpu_count(),
            "fresh_process": fresh_process(games, args.rounds, args.vs),
        }
        if not args.no_bound:
            result["bound"] = bound(games, args.rounds)
        result["loadavg_after"] = os.getloadavg()
    print(json.dumps(result, indent=1))
    if not args.vs and args.actions == MAX_ACTIONS:  # the project's figure: whole games
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
