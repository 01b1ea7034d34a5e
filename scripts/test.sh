#!/usr/bin/env bash
# Run the whole test suite on a fresh machine or a used one.
#  - creates ./.venv (or $FACTURADOR_VENV) and installs the project with every extra when the venv is
#    new or pyproject.toml changed (scripts/_venv.sh);
#  - runs pytest on SQLite;
#  - runs it again on PostgreSQL when a server answers at $FACTURADOR_TEST_POSTGRES_URL
#    (default postgresql+psycopg://postgres:postgres@127.0.0.1:5432/postgres); set
#    FACTURADOR_REQUIRE_POSTGRES=1 to fail instead of skipping when none answers (CI does).
#    The PostgreSQL run goes on beside the SQLite run (its output follows the SQLite run's); set
#    FACTURADOR_TEST_ONE_AT_A_TIME=1 to run them one after the other.
#  - spreads each run over pytest-xdist workers, a test file per worker at a time (most tests wait on
#    loopback servers, a browser or child processes, not on the CPU): $FACTURADOR_TEST_WORKERS for the
#    SQLite run (default: cores + 1) and $FACTURADOR_TEST_PG_WORKERS for the PostgreSQL run (default:
#    cores); 0 runs that suite in this process, serially. Files go out longest first (tests/conftest.py
#    orders them by their slow(seconds=...) marks, then by their number of tests).
#  - then runs the date-sensitive files again at each fixed clock of tests/clocks.py (the first day of a
#    month, the last one at 23:30 Lima, New Year; FACTURADOR_CLOCK), with the whole suite only (no
#    pytest arguments); FACTURADOR_TEST_CLOCKS=0 leaves that out.
#  - with FACTURADOR_TEST_LOAD=N, last runs the tests marked timing_sensitive once more beside N busy
#    processes (a loaded machine; on PostgreSQL when it answers), stopped afterwards.
#  - HOME and the XDG folders point at a temporary folder for the whole run (tests/conftest.py), and a run
#    that leaves a new file in the clone fails (tests/conftest.py compares `git status --ignored`).
# --fast (or FACTURADOR_FAST=1) leaves out the tests marked slow (-m "not slow": restarts of child
# servers, the schemathesis contract, the live store, whole-browser flows); CI runs everything.
# Other arguments go to pytest, e.g. scripts/test.sh -k numbering, scripts/test.sh --fast tests/sunat
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${FACTURADOR_VENV:-.venv}
source scripts/_venv.sh
ensure_venv "$VENV"
# sunat-py, a third-party SOAP client the tests point at the simulated SUNAT, pins cryptography<45,
# lxml<6 and signxml<5 and runs on the newer ones: it goes into the test venv alone, without those pins
# (not into the demo's; its test skips with the reason when it is missing).
if ! "$VENV/bin/python" -c "import sunat_py" 2>/dev/null; then
  "$VENV/bin/python" -m pip install -q --no-deps sunat-py==0.5.0 || echo "== sunat-py not installed: its client test skips"
fi

