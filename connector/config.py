"""Tenants file: which companies a user works with, and how to reach them.

The file is TOML, at ``$FACTURADOR_TENANTS`` or ``<user config dir>/facturador/tenants.toml``
(``~/.config/facturador/tenants.toml`` on Linux), else the demo's (:func:`tenants_candidates` lists where
it is looked for)::

    [tenants.acme]
    name = "ACME S.A.C."
    base_url = "https://acme.facturador.pe"
    token_env = "ACME_TOKEN"        # the token is read from this environment variable ...

    [tenants.demo]
    name = "Demo"
    base_url = "http://127.0.0.1:8000/t/demo"
    token = "demo-token-..."         # ... or written here (keep the file private)
    timeout = 60                     # optional: seconds per request
    cache = true                     # optional: cache its reads (unset: the program decides)
    plugins = ["acme_plugins.spot"]  # optional: import paths of this tenant's plugins
    plugins_dir = "plugins/demo"     # optional: folder of plugin files (relative to this file)
    load_entrypoints = false         # optional: also load installed plugins
    ruc = "20100066603"              # optional: the company's RUC (its SUNAT due dates; else read from
                                     # its documents)
    good_taxpayer = false            # optional: a «buen contribuyente» (SUNAT's later due dates)

Tokens are never printed: :class:`TenantConfig`'s ``repr`` and ``str`` hide them, and a token kept in an
environment variable is read only when :attr:`TenantConfig.token` is used.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from connector.client import Client

__all__ = [
    "TENANTS_ENV",
    "TenantConfig",
    "TenantConfigError",
    "demo_tenants_path",
    "load_tenants",
    "tenants_candidates",
    "tenants_path",
]

#: Environment variable with the path of the tenants file.
TENANTS_ENV = "FACTURADOR_TENANTS"

_KEYS = frozenset(
    {
        "store",
        "name",
        "base_url",
        "token",
        "token_env",
        "timeout",
        "rate_window",
        "cache",
        "plugins",
        "plugins_dir",
        "load_entrypoints",
        "ruc",
        "good_taxpayer",
    }
)


class TenantConfigError(ValueError):
    """The tenants file is missing or wrong, or a tenant's token cannot be found."""


#: Environment variable of the service's data directory, where ``facturador demo`` writes its tenants file.
DATA_DIR_ENV = "FACTURADOR_DATA_DIR"
#: The data directory ``bash scripts/demo.sh`` gives the demo: ``.facturador`` in the repository's root.
DEMO_FOLDER = ".facturador"
#: The source checkout this package runs from (an editable install), or ``None`` (an installed wheel).
_CHECKOUT: Path | None = Path(__file__).resolve().parents[1]


def demo_tenants_path() -> Path:
    """The tenants file ``facturador demo`` writes: ``tenants.toml`` in the service's data directory
    (``$FACTURADOR_DATA_DIR`` or ``<user data dir>/facturador``)."""
    import platformdirs

    env = os.environ.get(DATA_DIR_ENV)
    folder = Path(env).expanduser() if env else Path(platformdirs.user_data_dir("facturador"))
    return folder / "tenants.toml"


def tenants_candidates(start: Path | None = None) -> list[Path]:
    """Where a tenants file is looked for, in order (:func:`tenants_path` takes the first that exists):

    1. ``$FACTURADOR_TENANTS`` alone, when it is set;
    2. the user's own file, ``<user config dir>/facturador/tenants.toml``;
    3. the demo's file in ``$FACTURADOR_DATA_DIR``, when it is set;
    4. ``.facturador/tenants.toml`` in ``start`` (the current folder) or a folder above it: where
       ``bash scripts/demo.sh`` writes it, found from the repository and from its ``notebooks/``;
    5. the same in the source checkout the package runs from;
    6. the demo's file in the user data folder (``facturador demo`` without a data directory).
    """
    env = os.environ.get(TENANTS_ENV)
    if env:
        return [Path(env).expanduser()]
    import platformdirs

    found = [Path(platformdirs.user_config_dir("facturador")) / "tenants.toml"]
    if os.environ.get(DATA_DIR_ENV):
        found.append(demo_tenants_path())
    here = (start or Path.cwd()).resolve()
    found += [folder / DEMO_FOLDER / "tenants.toml" for folder in (here, *here.parents)]
    if _CHECKOUT is not None and (_CHECKOUT / "pyproject.toml").is_file():
        found.append(_CHECKOUT / DEMO_FOLDER / "tenants.toml")
    found.append(Path(platformdirs.user_data_dir("facturador")) / "tenants.toml")
    return list(dict.fromkeys(found))  # each place once, in order


