"""Do the identification's 95 % intervals hold 95 % of the time?

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
import os
import tempfile

from synthetic import ROOT, markers_csv, run

SCENE, N, YOUNG, POISSON, MARKERS, NOISE = "gravity-wall", 2, 3e3, 0.35, 40, 0.01


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
    exact = identify(markers_csv(field, MARKERS, 0, 0.0))
    e_err = abs(exact["young"] / YOUNG - 1)
    nu_err = abs(exact["poisson"] - POISSON)
    print(f"noise-free: E {exact['young']:.9e} (relative error {e_err:.1e}), nu {exact['poisson']:.9f} "
          f"(error {nu_err:.1e}), {exact['evaluations']} FEM solves")
    rows, inside_e, inside_nu, inside_both = [], 0, 0, 0
    for seed in range(1, args.trials + 1):
        r = identify(markers_csv(field, MARKERS, seed, NOISE))
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
