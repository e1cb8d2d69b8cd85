"""One ref policy (``protocol.refpolicy.check_update``) for the hook, the fetch step and the
audit, on in-memory repositories (no process, no disk).

The game: Red and Blue, seats claimed and merged by Red. A remote may hold anything
anyone pushed: names of no seat, blobs and trees where commits belong, unknown kinds,
chat refs, and any number of junk names.
"""

from __future__ import annotations

import pytest
from peernet import GAME, new_repo, open_table

from catan_p2p import clock
from catan_p2p.net import hook
from catan_p2p.protocol import refpolicy
from catan_p2p.protocol.audit import audit
from catan_p2p.protocol.refpolicy import check_update
from catan_p2p.replica.tracking import drop_junk
from catan_p2p.store.refnames import ZERO, RefName, read_name, tracking_ref

LOGS = f"refs/heads/catan/{GAME}"
CHAT = f"refs/catan-chat/{GAME}"


@pytest.fixture(scope="module")
def game():  # type: ignore[no-untyped-def]
    """The table, the remote as a repository, and the game's commits by name."""
    table = open_table(("red", "blue"), seed="policy")
    remote = new_repo(table.objects)
    remote.refs.refs.update(table.remote.refs)
    head = table.remote.refs[f"{LOGS}/red"]  # Red's merge of the seat claims
    genesis, red_claim, blue_claim = remote.commit(head).parents
    blob = remote.store.write(b"blob", b"not a commit\n")
    tree = remote.store.write(b"tree", b"")
    oids = {
        "head": head,
        "genesis": genesis,
        "red_claim": red_claim,
        "blue_claim": blue_claim,
        "blob": blob,
        "tree": tree,
    }
    return table, remote, oids


def _seat(opening: str, player: str) -> str:
    return f"{LOGS}/seat/{opening}/{player}"


# (ref, old, new, refused: a word of the reason or None, refused by a reader too)
CASES = [
    ("{L}/red", "genesis", "head", None, False),
    ("{L}/blue", "genesis", "head", None, False),  # Blue moves onto Red's published merge
    ("{L}/mallory", "ZERO", "head", "holds no seat", True),
    ("{L}/Blue", "ZERO", "head", "is no ref of game", True),
    ("{L}/red", "ZERO", "blob", "is not a commit", True),
    ("{L}/red", "ZERO", "tree", "is not a commit", True),
    ("{L}/red", "head", "genesis", "never rewritten", False),  # a reader takes it as it is
    ("{L}/red", "head", "ZERO", "cannot be deleted", False),
    ("{L}/seat/{genesis}/blue", "blue_claim", "ZERO", None, False),  # an answer may go
    ("{L}/seat/{genesis}/blue", "ZERO", "blue_claim", None, False),
    ("{L}/seat/{genesis}/blue", "ZERO", "blob", "is not a commit", True),
    ("{L}/seat/{genesis}/mallory", "ZERO", "blue_claim", "holds no seat", True),
    ("{L}/bribe/{genesis}/blue", "ZERO", "blue_claim", "is no ref of game", True),
    ("{L}/seat/nothex/blue", "ZERO", "blue_claim", "is no ref of game", True),
    ("{L}/seat/{genesis}/blue/deeper", "ZERO", "blue_claim", "is no ref of game", True),
    ("refs/heads/catan/other/red", "ZERO", "head", "is no ref of game", True),
    ("refs/remotes/origin/catan/{G}/red", "ZERO", "head", None, False),
    ("refs/remotes/seat-blue/catan/{G}/red", "ZERO", "head", None, False),
    ("refs/remotes//catan/{G}/red", "ZERO", "head", "is no ref of game", True),
    ("refs/heads/main", "ZERO", "head", "is no ref of game", True),
    ("{C}/red", "ZERO", "head", None, False),  # the chat's content is chatlines' business
    ("{C}/mallory", "ZERO", "head", "holds no seat", True),
    ("{C}/red/deeper", "ZERO", "head", "is no ref of game", True),
    ("{C}/red", "head", "ZERO", "cannot be deleted", False),
    ("{C}/red", "ZERO", "blob", "is not a commit", True),
]


def _case(oids: dict, ref: str, old: str, new: str) -> tuple[str, str, str]:
    ref = ref.format(L=LOGS, C=CHAT, G=GAME, genesis=oids["genesis"])
    return ref, oids.get(old, ZERO), oids.get(new, ZERO)


@pytest.mark.parametrize("ref,old,new,refused,by_reader", CASES)
def test_the_policy_takes_only_refs_of_the_game(game, ref, old, new, refused, by_reader):  # type: ignore[no-untyped-def]
    _, remote, oids = game
    ref, old, new = _case(oids, ref, old, new)
    seats = lambda: ("red", "blue")  # noqa: E731
    guarded = check_update(remote, ref, old, new, GAME, seats, guard=True)
    if refused is None:
        assert guarded is None
    else:
        assert guarded is not None and refused in guarded and len(guarded) < 300, guarded
    read = check_update(remote, ref, old, new, GAME, seats)
    assert (read is not None) == by_reader, read


