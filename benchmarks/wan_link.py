"""A WAN-like link on 127.0.0.1: a TCP proxy that delays (and can throttle) every byte.

This machine's kernel has no ``netem`` qdisc, so the link is made in user space: every
chunk read from one side is written to the other half a round trip later (each
direction alike), in order, and, with ``bandwidth`` set, no faster than that many bytes
a second per direction. It runs an asyncio loop in a thread of its own; ``check``
measures what it adds with a TCP ping-pong, so a benchmark can show its link is what
it says.

    with WanLink(target_port, rtt_ms=100) as link:
        ...  # connect to 127.0.0.1:link.port instead of target_port
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import threading
import time
from dataclasses import dataclass

CHUNK = 65536


@dataclass
class LinkStats:
    """What went through the link since it started (both directions, every connection)."""

    connections: int = 0
    bytes_up: int = 0  # client to server
    bytes_down: int = 0  # server to client


class WanLink:
    """A proxy from ``127.0.0.1:port`` to ``127.0.0.1:target_port`` with a round trip added."""

    def __init__(self, target_port: int, rtt_ms: float = 100.0, bandwidth: float | None = None):
        self.target_port = target_port
        self.rtt_ms = rtt_ms  # may be changed while running (e.g. 0 while setting up)
        self.bandwidth = bandwidth  # bytes per second per direction, None: unlimited
        self.stats = LinkStats()
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.base_events.Server | None = None
        self._ready = threading.Event()

    # --- life ------------------------------------------------------------------------------

    def start(self) -> WanLink:
        self._thread = threading.Thread(target=self._run, name="wan-link", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the WAN link did not start within 10 s")
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> WanLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._server = loop.run_until_complete(
            asyncio.start_server(self._accept, "127.0.0.1", 0, limit=CHUNK)
        )
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            self._server.close()
            for _ in range(3):  # a cancelled pump may still start its sender once
                tasks = asyncio.all_tasks(loop)
                for task in tasks:
                    task.cancel()
                loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.close()

    # --- the link --------------------------------------------------------------------------

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.stats.connections += 1
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target_port, limit=CHUNK)
        except OSError:
            writer.close()
            return
        for sock in (writer, up_w):
            raw = sock.get_extra_info("socket")
            if raw is not None:
                raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            await asyncio.gather(
                self._direction(reader, up_w, "bytes_up"),
                self._direction(up_r, writer, "bytes_down"),
                return_exceptions=True,
            )
        except asyncio.CancelledError:
            pass  # the link is stopping
        for w in (writer, up_w):
            w.close()

    async def _direction(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, counter: str
    ) -> None:
        """Read chunks as they come; a second task writes each one when it is due."""
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        sender = asyncio.ensure_future(self._send(queue, writer))
        loop = asyncio.get_running_loop()
        wire_free = 0.0  # when the throttled "wire" has sent everything queued so far
        try:
            while True:
                chunk = await reader.read(CHUNK)
                now = loop.time()
                if self.bandwidth:
                    wire_free = max(wire_free, now) + len(chunk) / self.bandwidth
                    due = wire_free + self.rtt_ms / 2000
                else:
                    due = now + self.rtt_ms / 2000
                setattr(self.stats, counter, getattr(self.stats, counter) + len(chunk))
                queue.put_nowait((due, chunk))
                if not chunk:
                    break
        except (ConnectionError, OSError):
            queue.put_nowait((loop.time(), b""))
        await sender

    @staticmethod
    async def _send(queue: asyncio.Queue[tuple[float, bytes]], writer: asyncio.StreamWriter):
        loop = asyncio.get_running_loop()
        try:
            while True:
                due, chunk = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not chunk:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, OSError):
            return


# --- checking the link ------------------------------------------------------------------------


def _echo_server() -> tuple[socket.socket, threading.Thread]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)

    def echo(conn: socket.socket) -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with conn:
            while data := conn.recv(CHUNK):
                conn.sendall(data)

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=echo, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return server, thread


def _ping_pong(port: int, pings: int) -> list[float]:
    """Milliseconds for one byte to go to the echo server and back, ``pings`` times."""
    out = []
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(pings):
            t0 = time.perf_counter()
            s.sendall(b"x")
            if not s.recv(1):
                raise RuntimeError("the echo server closed the connection")
            out.append((time.perf_counter() - t0) * 1e3)
    return out


def _transfer_seconds(port: int, size: int) -> float:
    """Seconds to send ``size`` bytes through and receive them echoed back."""
    payload = b"y" * size
    with socket.create_connection(("127.0.0.1", port)) as s:
        t0 = time.perf_counter()
        sender = threading.Thread(target=s.sendall, args=(payload,))
        sender.start()
        got = 0
        while got < size:
            data = s.recv(CHUNK)
            if not data:
                break
            got += len(data)
        sender.join()
        return time.perf_counter() - t0


def check(rtt_ms: float = 100.0, pings: int = 40, bandwidth: float = 1_000_000) -> dict:
    """What the link adds, measured: median added round trip by ping-pong, and throughput.

    The ping-pong runs straight to an echo server and then through a link of ``rtt_ms``
    (both on one connection each); the added round trip is the difference of the
    medians. Then 200 kB go through a link capped at ``bandwidth`` bytes a second.
    """
    server, _ = _echo_server()
    try:
        port = server.getsockname()[1]
        direct = _ping_pong(port, pings)
        with WanLink(port, rtt_ms) as link:
            linked = _ping_pong(link.port, pings)
        size = 200_000
        with WanLink(port, 0, bandwidth) as capped:
            seconds = _transfer_seconds(capped.port, size)
    finally:
        server.close()
    added = statistics.median(linked) - statistics.median(direct)
    return {
        "rtt_setting_ms": rtt_ms,
        "pings": pings,
        "direct_median_ms": round(statistics.median(direct), 2),
        "linked_median_ms": round(statistics.median(linked), 2),
        "linked_p90_ms": round(statistics.quantiles(linked, n=10)[-1], 2),
        "added_median_ms": round(added, 2),
        "added_error_ms": round(added - rtt_ms, 2),
        "bandwidth_setting_bytes_s": bandwidth,
        "bandwidth_measured_bytes_s": round(size / seconds),
    }


if __name__ == "__main__":
    import json

    print(json.dumps(check(), indent=2))
