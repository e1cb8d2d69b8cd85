#!/usr/bin/env bash
# Run the whole test suite: creates .venv with the dev tools on first use, then lint,
# the state-schema check and pytest on one worker per core. Extra arguments go to pytest.
#   ./test.sh            everything (what .ci/run runs), about 7 minutes on 2 cores
#                        (measured 6 min 53 s, 1,429 tests, in a fresh clone's .ci/run on
#                        2026-11-25 at a load of 2-4; several times that on a busy machine)
#   ./test.sh --quick    skips tests marked slow or network (real processes, whole
#                        games on disk): the edit-test loop (measured 2 min 30 s)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/tools/venv.sh" "[dev]"
cd "$here"
.venv/bin/ruff check catan_p2p tests tools benchmarks
if [ -f tools/schema.py ]; then .venv/bin/python tools/schema.py --check; fi
# One pytest-xdist worker per core, each taking the next test when it is free (the slow
# ones first, see tests/conftest.py). `-n 0` among the extra arguments runs in one
# process (for --pdb, say).
parallel=(-n auto --maxschedchunk 2)
if [ "${1:-}" = "--quick" ]; then
    shift
    exec .venv/bin/python -m pytest "${parallel[@]}" -m "not slow and not network" "$@"
fi
exec .venv/bin/python -m pytest "${parallel[@]}" "$@"
