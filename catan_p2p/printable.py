"""The one sanitiser of text that comes from a remote or a peer, before anyone sees it.

Player names, game ids, chat lines, refusal reasons and a server's words are written by
whoever could write a remote: a forged game's files may hold any character JSON holds.
A terminal takes some of them as commands (``ESC ] 0 ;`` retitles it, ``ESC [ 31 m``
changes its colours, U+202E turns the rest of a line around), and a newline lets a name
print a line of its own. Every such text passes ``shown`` (or ``one_line``, for a
sentence such as a refusal) on its way to a terminal, a log or the window, and the
commands' own streams pass ``Guard`` as well. Imports nothing of the package.
"""

from __future__ import annotations

from typing import TextIO

#: The longest refusal or reason printed: one line a terminal shows whole.
REFUSAL_CHARS = 300

#: What ``Guard`` lets through of the control characters: the commands' own line ends
#: and the ``\\r`` of a progress line redrawn in place.
_LAYOUT = frozenset("\n\r\t")


def _escaped(ch: str) -> str:
    """``ch`` written as Python writes it in a string literal (``\\x1b``, ``\\u202e``);
    a byte that was no UTF-8 (a surrogate ``surrogateescape`` made) as ``\\xNN``."""
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return repr(ch)[1:-1]


def shown(text: str, limit: int | None = None) -> str:
    """``text`` as a terminal may print it: every character that is not printable
    (control characters, newlines, format characters such as bidirectional overrides,
    bytes that were no UTF-8) written as its escape, and at most ``limit`` characters
    (the last one ``…`` when it was cut).

    >>> shown("\\x1b]0;x\\x07red")
    '\\\\x1b]0;x\\\\x07red'
    """
    out = "".join(ch if ch.isprintable() else _escaped(ch) for ch in str(text))
    if limit is not None and len(out) > limit:
        return out[: max(0, limit - 1)] + "…"
    return out


def one_line(text: str, limit: int = REFUSAL_CHARS) -> str:
    """A sentence (a refusal, a reason) on one line of at most ``limit`` characters: runs
    of white space, line ends included, become one space, the rest as ``shown``."""
    return shown(" ".join(str(text).split()), limit)


class Guard:
    """A text stream that writes what ``shown`` would, keeping line ends and ``\\r``:
    ``sys.stdout`` and ``sys.stderr`` of a command, so that nothing a remote said can
    reach the terminal as a command, whichever print forgot to ask ``shown``."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        if not all(ch.isprintable() or ch in _LAYOUT for ch in text):
            text = "".join(ch if ch in _LAYOUT else shown(ch) for ch in text)
        return self.stream.write(text)

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.stream, name)
