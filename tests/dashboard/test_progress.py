"""The connector's progress sentences (rate-limit waits, pages of a walk) reach the page from any thread:
the local store's sync asks for pages in a worker thread, and a sentence said there must show in the
sidebar as one said by the script's own thread, never raise ``NoSessionContext`` into the page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.dashboard.conftest import write_tenants
from tests.dashboard.test_app import texts
from tests.real_tenant.seed import seed
from tests.real_tenant.server import running, stand_in
from tests.real_tenant.variants import PRO9


@pytest.fixture(autouse=True)
def _tenant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    standin = stand_in(PRO9, limit=100_000)
    seed(standin.tenant)
    with running(standin):
        path = write_tenants(tmp_path / "tenants.toml", standin.root, standin.token)
        monkeypatch.setenv("FACTURADOR_TENANTS", str(path))
        yield


def _script() -> None:
    import threading

    import streamlit as st

    from dashboard.session import sidebar

    active = sidebar()
    assert active is not None
    failures: list[str] = []

    def worker() -> None:
        try:
            active.client.progress("Esperando 42 s: la empresa atiende 60 solicitudes por minuto.")
        except BaseException as exc:  # what the store's sync would raise into the page
            failures.append(type(exc).__name__)

    thread = threading.Thread(target=worker, name="store-pages")
    thread.start()
    thread.join()
    st.write(f"fallas: {failures}")


def test_a_sentence_said_in_a_worker_thread_reaches_the_sidebar() -> None:
    at = AppTest.from_function(_script, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert "fallas: []" in texts(at.markdown)
    assert "Esperando 42 s: la empresa atiende 60 solicitudes por minuto." in texts(at.sidebar.caption)


def test_a_sentence_said_by_the_script_still_reaches_the_sidebar() -> None:
    def script() -> None:
        from dashboard.session import sidebar

        active = sidebar()
        assert active is not None
        active.client.progress("Leyendo la página 2 de 5.")

    at = AppTest.from_function(script, default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert "Leyendo la página 2 de 5." in texts(at.sidebar.caption)
