"""The plugin tests use the connector tests' fixtures (live clients, isolated cache and environment)."""

from tests.connector.conftest import _isolated_environment, cache_dir, client  # noqa: F401
