#!/usr/bin/env bash
# Run the whole test suite: creates .venv with the dev tools on first use, then lint,
# the state-schema check and pytest. Extra arguments go to pytest.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/tools/venv.sh" "[dev]"
cd "$here"
.venv/bin/ruff check catan_p2p tests tools benchmarks
if [ -f tools/schema.py ]; then .venv/bin/python tools/schema.py --check; fi
exec .venv/bin/python -m pytest "$@"
