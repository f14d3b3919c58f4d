# Sourced by scripts/demo and scripts/test (not run by itself): the set-up both
# need, one line per phase, with pip's and npm's own output kept in
# $VENV/install.log and pointed to (with its last lines) when a phase fails.
#
#   venv_install EXTRAS   # "" or "[test]": make $VENV if missing, then install
#                         # the project into it unless this pyproject.toml was
#                         # installed there already with these extras (a stamp
#                         # file, $VENV/.installed[EXTRAS], holds its hash)
#   phase TEXT CMD...     # print TEXT, run CMD with its output in the log
#
# PYTHON (default python3) makes the virtualenv; VENV (default .venv) is its folder.

PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
LOG="$VENV/install.log"

phase() {  # phase TEXT CMD...: one line; "done in N s" or the log's tail and exit 1
  local text=$1 started=$SECONDS
  shift
  echo "== $(date '+%F %T') $text" >>"$LOG"
  printf '%s ... ' "$text"
  if "$@" >>"$LOG" 2>&1; then
    echo "done ($((SECONDS - started)) s)"
  else
    echo "failed"
    echo "Its output is in $LOG; the last lines:" >&2
    tail -n 15 "$LOG" | sed 's/^/  /' >&2
    exit 1
  fi
}

venv_make() {  # a virtualenv with a current pip (an old one may not build this pyproject.toml)
  "$PYTHON" -m venv "$VENV" && "$VENV/bin/python" -m pip install --disable-pip-version-check --upgrade pip
}

venv_install() {
  local extras=$1 want
  if [ ! -x "$VENV/bin/python" ]; then
    if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "Stalwart needs Python 3.11 or newer, and $PYTHON is not: set PYTHON=/path/to/python3.11 (or newer)." >&2
      exit 1
    fi
    mkdir -p "$VENV"
    phase "Creating the environment in $VENV with $("$PYTHON" --version 2>&1)" venv_make
  fi
  # pip resolves everything again on every run (seconds even when nothing
  # changed): skip it while this pyproject.toml is the one installed, with
  # these extras (the test extra holds everything the demo needs too).
  want=$("$VENV/bin/python" -c 'import hashlib; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')
  for installed in "$extras" "[test]"; do
    if [ "$(cat "$VENV/.installed$installed" 2>/dev/null)" = "$want" ]; then
      echo "Using $VENV (Stalwart$installed, installed from this pyproject.toml)"
      return 0
    fi
  done
  rm -f "$VENV/.installed$extras"
  phase "Installing Stalwart$extras and its dependencies into $VENV (the first time takes about ${FIRST_INSTALL:-2 minutes}; pip's output: $LOG)" \
    "$VENV/bin/python" -m pip install --disable-pip-version-check -e ".$extras"
  echo "$want" >"$VENV/.installed$extras"
}
