#!/usr/bin/env bash
# Play catan_p2p: creates .venv and installs the game on first use, then opens the lobby
# (`catan-p2p lobby`: start, open, join or watch games), or runs `catan-p2p play` with the arguments.
# Any arguments are passed on, e.g. ./play.sh --humans 2 --bots 1
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/tools/venv.sh" ""
if [ "$#" -eq 0 ]; then
  exec "$here/.venv/bin/catan-p2p" lobby   # the games here and on a remote, in a window
fi
exec "$here/.venv/bin/catan-p2p" play "$@"
