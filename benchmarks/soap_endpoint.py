"""What the SOAP endpoint adds to the simulator's answer, per document.

The same kind of document (a signed factura of today, one line, each with its own number) is answered N
times by the built-in simulator in this process (``ServiceContext.simulator(...).send_bill``, on the
service's database, as the in-process gateway does) and N times by ``facturador sunat`` in a child
process on the same data directory, over HTTP on loopback (one kept-alive connection, the envelope built
and base64-encoded inside the timing, the answer parsed and its CDR unzipped). The two alternate, so the
machine's neighbours weigh on both alike; medians and the 90th percentile are printed with their ratio.

Run:  python benchmarks/soap_endpoint.py [--documents 200] [--database postgresql+psycopg://user@host/postgres]
"""

from __future__ import annotations

import argparse
import base64
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENVELOPE = (
    '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" '
    'xmlns:ser="http://service.sunat.gob.pe"><soapenv:Header><wsse:Security xmlns:wsse="http://docs.oasis-'
    'open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"><wsse:UsernameToken><wsse:Username>'
    "{ruc}MODDATOS</wsse:Username><wsse:Password>moddatos</wsse:Password></wsse:UsernameToken>"
    "</wsse:Security></soapenv:Header><soapenv:Body><ser:sendBill><fileName>{name}.zip</fileName>"
    "<contentFile>{content}</contentFile></ser:sendBill></soapenv:Body></soapenv:Envelope>"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=200, help="documents through each path")
    parser.add_argument(
        "--database",
        default=None,
        help="a PostgreSQL server's URL: a fresh database is made there and dropped after (default: SQLite "
        "in a temporary directory)",
    )
    options = parser.parse_args()
    sys.path.insert(0, str(ROOT))

    import httpx
    from lxml import etree

    from facturador.authority.cdr import read_cdr
    from facturador.config import Settings
    from facturador.context import ServiceContext
    from facturador.store.models import DEFAULT_SETTINGS
    from facturador.ubl.signing import SigningIdentity, generate_identity
    from sunat.calendar import peru_today
    from sunat.identity import ruc_check_digit
    from tests.conftest import _fresh_postgres, free_port
    from tests.samples.ubl_xml import filename_for, invoice, package

    database, drop = _fresh_postgres(options.database) if options.database else (None, None)
    settings = Settings.resolve(Path(tempfile.mkdtemp(prefix="soap-bench-")), database)
    context = ServiceContext(settings)
    first10 = "20" + str(uuid.uuid4().int % 10**8).zfill(8)
    ruc = first10 + str(ruc_check_digit(first10))
    identity = SigningIdentity.from_pem(*generate_identity(ruc, "BENCH S.A.C."))
    documents = []
    for number in range(1, 2 * options.documents + 1):
        root = invoice(ruc=ruc, doc_id=f"F001-{number}", issue_date=peru_today())
        documents.append(package(root, identity, filename_for(root, ruc)))

    port = free_port()
    command = [sys.executable, "-m", "facturador.cli", "sunat", "--port", str(port)]
    server = subprocess.Popen(command, env={**os.environ, **settings.export()}, cwd=ROOT)
    url = f"http://127.0.0.1:{port}/ol-ti-itcpfegem-beta/billService"
    in_process, over_soap = [], []
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(url + "?wsdl", timeout=2).raise_for_status()
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("facturador sunat did not start") from None
                time.sleep(0.2)
        with httpx.Client(timeout=60) as client:
            for index in range(options.documents):
                name, data = documents[2 * index]
                started = time.perf_counter()
                answer = context.simulator(ruc, DEFAULT_SETTINGS).send_bill(name, data)
                in_process.append(time.perf_counter() - started)
                assert answer.code == "0", answer

                name, data = documents[2 * index + 1]
                started = time.perf_counter()
                body = ENVELOPE.format(ruc=ruc, name=name, content=base64.b64encode(data).decode())
                response = client.post(url, content=body.encode(), headers={"SOAPAction": "urn:sendBill"})
                content = etree.fromstring(response.content).findtext(".//applicationResponse") or ""
                code = read_cdr(base64.b64decode(content)).code
                over_soap.append(time.perf_counter() - started)
                assert code == "0", response.text[:300]
    finally:
        server.terminate()
        server.wait(timeout=30)
        context.engine.dispose()
        if drop is not None:
            drop()

    def line(label: str, samples: list[float]) -> tuple[float, float]:
        median = statistics.median(samples) * 1000
        p90 = statistics.quantiles(samples, n=10)[-1] * 1000
        print(f"{label:<34} median {median:7.2f} ms   p90 {p90:7.2f} ms")
        return median, p90

    store = "PostgreSQL" if options.database else "SQLite"
    print(f"{options.documents} documents each, {store}")
    base, base90 = line("in process (simulator.send_bill)", in_process)
    soap, soap90 = line("over SOAP (facturador sunat)", over_soap)
    print(f"SOAP / in process: median x{soap / base:.2f} (+{soap - base:.2f} ms), p90 x{soap90 / base90:.2f}")


if __name__ == "__main__":
    main()
