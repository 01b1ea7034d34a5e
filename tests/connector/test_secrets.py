"""The analyst's secrets for SUNAT's APIs: an encrypted file (the default, headless servers included) or the
operating system's keyring; never in plain text, a wrong passphrase refused."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from connector.config import TenantConfigError, load_tenants
from connector.secrets import (
    EncryptedFile,
    KeyringSecrets,
    SecretsError,
    WrongPassphraseError,
    open_secrets,
)

PASSPHRASE = "correct horse battery staple"


def test_round_trip_in_the_encrypted_file(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    store = EncryptedFile(path, PASSPHRASE)
    assert store.get("acme", "sire_client_secret") is None and store.names("acme") == []
    store.set("acme", "sire_client_id", "3f1c-client")
    store.set("acme", "sire_client_secret", "s3cr3t-ñandú")
    store.set("other", "sol_password", "Clave.SOL.1")
    store.set("acme", "sire_client_secret", "rotated-secret")  # replaced

    again = EncryptedFile(path, PASSPHRASE)  # another process, the same passphrase
    assert again.get("acme", "sire_client_secret") == "rotated-secret"
    assert again.get("other", "sol_password") == "Clave.SOL.1"
    assert again.names("acme") == ["sire_client_id", "sire_client_secret"]
    assert again.delete("acme", "sire_client_id") is True
    assert again.delete("acme", "sire_client_id") is False
    assert EncryptedFile(path, PASSPHRASE).get("acme", "sire_client_id") is None

    text = path.read_text(encoding="utf-8")
    for plain in ("rotated-secret", "Clave.SOL.1", "3f1c-client", PASSPHRASE):
        assert plain not in text  # never in plain text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_wrong_passphrase_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    EncryptedFile(path, PASSPHRASE).set("acme", "sol_password", "Clave.SOL.1")
    with pytest.raises(WrongPassphraseError, match="does not open"):
        EncryptedFile(path, "not the passphrase")
    with pytest.raises(SecretsError, match="at least 8"):
        EncryptedFile(path, "short")


def test_a_value_moved_to_another_place_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    store = EncryptedFile(path, PASSPHRASE)
    store.set("acme", "sol_password", "acme-password")
    store.set("other", "sol_password", "other-password")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["secrets"]["other"]["sol_password"] = data["secrets"]["acme"]["sol_password"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SecretsError, match="not the one kept there"):
        EncryptedFile(path, PASSPHRASE).get("other", "sol_password")


@pytest.mark.parametrize(
    ("tenant", "name", "value", "message"),
    [
        ("acme", "SOL password", "x", "not a secret name"),
        ("../etc", "sol_password", "x", "not a tenant slug"),
        ("acme", "sol_password", "  ", "is empty"),
    ],
)
def test_bad_names_and_values(tmp_path: Path, tenant: str, name: str, value: str, message: str) -> None:
    with pytest.raises(SecretsError, match=message):
        EncryptedFile(tmp_path / "s.json", PASSPHRASE).set(tenant, name, value)


def test_open_secrets_reads_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTURADOR_SECRETS_FILE", str(tmp_path / "env-secrets.json"))
    monkeypatch.delenv("FACTURADOR_SECRETS_BACKEND", raising=False)
    monkeypatch.delenv("FACTURADOR_SECRETS_PASSPHRASE", raising=False)
    with pytest.raises(SecretsError, match="FACTURADOR_SECRETS_PASSPHRASE"):
        open_secrets()
    monkeypatch.setenv("FACTURADOR_SECRETS_PASSPHRASE", PASSPHRASE)
    store = open_secrets()
    store.set("acme", "validity_client_secret", "v-secret")
    assert (tmp_path / "env-secrets.json").is_file()
    assert open_secrets().get("acme", "validity_client_secret") == "v-secret"
    monkeypatch.setenv("FACTURADOR_SECRETS_BACKEND", "vault")
    with pytest.raises(SecretsError, match="file or keyring"):
        open_secrets()


def test_the_keyring_is_refused_where_there_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """A headless server's keyring has only its fail backend: the message says to use the file."""
    import keyring
    from keyring.backends import fail

    monkeypatch.setattr(keyring, "get_keyring", lambda: fail.Keyring())
    with pytest.raises(SecretsError, match="encrypted file"):
        open_secrets("keyring")


class MemoryKeyring(KeyringBackend):
    """A keyring backend of this process (the operating system's is not there in tests)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.kept: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.kept.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.kept[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.kept.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


def test_round_trip_in_a_keyring() -> None:
    backend = MemoryKeyring()
    store = KeyringSecrets(backend)
    store.set("acme", "sire_client_secret", "k-secret")
    assert backend.kept == {("facturador-kit", "acme:sire_client_secret"): "k-secret"}
    assert store.get("acme", "sire_client_secret") == "k-secret"
    assert store.names("acme") == ["sire_client_secret"]
    assert store.delete("acme", "sire_client_secret") is True
    assert store.delete("acme", "sire_client_secret") is False
    assert store.get("acme", "sire_client_secret") is None


def test_the_tenants_file_refuses_a_secret_in_plain_text(tmp_path: Path) -> None:
    path = tmp_path / "tenants.toml"
    path.write_text('[tenants.a]\nbase_url = "http://x"\ntoken = "t"\nsol_password = "Clave"\n')
    with pytest.raises(TenantConfigError, match="facturador secrets set a"):
        load_tenants(path)


def test_the_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from facturador.cli import main

    tenants = tmp_path / "tenants.toml"
    tenants.write_text('[tenants.acme]\nbase_url = "http://x"\ntoken = "t"\n')
    monkeypatch.setenv("FACTURADOR_SECRETS_FILE", str(tmp_path / "secrets.json"))
    monkeypatch.setenv("FACTURADOR_SECRETS_PASSPHRASE", PASSPHRASE)
    monkeypatch.delenv("FACTURADOR_SECRETS_BACKEND", raising=False)
    monkeypatch.setenv("SIRE_SECRET", "from-the-env")
    runner = CliRunner()
    done = runner.invoke(
        main,
        [
            "secrets",
            "set",
            "acme",
            "sire_client_secret",
            "--from-env",
            "SIRE_SECRET",
            "--tenants",
            str(tenants),
        ],
    )
    assert done.exit_code == 0 and "kept" in done.output and "from-the-env" not in done.output
    typed = runner.invoke(
        main, ["secrets", "set", "acme", "sol_password", "--tenants", str(tenants)], input="Clave\n"
    )
    assert typed.exit_code == 0 and "Clave" not in typed.output  # asked without echo
    assert open_secrets().get("acme", "sol_password") == "Clave"
    listed = runner.invoke(main, ["secrets", "list", "acme"])
    assert listed.stdout.splitlines() == ["sire_client_secret", "sol_password"]
    assert "from-the-env" not in (tmp_path / "secrets.json").read_text()
    deleted = runner.invoke(main, ["secrets", "delete", "acme", "sol_password"])
    assert deleted.exit_code == 0 and "deleted" in deleted.output

    nobody = runner.invoke(
        main, ["secrets", "set", "nobody", "sol_password", "--tenants", str(tenants)], input="x\n"
    )
    assert nobody.exit_code != 0 and "no tenant 'nobody'" in nobody.output
    monkeypatch.setenv("FACTURADOR_SECRETS_PASSPHRASE", "another passphrase")
    wrong = runner.invoke(main, ["secrets", "list", "acme"])
    assert wrong.exit_code != 0 and "does not open" in wrong.output
