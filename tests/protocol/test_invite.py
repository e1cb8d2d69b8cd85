"""The invitation's format (PROTOCOL.md 2c): one URL-safe line, parsed strictly.

Pure: no Git, no process. What a hostile invitation could make ``join`` do is refused
here, before anything is fetched (the commands' tests join from real invitations).
"""

from __future__ import annotations

import base64
import json

import pytest

from catan_p2p.errors import InviteError
from catan_p2p.protocol.invite import Invite, check_url, format_invite, is_invite, parse_invite

START = "0123456789abcdef0123456789abcdef01234567"


def _token(fields: dict | str, version: str = "1") -> str:
    text = fields if isinstance(fields, str) else json.dumps(fields)
    payload = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
    return f"catan-p2p:{version}:{payload}"


def test_an_invitation_reads_back_as_written_and_is_url_safe():
    invite = Invite(
        "g1a2", START, "red", remote="git@example.org:me/cat.git",
        points={"red": "https://example.org/red.git", "blue": "/srv/git/blue.git"}, seat="blue",
    )  # fmt: skip
    line = format_invite(invite)
    assert line.startswith("catan-p2p:1:") and is_invite(line)
    assert all(c.isalnum() or c in ":-_" for c in line)
    assert parse_invite("  " + line + "\n") == invite
    assert invite.source == "git@example.org:me/cat.git"
    assert Invite("g", START, "red", points={"red": "/p/red.git"}).source == "/p/red.git"


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/someone/catan.git",
        "http://192.168.1.20:8080/red.git",
        "ssh://git@host.example:2222/srv/red.git",
        "git://192.168.1.20:9418/red.git",  # `catan-p2p serve`
        "git@github.com:someone/catan.git",
        "/tmp/pytest-1/remote.git",
        "ssh://[::1]/srv/x.git",
    ],
)
def test_the_places_a_publication_point_may_be_are_taken(url):
    assert check_url(url) == url


@pytest.mark.parametrize(
    "url",
    [
        "ext::sh -c touch% /tmp/pwned",  # a remote helper that runs a program
        "ext::sh",
        "file:///srv/git/red.git",  # no form of a point: it could name a player's clone
        "/srv/game",  # a path on a disk names a bare NAME.git
        "https://host/a%20b",  # no percent-escape
        "fd::3",
        "ssh://-oProxyCommand=touch%20/tmp/pwned/x",  # a host that is an ssh option
        "-upload-pack=touch /tmp/pwned",  # an option to git fetch
        "--upload-pack=x",
        "git@-oProxyCommand=x:repo",
        "host:-oProxyCommand=x",
        "https://host/$(touch /tmp/pwned)",
        "https://host/a b",
        "https://host/a\nb",
        "relative/path.git",
        "../up.git",
        "ftp://host/x.git",
        "javascript:alert(1)",
        "https://host/" + "a" * 300,
        "",
    ],
)
def test_places_git_could_run_a_program_for_or_of_no_listed_form_are_refused(url):
    with pytest.raises(InviteError, match="invitation's place .* is refused: it is no Git URL"):
        check_url(url)
    line = _token({"game": "g", "start": START, "by": "red", "remote": url})
    with pytest.raises(InviteError):
        parse_invite(line)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("https://example.org/x.git", "is not an invitation"),
        ("catan-p2p:2:abcd", "version 2"),
        ("catan-p2p:x:abcd", "version 'x' is not a number"),
        ("catan-p2p:1:", "is not an invitation"),
        ("catan-p2p:1:ab+/cd==", "garbled"),
        ("catan-p2p:1:" + "A" * 5000, "longer than"),
        (_token("[1, 2]"), "holds no game"),
        (_token("{"), "garbled"),
        (_token(f'{{"game": "g", "game": "h", "start": "{START}", "by": "red"}}'), "twice"),
        (_token({"game": "g", "start": START, "by": "red", "remote": "/r.git", "x": 1}), "upgrade"),
        (_token({"game": "g", "by": "red", "remote": "/r.git"}), "names no start"),
        (_token({"game": "G!", "start": START, "by": "red", "remote": "/r.git"}), "game id"),
        (_token({"game": "g", "start": START[:16], "by": "red", "remote": "/r.git"}), "40 hex"),
        (_token({"game": "g", "start": START, "by": "red"}), "neither a shared remote"),
        (_token({"game": "g", "start": START, "by": "red", "remote": 5}), "not all text"),
        (
            _token({"game": "g", "start": START, "by": "red", "points": {"Bad Seat": "/r.git"}}),
            "player",
        ),
        (
            _token({"game": "g", "start": START, "by": "red", "remote": "/r.git", "seat": "red"}),
            "inviting seat itself",
        ),
        (_token('{"game": "g", "start": NaN}'), "no JSON value"),
        (_token("[" * 100000), "longer than"),
    ],
)
def test_a_bad_invitation_is_refused_in_one_sentence(text, says):
    with pytest.raises(InviteError, match=says) as refused:
        parse_invite(text)
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 200
