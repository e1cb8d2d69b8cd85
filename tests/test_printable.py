"""The one sanitiser of text from a remote or a peer (``catan_p2p.printable``)."""

from __future__ import annotations

import io

from catan_p2p.printable import Guard, one_line, shown

HOSTILE = "\x1b]0;pwned\x07\x1b[31mred\u202e\x00\n\udcff"


def test_nothing_that_is_not_printable_survives_and_every_character_is_still_named():
    out = shown(HOSTILE)
    assert out.isprintable()
    assert out == "\\x1b]0;pwned\\x07\\x1b[31mred\\u202e\\x00\\n\\xff"
    assert shown("Red, blue") == "Red, blue"


def test_a_refusal_is_one_line_of_at_most_300_characters():
    said = one_line("rejected: " + "'blue', " * 2000 + "\nsecond line")
    assert len(said) == 300 and said.endswith("…") and said.isprintable()
    assert one_line("a\n  b\tc") == "a b c"


def test_a_commands_stream_keeps_its_line_ends_and_escapes_the_rest():
    stream = io.StringIO()
    Guard(stream).write(f"turn 3\r{HOSTILE}\n")
    assert stream.getvalue() == "turn 3\r" + shown(HOSTILE[:-2]) + "\n" + shown("\udcff") + "\n"


def test_the_window_draws_a_name_holding_a_nul_byte():
    import pygame

    from catan_p2p.client.widgets import draw_text

    pygame.init()
    surface = pygame.Surface((200, 40))
    assert draw_text(surface, "red\x00\x1b[31m", (0, 0)).width > 0
