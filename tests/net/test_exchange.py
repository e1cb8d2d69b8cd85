"""The exchange with the remotes, on in-memory repositories (``net.exchange``).

The remote here is a forge without hooks: anyone may set any ref. ``transport``'s fetch
and push are stood in for by functions with its contract: a fetch copies the asked-for
refs into ``refs/remotes/<source>/`` (forced) and names the logs the remote lacks; a push
moves a leased ref only over the value leased, any other only forward, and returns the
leased refs that moved meanwhile.
"""

from __future__ import annotations

from peernet import GAME, Remote, new_repo, open_table, reaches

from catan_p2p.bots import make_bot
from catan_p2p.errors import RemoteError
from catan_p2p.net.driver import Driver
from catan_p2p.net.exchange import Exchange
from catan_p2p.protocol.publish import Source
from catan_p2p.store.refnames import REMOTE, player_ref, tracking_ref

SHARED = Source(REMOTE, "mem://shared", None, True)


def _transport(repo, remote: Remote, log: list):  # type: ignore[no-untyped-def]
    def fetch(git_dir, game, logs, steps, source, url):  # type: ignore[no-untyped-def]
        log.append(("fetch", tuple(logs)))
        missing = set()
        for ref in logs:
            if ref in remote.refs:
                repo.refs.refs[tracking_ref(ref, source)] = remote.refs[ref]
            else:
                missing.add(ref)
        for step in steps:
            for ref, oid in remote.refs.items():
                if ref.startswith(step + "/"):
                    repo.refs.refs[tracking_ref(ref, source)] = oid
        return frozenset(missing)

    def push(git_dir, updates, deletes, leases, target):  # type: ignore[no-untyped-def]
        log.append(("push", tuple(updates), dict(leases)))
        stale = set()
        for ref in updates:
            there, mine = remote.refs.get(ref), repo.refs.get(ref)
            if ref in leases:
                if there != leases[ref]:
                    stale.add(ref)
                    continue
            elif there is not None and not reaches(repo, mine, there):
                raise RemoteError("cannot push to the remote (a different history)")
            remote.refs[ref] = mine
        for ref in deletes:
            remote.refs.pop(ref, None)
        return frozenset(stale)

    return fetch, push


def _red(seed: str = "ex"):  # type: ignore[no-untyped-def]
    """Red's node of a two-seat game on a remote, and an exchange with fake transfers."""
    table = open_table(("red", "blue"), seed=seed)
    red = table.nodes["red"]
    log: list = []
    fetch, push = _transport(red.repo, table.remote, log)
    exchange = Exchange(red.repo, GAME, ("red",), fetch=fetch, push=push)
    exchange.remote = SHARED.url
    return table, red, exchange, log


def _play_red(table, red, moves: int = 1) -> None:  # type: ignore[no-untyped-def]
    """Let Red's bot move (without any exchange) until Red made ``moves`` commits."""
    bot = {"red": make_bot("random", "exchange")}
    start = red.session.head
    while len(red.repo.first_parents(red.session.head, stop=start)) < moves:
        if Driver(red.session, bot).step() is None:
            blue = table.nodes["blue"]
            blue.sync(table.remote)
            Driver(blue.session, {"blue": make_bot("random", "b")}).step()
            blue.sync(table.remote)
            red.fetch(table.remote)
            red.session.sync()


def test_a_fetch_notes_what_the_remote_holds_of_the_own_refs():
    table, red, exchange, _ = _red()
    errors = exchange.fetch(red.session.seats, [SHARED])
    assert errors == {}
    ref = player_ref(GAME, "red")
    assert exchange.seen[REMOTE][ref] == table.remote.refs[ref]


def test_fetched_refs_the_game_does_not_need_and_junk_are_let_go_but_the_lease_keeps_junk():
    table, red, exchange, _ = _red()
    ref = player_ref(GAME, "red")
    blob = red.repo.store.write(b"blob", b"not a commit")  # junk where Red's log belongs
    table.remote.refs[ref] = blob
    stray = tracking_ref(player_ref(GAME, "red") + "x")  # a fetched ref nobody asked for
    red.repo.refs.refs[stray] = red.session.head
    exchange.fetch(red.session.seats, [SHARED])
    assert red.repo.refs.get(tracking_ref(ref)) is None  # the junk is not read ...
    assert red.repo.refs.get(stray) is None
    assert exchange.seen[REMOTE][ref] == blob  # ... but the next push leases over it
    exchange.want_push()
    sent = exchange.send(red.session.seats, lambda: [SHARED], lambda: None)
    assert sent.clean and sent.error is None
    assert table.remote.refs[ref] == red.session.head  # the seat restored its branch


def test_a_lease_that_went_stale_is_fetched_again_adopted_and_decided_anew():
    """An own push whose process was stopped lands after this peer's fetch: the lease on
    the value seen fails, the exchange fetches again, and sees its own commit there."""
    table, red, exchange, log = _red("stale")
    exchange.fetch(red.session.seats, [SHARED])
    _play_red(table, red)
    ref = player_ref(GAME, "red")
    table.remote.refs[ref] = red.session.head  # the late push lands
    readopted = []
    exchange.want_push()
    sent = exchange.send(red.session.seats, lambda: [SHARED], lambda: readopted.append(1))
    assert sent.clean and sent.error is None
    assert readopted == [1]
    assert [e[0] for e in log[-2:]] == ["push", "fetch"]  # nothing left to push after it
    assert exchange.seen[REMOTE][ref] == red.session.head


def test_the_error_of_a_sync_is_the_shared_remotes_or_the_only_ones():
    assert Exchange.first_error({"seat-blue": "down"}, 2) is None  # others relay
    assert Exchange.first_error({"seat-blue": "down"}, 1) == "down"
    assert Exchange.first_error({REMOTE: "gone", "seat-blue": "down"}, 3) == "gone"


def test_an_exchange_without_a_remote_sends_nothing():
    objects: dict = {}
    exchange = Exchange(new_repo(objects), GAME, ("red",), fetch=lambda *a: frozenset())
    assert not exchange.networked
    exchange.want_push(["x"])
    assert exchange.send(None, lambda: [], lambda: None).error is None  # type: ignore[arg-type]
