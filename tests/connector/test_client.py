"""The Client: one per tenant, connection status for the dashboard, resources per family, no leaks."""

from __future__ import annotations

import pytest

from connector import CacheSettings, Client, ConnectionStatus
from connector.hookspecs import FAMILIES
from connector.resources import Resource
from tests.conftest import LiveService
from tests.connector.standin import Answer, StandIn
from tests.connector.test_errors import closed_port
from tests.samples.tenants import ACME, ACME_TOKEN, OTHER, OTHER_TOKEN


def test_ping_ok(client: Client) -> None:
    status = client.ping()
    assert status == ConnectionStatus(True, "Conectado a ACME PERU S.A.C.", "ok", 200)


def test_ping_wrong_token(live: LiveService) -> None:
    with Client(live.base_url(ACME), OTHER_TOKEN, cache=False) as client:
        status = client.ping()
    assert not status.ok and status.reason == "unauthorized" and status.status == 401
    assert "token" in status.message and OTHER_TOKEN not in status.message


def test_ping_service_down() -> None:
    url = f"http://127.0.0.1:{closed_port()}/t/acme"
    with Client(url, ACME_TOKEN, cache=False, name="ACME") as client:
        status = client.ping()
    assert not status.ok and status.reason == "unreachable" and status.status is None
    assert url in status.message and "no responde" in status.message


def test_ping_wrong_tenant_and_other_errors(live: LiveService, standin: StandIn) -> None:
    with Client(live.base_url("nobody"), ACME_TOKEN, cache=False) as client:
        status = client.ping()
    assert (status.ok, status.reason, status.status) == (False, "not_found", 404)
    standin.on("GET", "/api/documents/lists", Answer(500, {"success": False, "message": "SQLSTATE[HY000]"}))
    with Client(standin.root, "t", cache=False) as client:
        status = client.ping()
    assert (status.ok, status.reason, status.status) == (False, "error", 500)
    assert "SQLSTATE" in status.message
    assert standin.count("GET", "/api/documents/lists") == 1  # ping never retries


def test_ping_is_never_served_from_the_cache(live: LiveService, cache_dir: object) -> None:
    with Client(live.base_url(ACME), ACME_TOKEN, cache=CacheSettings(backend="memory")) as client:
        client.documents.latest()
        assert client.ping().ok
    # same tenant, wrong token: a cached answer must not hide it
    with Client(live.base_url(ACME), "wrong", cache=CacheSettings(backend="memory")) as client:
        assert client.ping().reason == "unauthorized"


def test_resources_one_per_family(client: Client) -> None:
    for family in FAMILIES:
        resource = getattr(client, family)
        assert isinstance(resource, Resource) and resource.family == family
        assert type(resource).__doc__
        assert family in repr(resource)
    assert client.documents.form_fields("01")  # built-in plugins contribute fields
    assert client.voided.form_fields() == []


def test_clients_of_two_tenants_share_nothing(live: LiveService, tmp_path: object) -> None:
    with (
        Client(live.base_url(ACME), ACME_TOKEN, cache=False) as acme,
        Client(live.base_url(OTHER), OTHER_TOKEN, cache=False) as other,
    ):
        assert acme.plugin_manager is not other.plugin_manager
        assert acme.plugin_manager.pm is not other.plugin_manager.pm
        assert acme.documents.latest().url.startswith(live.base_url(ACME))
        assert other.documents.latest().url.startswith(live.base_url(OTHER))


def test_repr_and_attributes_never_show_the_token(client: Client) -> None:
    assert repr(client) == f"Client(name='ACME PERU S.A.C.', base_url='{client.base_url}')"
    assert ACME_TOKEN not in repr(client) + repr(client.documents) + str(vars(client))
    assert client.base_url.endswith("/t/acme") and client.timeout == 30.0


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        Client("127.0.0.1:8000", "t")
    with pytest.raises(ValueError):
        Client("http://127.0.0.1:8000", "")
    with pytest.raises(TypeError):
        Client("http://127.0.0.1:8000", "t", cache="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Client("http://127.0.0.1:8000", "t", cache=CacheSettings(backend="redis"))  # type: ignore[arg-type]
