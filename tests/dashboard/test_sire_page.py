"""Registro de ventas closes a month in SIRE in order: the proposal asked and compared (accept and replace
disabled until then), accepted, every ticket's states shown, the preliminar registered, the month recorded
closed from SIRE and the record of what was sent and when shown; against the live service's SIRE
simulator (``/sire``) over HTTP."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from connector.closes import MonthCloses
from connector.store import closes_path
from facturador.authority.sire.simulator import SIMULATOR_CLIENT_ID, SIMULATOR_CLIENT_SECRET
from tests.conftest import LiveService
from tests.dashboard.conftest import Issued
from tests.dashboard.test_app import texts
from tests.dashboard.test_pages import page
from tests.samples.tenants import ACME_RUC


def test_the_register_page_closes_a_month_in_sire(
    tenants: Path, issued: Issued, live: LiveService, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {
        "SIRE_CLIENT_ID": SIMULATOR_CLIENT_ID,
        "SIRE_CLIENT_SECRET": SIMULATOR_CLIENT_SECRET,
        "SIRE_SOL_USER": "MODDATOS",
        "SIRE_SOL_PASSWORD": "MODDATOS",
        "FACTURADOR_SIRE_URL": f"{live.root}/sire",
        "SIRE_RUC": ACME_RUC,  # a month without documents does not name its issuer
    }.items():
        monkeypatch.setenv(name, value)
    at = page("views/register.py")
    two_months_ago = at.selectbox(key="register_month").options[2]  # its proposal is always offered
    at.selectbox(key="register_month").set_value(two_months_ago).run()
    assert not at.exception, at.exception
    assert at.button(key="sire_accept").proto.disabled and at.button(key="sire_replace").proto.disabled
    at.button(key="sire_compare").click().run()
    assert not at.exception, at.exception
    shown = "\n".join(block.value for block in at.code)
    assert "propuesta pedida: ticket" in shown and "(propuesta): Terminado (06)" in shown
    assert "comparación:" in shown and "nada se envió a SUNAT" in shown
    assert not at.button(key="sire_accept").proto.disabled
    at.button(key="sire_accept").click().run()
    assert not at.exception, at.exception
    shown = "\n".join(block.value for block in at.code)
    assert "propuesta aceptada: ticket" in shown and "(preliminar): Terminado (06)" in shown
    assert "Mes cerrado en SIRE" in texts(at.success)
    base_url = tomllib.loads(tenants.read_text(encoding="utf-8"))["tenants"]["acme"]["base_url"]
    month, year = two_months_ago.split("/")
    record = MonthCloses(closes_path(base_url, os.environ["FACTURADOR_STORE_DIR"])).record(f"{year}-{month}")
    assert record is not None and record.source == "sire"
    at.run()  # the page again: the close and what was sent, when
    assert any("Cerrado en SIRE" in text for text in texts(at.success).split("\n"))
    assert [frame for frame in at.dataframe if "Qué" in frame.value.columns]
    assert SIMULATOR_CLIENT_SECRET not in texts(at.markdown) + texts(at.caption)
