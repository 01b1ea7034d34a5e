"""Small holes: tokens in query strings or path segments never reach a log, and the data directory is
its owner's only.

Both on a real ``facturador serve`` with a fresh data directory (SQLite, two workers), a tenant made by
``facturador tenant create`` and documents issued over HTTP.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from facturador.app import redact_tokens
from facturador.config import Settings
from tests.conftest import _fresh_postgres
from tests.samples.bodies import invoice_body
from tests.served import serve

SLUG = "privada"
TOKEN = "privada-secret-token-0123456789-abcdefghijklmnopqrstuvw"
WRONG = "wrong-secret-token-9876543210"


@pytest.fixture
def default_umask() -> Iterator[None]:
    """The usual umask (022), which would leave new files readable by everyone."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def _settings(data_dir: Path) -> Settings:
    return Settings(data_dir=data_dir, database_url=f"sqlite:///{data_dir / 'facturador.db'}")


def _create_tenant(settings: Settings, slug: str = SLUG) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "facturador.cli",
            "tenant",
            "create",
            slug,
            "--ruc",
            "20100066603",
            "--name",
            "EMPRESA PRIVADA S.A.C.",
            "--token",
            TOKEN,
        ],
        env={**os.environ, **settings.export()},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "GET /t/a/api/documents/lists?api_token=abc HTTP/1.1",
            "GET /t/a/api/documents/lists?api_token=[redacted] HTTP/1.1",
        ),
        ("/x?a=1&API_TOKEN=abc&b=2", "/x?a=1&API_TOKEN=[redacted]&b=2"),
        ("/x?token=abc", "/x?token=[redacted]"),
        ("/x?my_token=abc&api_tokens=1", "/x?my_token=abc&api_tokens=1"),
        ("/x?api_token=", "/x?api_token=[redacted]"),
        # a token sent as a path segment (a client's mistake), wherever it is in the path
        (
            f"GET /t/alpha/api/documents/lists/{TOKEN}/2026-12-05 HTTP/1.1",
            "GET /t/alpha/api/documents/lists/[redacted]/2026-12-05 HTTP/1.1",
        ),
        (f"/t/alpha/{TOKEN}", "/t/alpha/[redacted]"),
        (f"/api/x/{TOKEN}?y=1", "/api/x/[redacted]?y=1"),
        ("/api/x/aB3_-Kq9ZzT0pLmN4rS7uV1w", "/api/x/[redacted]"),  # 24 characters of token_urlsafe
        # what routes carry and an operator needs stays: slugs, ids, UUIDs, SUNAT file names, tickets
        ("/t/a-very-long-tenant-slug-of-forty-chars/api", "/t/a-very-long-tenant-slug-of-forty-chars/api"),
        (
            "/downloads/pdf/3f2b8c1e-9a7d-4e2f-8b1a-0c9d8e7f6a5b",
            "/downloads/pdf/3f2b8c1e-9a7d-4e2f-8b1a-0c9d8e7f6a5b",
        ),
        ("/x/20100066603-01-F001-12345678.xml", "/x/20100066603-01-F001-12345678.xml"),
        ("/x/20100066603-RC-20261205-1", "/x/20100066603-RC-20261205-1"),
        ("/x/123456789012345678901", "/x/123456789012345678901"),
        ("/x/short-token-123", "/x/short-token-123"),
        ("a message about F001-1 and 2026-12-05", "a message about F001-1 and 2026-12-05"),
    ],
)
def test_redact_tokens(text: str, expected: str) -> None:
    assert redact_tokens(text) == expected


@pytest.mark.slow(seconds=17)
def test_query_string_tokens_never_reach_the_access_log(tmp_path: Path, default_umask: None) -> None:
    settings = _settings(tmp_path / "data")
    Settings.resolve(settings.data_dir)
    _create_tenant(settings)
    log = tmp_path / "serve.log"
    with serve(settings, log, "--workers", "2", "--log-level", "info", "--send-pending-every", "0") as served:
        base = served.base_url(SLUG)
        assert httpx.get(f"{base}/api/documents/lists", params={"api_token": TOKEN}).status_code == 200
        assert httpx.get(f"{base}/api/documents/lists?x=1&api_token={TOKEN}&y=2").status_code == 200
        assert httpx.get(f"{base}/api/documents/lists", params={"api_token": WRONG}).status_code == 401
        issued = httpx.post(f"{base}/api/documents", params={"api_token": TOKEN}, json=invoice_body())
        assert issued.status_code == 200, issued.text
        in_path = httpx.get(f"{base}/api/documents/lists/{TOKEN}/2026-12-05")  # a client's mistake
        assert in_path.status_code in (401, 404, 422), in_path.text
    output = served.output()
    assert "GET /t/privada/api/documents/lists?api_token=[redacted] 200 " in output
    assert "?x=1&api_token=[redacted]&y=2" in output
    assert "GET /t/privada/api/documents/lists/[redacted]/2026-12-05 " in output
    assert "POST /t/privada/api/documents?api_token=[redacted] 200 " in output
    assert TOKEN not in output and WRONG not in output


