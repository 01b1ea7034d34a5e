"""Where the service keeps its data (the data directory, the database URL), how much a request may send
and whether answers are compressed."""

from __future__ import annotations

import json
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_data_dir

DATA_DIR_ENV = "FACTURADOR_DATA_DIR"
DATABASE_URL_ENV = "FACTURADOR_DATABASE_URL"
MAX_BODY_BYTES_ENV = "FACTURADOR_MAX_BODY_BYTES"
COMPRESSION_ENV = "FACTURADOR_COMPRESSION"
ALLOWED_HOSTS_ENV = "FACTURADOR_ALLOWED_HOSTS"
#: When answers are gzipped for clients that accept it: ``remote`` (not on loopback, where compressing
#: 31 MB of a 20,000-document list costs more CPU than the bytes it saves), ``always`` or ``never``.
COMPRESSION_MODES = ("remote", "always", "never")
#: The largest request body accepted by default: a document of 999 items with every text at its maximum
#: (descriptions of 500 characters, escaped) stays below it.
DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024


def default_database_url(data_dir: Path) -> str:
    """The SQLite database inside the data directory."""
    return f"sqlite:///{(data_dir / 'facturador.db').resolve()}"


#: What the service keeps in its data directory besides the database: each tenant's key and certificate
#: (``tenants/SLUG``), the simulated authority's and its token secret and stylesheets (``authority``), the
#: key that encrypts the tenants' secrets, the demo's tenants file and the lock that orders SQLite writers.
PRIVATE_TREES = ("tenants", "authority")
#: The file of the key that encrypts the tenants' secrets (``facturador.store.secrets``).
SECRET_KEY_FILE = "secret.key"
PRIVATE_FILES = (SECRET_KEY_FILE, "tenants.toml", "sqlite-writer.lock")

log = logging.getLogger("facturador")


def private_contents(data_dir: Path) -> None:
    """Make what the service keeps in ``data_dir`` (:data:`PRIVATE_TREES`, :data:`PRIVATE_FILES`) its
    owner's only again, as on every start the data directory and the database are: an operator may have
    loosened a key to 0644. Group and other permissions are taken away (keys 0600, directories 0700);
    symbolic links are not followed, and a file this user may not change is reported, not fatal."""
    for name in PRIVATE_TREES:
        for directory, _subdirectories, files in os.walk(data_dir / name):  # does not follow links
            _owner_only(Path(directory))
            for file in files:
                _owner_only(Path(directory, file))
    for name in PRIVATE_FILES:
        _owner_only(data_dir / name)


def _owner_only(path: Path) -> None:
    try:
        status = path.lstat()
        mode = stat.S_IMODE(status.st_mode)
        if mode & 0o077 and not stat.S_ISLNK(status.st_mode):
            path.chmod(mode & 0o700)
    except FileNotFoundError:
        pass
    except PermissionError as exc:
        log.warning("could not make %s readable by its owner only: %s", path, exc)


def private_directory(path: Path) -> Path:
    """Create ``path`` (and its parents) if missing and make it readable by its owner only (0700): the
    data directory holds the database, the signing keys and every document."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.chmod(0o700)
    return path


#: The folder a clone's demo keeps its data in (``scripts/demo.sh``), found by :func:`project_data_dir`.
PROJECT_DATA_DIR = ".facturador"
#: The file a running service keeps its address in, in the data directory (:class:`ServiceAddress`).
SERVICE_ADDRESS_FILE = "service.json"


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only (0600), as everything in the data directory."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # a file that was there keeps its mode through O_CREAT
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)


def project_data_dir(start: Path) -> Path | None:
    """The nearest :data:`PROJECT_DATA_DIR` from ``start`` up to the root that holds a service's data (its
    database or its secret key): the demo's, when a command runs in the clone or below it."""
    for folder in (start, *start.parents):
        candidate = folder / PROJECT_DATA_DIR
        if (candidate / "facturador.db").is_file() or (candidate / SECRET_KEY_FILE).is_file():
            return candidate
    return None


def user_data_directory() -> Path:
    """The default data directory when nothing names one (``~/.local/share/facturador`` on Linux)."""
    return Path(user_data_dir("facturador"))


#: The folder where each running ``facturador serve`` keeps its own address file (``<host>-<port>.json``).
SERVICES_DIR = "services"


