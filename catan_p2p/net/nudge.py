"""A nudge: "I moved, fetch me now", so a peer that can be reached never waits for a poll.

A seat served from its player's own machine (``catan-p2p serve``, a ``git://`` URL) also
listens for nudges: UDP datagrams on the port number of its ``git://`` URL. After a
peer records a move it sends one datagram to every other seat's ``git://`` point; the
receiver fetches at once instead of at its next poll. A nudge carries no move: it only
starts a fetch, and everything fetched is verified as always. So a nudge is cheap to
check and harmless to lose, repeat or forge; still, it is signed by the sender's seat
key (``SeatKey.sign``) and a receiver drops one that is not, or one naming a head it
already holds (a nudge replayed), so nobody but a seated player can make a peer fetch,
and only for a move it has not seen.

One exception: while a seat is open, its joiner's first nudge ("hello") names where it
publishes, and the receiver has no key of it yet. Such a hint is taken only for an
open seat and only as a ``git://`` URL; the claim fetched from it is verified like any
commit, and an open seat is anyone's to claim.

The wire format (PROTOCOL.md "Nudges") is one JSON object of at most ``MAX_BYTES``::

    {"v": 1, "game": "g1", "from": "blue", "head": "<40 hex>", "point": "git://...",
     "sig": "<armoured SSH signature of payload()>"}
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from catan_p2p.protocol.signing import SeatKey, check_signature
from catan_p2p.store.refnames import check_name
from catan_p2p.trust.seats import point_refusal

VERSION = 1
MAX_BYTES = 1200
_OID = re.compile(r"^[0-9a-f]{40}$")
_URL = re.compile(r"^git://[A-Za-z0-9.\-\[\]:]+(:[0-9]{1,5})?/[A-Za-z0-9._\-/]{1,200}$")


@dataclass(frozen=True)
class Nudge:
    """One nudge as read: the game, its sender's seat, the sender's head and point."""

    game: str
    sender: str
    head: str
    point: str
    sig: str = ""


def payload(game: str, sender: str, head: str, point: str) -> bytes:
    """The bytes a nudge's signature covers (never a Git object: no commit can be one)."""
    return f"catan-p2p nudge {VERSION}\ngame {game}\nfrom {sender}\nhead {head}\npoint {point}\n".encode()


def encode(nudge: Nudge) -> bytes:
    data = {
        "v": VERSION,
        "game": nudge.game,
        "from": nudge.sender,
        "head": nudge.head,
        "point": nudge.point,
        "sig": nudge.sig,
    }
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def decode(data: bytes) -> Nudge | None:
    """The nudge in ``data``; None for anything else (too long, not JSON, a field of the
    wrong shape): a datagram is never an error to report, only ignored."""
    if len(data) > MAX_BYTES:
        return None
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(obj, dict) or obj.get("v") != VERSION:
        return None
    fields = [obj.get(k) for k in ("game", "from", "head", "point", "sig")]
    if not all(isinstance(f, str) for f in fields):
        return None
    game, sender, head, point, sig = fields
    try:
        check_name("game id", game)
        check_name("player", sender)
    except Exception:  # noqa: BLE001 - a bad name is only a datagram to drop
        return None
    if not _OID.match(head) or (point and not is_nudgeable(point)) or len(sig) > 600:
        return None
    return Nudge(game, sender, head, point, sig)


def is_nudgeable(url: str) -> bool:
    """True for a ``git://`` URL of the strict shape a served point has (and of a form a
    point may take at all: ``trust.seats.point_refusal``; a hello names one)."""
    return bool(_URL.match(url)) and point_refusal(url) is None


def address(url: str) -> tuple[str, int] | None:
    """Where to send a nudge for the seat published at ``url``: its host and the port
    number of the ``git://`` URL (9418 by default); None for any other URL."""
    if not is_nudgeable(url):
        return None
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or 9418
    except ValueError:
        return None
    return (host, port) if host else None


#: What a nudge is worth (``worth_fetching``): a signed move, or an open seat's hello.
MOVED, HELLO = "moved", "hello"


def outgoing(
    game: str,
    heads: Mapping[str, str | None],
    keys: Mapping[str, SeatKey],
    points: Mapping[str, str],
    hints: Mapping[str, str],
    own: Iterable[str | None],
) -> list[tuple[bytes, tuple[str, int]]]:
    """The datagrams that tell every other seat's ``git://`` point (and every hinted one)
    the local seats' ``heads``, each signed with its seat's key; never to an ``own`` URL."""
    mine = {address(u) for u in own if u}
    others = [u for p, u in points.items() if p not in heads] + list(hints.values())
    targets = sorted({a for a in map(address, others) if a is not None and a not in mine})
    out = []
    for seat, head in heads.items():
        if head is None or not targets:
            continue
        point = points.get(seat, "")
        point = point if is_nudgeable(point) else ""
        sig = keys[seat].sign(payload(game, seat, head, point))
        datagram = encode(Nudge(game, seat, head, point, sig))
        out += [(datagram, a) for a in targets]
    return out


def worth_fetching(
    got: Nudge,
    local: Iterable[str],
    seat_keys: Mapping[str, str],
    known: set[str | None],
    points: Mapping[str, str],
) -> str | None:
    """``MOVED`` for a nudge of a move not held yet signed by its seat's key; ``HELLO``
    for an unclaimed seat's first word naming its ``git://`` point; None to ignore it
    (a local seat's, a head already held: replayed, a signature that fails)."""
    if got.sender in set(local):
        return None
    public = seat_keys.get(got.sender)
    if not public:  # an open seat: its head is the start; only where it publishes counts
        return HELLO if got.point and got.sender not in points else None
    if got.head in known:
        return None
    signed = payload(got.game, got.sender, got.head, got.point)
    return MOVED if check_signature(public, signed, got.sig) is None else None


def send(datagram: bytes, to: tuple[str, int]) -> None:
    """Send one datagram; a peer that cannot be reached is simply not nudged."""
    try:
        with socket.socket(
            socket.AF_INET6 if ":" in to[0] else socket.AF_INET, socket.SOCK_DGRAM
        ) as s:
            s.sendto(datagram, to)
    except OSError:
        pass


class Listener:
    """The nudges arriving on one UDP port (bound on every address), read without waiting."""

    def __init__(self, port: int, host: str = "") -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setblocking(False)
        self.sock.bind((host, port))
        self.port = self.sock.getsockname()[1]

    def take(self) -> list[bytes]:
        """Every datagram waiting now (at most 64 at a time)."""
        out = []
        for _ in range(64):
            try:
                data, _addr = self.sock.recvfrom(MAX_BYTES + 1)
            except (BlockingIOError, OSError):
                break
            out.append(data)
        return out

    def close(self) -> None:
        self.sock.close()
