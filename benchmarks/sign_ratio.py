"""Build+sign against a bare RSA signature, tree against tree: issue 22's ratio, before and after a change.

``benchmarks/issue.py`` measures the ratio beside the HTTP figures (``InProcess.p10s``: check the body of a
10-line factura, build its XML and sign it, then one bare RSA-2048 signature, alternately, the p10 of
each). This runs only that, in a fresh process per sample and per source tree, the trees alternating
sample by sample (the load of the shared machine drifts: it touches both alike), and prints each
sample's ratio with the load average, then the medians.

``--callgrind`` counts instructions instead (valgrind's callgrind, insensitive to the load): N
build+signs and N bare signatures of one process, each counted apart (``--dump-before`` a marker call),
and their ratio. Instructions are not time: the RSA of OpenSSL does several times more work per cycle
than the interpreter, so this ratio is lower than the timed one; it moves when the Python work does.

Run:  python benchmarks/sign_ratio.py --tree /tmp/before --tree . --samples 7
      python benchmarks/sign_ratio.py --tree /tmp/before --tree . --callgrind
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve()


def sample(rounds: int, lines: int) -> dict[str, float]:
    """One sample in this process: p10 seconds of build+sign and of the bare RSA (``InProcess.p10s``)."""
    sys.path.insert(0, str(Path(os.environ["PYTHONPATH"]) / "benchmarks"))
    from issue import InProcess, invoice

    local = InProcess(invoice(lines))
    local.p10s(rounds // 4)  # warm-up beyond InProcess's own
    build, rsa = local.p10s(rounds)
    return {"build_sign": build, "rsa": rsa, "load": os.getloadavg()[0]}


def counted(documents: int, lines: int) -> None:
    """The work counted by ``--callgrind``: math.gcd marks where each part ends (callgrind dumps there)."""
    sys.path.insert(0, str(Path(os.environ["PYTHONPATH"]) / "benchmarks"))
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    from issue import InProcess, invoice

    local = InProcess(invoice(lines))
    for number in range(1, 51):
        local._once(number)
    data, key = b"x" * 2000, local.identity.key
    math.gcd(1, 1)  # dump 1: imports, key and warm-up
    for number in range(1, documents + 1):
        local._once(number)
    math.gcd(1, 1)  # dump 2: the build+signs
    for _ in range(documents):
        key.sign(data, padding.PKCS1v15(), hashes.SHA1())  # noqa: S303
    math.gcd(1, 1)  # dump 3: the bare signatures


def instructions(tree: str, documents: int, lines: int) -> tuple[float, float]:
    """Instructions of one build+sign and of one bare RSA signature in ``tree`` (callgrind)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            "--dump-before=math_gcd",
            f"--callgrind-out-file={out}",
            sys.executable,
            str(HERE),
            "--count",
            str(documents),
            "--lines",
            str(lines),
        ]
        env = {**os.environ, "PYTHONPATH": tree, "PYTHONHASHSEED": "0"}
        subprocess.run(command, env=env, capture_output=True, check=True)
        totals = []
        for path in sorted(glob.glob(f"{out}.*"), key=lambda name: int(name.rsplit(".", 1)[1])):
            summary = next(
                line for line in Path(path).read_text().splitlines() if line.startswith("summary:")
            )
            totals.append(int(summary.split()[1]))
    return totals[1] / documents, totals[2] / documents


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", action="append", help="A source tree to measure (default: this one).")
    parser.add_argument("--samples", type=int, default=7, help="processes per tree")
    parser.add_argument("--rounds", type=int, default=300, help="build+signs (and signatures) per sample")
    parser.add_argument("--lines", type=int, default=10, help="lines of the factura")
    parser.add_argument("--callgrind", action="store_true", help="count instructions (valgrind)")
    parser.add_argument("--documents", type=int, default=20, help="build+signs counted by --callgrind")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a timed sample
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)  # the work --callgrind counts
    args = parser.parse_args()
    if args.one:
        print(json.dumps(sample(args.rounds, args.lines)))
        return
    if args.count:
        counted(args.count, args.lines)
        return
    trees = [str(Path(t).resolve()) for t in args.tree or [HERE.parents[1]]]
    if args.callgrind:
        for tree in trees:
            build, rsa = instructions(tree, args.documents, args.lines)
            print(
                f"{tree}: build+sign {build / 1e6:.3f} M instructions, RSA {rsa / 1e6:.3f} M, "
                f"ratio {build / rsa:.3f}, without the RSA {(build - rsa) / 1e6:.3f} M"
            )
        return
    runs: dict[str, list[dict[str, float]]] = {tree: [] for tree in trees}
    for index in range(args.samples):
        for tree in trees if index % 2 == 0 else trees[::-1]:  # alternate: the load drifts
            command = [
                sys.executable,
                str(HERE),
                "--one",
                "--rounds",
                str(args.rounds),
                "--lines",
                str(args.lines),
            ]
            env = {**os.environ, "PYTHONPATH": tree}
            out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            got = json.loads(out.stdout.strip().splitlines()[-1])
            runs[tree].append(got)
            print(
                f"sample {index + 1} {tree}: build+sign {got['build_sign'] * 1e3:.3f} ms p10, RSA "
                f"{got['rsa'] * 1e3:.3f} ms p10, ratio {got['build_sign'] / got['rsa']:.2f}  "
                f"(load {got['load']:.2f})",
                flush=True,
            )
    medians = {}
    for tree in trees:
        ratios = [r["build_sign"] / r["rsa"] for r in runs[tree]]
        medians[tree] = statistics.median(ratios)
        print(
            f"{tree}: ratio p50 {medians[tree]:.2f}, max {max(ratios):.2f}, min {min(ratios):.2f} "
            f"({args.samples} samples of {args.rounds}); build+sign "
            f"{statistics.median(r['build_sign'] for r in runs[tree]) * 1e3:.3f} ms, RSA "
            f"{statistics.median(r['rsa'] for r in runs[tree]) * 1e3:.3f} ms (medians of the p10s)"
        )
    if len(trees) > 1:
        print(f"last/first ratio of the median ratios: {medians[trees[-1]] / medians[trees[0]]:.3f}")


if __name__ == "__main__":
    main()
