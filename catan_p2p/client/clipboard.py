"""The system clipboard, for copying an invitation and pasting one: SDL's own (through
pygame), else the desktop's usual helper programs; never an error where there is none.

``copy`` says whether the text reached a clipboard, ``paste`` returns "" when nothing can
be read, so a window without a clipboard (a dummy display, a bare server) only loses the
button's convenience: the invitation is also drawn on screen and printed.
"""

from __future__ import annotations

import shutil
import subprocess

import pygame

#: Helper programs tried after SDL's clipboard: (copy command, paste command).
HELPERS = (
    (("wl-copy",), ("wl-paste", "--no-newline")),
    (("xclip", "-selection", "clipboard"), ("xclip", "-selection", "clipboard", "-o")),
    (("xsel", "--clipboard", "--input"), ("xsel", "--clipboard", "--output")),
    (("pbcopy",), ("pbpaste",)),
)
#: Seconds a helper may take.
TIMEOUT = 2.0
#: Characters pasted at most (an invitation is under 4,096).
MAX_PASTE = 8192


def _sdl_ok() -> bool:
    return pygame.display.get_init() and pygame.display.get_driver() not in ("dummy", "offscreen")


def _sdl_put(text: str) -> bool:
    """SDL's clipboard through pygame (``put_text`` of pygame-ce, else ``scrap.put``)."""
    try:
        if hasattr(pygame.scrap, "put_text"):
            pygame.scrap.put_text(text)
        else:
            if not pygame.scrap.get_init():
                pygame.scrap.init()
            pygame.scrap.put(pygame.SCRAP_TEXT, text.encode())
        return True
    except (pygame.error, AttributeError, TypeError, NotImplementedError):
        return False


def _sdl_get() -> str:
    try:
        if hasattr(pygame.scrap, "get_text"):
            return pygame.scrap.get_text() or ""
        if not pygame.scrap.get_init():
            pygame.scrap.init()
        data = pygame.scrap.get(pygame.SCRAP_TEXT) or b""
        return data.decode(errors="ignore") if isinstance(data, bytes) else str(data)
    except (pygame.error, AttributeError, TypeError, NotImplementedError):
        return ""


def copy(text: str) -> bool:
    """Put ``text`` on the clipboard; whether it got there."""
    if _sdl_ok() and _sdl_put(text):
        return True
    for command, _ in HELPERS:
        if shutil.which(command[0]) is None:
            continue
        try:
            done = subprocess.run(
                command, input=text.encode(), timeout=TIMEOUT, capture_output=True, check=False
            )
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return True
    return False


def paste() -> str:
    """The clipboard's text (one line, stripped), or "" when there is none to read."""
    text = _sdl_get() if _sdl_ok() else ""
    if not text:
        for _, command in HELPERS:
            if shutil.which(command[0]) is None:
                continue
            try:
                done = subprocess.run(command, timeout=TIMEOUT, capture_output=True, check=False)
            except (OSError, subprocess.SubprocessError):
                continue
            if done.returncode == 0:
                text = done.stdout[:MAX_PASTE].decode(errors="ignore")
                break
    line = text[:MAX_PASTE].replace("\x00", "").strip().splitlines()
    return line[0].strip() if line else ""
