"""The tenants file (TOML): loading, tokens from the environment, clear errors, tokens never shown."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from connector.config import TenantConfig, TenantConfigError, load_tenants, tenants_path
from tests.conftest import LiveService
from tests.samples.tenants import ACME, ACME_TOKEN

PLUGIN = """
from connector import hookimpl

@hookimpl
def facturador_validate_payload(family, payload):
    return []
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_load_tenants_with_token_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "local").mkdir()
    write(tmp_path / "local" / "tenant_plugin.py", PLUGIN)
    file = write(
        tmp_path / "tenants.toml",
        """
[tenants.acme]
name = "ACME S.A.C."
base_url = "https://acme.example.pe"
token_env = "ACME_TOKEN"
timeout = 60
plugins_dir = "local"

[tenants.demo]
base_url = "http://127.0.0.1:8000/t/demo"
token = "demo-secret-token"
cache = false
plugins = ["plugins.detraction"]
""",
    )
    monkeypatch.setenv("ACME_TOKEN", "acme-secret-token")
    tenants = load_tenants(file)
    assert list(tenants) == ["acme", "demo"]
    acme, demo = tenants["acme"], tenants["demo"]
    assert (acme.slug, acme.name, acme.base_url, acme.timeout) == (
        "acme",
        "ACME S.A.C.",
        "https://acme.example.pe",
        60,
    )
    assert acme.token == "acme-secret-token" and acme.token_env == "ACME_TOKEN" and acme.has_token
    assert acme.plugins_dir == tmp_path / "local"
    assert demo.name == "demo" and demo.token == "demo-secret-token" and demo.cache is False
    assert acme.cache is None  # the file does not say: the program decides
    with (
        acme.client() as plain,
        acme.client(default_cache=True) as dashboard,
        demo.client(default_cache=True) as off,
    ):
        assert plain.cache_settings is None and dashboard.cache_settings is not None
        assert off.cache_settings is None  # the file's word wins
    for tenant in (acme, demo):
        shown = repr(tenant) + str(tenant)
        assert "secret" not in shown and tenant.base_url in shown
    assert "token_env='ACME_TOKEN'" in repr(acme) and "token='***'" in repr(demo)


def test_default_path_and_environment(
    nothing_configured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FACTURADOR_TENANTS", str(tmp_path / "t.toml"))
    assert tenants_path() == tmp_path / "t.toml"
    monkeypatch.delenv("FACTURADOR_TENANTS")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert tenants_path() == tmp_path / "config" / "facturador" / "tenants.toml"
    write(tmp_path / "t.toml", '[tenants.x]\nbase_url = "http://h"\ntoken = "t"\n')
    monkeypatch.setenv("FACTURADOR_TENANTS", str(tmp_path / "t.toml"))
    assert list(load_tenants()) == ["x"]


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TenantConfigError) as caught:
        load_tenants(tmp_path / "nope.toml")
    assert str(tmp_path / "nope.toml") in str(caught.value) and "FACTURADOR_TENANTS" in str(caught.value)
    with pytest.raises(TenantConfigError):
        load_tenants()  # the autouse fixture points FACTURADOR_TENANTS to a missing file


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[tenants.a\n", "not valid TOML"),
        ('[tenants.a]\nbase_url = "ftp://x"\ntoken = "t"\n', "base_url"),
        ('[tenants.a]\nbase_url = "http://x"\n', "exactly one of"),
        ('[tenants.a]\nbase_url = "http://x"\ntoken = "t"\ntoken_env = "T"\n', "exactly one of"),
        ('[tenants.a]\nbase_url = "http://x"\ntoken = "t"\ntokn = "x"\n', "unknown key(s) tokn"),
        ('[tenants.a]\nbase_url = "http://x"\ntoken = "t"\ntimeout = -1\n', "timeout"),
        ('[tenants.a]\nbase_url = "http://x"\ntoken = "t"\nrate_window = 0\n', "rate_window must be"),
        ('[tenants.a]\nbase_url = "http://x"\ntoken = "t"\nrate_window = "1"\n', "rate_window must be"),
        ('[tenants.a]\nbase_url = "http://x"\ntoken = "t"\nplugins = "x"\n', "plugins"),
        ("tenants = 3\n", "must be a table"),
        ('[tenants.a]\nbase_url = "http://x"\ntoken = "t"\nruc = 20100066603\n', "ruc must be"),
        ('[tenants.a]\nbase_url = "http://x"\ntoken = "t"\nruc = "2010006660"\n', "ruc must be"),
        ('[tenants.a]\nbase_url = "http://x"\ntoken = "t"\ngood_taxpayer = "yes"\n', "good_taxpayer"),
    ],
)
def test_bad_files_say_what_is_wrong(tmp_path: Path, text: str, needle: str) -> None:
    with pytest.raises(TenantConfigError) as caught:
        load_tenants(write(tmp_path / "tenants.toml", text))
    assert needle in str(caught.value)


