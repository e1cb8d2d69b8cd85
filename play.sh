#!/usr/bin/env bash
# Play catan_p2p: creates .venv and installs the game on first use, then runs `catan-p2p play`.
# Any arguments are passed on, e.g. ./play.sh --humans 2 --bots 1
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/tools/venv.sh" ""
exec "$here/.venv/bin/catan-p2p" play "$@"