@dataclass(frozen=True)
class ServiceAddress:
    """Where a running ``facturador serve`` listens, kept in its data directory while it runs (so that
    ``tenant list`` shows the tenants' real base URLs) and removed when it stops: in
    :data:`SERVICE_ADDRESS_FILE` (the last node started) and in a file of its own under
    :data:`SERVICES_DIR`, so that nodes sharing a data directory are all found, even once the last one
    started was killed without removing its file."""

    host: str
    port: int
    pid: int

    @classmethod
    def running(cls, data_dir: Path) -> list[ServiceAddress]:
        """The addresses of the services still running on ``data_dir`` (the last started first)."""
        found: list[ServiceAddress] = []
        for path in [data_dir / SERVICE_ADDRESS_FILE, *sorted((data_dir / SERVICES_DIR).glob("*.json"))]:
            address = cls._read(path)
            if address is not None and address not in found:
                found.append(address)
        return found

    @classmethod
    def read(cls, data_dir: Path) -> ServiceAddress | None:
        """The address of a service still running on ``data_dir`` (the last started), else ``None``."""
        running = cls.running(data_dir)
        return running[0] if running else None

    @classmethod
    def _read(cls, path: Path) -> ServiceAddress | None:
        try:
            values = json.loads(path.read_text(encoding="utf-8"))
            address = cls(str(values["host"]), int(values["port"]), int(values["pid"]))
            os.kill(address.pid, 0)  # signal 0: is the process there?
        except PermissionError:
            return address  # there, another user's
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return address

    def _own_file(self, data_dir: Path) -> Path:
        return data_dir / SERVICES_DIR / f"{self.host.replace(':', '_')}-{self.port}.json"

    def keep(self, data_dir: Path) -> None:
        write_private(data_dir / SERVICE_ADDRESS_FILE, json.dumps(vars(self)))
        private_directory(data_dir / SERVICES_DIR)
        write_private(self._own_file(data_dir), json.dumps(vars(self)))

    def forget(self, data_dir: Path) -> None:
        """Remove its files, if they are still this service's (another may have started since)."""
        for path in (data_dir / SERVICE_ADDRESS_FILE, self._own_file(data_dir)):
            if ServiceAddress._read(path) == self:
                path.unlink(missing_ok=True)


@dataclass(frozen=True)
class Settings:
    """The service's settings. ``database_url`` defaults to SQLite inside ``data_dir``;
    ``max_body_bytes`` bounds every request body (larger ones get 413 before they are read whole);
    ``allowed_hosts`` are the host names (lower case, no port) links and redirects may name when a client
    sends them in ``Host``, besides the address it reached and the tenant's own host."""

    data_dir: Path
    database_url: str
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    compression: str = "remote"
    allowed_hosts: tuple[str, ...] = ()
    #: Where the simulated authority keeps its files (its CDR-signing key, token secret, stylesheets'
    #: copies): ``authority/`` in the data directory unless set (``facturador sunat --state-dir``).
    authority_state: Path | None = None

    @classmethod
    def resolve(
        cls,
        data_dir: str | os.PathLike[str] | None = None,
        database_url: str | None = None,
        max_body_bytes: int | None = None,
        compression: str | None = None,
        allowed_hosts: str | None = None,
        *,
        create: bool = True,
    ) -> Settings:
        """Settings from explicit values, then the environment, then the defaults. The data directory is
        created (and made its owner's only) unless ``create`` is false, as for a read-only command."""
        directory = Path(data_dir or os.environ.get(DATA_DIR_ENV) or user_data_directory()).expanduser()
        if create:
            private_directory(directory)
            private_contents(directory)
        url = database_url or os.environ.get(DATABASE_URL_ENV) or default_database_url(directory)
        limit = max_body_bytes or int(os.environ.get(MAX_BODY_BYTES_ENV) or DEFAULT_MAX_BODY_BYTES)
        if limit <= 0:
            raise ValueError(f"{MAX_BODY_BYTES_ENV} must be a positive number of bytes")
        mode = compression or os.environ.get(COMPRESSION_ENV) or "remote"
        if mode not in COMPRESSION_MODES:
            modes = ", ".join(COMPRESSION_MODES)
            raise ValueError(f"{COMPRESSION_ENV} must be one of {modes} (got {mode!r})")
        hosts = allowed_hosts if allowed_hosts is not None else os.environ.get(ALLOWED_HOSTS_ENV, "")
        return cls(
            data_dir=directory.resolve(),
            database_url=url,
            max_body_bytes=limit,
            compression=mode,
            allowed_hosts=tuple(dict.fromkeys(host.lower() for host in hosts.replace(",", " ").split())),
        )

    def export(self) -> dict[str, str]:
        """Environment variables that make another process (a server worker) use these settings."""
        return {
            DATA_DIR_ENV: str(self.data_dir),
            DATABASE_URL_ENV: self.database_url,
            MAX_BODY_BYTES_ENV: str(self.max_body_bytes),
            COMPRESSION_ENV: self.compression,
            ALLOWED_HOSTS_ENV: ",".join(self.allowed_hosts),
        }

    def tenant_dir(self, slug: str) -> Path:
        return self.data_dir / "tenants" / slug

    @property
    def authority_dir(self) -> Path:
        return self.authority_state or self.data_dir / "authority"