def test_names_are_read_without_any_object():
    genesis = "a" * 40
    assert read_name(f"{LOGS}/red") == RefName(GAME, "red")
    assert read_name(f"refs/remotes/origin/catan/{GAME}/seat/{genesis}/blue", GAME) == RefName(
        GAME, "blue", "seat", genesis, source="origin"
    )
    assert read_name(f"refs/remotes/seat-red/catan-chat/{GAME}/red") == RefName(
        GAME, "red", chat=True, source="seat-red"
    )
    assert read_name(f"{LOGS}/red", "other") is None
    assert read_name("refs/heads/catan-chat/g/red") is None
    assert read_name("refs/catan/g/red") is None


def _junk(oid: str, n: int) -> list[str]:
    """``n`` names of no protocol shape, of every sort a hostile pusher may try."""
    sorts = [
        lambda i: f"{LOGS}/Mallory{i}",
        lambda i: f"{LOGS}/bribe/{oid}/m{i}",
        lambda i: f"{LOGS}/seat/{i}/red",
        lambda i: f"{LOGS}/seat/{oid}/red/{i}",
        lambda i: f"{LOGS}/{'x' * 50}{i}",
        lambda i: f"{CHAT}/red/{i}",
        lambda i: f"refs/heads/catan/G{i}/red",
        lambda i: f"{LOGS}/r{i}/" + "y" * 2000,
    ]
    return [sorts[i % len(sorts)](i) for i in range(n)]


def test_a_hundred_thousand_junk_names_read_no_object(game, monkeypatch):  # type: ignore[no-untyped-def]
    """Each junk name is refused on its name alone: no object is read for any of them,
    by the hook or by a reader."""
    _, remote, oids = game
    names = _junk(oids["head"], 100_000)

    def boom(*_: object) -> None:
        raise AssertionError("an object was read for a junk name")

    monkeypatch.setattr(remote, "commit", boom)
    monkeypatch.setattr(remote, "first_parents", boom)
    for ref in names:
        assert check_update(remote, ref, ZERO, oids["head"], GAME) is not None
    for ref in names[::10]:
        assert hook.check_update(remote, ZERO, oids["head"], ref) is not None


def test_the_fetch_step_lets_junk_of_any_shape_go(game):  # type: ignore[no-untyped-def]
    """What a peer takes from a remote: its copy of every ref the policy refuses goes
    (junk names, a blob on a log, a tree on an answer); the logs and answers stay."""
    table, _, oids = game
    peer = new_repo(table.objects)
    honest = {
        tracking_ref(f"{LOGS}/red"): oids["head"],
        tracking_ref(f"{LOGS}/blue"): oids["genesis"],
        tracking_ref(_seat(oids["genesis"], "blue")): oids["blue_claim"],
    }
    names = [r for r in _junk(oids["head"], 10_000) if r.startswith(LOGS + "/")]
    junk = {tracking_ref(r): oids["head"] for r in names}
    junk[tracking_ref(f"{LOGS}/mallory")] = oids["blob"]
    junk[tracking_ref(f"{LOGS}/white")] = oids["blob"]
    junk[tracking_ref(_seat(oids["genesis"], "red"))] = oids["tree"]
    peer.refs.refs.update({**honest, **junk})
    drop_junk(peer, GAME)
    assert peer.refs.refs == honest


def test_the_audit_reads_only_what_the_policy_takes(game):  # type: ignore[no-untyped-def]
    """A blob on a name of no seat, a tree on an answer and a log of a name of no seat
    beside the game: the audit verifies the game and names each as junk."""
    table, _, oids = game
    peer = new_repo(table.objects)
    peer.refs.refs.update(table.nodes["red"].repo.refs.refs)
    bad = {
        tracking_ref(f"{LOGS}/mallory"): oids["head"],
        tracking_ref(f"{LOGS}/blue"): oids["blob"],
        tracking_ref(_seat(oids["genesis"], "blue")): oids["tree"],
    }
    peer.refs.refs.update(bad)
    report = audit(peer, GAME, clock.now)
    assert report.ok, report.problem
    assert set(report.junk) == set(bad)
    assert not set(report.branches) & set(bad)


