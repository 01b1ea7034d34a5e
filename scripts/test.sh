#!/usr/bin/env bash
# Run the whole test suite on a fresh machine or a used one.
#  - creates ./.venv (or $FACTURADOR_VENV) and installs the project with every extra when the venv is
#    new or pyproject.toml changed (scripts/_venv.sh);
#  - runs pytest on SQLite;
#  - runs it again on PostgreSQL when a server answers at $FACTURADOR_TEST_POSTGRES_URL
#    (default postgresql+psycopg://postgres:postgres@127.0.0.1:5432/postgres); set
#    FACTURADOR_REQUIRE_POSTGRES=1 to fail instead of skipping when none answers (CI does).
# Extra arguments go to pytest, e.g. scripts/test.sh -k numbering
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${FACTURADOR_VENV:-.venv}
source scripts/_venv.sh
ensure_venv "$VENV"

echo "== tests on SQLite"
"$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@"

PG_URL=${FACTURADOR_TEST_POSTGRES_URL:-postgresql+psycopg://postgres:postgres@127.0.0.1:5432/postgres}
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
  echo "== tests on PostgreSQL (the suites that touch the database, and the migrations)"
  PG_TESTS=("$@")
  [ ${#PG_TESTS[@]} -gt 0 ] || PG_TESTS=(tests/facturador/api tests/facturador/test_migrations.py tests/facturador/test_private_data.py tests/connector tests/plugins)
  FACTURADOR_TEST_DATABASE_URL="$PG_URL" "$VENV/bin/python" -m pytest -q -p no:cacheprovider "${PG_TESTS[@]}"
elif [ "${FACTURADOR_REQUIRE_POSTGRES:-0}" = "1" ]; then
  echo "PostgreSQL is required (FACTURADOR_REQUIRE_POSTGRES=1) but does not answer" >&2
  exit 1
else
  echo "== PostgreSQL not available: skipped the PostgreSQL run"
fi
