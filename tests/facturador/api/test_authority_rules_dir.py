"""The tenant setting ``authority_rules_dir``: the simulator runs SUNAT's published stylesheets too.

Over HTTP on tenants of their own: one pointing at SUNAT's stylesheets (from the reference folder), one
with the default (the simulator's own rules). A product code that is 8 digits but not in SUNAT's
catalogue 25 is the witness: the simulator's own rules check only its form, SUNAT's stylesheet looks it
up and observes 4332, so only the tenant with the setting gets the observation. Summaries go through
SUNAT's summary stylesheet the same way. Bad settings are refused with a clear message and change
nothing; a folder that disappears later makes the simulator answer SUNAT's exception 0100 with the reason,
never a 500.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from facturador.domain.tenants import TenantError, parse_setting, update_settings
from tests.common import issue
from tests.conftest import LiveService
from tests.facturador.api.test_summaries import declare
from tests.facturador.api.test_summaries import status_of as summary_status
from tests.reference import requires_shared, shared_path
from tests.samples.bodies import boleta_body, invoice_body
from tests.shops import Shop, new_shop

pytestmark = requires_shared

UNKNOWN_PRODUCT = "99999999"  # 8 digits, not in catalogue 25


@pytest.fixture(scope="module")
def rules_dir() -> Path:
    pytest.importorskip("saxonche", reason="SUNAT's stylesheets need saxonche (extra sunat-rules)")
    return shared_path("sunat-rules", "contenido")


@pytest.fixture(scope="module")
def judged(live: LiveService, rules_dir: Path) -> Shop:
    return new_shop(live, "rules", authority_rules_dir=str(rules_dir))


@pytest.fixture
def client(judged: Shop) -> Iterator[httpx.Client]:
    with judged.live.client(judged.slug, judged.token) as client:
        yield client


def unknown_product_invoice() -> dict:
    body = invoice_body()
    body["items"][0]["codigo_producto_sunat"] = UNKNOWN_PRODUCT
    return body


def codes(notes: list[str]) -> list[str]:
    return [note.split(" - ")[0] for note in notes]


def test_the_stylesheets_answer_with_their_codes(client: httpx.Client) -> None:
    payload = issue(client, unknown_product_invoice())
    assert payload["data"]["state_type_id"] == "07", payload["response"]  # accepted with observations
    assert payload["response"]["code"] == "0"
    assert codes(payload["response"]["notes"]) == ["4332"]
    plain = issue(client, invoice_body())
    assert plain["data"]["state_type_id"] == "05" and plain["response"]["notes"] == []


def test_without_the_setting_the_simulators_own_rules_answer(acme: httpx.Client) -> None:
    payload = issue(acme, unknown_product_invoice())
    assert payload["data"]["state_type_id"] == "05"
    assert payload["response"]["notes"] == []  # the simulator does not carry catalogue 25


def test_a_days_summary_goes_through_sunats_summary_stylesheet(live: LiveService, rules_dir: Path) -> None:
    shop = new_shop(live, "rules-rc", authority_rules_dir=str(rules_dir))
    with live.client(shop.slug, shop.token) as client:
        boleta = boleta_body()
        boleta["datos_del_cliente_o_receptor"]["numero_documento"] = "4123567"  # a 7-digit DNI
        issue(client, boleta)
        answer = summary_status(client, declare(client), accepted=True)
        assert codes(answer["response"]["notes"]) == ["4207"]


def test_bad_settings_are_refused_with_the_reason(live: LiveService, tmp_path: Path, rules_dir: Path) -> None:
    shop = new_shop(live, "rules-bad")
    with pytest.raises(TenantError, match="is not a folder"):
        parse_setting("authority_rules_dir", str(tmp_path / "nowhere"))
    with pytest.raises(TenantError, match="does not hold SUNAT's stylesheets.*ValidaExprRegFactura"):
        parse_setting("authority_rules_dir", str(tmp_path))
    with pytest.raises(TenantError, match="does not hold"), live.context.session() as session:
        update_settings(session, shop.slug, {"authority_rules_dir": str(tmp_path)})
    assert parse_setting("authority_rules_dir", "") == ""  # back to the simulator's own rules
    assert parse_setting("authority_rules_dir", str(rules_dir)) == str(rules_dir.resolve())
    with live.client(shop.slug, shop.token) as client:  # unchanged: the simulator's own rules
        assert issue(client, unknown_product_invoice())["response"]["notes"] == []


def test_without_saxonche_the_setting_is_refused(monkeypatch: pytest.MonkeyPatch, rules_dir: Path) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "saxonche" else real(name, *a)
    )
    with pytest.raises(TenantError, match=r"needs saxonche.*facturador-kit\[sunat-rules\]"):
        parse_setting("authority_rules_dir", str(rules_dir))


def test_a_folder_gone_later_is_an_authority_exception_not_a_500(
    live: LiveService, rules_dir: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "sunat"
    shutil.copytree(rules_dir, copy)
    shop = new_shop(live, "rules-gone", authority_rules_dir=str(copy))
    shutil.rmtree(copy)
    with live.client(shop.slug, shop.token) as client:
        response = client.post("/api/documents", json=invoice_body())
        assert response.status_code == 200, response.text
        payload = response.json()
        assert payload["response"]["code"] == "0100", payload["response"]
        assert "authority_rules_dir" in payload["response"]["description"]
        assert payload["data"]["state_type_id"] == "01"  # registered: it can be sent again
