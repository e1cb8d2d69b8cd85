"""Redraw the screenshots in ``docs/screens/`` from real games (a maintainer script).

Each picture is the real window (``App``) or replay viewer drawn off-screen over a
game recorded in Git and played by greedy bots up to the moment shown; only the seats
and the moment are chosen here. Run from the repository root:

    SDL_VIDEODRIVER=dummy python tools/screens.py [--out docs/screens]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from catan_p2p.bots import make_bot  # noqa: E402
from catan_p2p.client.app import App  # noqa: E402
from catan_p2p.client.dialogs import PassDialog  # noqa: E402
from catan_p2p.client.lobby import LobbyScreen  # noqa: E402
from catan_p2p.client.replay import ReplayViewer, replay_states  # noqa: E402
from catan_p2p.client.seats import Seats  # noqa: E402
from catan_p2p.client.sound import Sounds  # noqa: E402
from catan_p2p.client.trade_dialogs import TradeDialog  # noqa: E402
from catan_p2p.net.chat import ChatLog  # noqa: E402
from catan_p2p.net.driver import play_round_robin  # noqa: E402
from catan_p2p.net.runtime import Runtime  # noqa: E402
from catan_p2p.net.transport import share_all  # noqa: E402
from catan_p2p.rules.actions import OfferTrade  # noqa: E402
from catan_p2p.rules.board import EXTENSION_BOARD, STANDARD_BOARD, Board  # noqa: E402
from catan_p2p.rules.state import SEAT_COLOURS, GameState, Phase  # noqa: E402
from catan_p2p.rules.waiting import actors  # noqa: E402
from catan_p2p.session.git import GitSession  # noqa: E402
from catan_p2p.session.keys import signing_keys
from catan_p2p.session.start import create_game, join_game  # noqa: E402
from catan_p2p.session.watch import default_watch_repo, open_watch  # noqa: E402
from catan_p2p.sim import next_actor  # noqa: E402
from catan_p2p.store import gitcmd  # noqa: E402
from catan_p2p.store.refnames import player_ref  # noqa: E402

SIZE = (1280, 800)
PLAYERS = ["red", "blue", "white", "orange"]


def game(
    work: Path, name: str, seed: str, players: list[str] = PLAYERS, board: Board = STANDARD_BOARD
) -> GitSession:
    repo = work / name
    create_game(repo, players, board, seed=seed, game_id=name)
    return GitSession.open(repo, name)


def play_until(
    session: GitSession,
    done: Callable[[GameState], bool],
    limit: int = 3000,
    strategy: str = "greedy",
) -> None:
    """Bots play every seat until ``done(state)``."""
    bots = {p: make_bot(strategy, f"screens/{p}") for p in session.state.players}
    for _ in range(limit):
        state = session.state
        if done(state) or state.is_over:
            return
        player = next_actor(state)
        session.submit(bots[player].decide(state, session.legal_actions(player)))
    raise RuntimeError("the moment to draw never came")


def window(session: GitSession, humans: tuple[str, ...], chat: ChatLog | None = None) -> App:
    others = [p for p in session.state.players if p not in humans]
    bots = {p: make_bot("greedy", f"screens/{p}") for p in others}
    app = App(
        session,
        Seats(humans, bots),
        screen=pygame.display.set_mode(SIZE),
        bot_delay=3600,  # bots wait: the picture shows this moment
        chat=chat,
        sounds=Sounds(muted=True),
        offer_replay=True,
    )
    app.tick()
    return app


def confirm_pass(app: App) -> None:
    while isinstance(app.dialog, PassDialog):
        app.dialog._confirm()
        app.tick()


def save(app_or_viewer, path: Path) -> None:  # type: ignore[no-untyped-def]
    app_or_viewer.draw()
    pygame.image.save(app_or_viewer.screen, str(path))
    print(f"wrote {path}")


def _bare(path: Path) -> str:
    gitcmd.run(None, "init", "-q", "--bare", str(path), check=True)
    return str(path)


def save_counter(work: Path, out: Path) -> None:
    """A bot's offer to Blue alone, Blue writing a counter-offer (``counter.png``); then
    the counter in, Red choosing among the answers (``counter_in.png``)."""
    s = game(work, "counter", "screens-counter", PLAYERS[:3])

    def can_offer(st: GameState) -> bool:
        if st.phase is not Phase.MAIN or st.current != 0 or st.turn < 6:
            return False
        red, blue = st.hands[0].resources, st.hands[1].resources
        return sum(red) >= 2 and sum(blue) >= 2

    play_until(s, can_offer)
    red, blue = s.state.hands[0].resources, s.state.hands[1].resources
    give = max(range(5), key=lambda r: red[r])
    get = max((r for r in range(5) if r != give), key=lambda r: blue[r])
    offer, want = [0] * 5, [0] * 5
    offer[give], want[get] = 1, 2
    s.submit(OfferTrade("red", tuple(offer), tuple(want), "blue"))  # type: ignore[arg-type]
    app = window(s, ("blue",))
    confirm_pass(app)
    dialog = app.dialog
    assert isinstance(dialog, TradeDialog), dialog
    dialog.start_counter("blue")
    dialog.counter_stepper("give", get).set(1)  # one card, not two
    app.tick()
    save(app, out / "counter.png")
    counter = dialog.counter_action()
    assert counter is not None
    s.submit(counter)
    app = window(s, ("red",))
    confirm_pass(app)
    save(app, out / "counter_in.png")


def save_watch(work: Path, path: Path) -> None:
    """``catan-p2p watch`` following a game three peers play over a bare remote."""
    remote = _bare(work / "watched.git")
    players = PLAYERS[:3]
    create_game(work / "w-host", players, STANDARD_BOARD, seed="screens-watch", game_id="friday")
    share_all(work / "w-host", remote)  # the seats claimed with this machine's keys
    sessions = {p: join_game(remote, work / f"w-{p}", "friday", p) for p in players}
    bots = {p: make_bot("greedy", f"screens/{p}") for p in players}
    play_round_robin(sessions, bots, 260)
    for s in sessions.values():
        s.flush()
    spectator = open_watch(remote, "friday", work / "spectator")
    syncer = Runtime(spectator).start()
    app = App(spectator, Seats(()), screen=pygame.display.set_mode(SIZE), runtime=syncer,
              sounds=Sounds(muted=True), spectator=True, title="catan-p2p watch")  # fmt: skip
    play_round_robin(sessions, bots, 6)  # the game goes on while the spectator watches
    for s in sessions.values():
        s.flush()
    head = sessions["red"].head
    for _ in range(400):
        app.tick()
        if spectator.repo.refs.get(player_ref("friday", "red")) == head and syncer.status:
            break
        time.sleep(0.05)
    app.tick()
    save(app, path)
    syncer.stop()
    spectator.close()
    for s in sessions.values():
        s.close()


def save_table(work: Path, out: Path) -> None:
    """The statistics screen at a game's end, and the turn notice of a networked game."""
    s = game(work, "stats", "screens-stats")
    play_until(s, lambda st: st.is_over)
    app = window(s, ("red",))
    app.key(pygame.K_t)  # the final score's Statistics
    save(app, out / "stats.png")
    s.close()
    # Red plays here; the others, elsewhere, agreed 10 minutes' wait (new --timeout 600).
    remote = _bare(work / "turn.git")
    create_game(work / "t-host", PLAYERS, STANDARD_BOARD, seed="screens-turn", game_id="turn",
                timeout=600)  # fmt: skip
    host = GitSession.open(work / "t-host", "turn")
    play_until(host, lambda st: st.turn >= 9 and st.current == 0 and st.phase is Phase.ROLL)
    host.close()
    share_all(work / "t-host", remote)
    red = join_game(remote, work / "t-red", "turn", "red")
    runtime = Runtime(red).start()
    app = App(red, Seats(("red",)), screen=pygame.display.set_mode(SIZE), runtime=runtime,
              sounds=Sounds(muted=True), notify=lambda title, body: None)  # fmt: skip
    app.tick()
    app.notice.since = app.notice.timed_from = time.time() - 131  # two minutes' thought
    save(app, out / "turn.png")
    runtime.stop()
    red.close()


