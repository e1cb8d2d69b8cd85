"""A handful of sounds, synthesised here from sine waves and noise (no recorded assets).

``synth(name, rate)`` is pure: it returns 16-bit signed mono samples as bytes, so the
sounds are tested without an audio device. ``Sounds`` plays them through
``pygame.mixer`` when a device is there and does nothing when it is not (a server,
CI, a muted machine): the game never depends on it. ``S`` in the window mutes.
"""

from __future__ import annotations

import math
from array import array

import pygame

RATE = 22050

#: The sounds the window plays, and when.
NAMES = ("roll", "build", "robber", "turn", "chat")


def _envelope(i: int, n: int, attack: int = 60) -> float:
    """A quick attack, then an exponential fade to silence at ``n``."""
    if i < attack:
        return i / attack
    return math.exp(-5.0 * (i - attack) / max(1, n - attack))


def _tone(freqs: list[tuple[float, float, float]], rate: int, volume: float) -> array:
    """Notes one after another: (start frequency, end frequency, seconds) each."""
    out = array("h")
    for f0, f1, seconds in freqs:
        n = int(rate * seconds)
        phase = 0.0
        for i in range(n):
            f = f0 + (f1 - f0) * i / max(1, n)
            phase += 2 * math.pi * f / rate
            v = math.sin(phase) + 0.3 * math.sin(2 * phase)
            out.append(int(32767 * volume * _envelope(i, n) * v / 1.3))
    return out


def _rattle(rate: int, volume: float) -> array:
    """Dice on a table: short clicks of filtered noise, closer and closer together."""
    out = array("h", [0] * int(rate * 0.45))
    seed = 12345
    at = 0
    gaps = (0.0, 0.07, 0.06, 0.05, 0.045, 0.04, 0.05)
    for k, gap in enumerate(gaps):
        at += int(rate * gap)
        n = int(rate * 0.03)
        last = 0.0
        for i in range(n):
            seed = (1103515245 * seed + 12345) & 0x7FFFFFFF
            noise = seed / 0x3FFFFFFF - 1.0
            last = 0.6 * last + 0.4 * noise  # a soft low-pass: wood, not hiss
            j = at + i
            if j < len(out):
                loud = volume * (1.0 - 0.08 * k) * _envelope(i, n, 8)
                out[j] = max(-32767, min(32767, out[j] + int(32767 * loud * last)))
    return out


def synth(name: str, rate: int = RATE) -> bytes:
    """The samples of sound ``name``: 16-bit signed, mono, at ``rate`` Hz.

    Raises:
        KeyError: no sound has that name.
    """
    if name == "roll":
        samples = _rattle(rate, 0.5)
    elif name == "build":
        samples = _tone([(180.0, 140.0, 0.12), (240.0, 200.0, 0.10)], rate, 0.5)
    elif name == "robber":
        samples = _tone([(220.0, 110.0, 0.35)], rate, 0.45)
    elif name == "turn":
        samples = _tone([(660.0, 660.0, 0.12), (880.0, 880.0, 0.22)], rate, 0.35)
    elif name == "chat":
        samples = _tone([(1200.0, 1400.0, 0.07)], rate, 0.25)
    else:
        raise KeyError(f"no sound {name!r}; the sounds are {', '.join(NAMES)}")
    return samples.tobytes()


class Sounds:
    """The window's sounds; silent (never failing) without an audio device."""

    def __init__(self, muted: bool = False) -> None:
        self.muted = muted
        self.played: list[str] = []  # every sound asked for while not muted (tests read it)
        self._sounds: dict[str, pygame.mixer.Sound] = {}
        self.available = False
        try:
            if not pygame.mixer.get_init():
                pygame.mixer.init(frequency=RATE, size=-16, channels=1)
            got = pygame.mixer.get_init()
            if got is None:
                return
            rate, size, channels = got
            for name in NAMES:
                mono = array("h")
                mono.frombytes(synth(name, rate))
                if abs(size) != 16:
                    return  # an unusual device format: stay silent rather than squeal
                if channels > 1:
                    mono = array("h", (v for v in mono for _ in range(channels)))
                self._sounds[name] = pygame.mixer.Sound(buffer=mono.tobytes())
            self.available = True
        except pygame.error:
            self._sounds = {}

    def toggle(self) -> bool:
        """Mute or unmute; returns True when muted."""
        self.muted = not self.muted
        return self.muted

    def play(self, name: str) -> None:
        if self.muted:
            return
        self.played.append(name)
        sound = self._sounds.get(name)
        if sound is not None:
            try:
                sound.play()
            except pygame.error:
                pass  # a device that went away mid-game: keep playing the game
