#!/usr/bin/env python3
"""Do the `jolt` profile's fitted parameters give, inside Jolt itself, the error pbdfit reports?

For each case (scene, N, material, dt, mNumIterations) it
  (a) fits the profile: `pbdfit fit --model jolt ... --json` (the edge and volume compliances, the error e);
  (b) runs the fitted body through Jolt (`jolt_rest`, crates.io oxijolt, f32) at several origins (the same
      body translated: Jolt's own f32 spread) and averages the rest states;
  (c) computes the error of Jolt's rest state against the same FEM reference (`pbdfit fem --json`), with the
      fit's metric: the mean over the vertices the FEM moves (not held) of |u - u_fem|^2 / |u_fem|^2;
  (d) reports e_jolt / e_pbdfit - 1 (the goal: within 1 %) and, for scale, the same ratio for each origin.

Usage:
    python3 benchmarks/engines/jolt_fitted.py [--pbdfit PATH] [--jolt-rest PATH] [--out DIR]

Writes DIR/jolt_fitted.txt and DIR/jolt_fitted.json (DIR: benchmarks/engines/results). Exit status 0 when
every case is within --goal (0.01), 1 otherwise, 2 on a setup error. Building jolt_rest: README.md here.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import jolt_check as jc  # noqa: E402 (the body, Jolt runner and cube checks are shared)

# Scenes where the profile reaches the FEM closely at Jolt's usual settings, and one where it does not.
CASES = [
    {"scene": "gravity-wall", "n": 2, "young": "1e3", "poisson": "0.3", "dt": "1/60", "iterations": 5},
    {"scene": "gravity-wall", "n": 4, "young": "1e3", "poisson": "0.3", "dt": "1/60", "iterations": 8},
    {"scene": "gravity-ceiling", "n": 2, "young": "1e3", "poisson": "0.3", "dt": "1/60", "iterations": 5},
    {"scene": "gravity-floor", "n": 2, "young": "3e2", "poisson": "0.3", "dt": "1/60", "iterations": 10},
]
ORIGINS = jc.ORIGINS
LINEAR_DAMPING = 0.1


def run(cmd: list[str]) -> dict:
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
    return json.loads(res.stdout)


def fit_error(u, u_fem, held) -> float:
    """pbdfit's error: mean over the vertices the FEM moves (not held) of |u - u_fem|^2 / |u_fem|^2."""
    terms = [
        jc.norm([a - b for a, b in zip(p, q)]) ** 2 / jc.norm(q) ** 2
        for i, (p, q) in enumerate(zip(u, u_fem))
        if not held[i] and jc.norm(q) > 0.0
    ]
    return sum(terms) / len(terms)


def case(args, c: dict) -> dict:
    material = ["--young", c["young"], "--poisson", c["poisson"]]
    setting = ["--dt", c["dt"], "--nit", str(c["iterations"]), "--setting", f"linear_damping={LINEAR_DAMPING}"]
    body = ["--scene", c["scene"], "--n", str(c["n"])]
    fit = run([args.pbdfit, "fit", *body, *material, "--model", "jolt", *setting, "--json"])
    fitted = fit["parameters"]
    point = {"edge_compliance": fitted["edge_compliance"], "volume_compliance": fitted["volume_compliance"],
             "iterations": c["iterations"], "linear_damping": LINEAR_DAMPING, "dt": c["dt"]}
    sim = jc.run_pbdfit(args.pbdfit, c["scene"], c["n"], point)
    fem = run([args.pbdfit, "fem", *body, *material, "--json"])
    u_fem = fem["displacements"]
    held = [False] * len(u_fem)
    for i in sim["fixed"]:
        held[i] = True
    e_pbdfit = fit["error"]
    e_sim = fit_error(sim["displacements"], u_fem, held)
    dyn = dict(tol=args.tol, block=args.block, average=args.average, max_steps=args.max_steps)
    t0 = time.perf_counter()
    jolt = [jc.run_jolt(args.jolt_rest, jc.jolt_body(sim, point, origin=o, **dyn)) for o in ORIGINS]
    u_j = [j["displacements"] for j in jolt]
    per_origin = [fit_error(u, u_fem, held) for u in u_j]
    e_jolt = fit_error(jc.mean_field(u_j), u_fem, held)
    ratio = e_jolt / e_pbdfit - 1.0
    return {
        **c, "linear_damping": LINEAR_DAMPING,
        "edge_compliance": fitted["edge_compliance"], "volume_compliance": fitted["volume_compliance"],
        "at_bound": fit.get("at_bound", []), "e_pbdfit": e_pbdfit, "e_pbdfit_simulate": e_sim,
        "e_jolt": e_jolt, "e_jolt_per_origin": per_origin, "ratio": ratio,
        "ratio_per_origin": [e / e_pbdfit - 1.0 for e in per_origin],
        "rel_displacement": jc.rel(sim["displacements"], jc.mean_field(u_j)),
        "jolt_converged": [j["converged"] for j in jolt], "jolt_version": jolt[0]["jolt_version"],
        "oxijolt_version": jolt[0]["oxijolt_version"], "seconds": time.perf_counter() - t0,
        "verdict": "ok" if abs(ratio) <= args.goal and all(j["converged"] for j in jolt) else "FAIL",
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pbdfit", default=str(jc.REPO / "target/debug/pbdfit"))
    ap.add_argument("--jolt-rest", default="/tmp/jolt-target/release/jolt_rest")
    ap.add_argument("--out", default=str(HERE / "results"))
    ap.add_argument("--goal", type=float, default=0.01)
    ap.add_argument("--tol", type=float, default=2e-4)
    ap.add_argument("--block", type=int, default=5000)
    ap.add_argument("--average", type=int, default=20000)
    ap.add_argument("--max-steps", type=int, default=400000)
    args = ap.parse_args()
    for tool in (args.pbdfit, args.jolt_rest):
        if not Path(tool).exists():
            print(f"missing {tool}: see benchmarks/engines/README.md", file=sys.stderr)
            return 2
    rows = [case(args, c) for c in CASES]
    lines = [
        "Fitted jolt parameters run in Jolt: the error against the FEM, pbdfit's and Jolt's",
        f"(Jolt {rows[0]['jolt_version']}, oxijolt {rows[0]['oxijolt_version']}; Jolt's rest state averaged over "
        f"{len(ORIGINS)} origins; goal |e_jolt / e_pbdfit - 1| <= {args.goal})",
        "",
        f"{'scene':16} {'N':>2} {'E':>5} {'dt':>5} {'nit':>3} {'edge_c':>10} {'volume_c':>10} {'e_pbdfit':>10} "
        f"{'e_jolt':>10} {'ratio-1':>9} {'origins':>19} {'|du|':>8} verdict",
    ]
    for r in rows:
        spread = f"{min(r['ratio_per_origin']):+.1e}..{max(r['ratio_per_origin']):+.1e}"
        lines.append(
            f"{r['scene']:16} {r['n']:>2} {r['young']:>5} {r['dt']:>5} {r['iterations']:>3} "
            f"{r['edge_compliance']:>10.3e} {r['volume_compliance']:>10.3e} {r['e_pbdfit']:>10.4e} "
            f"{r['e_jolt']:>10.4e} {r['ratio']:>+9.2e} {spread:>19} {r['rel_displacement']:>8.1e} {r['verdict']}"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "jolt_fitted.txt").write_text(text)
    (out / "jolt_fitted.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0 if all(r["verdict"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