def save_lobby(work: Path, path: Path) -> None:
    """The lobby: games of this machine's home and of a remote."""
    home = work / "lobby-home"
    os.environ["CATAN_P2P_HOME"] = str(home)
    mine = game(home / "games", "g7c1e0a2f", "screens-lobby", PLAYERS[:3])
    play_until(mine, lambda st: st.turn >= 9 and st.current == 0 and st.phase is Phase.ROLL)
    mine.close()
    done = game(home / "games", "g2b9d4e11", "screens-done", PLAYERS[:2])
    play_until(done, lambda st: st.is_over)
    done.close()
    remote = _bare(work / "club.git")
    for name, seated in (("friday", ("red",)), ("saturday", ("red", "blue")), ("sunday", None)):
        create_game(work / "club", PLAYERS, STANDARD_BOARD, seed=name, game_id=name,
                    local=seated)  # fmt: skip
    sunday = GitSession(work / "club", "sunday")
    play_until(sunday, lambda st: st.turn >= 14)
    sunday.close()
    share_all(work / "club", remote)
    watched = open_watch(remote, "sunday", default_watch_repo(remote, "sunday"))
    watched.sync()  # as the watch window does: the copy verified up to the newest move
    watched.close()
    from catan_p2p.commands.lobby import local_games, remote_games

    screen = LobbyScreen(local_games, remote_games, url=remote,
                         screen=pygame.display.set_mode(SIZE))  # fmt: skip
    screen.url = "ssh://club.example/srv/catan.git"  # what a player would have typed
    screen.message = f"{screen.url} holds {len(screen.found.games)} games"
    screen.draw()
    pygame.image.save(screen.screen, str(path))
    print(f"wrote {path}")


