"""An invitation: the one line a friend pastes to join a game (PROTOCOL.md, section 2c).

``catan-p2p:1:<payload>``, where the payload is the game's description as one-line JSON
in URL-safe base64 without padding. It names the game and its start (the genesis id, so a
second game of the same id cannot pass for it), where to fetch it (the shared remote
and/or the seats' publication points), the seat that invites (``by``) and, optionally,
the seat offered. A point named for a seat nobody has claimed yet is where that seat's
player is asked to publish.

An invitation comes from anyone, so it is parsed strictly, as the rest of the protocol:
a version this program does not know, a field it does not know, a duplicated key, a name
of no protocol shape or a place of a form not listed in ``check_url`` is refused with one
sentence, before anything is fetched. The places are handed to Git, and Git can run
programs for some URLs (``ext::``, an ssh "host" that is an option), so only the forms
a publication point may take pass (``check_url``).

Pure functions of their arguments (``format_invite`` / ``parse_invite``), as the other
formats of ``sync/``.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from catan_p2p.errors import InviteError, UsageError
from catan_p2p.printable import shown
from catan_p2p.store.refnames import check_name
from catan_p2p.trust.seats import point_refusal

#: The prefix of every invitation, and the version of its format this program writes.
SCHEME = "catan-p2p"
VERSION = 1
#: The longest invitation read (six seats' points of 200 characters fit in about 2,000).
MAX_LENGTH = 4096
#: Seats of a game at most (the 5-6 player extension).
MAX_SEATS = 6
_PAYLOAD = re.compile(r"^[A-Za-z0-9_-]+$")
_START = re.compile(r"^[0-9a-f]{40}$")
_FIELDS = frozenset({"game", "start", "by", "remote", "points", "seat"})


def check_url(url: str, what: str = "place") -> str:
    """``url`` if it is a place an invitation may name; ``InviteError`` otherwise.

    A place (the shared remote or a point) takes one of the forms a publication point
    may take (``trust.seats.POINT_FORMS``, PROTOCOL.md 2a): one allow-list for what a
    claim names, what a peer fetches and what an invitation names. So no place is a
    remote helper (``ext::``, ``fd::``), an option to ssh or Git (``-oProxyCommand=``),
    a percent-escape or a relative path (which would mean something else on the
    joiner's machine).
    """
    if not isinstance(url, str) or point_refusal(url) is not None:
        raise InviteError(
            f"the invitation's {what} {shown(str(url), 60)} is refused: it is no Git URL a "
            "publication point may be (https, ssh, git, user@host:path or /path/NAME.git)"
        )
    return url


@dataclass(frozen=True)
class Invite:
    """A game and where to find it, as its inviter wrote it.

    Args:
        game: the game id.
        start: the game's first commit (40 hex digits).
        by: the inviting seat (the joiner fetches from its point when there is no
            shared remote).
        remote: the game's shared remote, if it has one.
        points: publication points by seat: the claimed seats' and, for a seat nobody
            has claimed, where its player is asked to publish.
        seat: the seat offered, if the inviter chose one.
    """

    game: str
    start: str
    by: str
    remote: str | None = None
    points: Mapping[str, str] = field(default_factory=dict)
    seat: str | None = None

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """``InviteError`` naming the first field of no protocol shape."""
        try:
            check_name("game id", self.game)
            check_name("player", self.by)
            for player in self.points:
                check_name("player", player)
            if self.seat is not None:
                check_name("player", self.seat)
        except UsageError as exc:
            raise InviteError(f"the invitation's {exc}") from None
        if not isinstance(self.start, str) or not _START.match(self.start):
            raise InviteError("the invitation's start is not a commit id (40 hex digits)")
        if self.remote is not None:
            check_url(self.remote, "remote")
        if len(self.points) > MAX_SEATS:
            raise InviteError(f"the invitation names more than {MAX_SEATS} seats' points")
        for player, url in self.points.items():
            check_url(url, f"point of {player}")
        if self.remote is None and self.by not in self.points:
            raise InviteError(
                "the invitation names neither a shared remote nor the inviting seat's point"
            )
        if self.seat is not None and self.seat == self.by:
            raise InviteError("the invitation offers the inviting seat itself")

    @property
    def source(self) -> str:
        """Where the game is fetched from first: the shared remote, else the inviter's point."""
        return self.remote if self.remote is not None else self.points[self.by]

    def point_of(self, seat: str) -> str | None:
        """Where ``seat`` publishes (or is asked to), if the invitation says."""
        return self.points.get(seat)

    def to_json(self) -> dict:
        out: dict = {"game": self.game, "start": self.start, "by": self.by}
        if self.remote is not None:
            out["remote"] = self.remote
        if self.points:
            out["points"] = dict(sorted(self.points.items()))
        if self.seat is not None:
            out["seat"] = self.seat
        return out

    def __str__(self) -> str:
        return format_invite(self)


def format_invite(invite: Invite) -> str:
    """The invitation as its one line: ``catan-p2p:1:`` and the URL-safe payload."""
    text = json.dumps(invite.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    payload = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
    return f"{SCHEME}:{VERSION}:{payload}"


def is_invite(text: str) -> bool:
    """Whether ``text`` is meant as an invitation (it starts with ``catan-p2p:``)."""
    return text.strip().lower().startswith(f"{SCHEME}:")


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise InviteError("the invitation names a field twice")
    return dict(pairs)


def _refuse_constant(name: str) -> object:
    raise InviteError(f"the invitation holds {name}, which is no JSON value")


def parse_invite(text: str) -> Invite:
    """The ``Invite`` that ``text`` (one line, as ``format_invite`` writes it) describes.

    Raises:
        InviteError: one sentence saying what is wrong; nothing is fetched or run first.
    """
    text = text.strip()
    if len(text) > MAX_LENGTH:
        raise InviteError(f"the invitation is longer than {MAX_LENGTH} characters")
    scheme, _, rest = text.partition(":")
    version, _, payload = rest.partition(":")
    if scheme != SCHEME or not payload:
        raise InviteError(
            f"{text[:40]!r} is not an invitation (they start with {SCHEME}:{VERSION}:); "
            "copy the whole line `catan-p2p new` printed"
        )
    if version != str(VERSION):
        if version.isdigit():
            raise InviteError(
                f"the invitation is of version {int(version)}, and this catan-p2p reads "
                f"version {VERSION}; upgrade catan-p2p"
            )
        raise InviteError(f"the invitation's version {version[:10]!r} is not a number")
    if not _PAYLOAD.match(payload) or len(payload) % 4 == 1:
        raise InviteError(
            "the invitation is cut or garbled (it holds letters of no URL-safe base64)"
        )
    try:
        data = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        if base64.urlsafe_b64encode(data).decode().rstrip("=") != payload:
            raise ValueError("not canonical")
        fields = json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_no_duplicates,
            parse_constant=_refuse_constant,
        )
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):
        raise InviteError("the invitation is cut or garbled; copy the whole line again") from None
    if not isinstance(fields, dict):
        raise InviteError("the invitation holds no game")
    unknown = sorted(set(fields) - _FIELDS)
    if unknown:
        raise InviteError(
            f"the invitation has a field this catan-p2p does not know ({unknown[0][:20]!r}); "
            "upgrade catan-p2p"
        )
    missing = sorted({"game", "start", "by"} - set(fields))
    if missing:
        raise InviteError(f"the invitation names no {missing[0]}")
    points = fields.get("points", {})
    strings = [fields[k] for k in ("game", "start", "by")]
    strings += [fields[k] for k in ("remote", "seat") if k in fields]
    if not isinstance(points, dict) or not all(
        isinstance(v, str) for v in (*strings, *points.values())
    ):
        raise InviteError("the invitation's fields are not all text")
    return Invite(
        game=fields["game"],
        start=fields["start"],
        by=fields["by"],
        remote=fields.get("remote"),
        points=points,
        seat=fields.get("seat"),
    )
