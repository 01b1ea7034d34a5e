"""Where the service keeps its data: the data directory and the database URL."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_data_dir

from facturador.service.store.db import default_database_url

DATA_DIR_ENV = "FACTURADOR_DATA_DIR"
DATABASE_URL_ENV = "FACTURADOR_DATABASE_URL"


@dataclass(frozen=True)
class Settings:
    """The service's storage settings. ``database_url`` defaults to SQLite inside ``data_dir``."""

    data_dir: Path
    database_url: str

    @classmethod
    def resolve(
        cls, data_dir: str | os.PathLike[str] | None = None, database_url: str | None = None
    ) -> Settings:
        """Settings from explicit values, then the environment, then the defaults."""
        directory = Path(data_dir or os.environ.get(DATA_DIR_ENV) or user_data_dir("facturador")).expanduser()
        directory.mkdir(parents=True, exist_ok=True)
        url = database_url or os.environ.get(DATABASE_URL_ENV) or default_database_url(directory)
        return cls(data_dir=directory.resolve(), database_url=url)

    def export(self) -> dict[str, str]:
        """Environment variables that make another process (a server worker) use these settings."""
        return {DATA_DIR_ENV: str(self.data_dir), DATABASE_URL_ENV: self.database_url}

    def tenant_dir(self, slug: str) -> Path:
        return self.data_dir / "tenants" / slug

    @property
    def authority_dir(self) -> Path:
        return self.data_dir / "authority"