def save_invites(work: Path, window_png: Path, lobby_png: Path) -> None:
    """A game waiting for seats: its window shows the invitation with a copy button,
    and a friend's lobby lists the game from that line pasted in."""
    from catan_p2p.commands.lobby import local_games, remote_games
    from catan_p2p.net import transport
    from catan_p2p.session.start import invite_of

    os.environ["CATAN_P2P_HOME"] = str(work / "invite-home")
    points = {p: _bare(work / f"{p}-point.git") for p in ("red", "blue")}
    repo = work / "friday-red"
    create_game(repo, PLAYERS[:3], STANDARD_BOARD, seed="friday", game_id="friday",
                local=("red",), publish_url=points["red"])  # fmt: skip
    transport.set_config(repo / ".git", "catan.point.blue", points["blue"])
    red = GitSession(repo, "friday", ("red",))
    red.sync()
    invite = invite_of(red)
    assert invite is not None
    app = App(red, Seats(("red",)), screen=pygame.display.set_mode(SIZE),
              sounds=Sounds(muted=True))  # fmt: skip
    app.invite = str(invite)
    app.tick()
    save(app, window_png)
    app.runtime.stop()
    red.close()
    os.environ["CATAN_P2P_HOME"] = str(work / "friend-home")
    screen = LobbyScreen(local_games, remote_games, url=str(invite),
                         screen=pygame.display.set_mode(SIZE))  # fmt: skip
    screen.draw()
    pygame.image.save(screen.screen, str(lobby_png))
    print(f"wrote {lobby_png}")


