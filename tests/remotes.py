"""One bare repository served over each transport Git speaks, on 127.0.0.1.

``serve(kind, bare)`` is a context manager yielding a ``Served`` (the URL to give
``catan-p2p new --remote`` / ``join``, and the environment Git needs to reach it). It
starts the server, waits until it listens, and stops it on exit, also when the body
raised. Kinds:

- ``bare``: the path itself (Git runs ``receive-pack`` locally);
- ``daemon``: ``git daemon --enable=receive-pack``, ``git://127.0.0.1:PORT/...``;
- ``ssh``: an ``sshd`` of our own with a throw-away host key, allowing a throw-away
  client key for the current user; ``ssh://USER@127.0.0.1/PATH`` with
  ``GIT_SSH_COMMAND`` naming the key and port (with ``shared_connection``, every Git
  command of the test runs as one more session over one authenticated ssh connection,
  as ``ControlMaster`` does for a player who configured it: see ``shared_ssh``);
- ``http``: ``git http-backend`` behind this file's small HTTP server (run as a script,
  a process of its own), ``http://127.0.0.1:PORT/NAME``, pushes enabled.

Every kind serves the same bare repository, so a guard hook installed in it by
``catan-p2p host init`` runs whichever way a push arrives. Used by
``tests/net/test_transports.py`` and ``benchmarks/transports.py``. Standard library only,
so that running this file as a script needs nothing on ``sys.path``.
"""

from __future__ import annotations

import argparse
import getpass
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

KINDS = ("bare", "daemon", "ssh", "http")
START_TIMEOUT = 15.0  # seconds a server may take to listen


class ServerUnavailable(RuntimeError):
    """A server this machine cannot run (e.g. no ``sshd``); the message says what is missing."""


@dataclass(frozen=True)
class Served:
    """A served bare repository: its URL and the environment a Git client needs for it."""

    kind: str
    url: str
    path: Path
    env: dict[str, str] = field(default_factory=dict)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_listening(port: int, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode} before listening")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on 127.0.0.1:{port} within {START_TIMEOUT} s")


@contextmanager
def listening(
    make_args: Callable[[int], list[str]],
    what: str,
    log: Path,
    probe: Callable[[int], bool] | None = None,
    tries: int = 5,
) -> Iterator[tuple[subprocess.Popen, int]]:
    """A server started on a free port, listening: ``(process, port)``.

    Another process (a second test run, an xdist worker) may take the port between
    ``free_port`` choosing it and the server binding it: the server then exits, and the
    other one answers. Each try asks the port something only our server can answer
    (``probe``: Git lists the served repository), and starts again on another port
    otherwise.
    """
    for attempt in range(tries):
        port = free_port()
        with _process(make_args(port), what, log) as proc:
            try:
                _wait_listening(port, proc, what)
                if probe is not None and not probe(port):
                    raise RuntimeError(f"{what}: another process answers on port {port}")
                if proc.poll() is not None:
                    raise RuntimeError(f"{what} exited with {proc.returncode}: port {port} taken")
            except RuntimeError as exc:
                if attempt == tries - 1:
                    raise RuntimeError(f"{exc}\n{_log_tail(log)}") from None
                continue
            yield proc, port
            return


def serves(url: str, env: dict[str, str] | None = None) -> bool:
    """True when ``git ls-remote url`` answers (within a few seconds)."""
    try:
        done = subprocess.run(
            ["git", "ls-remote", url],
            capture_output=True,
            timeout=10,
            env={**os.environ, **(env or {})},
        )
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


@contextmanager
def _process(args: list[str], what: str, log: Path) -> Iterator[subprocess.Popen]:
    """A server process, stopped (terminate, then kill) however the body ends."""
    with log.open("ab") as out:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _log_tail(log: Path) -> str:
    try:
        return log.read_text(errors="replace")[-1500:]
    except OSError:
        return ""


@contextmanager
def serve(
    kind: str, bare: Path, workdir: Path | None = None, shared_connection: bool = False
) -> Iterator[Served]:
    """Serve the bare repository ``bare`` over ``kind`` (one of ``KINDS``) until exit.

    ``shared_connection`` (``ssh`` only): the clients share one ssh connection
    (``shared_ssh``); the tests use it, the benchmarks measure a connection per command.

    Raises:
        ServerUnavailable: ``ssh`` without ``sshd``/``ssh``/``ssh-keygen`` installed.
        RuntimeError: a server that did not start (its log is in the message).
    """
    bare = Path(bare).resolve()
    with ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="serve-")))
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        if kind == "bare":
            yield Served(kind, str(bare), bare)
        elif kind == "daemon":
            yield stack.enter_context(_daemon(bare, workdir))
        elif kind == "ssh":
            yield stack.enter_context(_ssh(bare, workdir, shared_connection))
        elif kind == "http":
            yield stack.enter_context(_http(bare, workdir))
        else:
            raise ValueError(f"unknown transport {kind!r}; expected one of {', '.join(KINDS)}")


