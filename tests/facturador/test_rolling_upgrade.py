"""The rolling upgrade of docs/deploying.md, tried with the previous release: a node of the release before
migration 0022 (this repository's code at the parent of the commit that added it, from ``git archive``)
serves a tenant it created; ``facturador migrate`` of this release runs beside it; the old node keeps
answering /ready and issuing, signing with the same certificate, and a node of this release started after
it signs with that certificate too (copied into the database from the old release's files). Skipped
where the history is not there (a shallow clone)."""

from __future__ import annotations

import base64
import io
import subprocess
import sys
import tarfile
from pathlib import Path

import httpx
import pytest
from lxml import etree

from facturador.config import Settings
from facturador.store.operations import head_revision
from tests.conftest import free_port
from tests.nodes import Process, child_env, start, wait_until_up
from tests.samples.bodies import invoice_body

ROOT = Path(__file__).resolve().parents[2]
MIGRATION = "facturador/store/migrations/versions/0022_tenant_certificates.py"
RUC = "20123456786"
TOKEN = "rodante-token-0123456789-abcdefghij"


def _previous_release(folder: Path) -> Path:
    """The code of the commit before the one that added :data:`MIGRATION`, unpacked in ``folder``."""
    found = subprocess.run(
        ["git", "-C", str(ROOT), "log", "--diff-filter=A", "--format=%H", "-1", "--", MIGRATION],
        capture_output=True,
        text=True,
    )
    commit = found.stdout.strip()
    if found.returncode != 0 or not commit:
        pytest.skip("the git history of the migration is not here")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", f"{commit}^", "facturador", "sunat"],
        capture_output=True,
    )
    if archive.returncode != 0:
        pytest.skip(f"the previous release is not in this clone: {archive.stderr[-200:]!r}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def _signer(node: Process) -> tuple[int, bytes]:
    answer = httpx.post(
        f"{node.root}/t/rodante/api/documents",
        json=invoice_body(),
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=120,
    )
    assert answer.status_code == 200, answer.text
    xml = httpx.get(answer.json()["links"]["xml"], timeout=60).content
    found = etree.fromstring(xml).find(".//{http://www.w3.org/2000/09/xmldsig#}X509Certificate")
    assert found is not None and found.text
    return answer.json()["data"]["number"], base64.b64decode(found.text)


@pytest.mark.slow(seconds=60)
def test_a_node_of_the_previous_release_keeps_issuing_after_the_migration(tmp_path: Path) -> None:
    old = _previous_release(tmp_path / "previous")
    settings = Settings.resolve(tmp_path / "data")
    old_env = {"PYTHONPATH": str(old)}  # the previous release's code, not this checkout's

    def old_cli(*arguments: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "facturador.cli", *arguments],
            env={**child_env(settings), **old_env},
            cwd=old,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    old_cli("tenant", "create", "rodante", "--ruc", RUC, "--name", "RODANTE S.A.C.", "--token", TOKEN)
    assert (settings.tenant_dir("rodante") / "certificate.pem").is_file()  # the previous release's files
    options = ("serve", "--send-pending-every", "0")
    previous = start(settings, tmp_path / "previous.log", *options, env=old_env, port=free_port(), cwd=old)
    try:
        wait_until_up(previous)
        first, certificate = _signer(previous)
        migrated = subprocess.run(
            [sys.executable, "-m", "facturador.cli", "migrate"],
            env=child_env(settings),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert migrated.returncode == 0, migrated.stderr
        assert f"Schema migrated from revision 0021 to {head_revision()}" in migrated.stdout
        assert "rodante: certificate and key copied" in migrated.stdout
        # the previous release took a schema past its head for one behind (503 at /ready: out of a load
        # balancer's rotation, see docs/deploying.md); it issues on regardless. This release stays ready.
        assert httpx.get(f"{previous.root}/ready", timeout=30).json()["schema"] == head_revision()
        second, same = _signer(previous)
        assert same == certificate
        current = start(settings, tmp_path / "current.log", *options, port=free_port())
        try:
            wait_until_up(current)
            third, signed_by = _signer(current)
            fourth, _ = _signer(previous)
        finally:
            current.stop()
    finally:
        previous.stop()
    assert signed_by == certificate
    assert [first, second, third, fourth] == ["F001-1", "F001-2", "F001-3", "F001-4"]
    assert "Traceback" not in previous.output(), previous.output()[-3000:]