def test_the_hook_checks_an_update_in_memory(game):  # type: ignore[no-untyped-def]
    """``hook.check_update`` on a remote holding the game: the policy first (name, seat,
    object, fast-forward), then the commits' verification."""
    _, remote, oids = game
    head, genesis = oids["head"], oids["genesis"]
    assert hook.check_update(remote, genesis, head, f"{LOGS}/blue") is None
    assert hook.check_update(remote, ZERO, oids["blue_claim"], _seat(genesis, "blue")) is None
    assert hook.check_update(remote, ZERO, ZERO, "refs/heads/main") is None  # Git's business
    refused = {
        "no seat": hook.check_update(remote, ZERO, head, f"{LOGS}/mallory"),
        "blob": hook.check_update(remote, ZERO, oids["blob"], f"{LOGS}/red"),
        "rewind": hook.check_update(remote, head, genesis, f"{LOGS}/red"),
        "delete": hook.check_update(remote, head, ZERO, f"{LOGS}/red"),
        "kind": hook.check_update(remote, ZERO, head, f"{LOGS}/bribe/{genesis}/blue"),
        "another's answer": hook.check_update(
            remote, ZERO, oids["red_claim"], _seat(genesis, "blue")
        ),
        "answer on a log": hook.check_update(remote, ZERO, oids["blue_claim"], f"{LOGS}/red"),
        "log on a chat ref": hook.check_update(remote, ZERO, head, f"{CHAT}/red"),
        "chat of no seat": hook.check_update(remote, ZERO, head, f"{CHAT}/mallory"),
    }
    for what, reason in refused.items():
        assert reason is not None and len(reason) < 300, (what, reason)
    assert "holds no seat" in refused["no seat"]
    assert "never rewritten" in refused["rewind"]
    assert "cannot be deleted" in refused["delete"]
    assert "not of blue" in refused["another's answer"]


def test_the_hook_and_the_readers_ask_the_same_policy(game, monkeypatch):  # type: ignore[no-untyped-def]
    """The hook, the fetch step and the audit each call ``refpolicy.check_update``."""
    table, remote, oids = game
    asked: list[bool] = []
    real = refpolicy.check_update

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(kwargs.get("guard", False))
        return real(*args, **kwargs)

    monkeypatch.setattr(refpolicy, "check_update", spy)
    hook.check_update(remote, ZERO, oids["head"], f"{LOGS}/mallory")
    assert asked == [True]
    peer = new_repo(table.objects)
    peer.refs.refs[tracking_ref(f"{LOGS}/red")] = oids["head"]
    drop_junk(peer, GAME)
    assert asked == [True, False]
    audit(peer, GAME, clock.now)
    assert len(asked) > 2 and not any(asked[2:])


def _well_formed_before(ref: str, game: str) -> bool:
    """``store.refnames.well_formed`` as it was before ``read_name`` (parse, then check)."""
    from catan_p2p.errors import UsageError
    from catan_p2p.store.refnames import check_name, parse_ref

    try:
        player, kind, opening = parse_ref(ref, game)
        check_name("player", player)
    except UsageError:
        return False
    return (
        kind is None
        or len(opening or "") == 40
        and all(c in "0123456789abcdef" for c in opening or "")
    )


def test_well_formed_reads_every_name_as_it_did():
    """``well_formed`` now asks ``read_name``; on every name of the cases, the junk and
    their fetched copies it says what it said before."""
    from catan_p2p.store.refnames import well_formed

    genesis = "b" * 40
    names = [r.format(L=LOGS, C=CHAT, G=GAME, genesis=genesis) for r, *_ in CASES]
    names += _junk(genesis, 2_000) + [f"{LOGS}/{k}/{genesis}/red" for k in ("seat", "trade")]
    names += [n.replace("refs/heads/", "refs/remotes/seat-red/", 1) for n in names]
    names = [n for n in names if not n.startswith("refs/remotes//")]  # Git makes no such name
    for ref in names:
        assert well_formed(ref, GAME) == _well_formed_before(ref, GAME), ref


def test_junk_a_remote_took_before_its_hook_blocks_no_honest_push(game):  # type: ignore[no-untyped-def]
    """A remote that ran without the hook may already hold junk beside the game (an
    unknown kind, a deeper answer, a blob on a name of no seat). The hook reads the
    other refs as a reader does, so an honest push is still taken and a rewind still
    refused."""
    table, _, oids = game
    remote = new_repo(table.objects)
    remote.refs.refs.update(table.remote.refs)
    genesis = oids["genesis"]
    remote.refs.refs.update(
        {
            f"{LOGS}/bribe/{genesis}/blue": oids["head"],
            f"{LOGS}/seat/{genesis}/blue/deeper": oids["head"],
            f"{LOGS}/mallory": oids["blob"],
            f"{LOGS}/Upper": oids["tree"],
        }
    )
    assert hook.check_update(remote, genesis, oids["head"], f"{LOGS}/blue") is None
    rewind = hook.check_update(remote, oids["head"], genesis, f"{LOGS}/red")
    assert rewind is not None and "never rewritten" in rewind
