# Shared set-up for scripts/run-board and scripts/run-tests (sourced, not run).
# Why: the README promises that on a fresh machine one command runs the board and one runs the
# tests, each doing its own set-up. This file makes that set-up idempotent and quick the second time.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${KIPUKAS_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"

# install_apt FILE: install the Debian packages listed in FILE (one per line, # comments) that are
# missing. Needs root or sudo; without either it names what is missing and returns 1 (so callers
# know the tools may be absent); 0 once every listed package is installed.
install_apt() {
  local list="$1" missing=() pkg
  while read -r pkg; do
    pkg="${pkg%%#*}"; pkg="${pkg// /}"
    [ -n "$pkg" ] || continue
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done < "$list"
  [ ${#missing[@]} -gt 0 ] || return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "kipukas-board: missing Debian packages (${missing[*]}); install them as root: apt-get install ${missing[*]}" >&2
      return 1
    fi
  fi
  echo "kipukas-board: installing Debian packages: ${missing[*]}"
  # exit, not return: a failed install must stop the caller even inside `if install_apt ...`
  # (where bash ignores set -e), or the tests would run without their tools.
  $sudo apt-get update -qq || exit 1
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" || exit 1
}

# ensure_venv EXTRAS: create .venv and install the project (editable) with the given extras. A stamp
# per extras holding the hash of pyproject.toml and setup.py skips pip when nothing changed; an install with the
# "test" extra (which includes "vision") also satisfies the others, so run-board after run-tests installs nothing.
ensure_venv() {
  local extras="$1" hash
  [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
  hash="$(cat "$ROOT/pyproject.toml" "$ROOT/setup.py" | sha256sum | cut -c1-64)"
  local stamp="$VENV/.kipukas-stamp-${extras:-base}"
  if [ "$extras" != test ] && [ "$(cat "$VENV/.kipukas-stamp-test" 2>/dev/null)" = "$hash" ]; then return 0; fi
  [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ] && return 0
  "$VENV/bin/python" -m pip install -q --upgrade pip
  if [ -n "$extras" ]; then
    "$VENV/bin/python" -m pip install -q -e "$ROOT[$extras]"
  else
    "$VENV/bin/python" -m pip install -q -e "$ROOT"
  fi
  echo "$hash" > "$stamp"
}