def test_unset_token_variable_fails_when_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOBODY_TOKEN", raising=False)
    tenant = TenantConfig("x", "http://h", token_env="NOBODY_TOKEN")
    assert not tenant.has_token
    with pytest.raises(TenantConfigError, match="NOBODY_TOKEN"):
        tenant.client()


def test_tenant_client_talks_to_the_service_and_never_logs_the_token(
    live: LiveService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "plugins").mkdir()
    write(tmp_path / "plugins" / "tenant_plugin.py", PLUGIN)
    file = write(
        tmp_path / "tenants.toml",
        f'[tenants.acme]\nname = "ACME"\nbase_url = "{live.base_url(ACME)}"\ntoken_env = "ACME_TEST_TOKEN"\n'
        'plugins_dir = "plugins"\n',
    )
    monkeypatch.setenv("ACME_TEST_TOKEN", ACME_TOKEN)
    caplog.set_level(logging.DEBUG)
    tenant = load_tenants(file)["acme"]
    with tenant.client(cache=False) as client:
        assert client.name == "ACME" and client.ping().ok
        assert len(client.documents.latest()) >= 0
        names = [p.name for p in client.plugin_manager.list_plugins()]
        assert str(tmp_path / "plugins" / "tenant_plugin.py") in names
        assert ACME_TOKEN not in repr(client)
    assert any("/api/documents/lists" in r.getMessage() for r in caplog.records)
    assert ACME_TOKEN not in caplog.text


