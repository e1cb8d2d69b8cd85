#!/usr/bin/env bash
# Run the whole test suite: creates .venv with the dev tools on first use, then lint,
# the state-schema check and pytest on one worker per core. Extra arguments go to pytest.
#   ./test.sh            everything (what .ci/run runs): about 5 minutes on 2 quiet cores
#                        (2026-11-25: 1,705 tests, pytest 4 min 26 s; a fresh clone's
#                        bash .ci/run 5 min 10 s with the venv); about 440 s of CPU
#   ./test.sh --quick    skips tests marked slow or network (every test that starts a
#                        process; tests/conftest.py fails one that is not marked): the
#                        edit-test loop: 46 s on 2 cores at a load of 1-2 (1,397 tests)
# On a shared machine compare CPU times, not wall times: --cpu-report PATH writes each
# test's (its own and its children's) as JSON lines.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/tools/venv.sh" "[dev]"
cd "$here"
# Keep bytecode, pytest's rewritten test modules included: where PYTHONDONTWRITEBYTECODE
# is set (many CI images set it), every worker would rewrite every test module on every
# run (collecting took 4.3 s of CPU per worker instead of 1.7 s).
unset PYTHONDONTWRITEBYTECODE
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
