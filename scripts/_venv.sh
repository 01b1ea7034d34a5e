# Sourced by demo.sh and test.sh (from the repository root): `ensure_venv DIR` makes DIR a virtual
# environment holding this checkout installed with every extra, and runs pip only when needed.
#
# What the install depends on - pyproject.toml, the install spec, the venv's interpreter and this
# checkout's path (the editable install points at it) - is hashed into a stamp inside the venv, written
# after a successful install. When the stamp matches, pip is skipped; source edits need no reinstall
# (the install is editable). FACTURADOR_REINSTALL=1 forces one.

INSTALL_SPEC='.[all]'

install_fingerprint() {
  "$1/bin/python" - "$INSTALL_SPEC" <<'PY'
import hashlib
import os
import sys

digest = hashlib.sha256()
with open("pyproject.toml", "rb") as project:
    digest.update(project.read())
for part in (sys.argv[1], sys.version, os.path.realpath(sys.executable), os.getcwd()):
    digest.update(b"\0" + part.encode())
print(digest.hexdigest())
PY
}

ensure_venv() {
  local venv=$1 stamp="$1/.facturador-kit-install" fingerprint
  if [ ! -x "$venv/bin/python" ]; then
    echo "== creating $venv"
    python3 -m venv "$venv"
  fi
  fingerprint=$(install_fingerprint "$venv")
  if [ "${FACTURADOR_REINSTALL:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$fingerprint" ]; then
    echo "== $venv is up to date with pyproject.toml (FACTURADOR_REINSTALL=1 reinstalls)"
    return
  fi
  echo "== installing facturador-kit[all] into $venv"
  rm -f "$stamp"
  "$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
  "$venv/bin/python" -m pip install -q -e "$INSTALL_SPEC"
  echo "$fingerprint" >"$stamp"
}