def test_the_demos_tenants_file_is_found_without_setting_anything(
    nothing_configured: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the notebook and the dashboard rely on after `facturador demo`: its tenants file in the data
    directory is found when neither FACTURADOR_TENANTS nor the user's config file exist."""
    from connector.config import demo_tenants_path, tenants_path

    monkeypatch.delenv("FACTURADOR_TENANTS", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("FACTURADOR_DATA_DIR", str(tmp_path / "data"))
    assert (
        tenants_path() == tmp_path / "config" / "facturador" / "tenants.toml"
    )  # nothing yet: where to create
    (tmp_path / "data").mkdir()
    demo = tmp_path / "data" / "tenants.toml"
    demo.write_text('[tenants.demo]\nbase_url = "http://127.0.0.1:8000/t/demo"\ntoken = "t"\n')
    assert demo_tenants_path() == demo and tenants_path() == demo
    assert list(load_tenants()) == ["demo"]
    mine = tmp_path / "config" / "facturador" / "tenants.toml"
    mine.parent.mkdir(parents=True)
    mine.write_text('[tenants.mine]\nbase_url = "http://127.0.0.1:8000/t/mine"\ntoken = "t"\n')
    assert tenants_path() == mine  # the user's own file wins


@pytest.fixture
def nothing_configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No variable, no user file, no source checkout's demo, no ``.facturador/`` around the current folder
    (the test runs in tmp_path, not in the clone where ``bash scripts/demo.sh`` leaves one): only what a
    test writes under tmp_path."""
    import connector.config

    for name in ("FACTURADOR_TENANTS", "FACTURADOR_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setattr(connector.config, "_CHECKOUT", None, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_scripts_demo_file_is_found_from_the_repository_and_its_notebooks(
    nothing_configured: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bash scripts/demo.sh` writes .facturador/tenants.toml in the repository; a notebook runs in
    notebooks/ (Jupyter's folder is the notebook's): both find it with no variable set."""
    repository = nothing_configured / "repo"
    demo = repository / ".facturador" / "tenants.toml"
    (repository / "notebooks").mkdir(parents=True)
    demo.parent.mkdir()
    demo.write_text('[tenants.demo]\nbase_url = "http://127.0.0.1:8000/t/demo"\ntoken = "t"\n')
    for folder in (repository, repository / "notebooks"):
        monkeypatch.chdir(folder)
        assert tenants_path() == demo and list(load_tenants()) == ["demo"]


def test_the_checkouts_demo_file_is_found_from_anywhere(
    nothing_configured: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import connector.config

    checkout = nothing_configured / "checkout"
    (checkout / ".facturador").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("")
    (checkout / ".facturador" / "tenants.toml").write_text(
        '[tenants.d]\nbase_url = "http://h"\ntoken = "t"\n'
    )
    monkeypatch.setattr(connector.config, "_CHECKOUT", checkout)
    monkeypatch.chdir(nothing_configured)
    assert tenants_path() == checkout / ".facturador" / "tenants.toml"


def test_no_tenants_file_names_every_place_looked(
    nothing_configured: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = nothing_configured / "repo" / "notebooks"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    with pytest.raises(TenantConfigError) as caught:
        load_tenants()
    message = str(caught.value)
    for place in (
        nothing_configured / "config" / "facturador" / "tenants.toml",
        folder / ".facturador" / "tenants.toml",
        nothing_configured / "repo" / ".facturador" / "tenants.toml",
        nothing_configured / "data" / "facturador" / "tenants.toml",
    ):
        assert str(place) in message
    assert "scripts/demo.sh" in message


@pytest.mark.parametrize(
    ("keys", "dashboard", "plain"),
    [
        ("", True, False),  # where reads are cached: the dashboard caches by default
        ("cache = false\n", False, False),
        ("store = true\ncache = false\n", True, True),
        ("store = false\n", False, False),
    ],
)
def test_the_store_key_says_where_the_pages_read(
    tmp_path: Path, keys: str, dashboard: bool, plain: bool
) -> None:
    text = f'[tenants.a]\nbase_url = "http://x"\ntoken = "t"\n{keys}'
    tenant = load_tenants(write(tmp_path / "tenants.toml", text))["a"]
    assert tenant.uses_store(default_cache=True) is dashboard
    assert tenant.uses_store() is plain


def test_the_rate_window_reaches_the_client(tmp_path: Path) -> None:
    """A tenant throttled by another window than real PRO's minute says so in the file."""
    text = '[tenants.a]\nbase_url = "http://127.0.0.1:9"\ntoken = "t"\nrate_window = 2.5\n'
    tenants = load_tenants(write(tmp_path / "tenants.toml", text))
    with tenants["a"].client(cache=False) as client:
        assert client._http.rate.window == 2.5
    text = '[tenants.a]\nbase_url = "http://127.0.0.1:9"\ntoken = "t"\n'
    with load_tenants(write(tmp_path / "plain.toml", text))["a"].client(cache=False) as client:
        assert client._http.rate.window == 60


def test_the_ruc_and_good_taxpayer_of_a_company(tmp_path: Path) -> None:
    """The portfolio reads SUNAT's due date by the RUC (and the buenos contribuyentes column) given."""
    text = '[tenants.a]\nbase_url = "http://x"\ntoken = "t"\nruc = "20100066603"\ngood_taxpayer = true\n'
    text += '[tenants.b]\nbase_url = "http://y"\ntoken = "t"\n'
    found = load_tenants(write(tmp_path / "tenants.toml", text))
    assert (found["a"].ruc, found["a"].good_taxpayer) == ("20100066603", True)
    assert (found["b"].ruc, found["b"].good_taxpayer) == (None, False)