@contextmanager
def _daemon(bare: Path, workdir: Path) -> Iterator[Served]:
    log = workdir / "git-daemon.log"
    with listening(
        lambda port: daemon_args(bare.parent, port),
        "git daemon",
        log,
        lambda port: serves(f"git://127.0.0.1:{port}/{bare.name}"),
    ) as (_, port):
        yield Served("daemon", f"git://127.0.0.1:{port}/{bare.name}", bare)


def daemon_args(base: Path, port: int) -> list[str]:
    """``git daemon`` serving every repository below ``base`` on 127.0.0.1:``port``."""
    return [
        "git",
        "daemon",
        "--export-all",
        "--enable=receive-pack",
        "--reuseaddr",
        f"--base-path={base}",
        "--listen=127.0.0.1",
        f"--port={port}",
        str(base),
    ]


# --- ssh ---------------------------------------------------------------------------------


def sshd_path() -> str | None:
    """The ``sshd`` binary, which Debian keeps in /usr/sbin (often not on a user's PATH)."""
    return shutil.which("sshd") or shutil.which("sshd", path="/usr/sbin:/usr/local/sbin:/sbin")


#: The test's sshd, as a Git host's: keys only, no DNS, many sessions per connection.
#: ``SHLVL=1``: sshd runs every command through the user's shell, and bash reads
#: ``~/.bashrc`` when sshd starts it at shell level 0, even to run one command. A
#: developer's ``.bashrc`` (here ``pyenv init``: about a hundred processes) then cost
#: each fetch and push about 90 ms; a Git host's account has none. With the level set,
#: an ssh session costs about 12 ms.
SSHD_CONFIG = """\
Port {port}
ListenAddress 127.0.0.1
HostKey {host_key}
PidFile {pid}
AuthorizedKeysFile {authorized}
AllowUsers {user}
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM {pam}
UseDNS no
MaxSessions 64
LogLevel ERROR
SetEnv SHLVL=1
"""


def _keygen(path: Path) -> None:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "catan-p2p-test", "-f", str(path)],
        check=True,
        capture_output=True,
    )


@contextmanager
def shared_ssh() -> Iterator[Callable[[str], str]]:
    """``ssh`` options that make every client of one name share one connection.

    A new ssh connection costs a key exchange, an authentication and a PAM session on
    both sides: about a quarter of a CPU-second here, paid by every fetch and push of a
    bot that polls (most of the ssh tests' time). With ``ControlMaster`` the first
    client of a name authenticates and stays as the connection's master; later ones
    open a session on it (still ``sshd`` running the command as the key's user: a
    gitolite key is still that player's). Yields ``options(name)``: one master per
    name, so two players' keys never share a connection. Every master is stopped on
    exit; one left behind by a killed test quits after 30 idle seconds.
    """
    # A socket path may not exceed 107 bytes: a short folder of its own, not tmp_path.
    folder = Path(tempfile.mkdtemp(prefix="ssh-mux-"))

    def options(name: str) -> str:
        return f"-o ControlMaster=auto -o ControlPath={folder}/{name}-%C -o ControlPersist=30"

    try:
        yield options
    finally:
        for socket_path in folder.iterdir():
            subprocess.run(
                ["ssh", "-o", f"ControlPath={socket_path}", "-O", "exit", "catan-p2p-test"],
                capture_output=True,
                timeout=10,
            )
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def _ssh(bare: Path, workdir: Path, shared_connection: bool = False) -> Iterator[Served]:
    sshd = sshd_path()
    missing = [name for name, found in (("sshd", sshd), ("ssh", shutil.which("ssh"))) if not found]
    if not shutil.which("ssh-keygen"):
        missing.append("ssh-keygen")
    if missing:
        raise ServerUnavailable(
            f"{', '.join(missing)} not installed (apt-get install openssh-server openssh-client)"
        )
    assert sshd is not None
    keys = workdir / "ssh"
    keys.mkdir(exist_ok=True)
    host_key, client_key = keys / "host_ed25519", keys / "client_ed25519"
    for key in (host_key, client_key):
        if not key.exists():
            _keygen(key)
    authorized = keys / "authorized_keys"
    shutil.copyfile(client_key.with_suffix(".pub"), authorized)
    user = getpass.getuser()
    root = os.geteuid() == 0
    if root:
        # sshd running as root insists on its privilege-separation folder (made by the
        # service script, absent in containers that never started the service).
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
    config = keys / "sshd_config"

    def sshd_args(port: int) -> list[str]:
        config.write_text(
            SSHD_CONFIG.format(
                port=port,
                host_key=host_key,
                pid=keys / "sshd.pid",
                authorized=authorized,
                user=user,
                # As root, PAM's account check lets a key in although root's password is
                # locked; an unprivileged sshd cannot use PAM, and does not need it.
                pam="yes" if root else "no",
            )
        )
        return [sshd, "-D", "-e", "-f", str(config)]

    def command(port: int, shared: str = "") -> dict[str, str]:
        return {
            "GIT_SSH_COMMAND": (
                "ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "
                "-o BatchMode=yes -o IdentitiesOnly=yes -o LogLevel=ERROR "
                f"-i {client_key} -p {port} {shared}"
            ).strip()
        }

    url = f"ssh://{user}@127.0.0.1{bare}"
    probe = lambda port: serves(url, command(port))  # noqa: E731
    with ExitStack() as stack:
        port = stack.enter_context(listening(sshd_args, "sshd", keys / "sshd.log", probe))[1]
        shared = stack.enter_context(shared_ssh())("client") if shared_connection else ""
        yield Served("ssh", url, bare, command(port, shared))


