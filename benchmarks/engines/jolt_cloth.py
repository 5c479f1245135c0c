#!/usr/bin/env python3
"""pbdfit's `jolt-cloth` profile against Jolt itself on sheets: the rest state of a sheet scene whose
constraints Jolt's `CreateConstraints` makes of its triangles (bend type `Distance`, or with `--bend dihedral`
`Dihedral`), in pbdfit and in Jolt, on the hanging sheet (in its plane, where a dihedral angle stays 0) and
the clamped strip (sagging out of its plane, where the bends act), and, with `--cases mesh`, the imported
unstructured plate (`scenes/plate-mesh.toml`, its mesh `scenes/meshes/plate.obj`, N = 1: its own resolution),
sagging as the strip. With `--bend none --masses uniform` the body
is Godot's SoftBody3D's (no bend constraints, every vertex the sheet's mass over the vertex count); with
`--order SEED` pbdfit hands `CreateConstraints` the faces in its shuffled order (`--setting order=SEED`) and Jolt
gets the faces in that same order.

For each case (scene, N, dt, mNumIterations, parameter point) this script

  (a) runs the example `jolt_cloth_rest` (crates/pbdfit-pbd/examples), which prints the sheet (vertices,
      triangles, lumped masses, held vertices, gravity) and pbdfit's rest displacements;
  (b) builds the same sheet in Jolt (`jolt_rest` with `faces` and `create_constraints: distance` or
      `dihedral`: every vertex with the attributes mCompliance, mShearCompliance, mBendCompliance; held
      vertices kinematic) and steps it to rest, and checks that Jolt made as many edge and dihedral
      constraints as pbdfit;
  (c) reports the relative L2 distance ||u_pbdfit - u_Jolt|| / ||u_Jolt|| over every displacement
      component, and the largest vertex difference over the largest displacement (`max`).

Usage:
    python3 benchmarks/engines/jolt_cloth.py [--bend distance|dihedral|none] [--masses lumped|uniform]
                                             [--order SEED] [--cases builtin|mesh] [--rest fixed-point|stepping]
                                             [--example PATH] [--jolt-rest PATH] [--out DIR] [--goal G]
Writes DIR/jolt_cloth.txt, DIR/jolt_cloth.json and DIR/jolt_cloth_rest.txt (with --bend dihedral
jolt_cloth_dihedral.txt, jolt_cloth_dihedral.json and jolt_cloth_dihedral_rest.txt; with --bend none, --masses
uniform or --order SEED the stem takes _none, _uniform and _orderSEED; DIR: benchmarks/engines/results;
the last Jolt's rest displacements per case, which the test `jolt_cloth_equals_jolts_committed_rest_state` of
crates/pbdfit-pbd/tests/pbd_tests/engines.rs compares with pbdfit's, with no Jolt in CI). Exit status 0 when every
case is within --goal (relative L2, default 1e-3), 1 otherwise, 2 on a setup error.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# VertexAttributes: mCompliance, mShearCompliance (m/N), mBendCompliance (m/N for Distance, rad/(N m) for
# Dihedral); mLinearDamping (1/s). S and L on every sheet; A and B, whose bend compliances are large enough to
# move a bent strip's rest state, for the clamped strip's dihedral bends.
POINTS = {
    "S": {"compliance": 1e-3, "shear_compliance": 1e-3, "bend_compliance": 1e-2, "linear_damping": 0.1},
    "L": {"compliance": 1e-2, "shear_compliance": 3e-2, "bend_compliance": 1e-1, "linear_damping": 0.5},
    "A": {"compliance": 1e-4, "shear_compliance": 1e-4, "bend_compliance": 1.0, "linear_damping": 0.1},
    "B": {"compliance": 1e-3, "shear_compliance": 3e-3, "bend_compliance": 10.0, "linear_damping": 0.5},
}
# The sheets' densities (kg/m^3): oxijolt refuses a vertex lighter than 1 g (MAX_VERTEX_INVERSE_MASS). The
# hanging sheet's is ten times the scene's (its lightest free vertex at N = 8 has 0.39 g at 300 kg/m^3); the
# clamped strip keeps its steel (1.47 g at N = 8).
# The imported plate's is twice its steel (its lightest free vertex, a corner, has 0.70 g at 7850 kg/m^3).
DENSITY = {"hanging-sheet": 3000.0, "clamped-strip": 7850.0, "scenes/plate-mesh.toml": 15700.0}
# (scene, N, dt, mNumIterations, point): substeps of 1/80 s or longer, where f32 resolves Jolt's rest state.
# The hanging sheet hangs in its plane (every dihedral angle stays 0); the clamped strip, held along its
# short edge (the vertices a fit holds: the edge and its first cell), sags out of its plane under gravity
# along -z, so its bends act.
CASES = [
    ("hanging-sheet", 4, 1 / 30, 2, "S"),
    ("hanging-sheet", 4, 0.05, 4, "L"),
    ("hanging-sheet", 8, 1 / 30, 2, "S"),
    ("hanging-sheet", 8, 0.05, 4, "L"),
]
STRIP = {"distance": ("S", "L"), "dihedral": ("A", "B"), "none": ("S", "L")}


def cases(bend: str) -> list[tuple]:
    """The hanging sheet's cases, then the clamped strip's with the points of `bend`."""
    small, large = STRIP[bend]
    return CASES + [("clamped-strip", 4, 1 / 30, 2, small), ("clamped-strip", 4, 0.05, 4, large),
                    ("clamped-strip", 8, 1 / 30, 2, small), ("clamped-strip", 8, 0.05, 4, large)]


def mesh_cases(bend: str) -> list[tuple]:
    """The imported plate's cases (`--cases mesh`), with the strip's points of `bend`."""
    small, large = STRIP[bend]
    return [("scenes/plate-mesh.toml", 1, 1 / 30, 2, small), ("scenes/plate-mesh.toml", 1, 0.05, 4, large)]


def rel_l2(u, ref) -> float:
    num = sum((a - b) ** 2 for p, q in zip(u, ref) for a, b in zip(p, q))
    den = sum(a * a for q in ref for a in q)
    return math.sqrt(num / den)


def rel_l2_axes(u, ref, axes) -> float:
    """The relative L2 distance of the components along `axes` only, over the whole of ||u_Jolt||."""
    num = sum((p[k] - q[k]) ** 2 for p, q in zip(u, ref) for k in axes)
    den = sum(a * a for q in ref for a in q)
    return math.sqrt(num / den)


def rel_max(u, ref) -> float:
    norm = lambda v: math.sqrt(sum(c * c for c in v))
    return max(norm([a - b for a, b in zip(p, q)]) for p, q in zip(u, ref)) / max(norm(v) for v in ref)


def run_json(cmd: list[str]) -> tuple[int, dict, str]:
    res = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return res.returncode, json.loads(res.stdout), res.stderr.strip()
    except json.JSONDecodeError:
        return res.returncode, {}, res.stderr.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--example", default=str(REPO / "target/debug/examples/jolt_cloth_rest"))
    ap.add_argument("--jolt-rest", default=os.environ.get("JOLT_REST", "/tmp/jolt-target/release/jolt_rest"))
    ap.add_argument("--out", default=str(HERE / "results"))
    ap.add_argument("--goal", type=float, default=1e-3)
    ap.add_argument("--bend", choices=["distance", "dihedral", "none"], default="distance",
                    help="CreateConstraints' EBendType (jolt-cloth's setting bend)")
    ap.add_argument("--masses", choices=["lumped", "uniform"], default="lumped",
                    help="the vertices' masses (jolt-cloth's setting masses; Godot's: uniform)")
    ap.add_argument("--order", type=int, default=0,
                    help="a seed >= 1: the faces handed to CreateConstraints in pbdfit's shuffle by it (setting order)")
    ap.add_argument("--cases", choices=["builtin", "mesh"], default="builtin",
                    help="mesh: the imported plate alone, written to DIR/<stem>_mesh.* (not the CI fixture)")
    ap.add_argument("--rest", choices=["fixed-point", "stepping"], default="fixed-point",
                    help="pbdfit's rest solve: its default fixed point, or stepping from the flat sheet as Jolt does "
                         "(the imported plate has two rest states: Jolt's is the stepped one)")
    args = ap.parse_args()
    stem = ("jolt_cloth" + ("" if args.bend == "distance" else f"_{args.bend}")
            + ("" if args.masses == "lumped" else f"_{args.masses}") + (f"_order{args.order}" if args.order else "")
            + ("_mesh" if args.cases == "mesh" else ""))
    run_cases = mesh_cases(args.bend) if args.cases == "mesh" else cases(args.bend)
    for path, what in [(args.example, "cargo build -p pbdfit-pbd --example jolt_cloth_rest"),
                       (args.jolt_rest, "see benchmarks/engines/README.md")]:
        if not os.access(path, os.X_OK):
            print(f"jolt_cloth: {path} is not an executable ({what})", file=sys.stderr)
            return 2
    lines = ["pbdfit's jolt-cloth profile against Jolt (crates.io oxijolt) on sheets: CreateConstraints, bend type "
             + args.bend.capitalize() + f", {args.masses} masses"
             + (f", faces in pbdfit's shuffled order (seed {args.order})" if args.order else "")
             + ("" if args.rest == "fixed-point" else ", pbdfit's rest state stepped from the flat sheet (--rest stepping)"),
             f"{'scene':14s} {'N':>2s} {'dt':>7s} {'it':>2s} {'pt':2s} {'edges':>5s} "
             + (f"{'bends':>5s} " if args.bend == "dihedral" else "") + f"{'max|u| (m)':>10s} "
             f"{'rel L2':>9s} " + (f"{'x, y':>9s} {'z':>9s} " if args.bend == "dihedral" else "")
             + f"{'max':>9s} {'Jolt steps':>10s}  within"]
    results = []
    ok = True
    version = None
    for scene, n, dt, iterations, pname in run_cases:
        point = POINTS[pname]
        params = f"{point['compliance']},{point['shear_compliance']},{point['bend_compliance']}"
        settings = (f"linear_damping={point['linear_damping']},bend={args.bend},masses={args.masses}"
                    + (f",order={args.order}" if args.order else ""))
        path = str(REPO / scene) if scene.endswith(".toml") else scene
        code, p, err = run_json([args.example, path, str(n), repr(dt), str(iterations), params, settings,
                                 repr(DENSITY[scene]), args.rest])
        if code != 0 or "displacements" not in p.get("rest", {}):
            print(f"jolt_cloth: pbdfit failed on {scene} N={n}: {err or p.get('rest')}", file=sys.stderr)
            return 2
        body = {"vertices": p["vertices"], "faces": p["triangles"], "held": p["held"], "masses": p["masses"],
                "gravity": p["gravity"], "dt": dt, "iterations": iterations,
                "edge_compliance": point["compliance"], "shear_compliance": point["shear_compliance"],
                "bend_compliance": point["bend_compliance"], "volume_compliance": 0.0,
                "linear_damping": point["linear_damping"], "create_constraints": args.bend}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(body, f)
            path = f.name
        start = time.time()
        try:
            code, jolt, err = run_json([args.jolt_rest, path])
        finally:
            os.unlink(path)
        if code not in (0, 3):
            print(f"jolt_cloth: jolt_rest failed ({code}) on {scene} N={n}: {err}", file=sys.stderr)
            return 2
        version = jolt["jolt_version"]
        u, ref = p["rest"]["displacements"], jolt["displacements"]
        l2, mx = rel_l2(u, ref), rel_max(u, ref)
        in_plane, out_of_plane = rel_l2_axes(u, ref, (0, 1)), rel_l2_axes(u, ref, (2,))
        umax = max(math.sqrt(sum(c * c for c in v)) for v in ref)
        counts = p.get("constraints", {})
        if (counts.get("edges"), counts.get("dihedral")) != (jolt["edge_constraints"], jolt["dihedral_constraints"]):
            print(f"jolt_cloth: constraint counts differ on {scene} N={n}: pbdfit {counts}, Jolt "
                  f"{jolt['edge_constraints']} edges, {jolt['dihedral_constraints']} dihedral", file=sys.stderr)
            return 2
        within = l2 <= args.goal and code == 0
        ok &= within
        results.append({"scene": scene, "n": n, "dt": dt, "iterations": iterations, "point": pname, **point,
                        "edge_constraints": jolt["edge_constraints"],
                        **({"dihedral_constraints": jolt["dihedral_constraints"]} if args.bend == "dihedral" else {}),
                        "jolt_steps": jolt["steps"],
                        "jolt_converged": jolt["converged"], "max_displacement": umax, "rel_l2": l2, "rel_l2_xy": in_plane, "rel_l2_z": out_of_plane, "rel_max": mx,
                        "seconds": time.time() - start, "pbdfit": u, "jolt": ref})
        lines.append(f"{Path(scene).stem:14s} {n:2d} {dt:7.4f} {iterations:2d} {pname:2s} {jolt['edge_constraints']:5d} "
                     + (f"{jolt['dihedral_constraints']:5d} " if args.bend == "dihedral" else "") + f"{umax:10.3e}"
                     f" {l2:9.2e} " + (f"{in_plane:9.2e} {out_of_plane:9.2e} " if args.bend == "dihedral" else "")
                     + f"{mx:9.2e} {jolt['steps']:10d}{'' if code == 0 else '+'}  {'yes' if within else 'NO'}")
    used = {c[4] for c in run_cases}
    lines.insert(1, f"Jolt {version}; densities (kg/m^3): " + ", ".join(f"{k} {v:g}" for k, v in DENSITY.items())
                 + "; points: " + "; ".join(f"{k} " + ", ".join(f"{a} {b:g}" for a, b in v.items())
                                           for k, v in POINTS.items() if k in used))
    if any(not r["jolt_converged"] for r in results):
        lines.append("Jolt steps with +: Jolt never came to rest (its last step is compared); x, y and z: the relative L2 "
                     "of those components alone")
    lines.append(f"{'PASS' if ok else 'FAIL'} (goal: relative L2 <= {args.goal:g})")
    print("\n".join(lines))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.txt").write_text("\n".join(lines) + "\n")
    (out / f"{stem}.json").write_text(json.dumps({"jolt_version": version, "bend": args.bend, "masses": args.masses,
                                                  "order": args.order, "rest": args.rest, "goal": args.goal,
                                                  "cases": results}, indent=1) + "\n")
    fixture = [f"# Jolt {version} rest displacements (m) of jolt_cloth.py's cases"
               + ("" if args.bend == "distance" else f" (bend type {args.bend.capitalize()})")
               + ("" if args.masses == "lumped" else f" ({args.masses} masses)")
               + (f" (faces in pbdfit's shuffled order, seed {args.order})" if args.order else "")
               + ": case scene n dt iterations "
               "compliance shear_compliance bend_compliance linear_damping density vertices, then x y z per vertex"]
    for r in results:
        fixture.append(f"case {r['scene']} {r['n']} {r['dt']!r} {r['iterations']} {r['compliance']!r} "
                       f"{r['shear_compliance']!r} {r['bend_compliance']!r} {r['linear_damping']!r} {DENSITY[r['scene']]!r} "
                       f"{len(r['jolt'])}")
        fixture += [" ".join(repr(c) for c in v) for v in r["jolt"]]
    (out / f"{stem}_rest.txt").write_text("\n".join(fixture) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
