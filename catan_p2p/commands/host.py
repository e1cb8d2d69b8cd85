"""``catan-p2p host init PATH``: a bare repository that guards every game pushed to it.

The repository gets the ``pre-receive`` hook of ``catan_p2p/net/hook.py``, run by
this installation's Python, so a forged, rigged or equivocating push is refused before
any peer fetches it. Share its URL (a path, ``ssh://``, ``git daemon``, smart HTTP).
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from pathlib import Path

from catan_p2p.commands._common import print_json
from catan_p2p.commands._options import add_json
from catan_p2p.errors import UsageError
from catan_p2p.store.repo import init_repo

HOOK = """#!/bin/sh
# catan_p2p guard: refuses forged, rigged or equivocating pushes (catan-p2p host init).
exec {python} -m catan_p2p.net.hook
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=("init",), help="init: create the guarded repository")
    p.add_argument("path", metavar="PATH", help="where to create the bare repository")
    add_json(p)


def install_hook(git_dir: Path) -> Path:
    hook = Path(git_dir) / "hooks" / "pre-receive"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(HOOK.format(python=shlex.quote(sys.executable)))
    hook.chmod(0o755)
    return hook


def run(args: argparse.Namespace) -> int:
    path = Path(args.path)
    if path.exists() and any(path.iterdir()):
        raise UsageError(f"{path} exists and is not empty; choose a new folder for the remote")
    created = not path.exists()
    try:
        git_dir = init_repo(path, bare=True)
        install_hook(git_dir)
    except OSError as exc:
        if created:
            shutil.rmtree(path, ignore_errors=True)
        raise UsageError(f"cannot create {path} ({exc.strerror}); choose another PATH") from None
    if args.json:
        print_json({"remote": str(path.resolve()), "hook": str(git_dir / "hooks" / "pre-receive")})
        return 0
    print(f"Created the guarded remote {path.resolve()}. Start a game on it with:")
    print(f"  catan-p2p new --players red,blue --remote {path.resolve()} --repo ~/catan-red")
    return 0
