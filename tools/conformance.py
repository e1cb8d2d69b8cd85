#!/usr/bin/env python3
"""The conformance kit: run PROTOCOL.md's checks over a game repository and say which pass.

    python -m tools.conformance --repo PATH [--game ID] [--vectors] [--json]

Without ``--game`` every game in the repository is checked.

The repository may be written by any implementation. Every check names the section of
state_schema/PROTOCOL.md it follows and is run over every commit it applies to:

- ``§2 refs``: every ref of the game has a shape of the table of section 2;
- ``§3 genesis``: the genesis is exactly what its declared values give (derived);
- ``§3 header``: every commit's header is the one canonical form (author = committer,
  ``<player>@catan-p2p``, zone ``+0000``, no other header, the genesis unsigned);
- ``§3 message``: every message is byte for byte the one the tables give for what it
  records (action, merge, genesis, chat line);
- ``§3 signatures``: every commit but the genesis is signed by its author's seat key;
- ``§4 files``: every tree is the canonical serialisation of the state it holds;
- ``§5 rules``: every branch verifies from the derived genesis: the rules, the outcomes,
  the answers, the merges, the tree of every step (``protocol.audit``, as ``catan-p2p
  verify`` runs it);
- ``§9 vectors`` (with ``--vectors``): for the vectors' inputs, the repository holds
  every commit of ``state_schema/vectors/vectors.json`` with exactly its bytes.

Exit 0 when every check passes, 1 when one fails (each failure names a commit and why),
2 on bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python tools/conformance.py` from anywhere
    sys.path.insert(0, str(ROOT))

from catan_p2p import clock  # noqa: E402
from catan_p2p.errors import CatanError  # noqa: E402
from catan_p2p.protocol import message as proto  # noqa: E402
from catan_p2p.protocol.audit import audit  # noqa: E402
from catan_p2p.protocol.genesis import derive_genesis  # noqa: E402
from catan_p2p.protocol.signing import check_signature  # noqa: E402
from catan_p2p.store import codec, reading  # noqa: E402
from catan_p2p.store.formats import Commit, HashingStore, parse_tree, player_email  # noqa: E402
from catan_p2p.store.refnames import check_name, well_formed  # noqa: E402
from catan_p2p.store.repo import GameRepo, Repository  # noqa: E402

VECTORS = ROOT / "state_schema" / "vectors" / "vectors.json"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
CHAT = "refs/catan-chat"
MAX_CHAT = 200


@dataclass
class Check:
    """One check of the spec: how many commits (or refs) it ran on, and what failed."""

    name: str
    section: str
    ran: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    def run(self, what: str, test: Callable[[], str | None]) -> None:
        """Run ``test`` on ``what``; it returns why it fails, or None."""
        self.ran += 1
        try:
            problem = test()
        except (CatanError, ValueError, KeyError, UnicodeDecodeError) as exc:
            problem = str(exc) or type(exc).__name__
        if problem:
            self.failures.append(f"{what}: {problem}")

    def to_json(self) -> dict:
        return {
            "check": self.name,
            "section": self.section,
            "ran": self.ran,
            "passed": self.passed,
            "failures": self.failures,
        }


def game_commits(repo: Repository, game: str) -> tuple[dict[str, str], list[str]]:
    """The game's refs (its branches, answers and chat) and every commit they reach."""
    refs = {
        ref: oid
        for ref, oid in repo.refs.list("refs").items()
        if ref.startswith((f"refs/heads/catan/{game}/", f"{CHAT}/{game}/"))
    }
    seen: set[str] = set()
    todo = list(refs.values())
    while todo:
        oid = todo.pop()
        if oid in seen:
            continue
        seen.add(oid)
        todo.extend(repo.commit(oid).parents)
    return refs, sorted(seen)


def _seats_in(repo: Repository, tree: str) -> dict[str, str]:
    """``seats.json`` of a state tree (player -> key), or {} when it has none."""
    entries = parse_tree(repo.store.read(tree)[1])
    is_tree, blob = entries.get("seats.json", (True, ""))
    if is_tree or not blob:
        return {}
    return json.loads(repo.store.read(blob)[1])


def _is_chat(c: Commit) -> bool:
    return c.tree == EMPTY_TREE


def check_message(c: Commit, game: str) -> str | None:
    """§3 The message: the exact text for what the commit records."""
    if _is_chat(c):
        line = c.message[:-1]
        if not c.message.endswith("\n") or "\n" in line or not 1 <= len(line) <= MAX_CHAT:
            return "a chat line is one line of 1 to 200 characters and a newline"
        if " ".join(line.split()) != line or not line.isprintable():
            return "a chat line is printable, with runs of white space written as one space"
        return None
    if not c.parents:
        proto.parse_genesis(c)  # raises unless the exact genesis message
        return None
    if len(c.parents) > 1:
        info = proto.parse_merge(c)
        want = proto.merge_message(c.author, info.kind, list(info.answers), game)
    else:
        want = proto.action_message(proto.parse_action(c), game)
    if c.message != want:
        return f"the message should be {want!r:.160}"
    return None


def check_header(c: Commit) -> str | None:
    """§3 Commits: the one canonical header."""
    if not c.canonical:
        return "the header is not the canonical form (see section 3)"
    if c.email != player_email(c.author):
        return f"the e-mail is {c.email!r}, not {player_email(c.author)!r}"
    if not c.parents and not _is_chat(c) and c.signature is not None:
        return "the genesis is signed; it must not be"
    return None