# --- smart HTTP ----------------------------------------------------------------------------


class GitHTTPHandler(BaseHTTPRequestHandler):
    """Runs ``git http-backend`` as a CGI program for every request (GET and POST)."""

    root: Path  # set on the subclass made by ``make_http_server``
    protocol_version = "HTTP/1.1"
    # The headers and the body leave in two writes: with Nagle's algorithm the second
    # waited for the client's delayed acknowledgement, 40 ms of every request.
    disable_nagle_algorithm = True

    def do_GET(self) -> None:  # noqa: N802 (the name http.server dispatches to)
        self._backend()

    def do_POST(self) -> None:  # noqa: N802
        self._backend()

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()  # the CRLF after each chunk
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _backend(self) -> None:
        path, _, query = self.path.partition("?")
        body = self._body()
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": str(self.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            # Pushes are refused anonymously unless http.receivepack is set.
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "http.receivepack",
            "GIT_CONFIG_VALUE_0": "true",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": unquote(path),
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": self.client_address[0],
            "SERVER_PROTOCOL": self.request_version,
        }
        for header, var in (
            ("Content-Encoding", "HTTP_CONTENT_ENCODING"),
            ("Git-Protocol", "GIT_PROTOCOL"),
        ):
            if self.headers.get(header):
                env[var] = self.headers[header]
        out = subprocess.run(
            ["git", "http-backend"], input=body, env=env, capture_output=True
        ).stdout
        head, sep, payload = out.partition(b"\r\n\r\n")
        if not sep:
            head, sep, payload = out.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (http.server's name)
        pass  # one line per request would drown the test logs


def make_http_server(root: Path, port: int = 0) -> ThreadingHTTPServer:
    handler = type("Handler", (GitHTTPHandler,), {"root": Path(root)})
    return ThreadingHTTPServer(("127.0.0.1", port), handler)


@contextmanager
def _http(bare: Path, workdir: Path) -> Iterator[Served]:
    log = workdir / "git-http.log"
    here = str(Path(__file__).resolve())
    with listening(
        lambda port: [sys.executable, here, str(bare.parent), str(port)],
        "the git http server",
        log,
        lambda port: serves(f"http://127.0.0.1:{port}/{bare.name}"),
    ) as (_, port):
        yield Served("http", f"http://127.0.0.1:{port}/{bare.name}", bare)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="serve the Git repositories in ROOT over HTTP")
    parser.add_argument("root", type=Path)
    parser.add_argument("port", type=int)
    args = parser.parse_args(argv)
    server = make_http_server(args.root, args.port)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())


# --- gitolite: a real access-controlled Git server -------------------------------------------


