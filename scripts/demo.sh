#!/usr/bin/env bash
# Run the demo on a fresh machine or a used one: creates ./.venv, installs facturador-kit with every
# extra, and starts the service with a demo tenant (data in ./.facturador unless FACTURADOR_DATA_DIR is set).
# Extra arguments go to `facturador demo`, e.g. scripts/demo.sh --port 8080
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${FACTURADOR_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
  echo "== creating $VENV"
  python3 -m venv "$VENV"
fi
echo "== installing facturador-kit[all] into $VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
"$VENV/bin/python" -m pip install -q -e '.[all]'
export FACTURADOR_DATA_DIR=${FACTURADOR_DATA_DIR:-$PWD/.facturador}
exec "$VENV/bin/facturador" demo "$@"