# Long on purpose (about 100 lines): one screenshot after another, each a few lines,
# in the order of docs/screens.
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/screens.py", description=__doc__)
    parser.add_argument("--out", default="docs/screens", help="where the PNG files go")
    parser.add_argument(
        "--only",
        choices=("table", "lobby", "counter"),
        default=None,
        help=(
            "draw only these (table: stats, turn; lobby: the lobby and the invitation; "
            "counter: the counter-offer's two)"
        ),
    )
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pygame.display.init()
    pygame.font.init()
    if args.only == "counter":
        with tempfile.TemporaryDirectory(prefix="catan-screens-") as tmp:
            save_counter(Path(tmp), out)
        pygame.quit()
        return 0
    with tempfile.TemporaryDirectory(prefix="catan-screens-") as tmp:
        work = Path(tmp)
        # The statistics screen at a game's end; your turn noticed in a networked game.
        if args.only == "lobby":
            save_lobby(work, out / "lobby.png")
            save_invites(work, out / "invite.png", out / "lobby-invite.png")
            pygame.quit()
            return 0
        save_table(work, out)
        if args.only == "table":
            pygame.quit()
            return 0

        # The play window: Red against three bots, mid-game, with table talk.
        s = game(work, "play", "screens-play")

        def red_just_built(st: GameState) -> bool:
            if st.turn < 12 or st.current != 0 or st.phase is not Phase.MAIN:
                return False
            return s.history()[-1].action.kind.startswith("build")

        play_until(s, red_just_built)
        chat = ChatLog(s.repo.path, "play", signing_keys(s.repo.git_dir))
        chat.send("blue", "anyone have ore? I give wool")
        chat.send("white", "nobody builds next to my 6 please")
        chat.send("red", "good game so far")
        app = window(s, ("red",), chat)
        save(app, out / "play.png")
        app.show_costs = True
        save(app, out / "costs.png")
        app.show_costs = False
        app.typing = "I trade 2 brick for 1 ore"
        save(app, out / "chat.png")
        app.typing = None

        # Hot-seat: the pass screen, then a discard after a seven.
        for attempt in range(20):  # a game where two hands must be halved
            s = game(work, f"discard{attempt}", f"screens-discard-{attempt}", PLAYERS[:3])
            play_until(
                s,
                lambda st: st.phase is Phase.DISCARD and sum(1 for n in st.discards if n) >= 2,
                strategy="random",  # random bots hoard cards
            )
            if not s.state.is_over:
                break
        app = window(s, ("red", "blue", "white"))
        assert isinstance(app.dialog, PassDialog), app.dialog
        save(app, out / "pass.png")
        confirm_pass(app)
        save(app, out / "discard.png")

        # Hot-seat trade: Red offers, Blue answers behind its own pass screen.
        s = game(work, "trade", "screens-trade", PLAYERS[:3])

        def can_offer(st: GameState) -> bool:
            if st.phase is not Phase.MAIN or st.current != 0 or st.turn < 6:
                return False
            red, blue = st.hands[0].resources, st.hands[1].resources
            return any(red) and any(blue)

        play_until(s, can_offer)
        red, blue = s.state.hands[0].resources, s.state.hands[1].resources
        give = max(range(5), key=lambda r: red[r])
        get = max((r for r in range(5) if r != give), key=lambda r: blue[r])
        one, want = [0] * 5, [0] * 5
        one[give], want[get] = 1, 1
        s.submit(OfferTrade("red", tuple(one), tuple(want)))  # type: ignore[arg-type]
        app = window(s, ("red", "blue"))
        confirm_pass(app)
        if "white" in actors(s.state):
            app.bot_delay = 0
            app.drive_bots()
            app.tick()
        save(app, out / "trade.png")

        # A counter-offer: Blue answers a bot's offer made to it alone with other counts.
        save_counter(work, out)

        # Six players (the 5-6 player extension): Red builds between turns.
        s = game(work, "six", "screens-six", list(SEAT_COLOURS), EXTENSION_BOARD)

        def red_builds_between_turns(st: GameState) -> bool:
            return st.turn > 30 and st.phase is Phase.SPECIAL_BUILD and st.current == 0

        play_until(s, red_builds_between_turns)
        app = window(s, ("red",))
        save(app, out / "six.png")

        # Replay of a finished game, part-way through.
        s = game(work, "replay", "screens-replay")
        play_until(s, lambda st: st.is_over)
        states, entries = replay_states(s)
        viewer = ReplayViewer(states, entries, screen=pygame.display.set_mode(SIZE))
        builds = [
            i + 1
            for i, e in enumerate(entries)
            if i > len(entries) // 3 and e.action.kind in ("build_settlement", "build_city")
        ]
        viewer.goto(builds[0] + 3 if builds else len(states) // 2)
        save(viewer, out / "replay.png")

        # A spectator following a networked game: three peers, each in its own clone.
        save_watch(work, out / "watch.png")
        # The lobby: a game here that waits for you, a remote's games with open seats.
        save_lobby(work, out / "lobby.png")
        # A game waiting for seats: its invitation in the window and in a friend's lobby.
        save_invites(work, out / "invite.png", out / "lobby-invite.png")
    pygame.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
