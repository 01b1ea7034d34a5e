"""Every hook of ``connector.hookspecs`` (one ``test_hook_<name>`` each), the plugin host
(registration order, isolation per client, entry points, plugins_dir) and the meta-tests: every hookspec
is documented in docs/plugin_hooks.md and has a test here."""

from __future__ import annotations

import importlib.metadata
import inspect
import logging
import re
import socket
from pathlib import Path
from typing import Any

import pluggy
import pytest

from connector import (
    Client,
    FieldError,
    FormField,
    IssueResult,
    ValidationError,
    hookimpl,
)
from connector import hookspecs as hookspecs_module
from connector import plugins as plugins_module
from connector.plugins import DEFAULT_PLUGINS, PluginError, make_plugin_manager
from tests.common import Recorder
from tests.conftest import LiveService
from tests.plugins import sample_plugin
from tests.samples.bodies import invoice_body
from tests.samples.tenants import ACME, ACME_TOKEN

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "plugin_hooks.md"


def hookspec_names() -> list[str]:
    return [
        name
        for name, function in inspect.getmembers(hookspecs_module, inspect.isfunction)
        if name.startswith("facturador_")
    ]


def closed_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


# -- one test per hook -----------------------------------------------------------------------------


def test_hook_facturador_form_fields(client: Client) -> None:
    client.plugin_manager.register(sample_plugin)
    fields = client.documents.form_fields("01")
    keys = [f.key for f in fields]
    assert keys[:4] == [
        "detraction.code",
        "detraction.percent",
        "detraction.account",
        "detraction.payment_method",
    ]
    assert keys[4] == "instalments.rows" and keys[-1] == "sample.note"  # built-ins first
    assert all(isinstance(f, FormField) and f.section for f in fields)
    assert [f.key for f in client.documents.form_fields("03")] == ["sample.note"]
    assert client.summaries.form_fields() == []

    class Broken:
        @hookimpl
        def facturador_form_fields(self) -> list[str]:
            return ["not a field"]

    client.plugin_manager.register(Broken())
    with pytest.raises(PluginError):
        client.documents.form_fields()


def test_hook_facturador_prepare_payload(live: LiveService, tmp_path: Path) -> None:
    first, second = (
        Recorder(name="first", prepare=Recorder.ordered),
        Recorder(name="second", prepare=Recorder.ordered),
    )

    class Early(Recorder):
        @hookimpl(tryfirst=True)
        def facturador_prepare_payload(self, family: str, payload: dict[str, Any]) -> dict[str, Any] | None:
            return super().facturador_prepare_payload(family, payload)

    host = make_plugin_manager([first, second, Early(name="early", prepare=Recorder.ordered)])
    payload = {"serie_documento": "F001"}
    prepared = host.prepare_payload("documents", payload, {})
    assert prepared["order"] == ["early", "first", "second"]  # tryfirst, then registration order
    assert second.calls[0][2]["order"] == ["early", "first"]  # each gets the previous output
    assert payload == {"serie_documento": "F001"}  # the input is never modified

    # over HTTP: the tenant plugin enriches the payload from a form value and the service accepts it
    with Client(live.base_url(ACME), ACME_TOKEN, cache=False, plugins=[sample_plugin]) as client:
        result = client.documents.issue(invoice_body(), form_values={"sample.note": "Pedido 77"})
        assert result.state_type_id == "05"
        assert client.documents.issue(invoice_body()).state_type_id == "05"  # None: no change


def test_hook_facturador_prepare_payload_contract() -> None:
    class Mutates:
        @hookimpl
        def facturador_prepare_payload(self, payload: dict[str, Any]) -> None:
            payload["items"].append({"x": 1})

    class WrongType:
        @hookimpl
        def facturador_prepare_payload(self, payload: dict[str, Any]) -> list[Any]:
            return []

    class Wrapper:
        @hookimpl(wrapper=True)
        def facturador_prepare_payload(self) -> Any:
            return (yield)

    body = invoice_body()
    with pytest.raises(PluginError, match="wrappers are not supported"):
        make_plugin_manager([Wrapper()]).prepare_payload("documents", body, {})
    with pytest.raises(PluginError, match="in place"):
        make_plugin_manager([Mutates()]).prepare_payload("documents", body, {})
    with pytest.raises(PluginError, match="dict or None"):
        make_plugin_manager([WrongType()]).prepare_payload("documents", body, {})
    assert body == invoice_body()


