"""The SIRE client's pieces that need no server: credentials from the environment (what is missing named,
secrets never shown), ``Retry-After`` read as seconds or an HTTP date and bounded, the ticket states a
person reads, and where a tenant's SIRE progress is kept."""

from __future__ import annotations

import datetime as dt
from email.utils import format_datetime
from pathlib import Path

import pytest

from connector.secrets import EncryptedFile
from connector.sire import (
    MAX_RETRY_AFTER,
    SireCredentialError,
    SireCredentials,
    SireProgress,
    SireTicket,
    _retry_after,
    progress_path,
)


def test_credentials_from_the_environment_name_what_is_missing() -> None:
    with pytest.raises(SireCredentialError) as missing:
        SireCredentials.from_env("20123456786", {"SIRE_CLIENT_ID": "id", "SIRE_SOL_PASSWORD": "secreta"})
    assert "SIRE_CLIENT_SECRET, SIRE_SOL_USER" in str(missing.value) and "secreta" not in str(missing.value)
    found = SireCredentials.from_env(
        "20123456786",
        {
            "SIRE_CLIENT_ID": "id",
            "SIRE_CLIENT_SECRET": "s3",
            "SIRE_SOL_USER": "USUARIO1",
            "SIRE_SOL_PASSWORD": "p4",
        },
    )
    assert found.username == "20123456786USUARIO1"
    assert "s3" not in repr(found) and "p4" not in repr(found)


def test_credentials_of_a_tenant_from_the_environment_or_the_analysts_secrets(tmp_path: Path) -> None:
    """The environment wins when it names SIRE's credentials; else the tenant's entries of the analyst's
    encrypted secrets file; with neither, the error names both ways (and shows no secret)."""
    store = EncryptedFile(tmp_path / "secrets.json", "frase secreta larga")
    for name, value in (("sire_client_id", "id"), ("sire_client_secret", "s3"), ("sol_user", "USUARIO1")):
        store.set("acme", name, value)
    with pytest.raises(SireCredentialError) as missing:
        SireCredentials.for_tenant("acme", "20123456786", environ={}, secrets=store)
    assert "sol_password" in str(missing.value) and "s3" not in str(missing.value)
    store.set("acme", "sol_password", "p4")
    found = SireCredentials.for_tenant("acme", "20123456786", environ={}, secrets=store)
    assert (found.client_id, found.client_secret, found.sol_user, found.sol_password) == (
        "id",
        "s3",
        "USUARIO1",
        "p4",
    )
    environment = {
        "SIRE_CLIENT_ID": "env",
        "SIRE_CLIENT_SECRET": "e",
        "SIRE_SOL_USER": "U",
        "SIRE_SOL_PASSWORD": "q",
    }
    assert (
        SireCredentials.for_tenant("acme", "20123456786", environ=environment, secrets=store).client_id
        == "env"
    )
    with pytest.raises(SireCredentialError) as neither:
        SireCredentials.for_tenant("acme", "20123456786", environ={})  # no passphrase: no secrets file
    assert "SIRE_CLIENT_ID" in str(neither.value) and "facturador secrets set" in str(neither.value)


def test_retry_after_is_seconds_or_a_date_and_bounded() -> None:
    assert _retry_after("3", 0) == 3.0
    assert _retry_after("100000", 0) == MAX_RETRY_AFTER
    assert _retry_after(None, 2) == 4.0
    soon = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=30)
    assert 20 <= _retry_after(format_datetime(soon, usegmt=True), 0) <= 30
    assert _retry_after("not a date", 1) == 2.0


def test_ticket_states_read_as_a_person_reads_them() -> None:
    row = {
        "numTicket": "20260300000001",
        "perTributario": "202610",
        "codProceso": "10",
        "codEstadoProceso": "06",
        "desEstadoProceso": "Terminado",
        "archivoReporte": [{"nomArchivoReporte": "a.zip", "codTipoAchivoReporte": "01"}],
    }
    done = SireTicket.of(row)
    assert done.finished and not done.failed and done.label == "Terminado (06)"
    assert done.files == ({"name": "a.zip", "type": "01"},)  # SUNAT's misspelt key read too
    unknown = SireTicket.of({**row, "codEstadoProceso": "10", "desEstadoProceso": ""})
    assert not unknown.finished and unknown.label == "estado 10 no documentado (10)"


def test_the_progress_is_kept_beside_the_closes_file(tmp_path: Path) -> None:
    closes = tmp_path / "documents-abc.closes.json"
    assert progress_path(closes) == tmp_path / "documents-abc.sire.json"
    progress = SireProgress(progress_path(closes))
    progress.update("2026-10", "proposal", {"ticket": "1"}, "propuesta pedida", dt.datetime(2026, 11, 2, 10))
    again = SireProgress(progress_path(closes))
    assert again.period("2026-10")["proposal"] == {"ticket": "1"}
    assert again.events("2026-10") == [{"at": "2026-11-02T10:00:00", "what": "propuesta pedida"}]