def _loose(path: Path) -> list[str]:
    """Everything under ``path`` (itself included) that its group or others may read, write or enter."""
    found = []
    for entry in [path, *path.rglob("*")]:
        if entry.is_symlink():
            continue
        mode = stat.S_IMODE(entry.lstat().st_mode)
        if mode & 0o077:
            found.append(f"{entry.relative_to(path.parent)} {mode:o}")
    return found


@pytest.mark.slow(seconds=25)
def test_the_data_directory_is_readable_by_its_owner_only(tmp_path: Path, default_umask: None) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o755)  # an install from before: open directory, open database
    (data_dir / "facturador.db").touch(mode=0o644)
    settings = _settings(data_dir)
    _create_tenant(settings)
    with serve(settings, tmp_path / "serve.log", "--workers", "2", "--send-pending-every", "0") as served:
        with served.client(SLUG, TOKEN) as client:
            for _ in range(3):
                issued = client.post("/api/documents", json=invoice_body())
                assert issued.status_code == 200, issued.text
            pdf = httpx.get(issued.json()["links"]["pdf"])
            assert pdf.status_code == 200
        files = {p.relative_to(data_dir).as_posix() for p in data_dir.rglob("*")}
        expected = {
            "facturador.db",
            "facturador.db-wal",
            "facturador.db-shm",
            "sqlite-writer.lock",
            "authority/identity/signing-key.pem",
        }
        assert expected <= files
        assert not [name for name in files if name.startswith("tenants/")]  # the tenant's are in the database
        assert _loose(data_dir) == []
    assert _loose(data_dir) == []
    for key in ("authority/identity/signing-key.pem",):
        assert stat.S_IMODE((data_dir / key).stat().st_mode) == 0o600
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700


@pytest.fixture
def store(tmp_path: Path) -> Iterator[str | None]:
    """The database of a fresh service: SQLite in its data directory (None), or a new PostgreSQL database
    when the suite runs on PostgreSQL (FACTURADOR_TEST_DATABASE_URL), dropped afterwards."""
    server = os.environ.get("FACTURADOR_TEST_DATABASE_URL")
    if not server:
        yield None
        return
    database_url, drop = _fresh_postgres(server)
    try:
        yield database_url
    finally:
        drop()


@pytest.mark.slow(seconds=18)
def test_keys_and_secrets_an_operator_loosened_are_private_again_at_start(
    store: str | None, tmp_path: Path, default_umask: None
) -> None:
    """Tenant keys and certificates, the simulated authority's key and token secret, the key of the
    tenants' secrets, the tenants file and the writer lock made 0644 (their directories 0755) by an
    operator are 0600 (0700) again as soon as ``facturador serve`` has started, as the data directory and
    the database are; a link that leads out of the data directory is not followed. On SQLite and on
    PostgreSQL."""
    data_dir = tmp_path / "data"
    settings = Settings.resolve(data_dir, store)
    slug = f"llaves-{uuid.uuid4().hex[:6]}"
    _create_tenant(settings, slug)
    with serve(settings, tmp_path / "first.log", "--send-pending-every", "0") as served:
        with served.client(slug, TOKEN) as client:
            assert client.post("/api/documents", json=invoice_body()).status_code == 200  # SUNAT signs a CDR
    (data_dir / "tenants.toml").write_text("[tenants]\n", encoding="utf-8")
    outside = tmp_path / "outside.txt"
    outside.write_text("not the service's", encoding="utf-8")
    (data_dir / "tenants" / slug).mkdir(parents=True)  # an earlier release's folder of the tenant's files
    (data_dir / "tenants" / slug / "link-outside").symlink_to(outside)
    secrets = [
        "authority/identity/signing-key.pem",
        "authority/identity/certificate.pem",
        "authority/gre-token-secret",
        "secret.key",
        "tenants.toml",
        "sqlite-writer.lock",
    ]
    for entry in [data_dir / name for name in secrets if (data_dir / name).exists()]:
        entry.chmod(0o644)
    for directory in ("tenants", f"tenants/{slug}", "authority", "authority/identity"):
        (data_dir / directory).chmod(0o755)
    outside.chmod(0o644)
    assert len(_loose(data_dir)) >= 8
    with serve(settings, tmp_path / "second.log", "--send-pending-every", "0") as served:
        assert _loose(data_dir) == []  # at start, before any request
        for name in secrets[:4]:
            assert stat.S_IMODE((data_dir / name).stat().st_mode) == 0o600, name
        with served.client(slug, TOKEN) as client:
            assert client.post("/api/documents", json=invoice_body()).status_code == 200
    assert _loose(data_dir) == []
    assert stat.S_IMODE(outside.stat().st_mode) == 0o644
