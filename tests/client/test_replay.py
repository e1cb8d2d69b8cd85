"""The replay viewer: states rebuilt from history, stepping, turn jumps, the slider, export."""

from __future__ import annotations

import driving  # noqa: F401  (sets SDL_VIDEODRIVER=dummy before pygame opens a display)
import pygame
import pytest
from builders import fresh
from driving import screens_dir

from catan_p2p.bots import make_bot
from catan_p2p.client.replay import ReplayViewer, export_frames, replay_states, turn_starts
from catan_p2p.session.memory import MemorySession
from catan_p2p.sim import next_actor
from catan_p2p.trust.engine import apply


@pytest.fixture(scope="module")
def finished_game() -> MemorySession:
    """Three random bots play a whole game in memory."""
    session = MemorySession(fresh(3), "replay")
    bots = {p: make_bot("random", p) for p in session.state.players}
    while not session.state.is_over:
        player = next_actor(session.state)
        session.submit(bots[player].decide(session.state, session.legal_actions(player)))
    return session


@pytest.fixture
def viewer(finished_game):
    states, entries = replay_states(finished_game)
    v = ReplayViewer(states, entries, screen=pygame.display.set_mode((1280, 800)))
    yield v
    pygame.display.quit()


def _post(*events: pygame.event.Event) -> None:
    for e in events:
        pygame.event.post(e)


def _key(v: ReplayViewer, key: int, mod: int = 0) -> None:
    _post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=mod, unicode=""))
    v.tick()


def _click(v: ReplayViewer, pos: tuple[int, int]) -> None:
    _post(
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1),
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1),
    )
    v.tick()


def test_replayed_states_rebuild_the_game_action_by_action(finished_game):
    states, entries = replay_states(finished_game)
    assert len(states) == len(entries) + 1
    assert states[-1] == finished_game.state
    assert apply(states[10], entries[10].action) == states[11]


def test_arrow_keys_step_one_action_and_shift_jumps_a_turn(viewer, tmp_path):
    last = viewer.last
    assert viewer.index == last
    _key(viewer, pygame.K_LEFT)
    assert viewer.index == last - 1
    _key(viewer, pygame.K_HOME)
    assert viewer.index == 0
    _key(viewer, pygame.K_RIGHT, pygame.KMOD_SHIFT)
    first_turn = turn_starts(viewer.states)[1]
    assert viewer.index == first_turn and viewer.states[first_turn].turn == 1
    _key(viewer, pygame.K_DOWN)
    assert viewer.states[viewer.index].turn == 2
    _key(viewer, pygame.K_UP)
    assert viewer.index == first_turn
    viewer.draw()
    pygame.image.save(viewer.screen, str(screens_dir(tmp_path) / "replay_first_turn.png"))


def test_buttons_and_slider_scrub_and_log_lines_jump_to_their_commit(viewer, tmp_path):
    _click(viewer, viewer.button("« Start").rect.center)
    assert viewer.index == 0
    _click(viewer, viewer.button("Step ›").rect.center)
    assert viewer.index == 1
    middle = viewer.last // 2
    start, end = viewer.slider_point(0), viewer.slider_point(middle)
    _post(
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=start, button=1),
        pygame.event.Event(pygame.MOUSEMOTION, pos=end, rel=(1, 0), buttons=(1, 0, 0)),
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=end, button=1),
    )
    viewer.tick()
    assert abs(viewer.index - middle) <= viewer.last / viewer.slider.width + 1
    rect, index = viewer._log_lines[0]  # the first visible log line
    _click(viewer, rect.center)
    assert viewer.index == index + 1
    viewer.draw()
    pygame.image.save(viewer.screen, str(screens_dir(tmp_path) / "replay_scrubbed.png"))


def test_export_writes_a_png_per_state_only_when_asked(finished_game, tmp_path):
    states, entries = replay_states(finished_game)
    pygame.font.init()
    result = export_frames(states[:6], entries[:5], tmp_path / "frames", pngs=True)
    pngs = sorted((tmp_path / "frames").glob("frame_*.png"))
    assert result["frames"] == 6 and result["pngs"] == 6 and len(pngs) == 6
    assert pygame.image.load(str(pngs[0])).get_size() == (1280, 800)
    result = export_frames(states[:6], entries[:5], tmp_path / "gif-only")
    assert result["pngs"] == 0 and not list((tmp_path / "gif-only").glob("*.png"))


def test_the_gif_is_written_frame_by_frame_as_pillow_would_write_it(finished_game, tmp_path):
    """Issue 33: 663 PNG frames (121 MB) were written and 200 frames held in memory to
    make a 3.7 MB GIF. Now each frame is written as it is drawn, only what changed since
    the one before, and reads back as the picture Pillow's own ``save_all`` gives."""
    image = pytest.importorskip("PIL.Image")
    from PIL import ImageChops

    states, entries = replay_states(finished_game)
    pygame.font.init()
    out = tmp_path / "frames"
    result = export_frames(states[:40], entries[:39], out)
    assert result["gif_frames"] == 40 and sorted(p.name for p in out.iterdir()) == ["replay.gif"]
    ours = image.open(out / "replay.gif")
    assert ours.n_frames == 40 and ours.info["loop"] == 0
    viewer = ReplayViewer(states[:40], entries[:39], screen=pygame.Surface((1280, 800)))
    pictures = []
    for i in range(40):
        viewer.goto(i)
        viewer.draw()
        small = pygame.transform.smoothscale(viewer.screen, (512, 320))
        pictures.append(image.frombytes("RGB", (512, 320), pygame.image.tobytes(small, "RGB")))
    palette = pictures[-1].quantize(colors=96)
    quantized = [p.quantize(palette=palette, dither=image.Dither.NONE) for p in pictures]
    quantized[0].save(
        tmp_path / "pillow.gif", save_all=True, append_images=quantized[1:], loop=0,
        duration=[160] * 39 + [3000],
    )  # fmt: skip
    theirs = image.open(tmp_path / "pillow.gif")
    for i in (0, 1, 17, 39):
        ours.seek(i)
        theirs.seek(i)
        assert ImageChops.difference(ours.convert("RGB"), theirs.convert("RGB")).getbbox() is None
        assert ours.info["duration"] == (3000 if i == 39 else 160)
    assert (out / "replay.gif").stat().st_size <= 1.1 * (tmp_path / "pillow.gif").stat().st_size
