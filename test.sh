#!/usr/bin/env bash
# Run the whole test suite: creates .venv with the dev tools on first use, then lint,
# the state-schema check and pytest on one worker per core. Extra arguments go to pytest.
#   ./test.sh            everything (what .ci/run runs): 5 to 8 minutes on 2 cores
#                        (2026-11-26: 1,705 tests, pytest 3 min 43 s, about 420 s of CPU;
#                        later that day 1,710 tests in 4 min 8 s to 4 min 21 s, the same
#                        tests taking 10 % more CPU: this machine's speed drifts;
#                        2026-11-28: 1,939 tests, 12 min each with two runs at once;
#                        later that day 1,960 tests: 5 min 17 s alone, 10 min 5 s each
#                        with two fresh clones run at once; in the evening 1,971 tests:
#                        7 min 21 s alone, 12 min 14-21 s each with two at once, on a
#                        machine that ran slower all session: the network tests of the
#                        session's start and end, side by side, took 203 and 195 s)
#   ./test.sh --quick    skips tests marked slow or network (every test that starts a
#                        process; tests/conftest.py fails one that is not marked): the
#                        edit-test loop: 33-41 s on 2 quiet cores (1,400 tests)
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
# pytest-xdist workers, one per core (as `-n auto` counts them) and one more, each taking
# the next test when it is free (the slow ones first, see tests/conftest.py). About a
# sixth of the whole suite's wall time is tests waiting on their processes and servers
# (bots thinking, the WAN benchmark's slowed link, git daemon's answers); the extra
# worker runs another test meanwhile: on 2 quiet cores 238-246 s -> 223 s, at the same
# CPU. `-n 0` among the extra arguments runs in one process (for --pdb, say).
workers=$(.venv/bin/python -c 'import os; n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(); print((n or 1) + 1)')
parallel=(-n "$workers" --maxschedchunk 2)
if [ "${1:-}" = "--quick" ]; then
    shift
    exec .venv/bin/python -m pytest "${parallel[@]}" -m "not slow and not network" "$@"
fi
exec .venv/bin/python -m pytest "${parallel[@]}" "$@"
