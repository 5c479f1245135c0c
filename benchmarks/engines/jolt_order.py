#!/usr/bin/env python3
"""Jolt's rest state against the order its edge constraints are created in, in Jolt and in pbdfit.

Jolt's `SoftBodySharedSettings::Optimize` sorts the edges of an update group by their distance to the
nearest kinematic vertex, then their lowest vertex index, then the index they were created with, so two
users who create the same edges in different orders get different projection orders, and different rest
states. For each case (scene, N, dt, mNumIterations, parameter point) and each creation order
(`profile`: pbdfit's, first met walking the tetrahedra, the order `simulate --json` lists its distance
`constraints` in; `sorted`: the unique (min, max) pairs sorted; seeds: shuffles of the profile's order),
this script

  (a) runs `pbdfit simulate --model jolt --setting order=ORDER --json`, which prints the rest state and the
      edges in the order the profile creates them (`creation_order`);
  (b) runs the same body through Jolt (`jolt_rest`) with its edges created in that order;
  (c) reports how far pbdfit's rest state is from Jolt's in the same order (`pbdfit-Jolt`), and how far
      Jolt's rest state in this order is from Jolt's in the profile's order (`Jolt moves`), both as a
      relative L2 norm over every displacement component, ||u - u_ref|| / ||u_ref||, and as the largest
      vertex difference over the largest displacement (`max`, jolt_check.py's measure).

An older pbdfit without the `order` setting runs only the profile's order; the other orders are then made
here (sorted, or `random.Random(seed).shuffle`) and only Jolt runs them (`--jolt-only` forces that).

Usage:
    python3 benchmarks/engines/jolt_order.py [--pbdfit PATH] [--jolt-rest PATH] [--out DIR] [--name STEM]
        [--jolt-only]
Writes DIR/STEM.txt and DIR/STEM.json (DIR: benchmarks/engines/results, STEM: jolt_order). Exit status 0
when pbdfit equals Jolt within --goal (relative L2) in every order it ran, 1 otherwise, 2 on a setup error.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import jolt_check as jc  # noqa: E402  (the body checks, Jolt's runner and the measures)

# Parameter points: Jolt's Edge::mCompliance (m/N), Volume::mCompliance (C = |6V| - 6V0), mLinearDamping
# (1/s). P1 is jolt_check.py's; W and C are `pbdfit fit --model jolt` at E 1e3 Pa, nu 0.3 on the wall
# (dt 1/30, 2 substeps) and the ceiling (dt 0.05, 4 substeps) at N = 2, in the profile's order.
POINTS = {
    "P1": {"edge_compliance": 3e-2, "volume_compliance": 3.6e-4, "linear_damping": 0.1},
    "W": {"edge_compliance": 2.959327e-3, "volume_compliance": 1e-12, "linear_damping": 0.1},
    "C": {"edge_compliance": 6.356458e-3, "volume_compliance": 2.183121e-3, "linear_damping": 0.1},
}
# (scene, N, dt, mNumIterations, point): substeps of 1/80 s or longer, where f32 resolves Jolt's rest state
# (jolt_check.py: at 1/300 s it is only known to a few 1e-3).
CASES = [
    ("gravity-wall", 2, "1/30", 2, "W"),
    ("gravity-ceiling", 2, "0.05", 4, "C"),
    ("gravity-wall", 2, "1/30", 2, "P1"),
    ("gravity-floor", 2, "1/30", 2, "P1"),
    ("gravity-wall", 3, "1/30", 2, "P1"),
]
ORDERS = ["profile", "sorted", "1", "2", "3", "4", "5"]


def rel_l2(u, ref) -> float:
    num = sum((a - b) ** 2 for p, q in zip(u, ref) for a, b in zip(p, q))
    den = sum(a * a for q in ref for a in q)
    return math.sqrt(num / den)


def pbdfit_run(pbdfit: str, scene: str, n: int, dt: str, nit: int, point: dict, order: str | None) -> dict | None:
    cmd = [pbdfit, "simulate", "--scene", scene, "--n", str(n), "--model", "jolt",
           "--param", f"edge_compliance={point['edge_compliance']}",
           "--param", f"volume_compliance={point['volume_compliance']}",
           "--dt", dt, "--nit", str(nit), "--setting", f"linear_damping={point['linear_damping']}", "--json"]
    if order is not None:
        cmd[-1:-1] = ["--setting", f"order={order}"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        if order is not None:
            return None
        raise RuntimeError(f"pbdfit failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr}")
    out = json.loads(res.stdout)
    if n <= 4:
        problems = jc.check_body(scene, n, out)
        if problems:
            raise RuntimeError(f"pbdfit's {scene} N={n} body is not the expected cube: {'; '.join(problems)}")
    out["_command"] = " ".join(cmd)
    return out


def local_order(edges: list, order: str) -> list:
    """The order made here (for a pbdfit without the setting): sorted pairs, or a seeded shuffle."""
    if order == "profile":
        return [list(e) for e in edges]
    if order == "sorted":
        return sorted([min(e), max(e)] for e in edges)
    shuffled = [list(e) for e in edges]
    random.Random(int(order)).shuffle(shuffled)
    return shuffled


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pbdfit", default=os.environ.get("PBDFIT", str(jc.REPO / "target/debug/pbdfit")))
    ap.add_argument("--jolt-rest", default=os.environ.get("JOLT_REST", "/tmp/jolt-target/release/jolt_rest"))
    ap.add_argument("--out", default=str(HERE / "results"))
    ap.add_argument("--name", default="jolt_order")
    ap.add_argument("--goal", type=float, default=1e-3, help="pbdfit against Jolt in the same order, relative L2")
    ap.add_argument("--jolt-only", action="store_true", help="orders made here; pbdfit runs the profile's only")
    ap.add_argument("--tol", type=float, default=2e-4)
    ap.add_argument("--block", type=int, default=5000)
    ap.add_argument("--average", type=int, default=20000)
    ap.add_argument("--max-steps", type=int, default=400000)
    args = ap.parse_args()
    for exe in (args.pbdfit, args.jolt_rest):
        if not os.access(exe, os.X_OK):
            print(f"jolt_order: {exe} is not an executable (see benchmarks/engines/README.md)", file=sys.stderr)
            return 2
    started = time.perf_counter()
    lines: list[str] = []

    def emit(line: str = "") -> None:
        lines.append(line)
        print(line, flush=True)

    emit(f"{'scene':16s} {'N':>2s} {'dt':>5s} {'nit':>3s} {'pt':3s} {'order':8s} {'pbdfit-Jolt':>11s} {'max':>9s} "
         f"{'Jolt moves':>10s} {'max':>9s} {'pbdfit moves':>12s}  edges from")
    cases = []
    try:
        for scene, n, dt, nit, pname in CASES:
            base = pbdfit_run(args.pbdfit, scene, n, dt, nit, POINTS[pname], None)
            profile_edges = [c["particles"] for c in base["constraints"] if c["type"] == "distance"]
            point = dict(POINTS[pname], dt=dt, iterations=nit)
            dyn = dict(tol=args.tol, block=args.block, average=args.average, max_steps=args.max_steps)
            rows = []
            u_jolt_profile = u_pbdfit_profile = None
            for order in ORDERS:
                p = None if args.jolt_only else pbdfit_run(args.pbdfit, scene, n, dt, nit, POINTS[pname], order)
                if p is not None and "creation_order" in p:
                    edges, source = p["creation_order"], "pbdfit"
                else:
                    p = base if order == "profile" else None
                    edges, source = local_order(profile_edges, order), "script"
                body = jc.jolt_body(base, point, **dyn)
                body["edges"] = edges
                j = jc.run_jolt(args.jolt_rest, body)
                u_j = j["displacements"]
                if order == "profile":
                    u_jolt_profile = u_j
                    u_pbdfit_profile = p["displacements"]
                r = {
                    "order": order, "edges_from": source, "edges": edges, "u_jolt": u_j,
                    "jolt_converged": j["converged"], "jolt_steps": j["steps"],
                    "jolt_moves": rel_l2(u_j, u_jolt_profile), "jolt_moves_max": jc.rel(u_j, u_jolt_profile),
                }
                if p is not None:
                    r.update(u_pbdfit=p["displacements"], pbdfit_converged=p["converged"],
                             pbdfit_command=p["_command"], rel_l2=rel_l2(p["displacements"], u_j),
                             rel_max=jc.rel(p["displacements"], u_j),
                             pbdfit_moves=rel_l2(p["displacements"], u_pbdfit_profile))
                rows.append(r)
                na = float("nan")
                emit(f"{scene:16s} {n:2d} {dt:>5s} {nit:3d} {pname:3s} {order:8s} {r.get('rel_l2', na):11.2e} "
                     f"{r.get('rel_max', na):9.2e} {r['jolt_moves']:10.2e} {r['jolt_moves_max']:9.2e} "
                     f"{r.get('pbdfit_moves', na):12.2e}  {source}")
            cases.append({"scene": scene, "n": n, "dt": dt, "iterations": nit, "point": pname, **POINTS[pname],
                          "jolt_version": j["jolt_version"], "oxijolt_version": j["oxijolt_version"], "orders": rows})
    except RuntimeError as e:
        print(f"jolt_order: {e}", file=sys.stderr)
        return 2
    compared = [r for c in cases for r in c["orders"] if "rel_l2" in r]
    worst = max(r["rel_l2"] for r in compared)
    moves = [r["jolt_moves"] for c in cases for r in c["orders"] if r["order"] != "profile"]
    ok = worst <= args.goal and all(r["jolt_converged"] and r["pbdfit_converged"] for r in compared)
    summary = [
        "",
        f"pbdfit against Jolt in the same order: worst relative L2 {worst:.2e} over {len(compared)} runs "
        f"(goal {args.goal:g}); another order moves Jolt's rest state by {min(moves):.2e} to {max(moves):.2e} "
        "(relative L2 from Jolt's in the profile's order)",
        f"{'PASS' if ok else 'FAIL'} ({time.perf_counter() - started:.0f} s)",
    ]
    for line in summary:
        emit(line)
    preamble = [
        "pbdfit `jolt` profile vs Jolt Physics (crates.io oxijolt, f32) with the edge constraints created in other orders",
        f"Jolt/oxijolt: {sorted({(c['jolt_version'], c['oxijolt_version']) for c in cases})}; pbdfit: {args.pbdfit}",
        "points: " + "; ".join(f"{k}: edge {v['edge_compliance']:g} m/N, volume {v['volume_compliance']:g}, damping "
                               f"{v['linear_damping']:g}/s" for k, v in POINTS.items())
        + f"; body: pbdfit's unit cube (density 1, lumped masses), gravity {jc.GRAVITY}",
        "order: profile (pbdfit's, first met walking the tetrahedra), sorted ((min, max) pairs sorted), a seed "
        "(a shuffle of the profile's order); the volumes in the mesh's tetrahedron order throughout",
        "pbdfit-Jolt: relative L2 ||u_pbdfit - u_jolt|| / ||u_jolt|| in the same order; max: max_i |du_i| / max_i |u_i|; "
        "Jolt moves / pbdfit moves: relative L2 from the same program's rest state in the profile's order",
        "edges from: pbdfit (its `simulate --json` creation_order) or script (made here, only Jolt runs the order)",
        f"Jolt's rest state: stepped until the means of two consecutive {args.block}-step blocks differ by < "
        f"{args.tol:g} max|u|, then averaged over {args.average} steps; body at the world origin",
        "",
    ]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.name}.txt").write_text("\n".join(preamble + lines) + "\n")
    (out / f"{args.name}.json").write_text(json.dumps({"goal": args.goal, "points": POINTS, "cases": cases}) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