# Bytecode goes to the venv, not the tree, even where PYTHONDONTWRITEBYTECODE is set: without it every
# xdist worker and every child `facturador serve` compiles the project again, and pytest rewrites the
# asserts of all ~190 test modules in each worker (half of a collection's time).
case $VENV in /*) VENV_DIR=$VENV ;; *) VENV_DIR=$PWD/$VENV ;; esac
export PYTHONPYCACHEPREFIX=${PYTHONPYCACHEPREFIX:-$VENV_DIR/pycache}
unset PYTHONDONTWRITEBYTECODE

FAST=${FACTURADOR_FAST:-0}
ARGS=()
for arg in "$@"; do
  if [ "$arg" = "--fast" ]; then FAST=1; else ARGS+=("$arg"); fi
done
PYTEST=("$VENV/bin/python" -m pytest -q -p no:cacheprovider)
if [ "$FAST" = "1" ]; then
  PYTEST+=(-m "not slow")
  echo "== fast path: leaving out the tests marked slow"
fi
CORES=$(nproc 2>/dev/null || echo 2)
workers() {  # pytest-xdist options for $1 workers (none for 0)
  if [ "$1" != "0" ]; then echo "-n $1 --dist loadfile --no-loadscope-reorder"; fi
}
# shellcheck disable=SC2207
SQLITE_XDIST=($(workers "${FACTURADOR_TEST_WORKERS:-$((CORES + 1))}"))
# shellcheck disable=SC2207
PG_XDIST=($(workers "${FACTURADOR_TEST_PG_WORKERS:-$CORES}"))

PG_URL=${FACTURADOR_TEST_POSTGRES_URL:-postgresql+psycopg://postgres:postgres@127.0.0.1:5432/postgres}
PG_RUN=0
if "$VENV/bin/python" - "$PG_URL" <<'PY'
import sys
from sqlalchemy import create_engine, text
try:
    with create_engine(sys.argv[1]).connect() as c:
        c.execute(text("select 1"))
except Exception as exc:
    print(f"PostgreSQL does not answer at {sys.argv[1]}: {exc}", file=sys.stderr)
    sys.exit(1)
PY
then
  PG_RUN=1
elif [ "${FACTURADOR_REQUIRE_POSTGRES:-0}" = "1" ]; then
  echo "PostgreSQL is required (FACTURADOR_REQUIRE_POSTGRES=1) but does not answer" >&2
  exit 1
fi
PG_TESTS=(${ARGS[@]+"${ARGS[@]}"})
[ ${#PG_TESTS[@]} -gt 0 ] || PG_TESTS=(tests/facturador/api tests/facturador/test_migrations.py tests/facturador/test_private_data.py tests/facturador/test_shared_certificate.py tests/facturador/test_logs.py tests/connector tests/plugins tests/analysis/test_sire_close.py tests/facturador/test_validity_schedule.py)

pg_run() {
  FACTURADOR_TEST_DATABASE_URL="$PG_URL" "${PYTEST[@]}" ${PG_XDIST[@]+"${PG_XDIST[@]}"} "${PG_TESTS[@]}"
}

PG_PID=
PG_LOG=
if [ "$PG_RUN" = "1" ] && [ "${FACTURADOR_TEST_ONE_AT_A_TIME:-0}" != "1" ]; then
  PG_LOG=$(mktemp "${TMPDIR:-/tmp}/facturador-tests-postgresql.XXXXXX")
  echo "== tests on PostgreSQL started beside the SQLite run (the suites that touch the database, and the migrations); output after the SQLite run's"
  pg_run >"$PG_LOG" 2>&1 &
  PG_PID=$!
  trap '[ -n "$PG_PID" ] && kill "$PG_PID" 2>/dev/null; rm -f "$PG_LOG"' EXIT
fi

STARTED=$SECONDS
echo "== tests on SQLite"
SQLITE_STATUS=0
"${PYTEST[@]}" ${SQLITE_XDIST[@]+"${SQLITE_XDIST[@]}"} ${ARGS[@]+"${ARGS[@]}"} || SQLITE_STATUS=$?
echo "== SQLite run: exit $SQLITE_STATUS after $((SECONDS - STARTED)) s"

CLOCKS_STATUS=0
if [ ${#ARGS[@]} -eq 0 ] && [ "${FACTURADOR_TEST_CLOCKS:-1}" = "1" ]; then
  CLOCKS=()
  DATED=()
  while read -r kind first second; do
    if [ "$kind" = "clock" ]; then CLOCKS+=("$first=$second"); else DATED+=("$first"); fi
  done < <(PYTHONPATH=$PWD "$VENV/bin/python" -m tests.clocks)
  for clock in "${CLOCKS[@]}"; do
    echo "== date-sensitive tests at ${clock%%=*} (FACTURADOR_CLOCK=${clock#*=})"
    FACTURADOR_CLOCK="${clock#*=}" "${PYTEST[@]}" ${SQLITE_XDIST[@]+"${SQLITE_XDIST[@]}"} "${DATED[@]}" \
      || CLOCKS_STATUS=$?
  done
  echo "== date-sensitive tests at the fixed clocks: exit $CLOCKS_STATUS after $((SECONDS - STARTED)) s"
fi

PG_STATUS=0
if [ -n "$PG_PID" ]; then
  wait "$PG_PID" || PG_STATUS=$?
  PG_PID=
  echo "== tests on PostgreSQL (the suites that touch the database, and the migrations)"
  cat "$PG_LOG"
  echo "== PostgreSQL run: exit $PG_STATUS, $((SECONDS - STARTED)) s after the SQLite run started"
elif [ "$PG_RUN" = "1" ]; then
  echo "== tests on PostgreSQL (the suites that touch the database, and the migrations)"
  pg_run || PG_STATUS=$?
else
  echo "== PostgreSQL not available: skipped the PostgreSQL run"
fi
LOAD_STATUS=0
if [ "${FACTURADOR_TEST_LOAD:-0}" != "0" ]; then
  BUSY=()
  for _ in $(seq 1 "$FACTURADOR_TEST_LOAD"); do
    "$VENV/bin/python" -c "while True: pass" &
    BUSY+=($!)
  done
  trap 'kill "${BUSY[@]}" 2>/dev/null || true; rm -f "$PG_LOG"' EXIT
  LOAD_DB=()
  [ "$PG_RUN" = "1" ] && LOAD_DB=(env FACTURADOR_TEST_DATABASE_URL="$PG_URL")
  echo "== timing-sensitive tests beside $FACTURADOR_TEST_LOAD busy processes"
  ${LOAD_DB[@]+"${LOAD_DB[@]}"} "${PYTEST[@]}" -m timing_sensitive tests || LOAD_STATUS=$?
  kill "${BUSY[@]}" 2>/dev/null || true
  echo "== timing-sensitive tests under load: exit $LOAD_STATUS"
fi

[ "$SQLITE_STATUS" = "0" ] || exit "$SQLITE_STATUS"
[ "$CLOCKS_STATUS" = "0" ] || exit "$CLOCKS_STATUS"
[ "$LOAD_STATUS" = "0" ] || exit "$LOAD_STATUS"
exit "$PG_STATUS"