GITOLITE_SHELL = "/usr/share/gitolite3/gitolite-shell"


@dataclass(frozen=True)
class Gitolite:
    """A gitolite serving ssh on 127.0.0.1: each player's key writes only what the
    configuration grants it, as a forge's permissions would."""

    home: Path
    port: int
    keys: dict[str, Path]
    #: ``shared_ssh``'s options (one connection per player's key), or none.
    shared: Callable[[str], str] | None = None

    def url(self, repo: str) -> str:
        return f"ssh://{getpass.getuser()}@127.0.0.1:{self.port}/{repo}"

    def ssh_command(self, player: str) -> str:
        shared = f" {self.shared(player)}" if self.shared is not None else ""
        return (
            "ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes "
            f"-o IdentitiesOnly=yes -o LogLevel=ERROR -i {self.keys[player]}{shared}"
        )

    def path(self, repo: str) -> Path:
        return self.home / "repositories" / f"{repo}.git"


@contextmanager
def gitolite(
    workdir: Path, players: tuple[str, ...], conf: str, shared_connection: bool = False
) -> Iterator[Gitolite]:
    """Gitolite with one key per player (and ``admin``) and the rules ``conf``, behind an
    ``sshd`` of the test's own. Raises ``ServerUnavailable`` where either is missing.
    ``shared_connection``: each key's clients share one ssh connection (``shared_ssh``)."""
    sshd = sshd_path()
    gitolite_bin = shutil.which("gitolite") or shutil.which("gitolite", path="/usr/share/gitolite3")
    if sshd is None or gitolite_bin is None or not Path(GITOLITE_SHELL).exists():
        raise ServerUnavailable("gitolite or sshd not installed (apt-get install gitolite3)")
    home = workdir / "gitolite"
    keys_dir = workdir / "gl-keys"
    for folder in (home, keys_dir):
        folder.mkdir(parents=True, exist_ok=True)
    keys = {}
    for who in ("admin", *players):
        keys[who] = keys_dir / who
        if not keys[who].exists():
            _keygen(keys[who])
    env = {**os.environ, "HOME": str(home)}
    env.pop("GIT_SSH_COMMAND", None)
    setup = subprocess.run(
        [gitolite_bin, "setup", "-pk", str(keys["admin"].with_suffix(".pub"))],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    if setup.returncode != 0:
        raise ServerUnavailable(f"gitolite setup failed: {setup.stderr.strip()[:300]}")
    keydir = home / ".gitolite" / "keydir"
    for who in players:
        shutil.copyfile(keys[who].with_suffix(".pub"), keydir / f"{who}.pub")
    (home / ".gitolite" / "conf" / "gitolite.conf").write_text(
        "repo gitolite-admin\n    RW+ = admin\n" + conf
    )
    done = subprocess.run(
        [gitolite_bin, "setup"], env=env, capture_output=True, text=True
    )  # compiles the rules, creates the repositories and writes authorized_keys
    if done.returncode != 0:
        raise ServerUnavailable(f"gitolite setup failed: {done.stderr.strip()[:300]}")
    authorized = home / ".ssh" / "authorized_keys"
    # gitolite expects a user of its own; here it runs as the test's user with its own
    # HOME, so each forced command is told where that HOME is.
    text = authorized.read_text().replace(
        f'command="{GITOLITE_SHELL} ', f'command="env HOME={home} {GITOLITE_SHELL} '
    )
    authorized.write_text(text)
    host_key = keys_dir / "host"
    if not host_key.exists():
        _keygen(host_key)
    user = getpass.getuser()
    root = os.geteuid() == 0
    if root:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
    config = keys_dir / "sshd_config"

    def sshd_args(port: int) -> list[str]:
        config.write_text(
            SSHD_CONFIG.format(
                port=port, host_key=host_key, pid=keys_dir / "sshd.pid",
                authorized=authorized, user=user, pam="yes" if root else "no",
            )
        )  # fmt: skip
        return [sshd, "-D", "-e", "-f", str(config)]

    def probe(port: int) -> bool:
        served = Gitolite(home, port, keys)
        return serves(
            served.url("gitolite-admin"), {"GIT_SSH_COMMAND": served.ssh_command("admin")}
        )

    with ExitStack() as stack:
        port = stack.enter_context(listening(sshd_args, "sshd", keys_dir / "sshd.log", probe))[1]
        shared = stack.enter_context(shared_ssh()) if shared_connection else None
        yield Gitolite(home, port, keys, shared)