def test_hook_facturador_validate_payload(live: LiveService) -> None:
    class Strict:
        @hookimpl
        def facturador_validate_payload(self, family: str, payload: dict[str, Any]) -> list[Any]:
            if payload.get("numero_orden_de_compra"):
                return []
            return ["Falta la orden de compra.", FieldError("numero_orden_de_compra", "Obligatoria.")]

    with Client(closed_url(), ACME_TOKEN, cache=False, plugins=[Strict()]) as offline:
        with pytest.raises(ValidationError) as caught:  # raised before any HTTP call
            offline.documents.issue(invoice_body(numero_orden_de_compra=""))
    error = caught.value
    assert error.status is None and error.error_code == "PLUGIN_VALIDATION"
    assert error.field_errors == [
        FieldError("", "Falta la orden de compra."),
        FieldError("numero_orden_de_compra", "Obligatoria."),
    ]
    assert error.message == "No se envió el comprobante: Falta la orden de compra. (y 1 problema(s) más)"
    with Client(live.base_url(ACME), ACME_TOKEN, cache=False, plugins=[Strict()]) as client:
        assert client.documents.issue(invoice_body()).state_type_id == "05"


def test_hook_facturador_issued(live: LiveService, caplog: pytest.LogCaptureFixture) -> None:
    sample_plugin.SEEN.clear()

    class Fails:
        @hookimpl
        def facturador_issued(self, payload: dict[str, Any]) -> None:
            payload.clear()  # a copy: harmless
            raise RuntimeError("the plugin's own problem")

    with Client(live.base_url(ACME), ACME_TOKEN, cache=False, plugins=[Fails(), sample_plugin]) as client:
        with caplog.at_level(logging.ERROR, logger="connector"):
            result = client.documents.issue(invoice_body())
        assert sample_plugin.SEEN == [("documents", result)] and isinstance(result, IssueResult)
        assert "failed in facturador_issued" in caplog.text and "the plugin's own problem" in caplog.text
        body = invoice_body()
        body["totales"]["total_venta"] = 1
        with pytest.raises(ValidationError):
            client.documents.issue(body)
        assert len(sample_plugin.SEEN) == 1  # not called when issuing failed


# -- the host ----------------------------------------------------------------------------------------


def test_built_ins_are_registered_on_every_manager() -> None:
    names = [p.name for p in make_plugin_manager().list_plugins()]
    assert names == list(DEFAULT_PLUGINS)
    info = make_plugin_manager().list_plugins()[0]
    assert "facturador_prepare_payload" in info.hooks


def test_an_implementation_hears_only_the_families_its_marker_names() -> None:
    heard: list[tuple[str, str]] = []

    class Plugin:
        @hookimpl(families=("documents", "dispatches"))
        def facturador_validate_payload(self, payload: dict[str, Any]) -> list[str]:
            heard.append(("marked", payload["serie_documento"]))
            return []

        @hookimpl(families="summaries")
        def facturador_form_fields(self, document_type: str | None) -> list[FormField]:
            return [FormField("plugin.day", "Día", "date")]

    class Everyone:
        @hookimpl
        def facturador_validate_payload(self, family: str, payload: dict[str, Any]) -> list[str]:
            heard.append((family, payload["serie_documento"]))
            return []

    host = make_plugin_manager([Plugin(), Everyone()])
    for family in ("documents", "voided", "dispatches"):
        host.validate_payload(family, {"serie_documento": family})
    assert heard == [
        ("marked", "documents"),
        ("documents", "documents"),
        ("voided", "voided"),
        ("marked", "dispatches"),
        ("dispatches", "dispatches"),
    ]
    assert [f.key for f in host.form_fields("summaries")] == ["plugin.day"]
    assert host.form_fields("documents", "03") == []  # the built-ins offer nothing for boletas
    assert hookspecs_module.families_served(Plugin.facturador_validate_payload) == {"documents", "dispatches"}
    assert hookspecs_module.families_served(Everyone.facturador_validate_payload) is None

    with pytest.raises(ValueError, match="document"):
        hookimpl(families="document")  # misspelt: it would never be called
    with pytest.raises(ValueError):
        hookimpl(families=())


def test_each_client_has_its_own_manager(live: LiveService) -> None:
    with (
        Client(live.base_url(ACME), ACME_TOKEN, cache=False, plugins=[sample_plugin]) as with_plugin,
        Client(live.base_url(ACME), ACME_TOKEN, cache=False) as without,
    ):
        assert isinstance(with_plugin.plugin_manager.pm, pluggy.PluginManager)
        assert "sample.note" in [f.key for f in with_plugin.documents.form_fields()]
        assert "sample.note" not in [f.key for f in without.documents.form_fields()]


