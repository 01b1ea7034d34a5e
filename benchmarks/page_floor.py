"""What a new Chromium tab of a Streamlit page costs whatever its data: the floor under Documentos.

Three throw-away Streamlit apps, each started once and opened ``--repeat`` times in a new browser
context (nothing cached, as ``benchmarks/store_pages.py``'s cold visits), timed from navigation until
drawn:

- *bare*: one subheader (Streamlit's own JavaScript, its websocket, one script run);
- *table*: the same with a ten-row ``st.dataframe`` (its grid's code, its canvas drawn);
- *charts*: the same with three small bar charts of ours (``dashboard.charts.show``: plotly.js's basic
  bundle imported once) besides the table: what Documentos shows, with almost no data.

Documentos' own figures (``store_pages.py``) sit on top of the *charts* floor; the difference is the page's
work. p50 and max, with the load average.
Run:  python benchmarks/page_floor.py --repeat 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import free_port  # noqa: E402
from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

HEADER = "import streamlit as st\nst.subheader('Documentos')\n"
TABLE = "import pandas as pd\nst.dataframe(pd.DataFrame({'a': range(10)}))\n"
CHARTS = (
    "import plotly.graph_objects as go\nfrom dashboard import charts\n"
    "for k in range(3):\n"
    "    charts.show(go.Figure(go.Bar(x=[1, 2, 3], y=[3, 1, 2])), key=f'c{k}')\n"
)
APPS = {"bare": HEADER, "table": HEADER + TABLE, "charts": HEADER + CHARTS + TABLE}
DRAWN = {
    "bare": "document.querySelector('h3') !== null",
    "table": "document.querySelector('[data-testid=stDataFrameResizable] canvas') !== null",
    "charts": "document.querySelector('[data-testid=stDataFrameResizable] canvas') !== null && "
    "document.querySelectorAll('[data-testid=facturadorChart] .bars path').length >= 3",
}


def load() -> str:
    return Path("/proc/loadavg").read_text().split()[0]


def serve(app: Path, port: int) -> subprocess.Popen[bytes]:
    """``streamlit run app`` on ``port`` (this checkout importable), up when it answers."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH")))),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--global.developmentMode", "false"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
            return process
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError(f"streamlit did not start for {app}") from None
            time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=False
        )
        for name, source in APPS.items():
            app = Path(folder) / f"{name}.py"
            app.write_text(source)
            port = free_port()
            process = serve(app, port)
            try:
                times, loads = [], []
                for attempt in range(args.repeat + 1):  # the first visit runs the app's imports: not timed
                    page = browser.new_page()
                    started = time.perf_counter()
                    page.goto(f"http://127.0.0.1:{port}/")
                    page.wait_for_function(DRAWN[name], timeout=60_000)
                    took = time.perf_counter() - started
                    page.close()
                    if attempt:
                        times.append(took)
                        loads.append(load())
            finally:
                process.terminate()
                process.wait(30)
            print(
                f"{name:<7}: p50 {statistics.median(times):5.2f} s  max {max(times):5.2f} s  "
                f"(n={len(times)}; load {', '.join(loads)})",
                flush=True,
            )
        browser.close()


if __name__ == "__main__":
    main()
