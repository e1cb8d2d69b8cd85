"""Does an animation add to the time from a remote move's arrival to the window's input?

A real window (``App``, off-screen with SDL's dummy driver) plays Red; Blue plays
elsewhere. Each round Blue's roll arrives (recorded in the session and published in the
peer runtime's snapshot the window reads, as the runtime does after a fetch), and Red
presses a key once:

- **at arrival** (moment 0): the key is pressed the moment the move arrives; measured
  from the arrival to the end of the window's first tick that shows the key's effect;
- **mid-animation** (``MOMENTS`` after the arrival, while the dice tumble or the cards
  fly): measured from the press to the end of the tick that handled it and drew it;
- **frame work**: each tick's time while the window waits to be pressed. A key pressed
  during a frame waits for the next tick, which ``run`` starts a frame period (33 ms)
  after the previous one whatever the frame's work; the animation adds to that wait
  only if a frame's work came near the period.

The window shows an arrived roll plainly in the tick that reads it and starts the
animation in the next one, so the frame a move arrives in costs what a still one does.

Each round is played twice, with motion and ``still``, in alternating order; the key
is C (the building costs card: it works on any turn). Between presses the window ticks
at its frame rate (``run``'s 30 frames a second would add the same wait to both; the
time until the next tick is left out: the press is posted just before a tick).
Results: ``benchmarks/results/motion.json``.

    python -m benchmarks.motion [--rounds 40]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from catan_p2p.client.app import App  # noqa: E402
from catan_p2p.client.frame import ROLL_SECONDS  # noqa: E402
from catan_p2p.client.seats import Seats  # noqa: E402
from catan_p2p.client.sound import Sounds  # noqa: E402
from catan_p2p.rules.actions import Action, EndTurn, RollDice  # noqa: E402
from catan_p2p.rules.state import new_game  # noqa: E402
from catan_p2p.session.memory import MemorySession  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "motion.json"
FPS = 30  # ``App.run``'s frame rate
MOMENTS = (0.0, 0.0, 0.0, 0.15, 0.4, 0.7)  # seconds after the arrival; half at arrival
#: Totals Blue rolls (no seven: the robber would stop the round).
TOTALS = (4, 5, 6, 8, 9, 10, 3, 11)


def _table(seed: str) -> MemorySession:
    """A two-player game after a seeded random set-up, Blue to roll."""
    rng = random.Random(seed)
    session = MemorySession(new_game(("blue", "red")), seed)
    while session.state.is_setup:
        actor = session.state.players[session.state.current]
        session.submit(rng.choice(session.legal_actions(actor)))
    return session


def _dice(total: int) -> tuple[int, int]:
    first = min(6, total - 1)
    return (first, total - first)


def _arrive(app: App, session: MemorySession, action: Action) -> None:
    """``action`` arrives as from a remote: recorded, and the runtime's snapshot that the
    window reads published (what the peer runtime's thread does after a fetch)."""
    session.submit(action)
    app.runtime.sync_once()


def _press(app: App) -> tuple[float, int]:
    """Press C now; tick until the costs card shows. (seconds, ticks)"""
    before = app.show_costs
    pressed = time.perf_counter()
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_c, mod=0, unicode="c"))
    ticks = 0
    while app.show_costs == before:
        app.tick()
        ticks += 1
    return time.perf_counter() - pressed, ticks


def one_round(app: App, session: MemorySession, total: int, moment: float) -> dict[str, object]:
    """Blue's roll arrives; Red presses C ``moment`` seconds later."""
    _arrive(app, session, RollDice("blue", _dice(total)))
    arrived = time.perf_counter()
    frames: list[float] = []
    while time.perf_counter() - arrived < moment:
        started = time.perf_counter()
        app.tick()  # frames of the animation (or of a still window)
        frames.append(time.perf_counter() - started)
        app.clock.tick(FPS)
    running = app.roll_anim is not None  # the animation plays as the key is pressed
    seconds, ticks = _press(app)
    if moment == 0:
        seconds = time.perf_counter() - arrived
    for action in (EndTurn("blue"), RollDice("red", (1, 2)), EndTurn("red")):
        _arrive(app, session, action)
    app.tick()
    app.tick()  # (Red's roll's animation starts here) then all is still for the next round
    app.roll_anim, app.flights = None, []
    return {"seconds": seconds, "ticks": ticks, "running": running, "frames": frames[1:]}


def run(rounds: int, seed: str = "motion") -> dict[str, object]:
    pygame.display.init()
    pygame.font.init()
    screen = pygame.display.set_mode((1280, 800))
    apps = {}
    for mode in ("motion", "still"):
        session = _table(seed)
        app = App(session, Seats(("red",), {}), screen=screen, bot_delay=0,
                  sounds=Sounds(muted=True), still=mode == "still")  # fmt: skip
        app.tick()
        apps[mode] = (app, session)
    out: dict[str, dict[str, list[float]]] = {
        m: {"at_arrival": [], "mid": [], "ticks": [], "frames": []} for m in apps
    }
    running = {m: 0 for m in apps}  # presses made while an animation played
    for r in range(rounds):
        order = ("motion", "still") if r % 2 == 0 else ("still", "motion")
        moment = MOMENTS[r % len(MOMENTS)]
        for mode in order:
            app, session = apps[mode]
            got = one_round(app, session, TOTALS[r % len(TOTALS)], moment)
            out[mode]["at_arrival" if moment == 0 else "mid"].append(float(got["seconds"]))  # type: ignore[arg-type]
            out[mode]["ticks"].append(float(got["ticks"]))  # type: ignore[arg-type]
            running[mode] += bool(got["running"])
            out[mode]["frames"].extend(got["frames"])  # type: ignore[arg-type]
    pygame.display.quit()

    def summary(xs: list[float]) -> dict[str, float]:
        xs = sorted(xs)
        return {
            "median_ms": round(1000 * statistics.median(xs), 2),
            "p95_ms": round(1000 * xs[int(0.95 * (len(xs) - 1))], 2),
            "max_ms": round(1000 * xs[-1], 2),
            "n": len(xs),
        }

    report: dict[str, object] = {
        "rounds": rounds,
        "roll_seconds": ROLL_SECONDS,
        "frame_period_ms": round(1000 / FPS, 2),
        "presses_during_animation": running,
        "ticks_to_input": {m: max(v["ticks"]) for m, v in out.items()},
    }
    for m, v in out.items():
        report[m] = {
            "at_arrival": summary(v["at_arrival"]),
            "mid_animation": summary(v["mid"]),
            # a frame's work: a key pressed during it waits for the next tick, which
            # ``run`` starts one frame period after the last one whatever the work
            "frame_work": summary(v["frames"]),
        }
    motion, still = report["motion"], report["still"]  # type: ignore[index]
    report["added_ms"] = {
        k: round(motion[k]["median_ms"] - still[k]["median_ms"], 2)  # type: ignore[index]
        for k in ("at_arrival", "mid_animation")
    }
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.motion", description=__doc__)
    parser.add_argument("--rounds", type=int, default=40, help="remote rolls per mode")
    parser.add_argument("--out", default=str(RESULTS), help="where the JSON goes")
    args = parser.parse_args(argv)
    report = run(args.rounds)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(json.dumps(report, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
