"""What a fit to markers costs against a fit to the full field (the goal: at most twice).

gravity-wall at N = 4 and 8, the linear FEM with E = 1e3 Pa and nu = 0.3: 50 markers at random points of
random tetrahedra (seeded), their displacement interpolated from the FEM field, no noise. Each N times
``pbdfit fit --measured markers.csv`` against ``pbdfit fit`` (the default gradient search), alternating the
two, ``--repeats`` pairs, and prints the median wall times and the median of the pairs' ratios.

    python reports/measured/cost.py [--repeats 5]

Needs the command line (PBDFIT_CLI, else target/release/pbdfit) and numpy. Timings depend on the machine
and on what else runs; the ratio of alternating pairs is the figure to quote.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time

from synthetic import cli, markers_csv, run

SCENE, YOUNG, POISSON, MARKERS, SEED = "gravity-wall", 1e3, 0.3, 50, 50


def timed(*args: str) -> float:
    start = time.perf_counter()
    out = subprocess.run([cli(), *args], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    print("| N | fit to 50 markers (s) | fit to the full field (s) | ratio (median of pairs) |")
    print("| --- | --- | --- | --- |")
    for n in [4, 8]:
        common = ["fit", "--scene", SCENE, "--n", str(n)]
        field = run("fem", "--scene", SCENE, "--n", str(n), "--young", str(YOUNG), "--poisson", str(POISSON))
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write(markers_csv(field, MARKERS, SEED, 0.0))
        try:
            markers, full, ratios = [], [], []
            for _ in range(args.repeats):
                a = timed(*common, "--measured", f.name)
                b = timed(*common, "--young", str(YOUNG), "--poisson", str(POISSON))
                markers.append(a)
                full.append(b)
                ratios.append(a / b)
        finally:
            os.unlink(f.name)
        print(f"| {n} | {statistics.median(markers):.3f} | {statistics.median(full):.3f} | "
              f"{statistics.median(ratios):.2f} |")


if __name__ == "__main__":
    main()