def check_signed(repo: Repository, c: Commit, chat_keys: dict[str, str]) -> str | None:
    """§3 Signatures: signed by the author's key in the state the commit produces."""
    keys = chat_keys if _is_chat(c) else _seats_in(repo, c.tree)
    key = keys.get(c.author, "")
    if not key:
        return f"{c.author!r} holds no seat key here"
    if c.signature is None:
        return "it is not signed"
    return check_signature(key, c.signed_data, c.signature)


def check_files(repo: Repository, c: Commit) -> str | None:
    """§4: the tree is the canonical serialisation of the state it holds."""
    state, info = reading.read_state(repo.store, c.tree, c.oid[:10])
    again = codec.StateWriter(HashingStore(), info).write(state)
    if again != c.tree:
        return f"its files re-encode to tree {again[:10]}, not {c.tree[:10]}"
    return None


def check_ref(ref: str, game: str) -> str | None:
    """§2: a ref of a shape the table gives."""
    if ref.startswith(f"{CHAT}/{game}/"):
        check_name("player", ref.rsplit("/", 1)[1])
        return None if ref.count("/") == 3 else "a chat ref is refs/catan-chat/<game>/<player>"
    return None if well_formed(ref, game) else "no ref of section 2 has this shape"


def run_checks(repo: Repository, game: str, vectors: dict | None = None) -> list[Check]:
    """Every check of the kit over ``game`` in ``repo``."""
    refs, commits = game_commits(repo, game)
    if not refs:
        raise CatanError(f"{repo.path} holds no refs of game {game!r}")
    checks = {
        "refs": Check("refs", "§2 Refs"),
        "genesis": Check("genesis", "§3 Genesis"),
        "header": Check("header", "§3 Commits"),
        "message": Check("message", "§3 The message"),
        "signature": Check("signature", "§3 Signatures"),
        "files": Check("files", "§4 The state tree"),
        "rules": Check("rules", "§5 Verification, §6 rules"),
    }
    for ref in sorted(refs):
        checks["refs"].run(ref, lambda ref=ref: check_ref(ref, game))
    chat_keys: dict[str, str] = {}
    report = None

    def verified() -> str | None:
        nonlocal report, chat_keys
        report = audit(repo, game, clock.now)
        if report.state is not None and report.state.seats:
            chat_keys = dict(zip(report.state.players, report.state.seats, strict=True))
        if not report.ok:
            return report.problem or "; ".join(report.forks)
        return None

    checks["rules"].run(f"game {game} ({len(commits)} commits)", verified)
    for oid in commits:
        c = repo.commit(oid)
        what = f"commit {oid[:10]} by {c.author or '(nobody)'}"
        if not c.parents and not _is_chat(c):
            checks["genesis"].run(what, lambda c=c: (derive_genesis(repo.store, c), None)[1])
        checks["header"].run(what, lambda c=c: check_header(c))
        checks["message"].run(what, lambda c=c: check_message(c, game))
        if c.parents or _is_chat(c):
            checks["signature"].run(what, lambda c=c: check_signed(repo, c, chat_keys))
        if not _is_chat(c):
            checks["files"].run(what, lambda c=c: check_files(repo, c))
    out = list(checks.values())
    if vectors is not None:
        out.append(check_vectors(repo, vectors))
    return out


def check_vectors(repo: Repository, vectors: dict) -> Check:
    """§9: the repository holds every vector commit with exactly its bytes."""
    check = Check("vectors", "§9 Test vectors")
    entries = vectors["commits"] + vectors["abandon"]["commits"]
    for entry in entries + vectors["extension"]["commits"]:
        oid = entry["commit"]

        def same(entry: dict = entry, oid: str = oid) -> str | None:
            try:
                data = repo.store.read(oid)[1]
            except (KeyError, ValueError, OSError):
                return f"missing: no commit {oid[:10]} was written ({entry['kind']})"
            return None if data.decode() == entry["raw"] else "its bytes differ"

        check.run(f"{entry['kind']} {oid[:10]}", same)
    return check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.conformance",
        description="Run the checks of state_schema/PROTOCOL.md over a game repository.",
    )
    parser.add_argument("--repo", default=".", help="the game repository (default: here)")
    parser.add_argument("--game", help="the game id (default: every game there)")
    parser.add_argument(
        "--vectors",
        action="store_true",
        help="also require every commit of state_schema/vectors/vectors.json, byte for byte",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        repo = GameRepo(Path(args.repo))
        vectors = json.loads(VECTORS.read_text()) if args.vectors else None
        games = [args.game] if args.game else repo.games()
        if vectors is not None and not args.game:
            named = (vectors[g]["game"] for g in ("play", "abandon", "extension"))
            games = [g for g in named if g in games]
        if not games:
            raise CatanError(f"{args.repo} holds no game; pass --repo with a game repository")
        results = {g: run_checks(repo, g) for g in games}
        if vectors is not None:
            results["vectors"] = [check_vectors(repo, vectors)]
    except CatanError as exc:
        print(f"conformance: {exc}", file=sys.stderr)
        return 2
    ok = all(c.passed for checks in results.values() for c in checks)
    if args.json:
        print(
            json.dumps(
                {"ok": ok, "games": {g: [c.to_json() for c in cs] for g, cs in results.items()}}
            )
        )
        return 0 if ok else 1
    for game, checks in results.items():
        print(f"{game}:")
        for c in checks:
            mark = "pass" if c.passed else "FAIL"
            print(f"  {mark}  {c.section:<28} {c.name:<10} {c.ran - len(c.failures)}/{c.ran}")
            for failure in c.failures[:5]:
                print(f"        {failure}")
            if len(c.failures) > 5:
                print(f"        ... and {len(c.failures) - 5} more")
    print("conformant" if ok else "not conformant: see FAIL above")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