def test_plugins_by_import_path_and_registration_errors() -> None:
    host = make_plugin_manager(["tests.plugins.sample_plugin"])
    assert "tests.plugins.sample_plugin" in [p.name for p in host.list_plugins()]
    with pytest.raises(PluginError):
        host.register(sample_plugin)  # already registered
    host.unregister("tests.plugins.sample_plugin")
    assert host.register("tests.plugins.sample_plugin") == "tests.plugins.sample_plugin"

    class Misspelt:
        @hookimpl
        def facturador_prepare_paylod(self, payload: dict[str, Any]) -> None:
            return None

    with pytest.raises(pluggy.PluginValidationError):
        make_plugin_manager([Misspelt()])


def test_plugins_dir(tmp_path: Path) -> None:
    (tmp_path / "b_second.py").write_text(
        "from connector import hookimpl\n"
        "@hookimpl\n"
        "def facturador_prepare_payload(payload):\n"
        "    return {**payload, 'order': [*payload.get('order', []), 'b']}\n"
    )
    (tmp_path / "a_first.py").write_text(
        "from dataclasses import dataclass\n"
        "from connector import hookimpl\n"
        "@dataclass\n"
        "class Mark:\n"
        "    name: str\n"
        "@hookimpl\n"
        "def facturador_prepare_payload(payload):\n"
        "    return {**payload, 'order': [*payload.get('order', []), Mark('a').name]}\n"
    )
    (tmp_path / "notes.txt").write_text("not a plugin")
    one = make_plugin_manager(plugins_dir=tmp_path)
    two = make_plugin_manager(plugins_dir=str(tmp_path))
    assert one.prepare_payload("documents", {}, {})["order"] == ["a", "b"]
    assert two.prepare_payload("documents", {}, {})["order"] == ["a", "b"]
    assert [p.name for p in one.list_plugins()][-2:] == [
        str(tmp_path / "a_first.py"),
        str(tmp_path / "b_second.py"),
    ]
    with pytest.raises(PluginError, match="not a directory"):
        make_plugin_manager(plugins_dir=tmp_path / "missing")


def fake_entry_points() -> list[importlib.metadata.EntryPoint]:
    return [
        importlib.metadata.EntryPoint("sample", "tests.plugins.sample_plugin", "facturador"),
        importlib.metadata.EntryPoint("spot", "plugins.detraction", "facturador"),
    ]


def test_entry_points_only_on_request_and_filtered_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plugins_module, "_entry_points", fake_entry_points)

    def names(**kwargs: Any) -> list[str]:
        return [p.name for p in make_plugin_manager(**kwargs).list_plugins()]

    assert names() == list(DEFAULT_PLUGINS)  # never loaded unless asked
    assert names(load_entrypoints=True) == [*DEFAULT_PLUGINS, "sample"]  # "spot" is a built-in already
    monkeypatch.setenv("FACTURADOR_LOAD_PLUGINS", "")
    assert names(load_entrypoints=True) == list(DEFAULT_PLUGINS)
    monkeypatch.setenv("FACTURADOR_LOAD_PLUGINS", "other, sample")
    assert names(load_entrypoints=True) == [*DEFAULT_PLUGINS, "sample"]
    monkeypatch.setenv("FACTURADOR_LOAD_PLUGINS", "other")
    assert names(load_entrypoints=True) == list(DEFAULT_PLUGINS)


def test_installed_entry_points_are_read_from_the_project_group() -> None:
    assert plugins_module.ENTRYPOINT_GROUP == "facturador"
    assert all(ep.group == "facturador" for ep in plugins_module._entry_points())


# -- meta-tests --------------------------------------------------------------------------------------


def test_every_hookspec_has_a_docstring() -> None:
    for name in hookspec_names():
        assert inspect.getdoc(getattr(hookspecs_module, name)), name


def test_every_hookspec_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    headings = re.findall(r"^### (\w+)\(([^)]*)\)", text, re.MULTILINE)
    documented = {name: [a.strip() for a in args.split(",")] for name, args in headings}
    for name in hookspec_names():
        assert name in documented, f"{name} has no '### {name}(...)' section in {DOCS.name}"
        parameters = list(inspect.signature(getattr(hookspecs_module, name)).parameters)
        assert documented[name] == parameters, name
        for argument in parameters:
            assert f"``{argument}``" in text or f"`{argument}`" in text


def test_every_hookspec_has_a_test() -> None:
    tests = {
        name
        for path in Path(__file__).parent.glob("test_*.py")
        for name in re.findall(r"^def (test_hook_\w+)\(", path.read_text(encoding="utf-8"), re.MULTILINE)
    }
    for name in hookspec_names():
        assert f"test_hook_{name}" in tests, f"no test_hook_{name}"