def tenants_path(start: Path | None = None) -> Path:
    """The tenants file: the first of :func:`tenants_candidates` that exists, else the user's config path
    (where to create one); ``$FACTURADOR_TENANTS`` whenever it is set."""
    candidates = tenants_candidates(start)
    return next((path for path in candidates if path.is_file()), candidates[0])


class TenantConfig:
    """One tenant of the tenants file. :meth:`client` builds its :class:`~connector.Client`.

    :param slug: the key under ``[tenants]`` (``acme``).
    :param base_url: the tenant's base URL.
    :param token: the token itself, or ``None`` when ``token_env`` names the variable holding it.
    """

    __slots__ = (
        "_token",
        "base_url",
        "cache",
        "good_taxpayer",
        "load_entrypoints",
        "name",
        "plugins",
        "plugins_dir",
        "rate_window",
        "ruc",
        "slug",
        "store",
        "timeout",
        "token_env",
    )

    def __init__(
        self,
        slug: str,
        base_url: str,
        *,
        token: str | None = None,
        token_env: str | None = None,
        name: str | None = None,
        timeout: float | None = None,
        cache: bool | None = None,
        plugins: tuple[str, ...] = (),
        plugins_dir: Path | None = None,
        load_entrypoints: bool = False,
        store: bool | None = None,
        rate_window: float | None = None,
        ruc: str | None = None,
        good_taxpayer: bool = False,
    ) -> None:
        if (token is None) == (token_env is None):
            raise TenantConfigError(f"tenant {slug!r}: give exactly one of 'token' or 'token_env'")
        self.slug = slug
        self.base_url = base_url
        self._token = token
        self.token_env = token_env
        self.name = name or slug
        self.timeout = timeout
        self.cache = cache
        self.plugins = tuple(plugins)
        self.plugins_dir = plugins_dir
        self.load_entrypoints = load_entrypoints
        self.store = store
        #: Seconds of the tenant's rate-limit window (``None``: the client's 60, real tenants' minute).
        self.rate_window = rate_window
        #: The company's RUC when the file gives it (``None``: read from its documents).
        self.ruc = ruc
        #: Whether SUNAT counts it among the «buenos contribuyentes» (their column of the cronograma).
        self.good_taxpayer = good_taxpayer

    def uses_store(self, *, default_cache: bool = False) -> bool:
        """Whether the dashboard reads this tenant's documents from a local store
        (:mod:`connector.store`): the file's ``store = ...``, else wherever reads are cached."""
        if self.store is not None:
            return self.store
        return default_cache if self.cache is None else self.cache

    @property
    def token(self) -> str:
        """The token (read from ``token_env`` at each access when configured that way)."""
        if self._token is not None:
            return self._token
        assert self.token_env is not None
        value = os.environ.get(self.token_env, "").strip()
        if not value:
            raise TenantConfigError(
                f"tenant {self.slug!r}: the environment variable {self.token_env} (token_env) is not set"
            )
        return value

    @property
    def has_token(self) -> bool:
        """True when the token is available (written in the file or its variable is set)."""
        return self._token is not None or bool(os.environ.get(self.token_env or "", "").strip())

    def client(self, *, default_cache: bool = False, **overrides: Any) -> Client:
        """A :class:`~connector.Client` for this tenant; keyword arguments override the file
        (``cache=``, ``timeout=``, extra ``plugins=`` are added to the file's).

        :param default_cache: whether to cache reads when the file does not say (``cache = ...``): the
            dashboard and the notebook do, as they read the same lists again on every rerun; a plain
            client does not (:class:`~connector.Client`'s own default)."""
        kwargs: dict[str, Any] = {
            "name": self.name,
            "cache": default_cache if self.cache is None else self.cache,
            "load_entrypoints": self.load_entrypoints,
            "plugins_dir": self.plugins_dir,
        }
        if self.timeout is not None:
            kwargs["timeout"] = self.timeout
        if self.rate_window is not None:
            kwargs["rate_window"] = self.rate_window
        extra_plugins = tuple(overrides.pop("plugins", ()))
        kwargs["plugins"] = self.plugins + extra_plugins
        kwargs.update(overrides)
        return Client(self.base_url, self.token, **kwargs)

    def _public(self) -> tuple[Any, ...]:
        return (
            self.slug,
            self.base_url,
            self.token_env,
            self.name,
            self.timeout,
            self.cache,
            self.plugins,
            self.plugins_dir,
            self.load_entrypoints,
            self.store,
            self.rate_window,
            self.ruc,
            self.good_taxpayer,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TenantConfig):
            return NotImplemented
        return self._public() == other._public() and self._token == other._token

    def __hash__(self) -> int:
        return hash(self._public())

    def __repr__(self) -> str:
        secret = f"token_env={self.token_env!r}" if self.token_env else "token='***'"
        return f"TenantConfig(slug={self.slug!r}, name={self.name!r}, base_url={self.base_url!r}, {secret})"

    __str__ = __repr__


