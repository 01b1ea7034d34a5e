#!/usr/bin/env bash
# Run the demo on a fresh machine or a used one: creates ./.venv (or $FACTURADOR_VENV), installs
# facturador-kit with every extra when the venv is new or pyproject.toml changed, and starts the service
# with a demo tenant and the dashboard (data in ./.facturador unless FACTURADOR_DATA_DIR is set, the
# service's output in its logs/service.log; the dashboard shows the first run's seeding as it goes).
# `kill PID` (SIGTERM) or Ctrl+C stops the service, its workers and the dashboard. Extra arguments go to
# `facturador demo`, e.g. scripts/demo.sh --port 8080 --no-dashboard
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${FACTURADOR_VENV:-.venv}
source scripts/_venv.sh
ensure_venv "$VENV"
export FACTURADOR_DATA_DIR=${FACTURADOR_DATA_DIR:-$PWD/.facturador}
exec "$VENV/bin/facturador" demo "$@"
