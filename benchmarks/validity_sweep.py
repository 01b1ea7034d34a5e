"""The validity sweep's throughput against the simulator: a fresh data directory, a tenant seeded with
``--documents`` documents over ``--days`` days (facturas, boletas declared in summaries, notes, voided
ones), then ``facturador validate`` for each month they fall in, the simulator's rate off
(``FACTURADOR_VALIDITY_RATE=0``) and the sweep's pace ``--rate``. Prints each month's documents and
documents a second, as the command reports them.

    python benchmarks/validity_sweep.py --documents 1000 --rate 1000
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def facturador(data: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FACTURADOR_VALIDITY_RATE": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "facturador.cli", "--data-dir", str(data), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"facturador {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=300)
    parser.add_argument("--days", type=int, default=20)
    parser.add_argument("--rate", type=float, default=1000.0, help="The sweep's queries a second.")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "data"
        facturador(data, "tenant", "create", "bench", "--ruc", "20100066603", "--name", "BENCH S.A.C.")
        started = time.perf_counter()
        print(
            facturador(
                data, "seed", "bench", "--documents", str(options.documents), "--days", str(options.days)
            )
            .strip()
            .splitlines()[-1]
        )
        print(f"seeded in {time.perf_counter() - started:.1f} s")
        today = dt.date.today()
        months = sorted({(today - dt.timedelta(days=d)).strftime("%Y-%m") for d in range(options.days + 1)})
        for month in months:
            started = time.perf_counter()
            out = facturador(data, "validate", "bench", month, "--rate", str(options.rate))
            wall = time.perf_counter() - started
            head = out.splitlines()[0]
            found = re.search(r"(\d+)/(\d+) documentos.*?([\d.]+) doc/s", head)
            print(f"{month}: {head}  (command wall time {wall:.1f} s, embedded service start included)")
            if found is None:
                print(out)
            tail = [line for line in out.splitlines()[1:] if line.strip()]
            print("  " + (tail[0] if tail else ""))


if __name__ == "__main__":
    main()
