"""The README's examples run as written from a clone: the curl example that issues a factura from the
repository's body file, and the connector example. Their code is read from README.md, so these tests break
when the README drifts. The service is the live one of the test session, with a tenant like the demo's
(slug, token, strict authority mode); only the demo's address in the code is swapped for the live one's."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from facturador.cli import DEMO_NAME, DEMO_SLUG, DEMO_TOKEN
from facturador.domain.document_schema import DOCUMENT
from facturador.domain.tenants import create_tenant
from sunat.calendar import peru_today
from tests import reference
from tests.conftest import LiveService

REPOSITORY = Path(__file__).resolve().parents[1]
README = REPOSITORY / "README.md"
DEMO_ROOT = "http://127.0.0.1:8000"  # where `bash scripts/demo.sh` serves


def fenced_block(section: str, language: str) -> str:
    """The first ```language block under the ``## section`` heading of README.md."""
    text = README.read_text(encoding="utf-8")
    heading = f"\n## {section}\n"
    assert heading in text, f"README.md has no section {section!r}"
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    match = re.search(rf"```{language}\n(.*?)```", text[start : end if end != -1 else None], re.S)
    assert match, f"README.md's section {section!r} has no {language} block"
    return match.group(1)


def against(live: LiveService, code: str) -> str:
    """The README's code pointed at the live service instead of the demo's address."""
    assert DEMO_ROOT in code, f"the example no longer talks to the demo at {DEMO_ROOT}"
    return code.replace(DEMO_ROOT, live.root)


#: The demo's RUC is ACME's in the live service, and the simulated SUNAT would take the demo's F001-1 for
#: ACME's, already received; any other valid RUC will do, the examples do not name it.
README_DEMO_RUC = "20478005017"


@pytest.fixture(scope="module")
def demo(live: LiveService) -> LiveService:
    """The live service with a tenant as ``facturador demo`` creates it: its slug, token, name and
    strict authority mode."""
    with live.context.session() as session, session.begin():
        create_tenant(
            session,
            live.settings,
            DEMO_SLUG,
            ruc=README_DEMO_RUC,
            name=DEMO_NAME,
            token=DEMO_TOKEN,
            overrides={"authority_mode": "strict"},
        )
    return live


def run_bash(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=120,
    )


needs_curl = pytest.mark.skipif(shutil.which("curl") is None, reason="the README's API example uses curl")


@needs_curl
def test_the_curl_example_issues_a_factura_dated_today(demo: LiveService) -> None:
    result = run_bash(against(demo, fenced_block("Trying the API", "bash")))

    assert result.returncode == 0, result.stderr + result.stdout
    answer = json.loads(result.stdout)
    assert answer["success"] is True
    number = answer["data"]["number"]
    assert re.fullmatch(r"F001-\d+", number)
    assert answer["data"]["state_type_id"] == "05", answer["response"]  # accepted in the demo's mode
    assert answer["response"]["description"] == f"La Factura numero {number}, ha sido aceptada"
    today = peru_today().isoformat()
    with demo.client(DEMO_SLUG, DEMO_TOKEN) as client:
        listed = client.get(f"/api/documents/lists/{today}/{today}").json()["data"]
    assert answer["data"]["external_id"] in {row["external_id"] for row in listed}


@needs_curl
def test_the_curl_example_fails_loudly_with_the_error_body(demo: LiveService) -> None:
    script = against(demo, fenced_block("Trying the API", "bash"))
    assert DEMO_TOKEN in script

    result = run_bash(script.replace(DEMO_TOKEN, "not-the-demo-token"))

    assert result.returncode == 22  # curl's "HTTP error" exit code
    assert json.loads(result.stdout) == {
        "success": False,
        "message": "No se encuentra autenticado",
        "error_code": "UNAUTHENTICATED",
        "errors": [],
    }
    assert "401" in result.stderr


def test_the_connector_example_issues_voids_and_declares(demo: LiveService) -> None:
    code = against(demo, fenced_block("Using the connector", "python"))

    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPOSITORY, capture_output=True, text=True, timeout=180
    )

    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 3, result.stdout
    issued, voided, declared = result.stdout.splitlines()
    number = issued.split()[0]
    assert issued == f"{number} Aceptado La Factura numero {number}, ha sido aceptada"
    assert re.fullmatch(r"True 0 La Comunicación de baja RA-\d{8}-\d+, ha sido aceptada", voided)
    assert re.fullmatch(r"B001-\d+ True El Resumen diario RC-\d{8}-\d+, ha sido aceptado", declared)


def test_the_readme_and_the_contract_give_the_bound_the_service_enforces() -> None:
    """The additional information of a factura: the README's largest accepted factura and the contract's
    table of limits say what the declaration enforces (the README once said 3,000 for a bound of 1,000)."""
    limit = DOCUMENT.fields["informacion_adicional"].max_length
    readme = " ".join(README.read_text(encoding="utf-8").split())
    contract = (REPOSITORY / "docs" / "api_contract.md").read_text(encoding="utf-8")
    stated = re.findall(r"([\d,]+) characters of additional information", readme)
    assert stated and {int(number.replace(",", "")) for number in stated} == {limit}, stated
    assert f"| `informacion_adicional` | {limit} |" in contract


def test_the_readme_says_how_to_get_what_ci_installs() -> None:
    """Every Debian package `.ci/run` installs for the tests (and the reference folder) is named in the
    README's table of what skips without it, with its `apt-get install`."""
    ci = (REPOSITORY / ".ci" / "run").read_text(encoding="utf-8")
    packages = re.findall(r"need_apt\+=\((\S+)\)", ci)
    assert {"postgresql", "poppler-utils", "zbar-tools", "chromium"} <= set(packages), packages
    section = README.read_text(encoding="utf-8").split("### What some tests need", 1)
    assert len(section) == 2, "README.md has no section on what some tests need"
    text = section[1].split("\n## ", 1)[0]
    for package in packages:
        assert f"apt-get install {package}" in text, package
        assert package in text.split("All at once:", 1)[1], package
    for variable in (
        "FACTURADOR_REQUIRE_SHARED",
        "FACTURADOR_REQUIRE_BROWSER",
        "FACTURADOR_REQUIRE_POSTGRES",
    ):
        assert variable in ci and variable in text
    assert f"`../{reference.NAME}`" in text


def example(name: str, **placeholders: str) -> dict[str, object]:
    """The body docs/examples/``name`` with its placeholders filled in, as the README's sed does."""
    text = (REPOSITORY / "docs" / "examples" / name).read_text(encoding="utf-8")
    for placeholder, value in {"YYYY-MM-DD": peru_today().isoformat(), **placeholders}.items():
        text = text.replace(placeholder, value)
    body: dict[str, object] = json.loads(text)
    return body


def test_the_example_bodies_issue_declare_and_void(demo: LiveService) -> None:
    """docs/examples/: a boleta, the daily summary that declares it, and the voided communication of a
    factura, each accepted as it is (today's date and the factura's external_id filled in)."""
    with demo.client(DEMO_SLUG, DEMO_TOKEN) as client:
        boleta = client.post("/api/documents", json=example("boleta.json"))
        assert boleta.status_code == 200, boleta.text
        assert re.fullmatch(r"B001-\d+", boleta.json()["data"]["number"]), boleta.text
        summary = client.post("/api/summaries", json=example("summary.json"))
        assert summary.status_code == 200, summary.text
        assert summary.json()["success"] is True and summary.json()["data"]["ticket"], summary.text
        factura = client.post("/api/documents", json=example("factura.json"))
        assert factura.status_code == 200, factura.text
        external_id = factura.json()["data"]["external_id"]
        voided = client.post("/api/voided", json=example("voided.json", EXTERNAL_ID=external_id))
        assert voided.status_code == 200, voided.text
        assert voided.json()["success"] is True and voided.json()["data"]["ticket"], voided.text
