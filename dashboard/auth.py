"""Who may open the dashboard: it holds the tenants' tokens, so it listens on 127.0.0.1 unless a login
protects it.

Two logins, either is enough to listen elsewhere:

* **Streamlit's own login (OIDC)**: an ``[auth]`` section in ``.streamlit/secrets.toml`` (Google,
  Microsoft, any OpenID Connect provider); the app then asks ``st.login()`` and shows who is in.
* **A password** kept *hashed* in the tenants file::

      [dashboard]
      password_hash = "pbkdf2_sha256$600000$<salt>$<hash>"

  written by ``facturador dashboard-password`` (never the password itself).

:func:`gate` runs first on every page: on a loopback address without any login configured it lets
everything through; on any other address it demands a login, and refuses to show anything when none is
configured.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import secrets
import tomllib
from pathlib import Path
from typing import Any

__all__ = [
    "PASSWORD_KEY",
    "gate",
    "hash_password",
    "is_loopback",
    "oidc_configured",
    "password_hash",
    "verify_password",
]

ALGORITHM = "pbkdf2_sha256"
ITERATIONS = 600_000
#: Session key set once the password was accepted.
PASSWORD_KEY = "_dashboard_password_ok"


def hash_password(password: str, *, iterations: int = ITERATIONS, salt: bytes | None = None) -> str:
    """``pbkdf2_sha256$<iterations>$<salt>$<hash>`` (base64) of ``password``, for the tenants file."""
    if not password:
        raise ValueError("the password is empty")
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iterations)
    encode = base64.b64encode
    return f"{ALGORITHM}${iterations}${encode(salt).decode()}${encode(digest).decode()}"


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` matches the hash ``stored`` (constant time; a malformed hash never matches)."""
    try:
        algorithm, iterations, salt, digest = stored.split("$")
        if algorithm != ALGORITHM:
            return False
        expected = base64.b64decode(digest)
        actual = hashlib.pbkdf2_hmac(
            "sha256", password.encode("utf-8"), base64.b64decode(salt), int(iterations)
        )
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(actual, expected)


def password_hash(tenants_file: str | Path) -> str | None:
    """The ``[dashboard] password_hash`` of the tenants file, or ``None``."""
    path = Path(tenants_file)
    if not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError):
        return None
    section = data.get("dashboard")
    value = section.get("password_hash") if isinstance(section, dict) else None
    return value if isinstance(value, str) and value.startswith(f"{ALGORITHM}$") else None


def oidc_configured(secrets_file: str | Path | None = None) -> bool:
    """Whether Streamlit's login is configured: an ``[auth]`` section with a ``redirect_uri`` and a
    ``cookie_secret`` in ``.streamlit/secrets.toml`` (of ``secrets_file``, or the working directory's and
    the user's)."""
    candidates = (
        [Path(secrets_file)]
        if secrets_file
        else [Path.cwd() / ".streamlit" / "secrets.toml", Path.home() / ".streamlit" / "secrets.toml"]
    )
    for path in candidates:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError):
            continue
        auth = data.get("auth")
        if isinstance(auth, dict) and auth.get("redirect_uri") and auth.get("cookie_secret"):
            return True
    return False


def is_loopback(address: str | None) -> bool:
    """127.0.0.0/8, ::1 or ``localhost``; an empty address (Streamlit's default: every interface) is not."""
    if not address:
        return False
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def gate(st: Any, tenants_file: Path) -> bool:
    """Decide, at the top of every run, whether this session may see the dashboard; draw the login when
    it may not yet (and return False: the caller stops). ``st`` is the streamlit module."""
    address = st.get_option("server.address")
    stored = password_hash(tenants_file)
    oidc = oidc_configured()
    if oidc:
        if getattr(st.user, "is_logged_in", False):
            with st.sidebar:
                st.caption(f"Sesión: {st.user.get('email') or st.user.get('name') or 'usuario'}")
                st.button("Cerrar sesión", on_click=st.logout, icon=":material/logout:")
            return True
        st.title("Facturador · Analistas", anchor=False)
        st.button("Iniciar sesión", on_click=st.login, type="primary", icon=":material/login:")
        return False
    if stored:
        if st.session_state.get(PASSWORD_KEY):
            return True
        st.title("Facturador · Analistas", anchor=False)
        with st.form("login"):
            password = st.text_input("Contraseña del panel", type="password", key="login_password")
            sent = st.form_submit_button("Entrar", type="primary", icon=":material/login:")
        if sent:
            if verify_password(password, stored):
                st.session_state[PASSWORD_KEY] = True
                st.rerun()
            st.error("Contraseña incorrecta.")
        return False
    if is_loopback(address):
        return True
    where = address or "todas las interfaces"
    st.error(
        f"El panel escucha en **{where}** y no tiene inicio de sesión: guarda los tokens de las empresas, "
        "así que no se muestra. Arráncalo en 127.0.0.1 (`facturador dashboard`) o configura una contraseña "
        "(`facturador dashboard-password`) o el inicio de sesión de Streamlit (`[auth]` en "
        "`.streamlit/secrets.toml`).",
        icon=":material/lock:",
    )
    return False
