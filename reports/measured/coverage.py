"""Do the identification's 95 % intervals hold 95 % of the time? (issue 28, goal 1)

Synthetic markers from the linear FEM (gravity-wall, N = 2, E = 3e3 Pa, nu = 0.35): 40 markers at random
points of random tetrahedra, their displacement interpolated from the FEM field, plus Gaussian noise of 1 %
of the largest marker displacement per component (given as the markers' sigma). Each of 100 seeds is
identified with ``pbdfit identify`` (same law and mesh); the script counts the seeds whose 95 % intervals
hold the true E and nu, and checks that noise-free markers give E and nu back to 1e-6.

    python reports/measured/coverage.py [--trials 100] [--out reports/measured/coverage.csv]

Needs the command line (PBDFIT_CLI, else target/release/pbdfit) and numpy. Deterministic: numpy's
generator seeded per trial; the CSV rows record the seed, the estimates, intervals and the pbdfit version.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SCENE, N, YOUNG, POISSON, MARKERS, NOISE = "gravity-wall", 2, 3e3, 0.35, 40, 0.01


def cli() -> str:
    for c in [os.environ.get("PBDFIT_CLI"), str(ROOT / "target" / "release" / "pbdfit")]:
        if c and Path(c).is_file():
            return c
    sys.exit("no pbdfit binary: cargo build --release -p pbdfit, or set PBDFIT_CLI")


def run(*args: str) -> dict:
    out = subprocess.run([cli(), *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip())
    return json.loads(out.stdout)


def markers(field: dict, seed: int, noise: float) -> str:
    rng = np.random.default_rng(seed)
    x = np.array(field["vertices"])
    u = np.array(field["displacements"])
    tets = np.array(field["tets"])
    rows = ["x,y,z,ux,uy,uz" + (",sigma" if noise > 0 else "")]
    chosen = []
    for _ in range(MARKERS):
        t = tets[rng.integers(len(tets))]
        w = rng.random(4) + 0.05
        w /= w.sum()
        chosen.append((w @ x[t], w @ u[t]))
    sigma = noise * max(np.linalg.norm(d) for _, d in chosen)
    for p, d in chosen:
        if noise > 0:
            d = d + rng.normal(0.0, sigma, 3)
        values = list(p) + list(d) + ([sigma] if noise > 0 else [])
        rows.append(",".join(repr(float(v)) for v in values))
    return "\n".join(rows) + "\n"


def identify(text: str) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(text)
    try:
        return run("identify", "--scene", SCENE, "--n", str(N), "--measured", f.name)
    finally:
        os.unlink(f.name)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--out", default=str(ROOT / "reports" / "measured" / "coverage.csv"))
    args = ap.parse_args()
    field = run("fem", "--scene", SCENE, "--n", str(N), "--young", str(YOUNG), "--poisson", str(POISSON))
    exact = identify(markers(field, 0, 0.0))
    e_err = abs(exact["young"] / YOUNG - 1)
    nu_err = abs(exact["poisson"] - POISSON)
    print(f"noise-free: E {exact['young']:.9e} (relative error {e_err:.1e}), nu {exact['poisson']:.9f} "
          f"(error {nu_err:.1e}), {exact['evaluations']} FEM solves")
    rows, inside_e, inside_nu, inside_both = [], 0, 0, 0
    for seed in range(1, args.trials + 1):
        r = identify(markers(field, seed, NOISE))
        lo_e, hi_e = r["young_interval_95"]
        lo_nu, hi_nu = r["poisson_interval_95"]
        e_in, nu_in = lo_e <= YOUNG <= hi_e, lo_nu <= POISSON <= hi_nu
        inside_e += e_in
        inside_nu += nu_in
        inside_both += e_in and nu_in
        rows.append(dict(seed=seed, young=r["young"], young_lo=lo_e, young_hi=hi_e, poisson=r["poisson"],
                         poisson_lo=lo_nu, poisson_hi=hi_nu, error=r["error"], young_inside=e_in,
                         poisson_inside=nu_in, pbdfit_version=r["pbdfit_version"]))
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    widths_e = sorted(r["young_hi"] / r["young_lo"] for r in rows)
    widths_nu = sorted(r["poisson_hi"] - r["poisson_lo"] for r in rows)
    n = len(rows)
    print(f"1 % noise, {n} seeds: true E inside its 95 % interval {inside_e}/{n}, true nu {inside_nu}/{n}, "
          f"both {inside_both}/{n}")
    print(f"median interval: E x{widths_e[n // 2]:.4f} (hi/lo), nu width {widths_nu[n // 2]:.4f}")


if __name__ == "__main__":
    main()
