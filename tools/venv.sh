# Sourced by play.sh and test.sh: make sure .venv exists and holds the package with the
# given extras ("" or "[dev]"), reinstalling only when pyproject.toml changed.
extras="${1:-}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.installed$extras"
if [ ! -x "$venv/bin/python" ]; then
  echo "Creating the virtual environment in $venv (first run only)..." >&2
  python3 -m venv "$venv"
fi
want="$(sha256sum "$root/pyproject.toml" | cut -d' ' -f1)"
# An install with the dev extras also serves the plain one.
if [ -z "$extras" ] && [ -f "$venv/.installed[dev]" ] && [ "$(cat "$venv/.installed[dev]")" = "$want" ]; then
  stamp="$venv/.installed[dev]"
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "Installing catan_p2p$extras and its dependencies (first run only)..." >&2
  "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
  "$venv/bin/python" -m pip install --quiet -e "$root$extras" >&2
  echo "$want" > "$stamp"
fi
# Bytecode for the package, its benchmarks, tools and tests. A fresh clone has none, and
# where PYTHONDONTWRITEBYTECODE is set (many CI images set it) no process writes any, so
# every process a game or the tests start (a bot, a remote's hook, a CLI command) would
# compile the package again: about 0.5 s of CPU each. compileall writes only what is
# missing or out of date (0.4 s the first time, 0.03 s after); a folder it cannot write
# only costs that time back.
"$venv/bin/python" -m compileall -qq "$root/catan_p2p" "$root/benchmarks" "$root/tools" "$root/tests" >&2 || true