def _tenant(slug: str, table: Any, folder: Path, path: Path) -> TenantConfig:
    where = f"{path}: [tenants.{slug}]"
    if not isinstance(table, Mapping):
        raise TenantConfigError(f"{where} must be a table")
    from connector.secrets import KNOWN_SECRETS

    secret = sorted(set(table) & {*KNOWN_SECRETS, "password", "client_secret", "client_id"})
    if secret:
        raise TenantConfigError(
            f"{where}: {', '.join(secret)} must not sit in plain text in the tenants file: keep it with "
            f"`facturador secrets set {slug} NAME` (encrypted; docs/analyst_secrets.md) and remove it here"
        )
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise TenantConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(_KEYS))})"
        )
    base_url = table.get("base_url")
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise TenantConfigError(f"{where}: base_url must be an http(s) URL")
    for key in ("token", "token_env", "name"):
        if key in table and not isinstance(table[key], str):
            raise TenantConfigError(f"{where}: {key} must be a string")
    plugins = table.get("plugins", [])
    if not isinstance(plugins, list) or not all(isinstance(p, str) for p in plugins):
        raise TenantConfigError(f"{where}: plugins must be a list of import paths")
    plugins_dir = None
    if "plugins_dir" in table:
        plugins_dir = Path(str(table["plugins_dir"])).expanduser()
        if not plugins_dir.is_absolute():
            plugins_dir = folder / plugins_dir
    timeout = table.get("timeout")
    if timeout is not None and (
        not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0
    ):
        raise TenantConfigError(f"{where}: timeout must be a positive number of seconds")
    rate_window = table.get("rate_window")
    if rate_window is not None and (
        not isinstance(rate_window, int | float) or isinstance(rate_window, bool) or rate_window <= 0
    ):
        raise TenantConfigError(f"{where}: rate_window must be a positive number of seconds")
    ruc = table.get("ruc")
    if ruc is not None and (not isinstance(ruc, str) or len(ruc) != 11 or not ruc.isdigit()):
        raise TenantConfigError(f"{where}: ruc must be the company's 11-digit RUC, as a string")
    good = table.get("good_taxpayer", False)
    if not isinstance(good, bool):
        raise TenantConfigError(f"{where}: good_taxpayer must be true or false")
    try:
        return TenantConfig(
            slug,
            base_url,
            token=table.get("token"),
            token_env=table.get("token_env"),
            name=table.get("name"),
            timeout=float(timeout) if timeout is not None else None,
            cache=bool(table["cache"]) if "cache" in table else None,
            plugins=tuple(plugins),
            plugins_dir=plugins_dir,
            load_entrypoints=bool(table.get("load_entrypoints", False)),
            store=bool(table["store"]) if "store" in table else None,
            rate_window=float(rate_window) if rate_window is not None else None,
            ruc=ruc,
            good_taxpayer=good,
        )
    except TenantConfigError as exc:
        raise TenantConfigError(f"{path}: {exc}") from None


def load_tenants(path: str | Path | None = None) -> dict[str, TenantConfig]:
    """The tenants of the file at ``path`` (default :func:`tenants_path`), in file order.

    :raises TenantConfigError: the file does not exist, is not valid TOML, or a tenant is incomplete.
    """
    file = Path(path).expanduser() if path is not None else tenants_path()
    if not file.is_file():
        looked = [file] if path is not None else tenants_candidates()
        raise TenantConfigError(
            f"No tenants file: looked at {', '.join(map(str, looked))}. Run the demo (`bash "
            f"scripts/demo.sh` writes {DEMO_FOLDER}/tenants.toml in the repository), or create a file with a "
            f"[tenants.<slug>] table per company (base_url and token or token_env) and point {TENANTS_ENV} "
            "to it."
        )
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TenantConfigError(f"{file} is not valid TOML: {exc}") from None
    tenants = data.get("tenants", {})
    if not isinstance(tenants, Mapping):
        raise TenantConfigError(f"{file}: 'tenants' must be a table of [tenants.<slug>] tables")
    return {slug: _tenant(slug, table, file.parent, file) for slug, table in tenants.items()}
