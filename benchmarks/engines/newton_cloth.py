#!/usr/bin/env python3
"""pbdfit's `newton-cloth` profile against NVIDIA Newton 1.8 itself (`pip install "newton==1.8.*"`, Warp on
the CPU) on pbdfit's sheets: the hanging sheet (in its plane) and the clamped strip (sagging out of it, where
the bending edges act), two resolutions and two parameter points each, and the imported unstructured plate
(`scenes/plate-mesh.toml`, its mesh `scenes/meshes/plate.obj`, N = 1: its own resolution) at two points.

For each case this script
  (a) runs `pbdfit simulate SCENE --model newton-cloth --json` (the sheet's vertices, triangles, lumped
      masses, the vertices the profile holds, and the profile's rest displacements);
  (b) builds the same sheet in Newton with `ModelBuilder.add_cloth_mesh(..., add_springs=True, spring_ke,
      spring_kd, edge_ke, edge_kd, particle_radius=0)` (the held vertices with mass 0), checks that Newton
      made the profile's springs and bending edges and masses, and iterates Newton's own
      `SolverXPBD(iterations).step` from zero velocity to its fixed point (`newton_rest.fixed_point`: the
      step change below 1e-7 of the largest displacement, or stalled at f32's floor);
  (c) reports the relative L2 distance ||u_pbdfit - u_Newton|| / ||u_Newton|| and the largest vertex
      difference over the largest displacement (`max`).

The floor: Newton computes in f32 (positions, rest lengths, the atomic sums of the Jacobi corrections), pbdfit
in f64. Newton's iteration from zero velocity contracts slowly on a soft sheet (its slowest mode loses a
fraction 1 - r of 1e-3 or less per step), so in f32 it stops where one step's move rounds to nothing: about
an ulp / (1 - r) from its own fixed point, short of it along the slowest mode. `--floor` reruns each case in
Newton starting from pbdfit's rest state (rounded to f32) instead of the flat sheet: Newton then stops on the
other side of its fixed point, and the distance between its two stops (`floor`) bounds what the comparison
can resolve; `from pbdfit` is how far Newton moved pbdfit's rest state.

Usage:
    python3 benchmarks/engines/newton_cloth.py [--pbdfit target/debug/pbdfit] [--out DIR] [--goal G] [--floor]
                                               [--cases all|mesh] [--patience STEPS]
Writes DIR/newton_cloth.txt and DIR/newton_cloth.json (DIR: benchmarks/engines/results; with --cases mesh, the
imported plate alone, DIR/newton_cloth_mesh.txt and .json). A case is `yes`
when within --goal (relative L2, default 1e-3); with --floor, `floor` when above the goal but within 1.5 times
a floor of at most 10 times the goal while Newton started at pbdfit's rest state moves it by less than a
tenth of the goal (the comparison cannot resolve more); else `NO` (a floor far above the goal is no f32
rounding: Newton's iteration stopped at two different states). Exit status 0 when no case is `NO`, 1 otherwise, 2 on a setup
error.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

from newton_rest import fixed_point  # noqa: E402

# add_cloth_mesh's spring_ke (N/m), edge_ke (N/(m rad)), spring_kd (N s/m), edge_kd (N s/(m rad)).
# S and L on the hanging sheet, A, B and C (bending edges stiff enough to hold the steel strip up) on the strip
# (B at N = 8 has no rest state in either, C at N = 4 sags 0.08 m there, about as much as A at N = 4: edge_ke's
# effect falls with the cells' size). M and N on the imported plate, whose vertices (0.7 to 3 g, up to 8
# neighbours) make the Jacobi passes stiffer than the strip's: A's spring_ke diverges there at dt 1/600 s, and N
# (spring_ke 100) needs dt 1/1200 s.
# Where Newton's Jacobi passes are stiff (spring_ke dt^2 w of order 1 or more) its step has no stable fixed
# point (the profile says so): the hanging sheet at dt 1/60 s, or edge_ke 10 at N = 8, have none.
POINTS = {
    "S": {"spring_ke": 10.0, "edge_ke": 1.0, "spring_kd": 0.0, "edge_kd": 0.0},
    "L": {"spring_ke": 30.0, "edge_ke": 1.0, "spring_kd": 0.1, "edge_kd": 0.01},
    "A": {"spring_ke": 300.0, "edge_ke": 100.0, "spring_kd": 0.0, "edge_kd": 0.0},
    "B": {"spring_ke": 300.0, "edge_ke": 30.0, "spring_kd": 0.3, "edge_kd": 0.03},
    "C": {"spring_ke": 300.0, "edge_ke": 150.0, "spring_kd": 0.3, "edge_kd": 0.03},
    "M": {"spring_ke": 30.0, "edge_ke": 10.0, "spring_kd": 0.0, "edge_kd": 0.0},
    "N": {"spring_ke": 100.0, "edge_ke": 30.0, "spring_kd": 0.0, "edge_kd": 0.0},
}
# (scene, N, dt, iterations, point): SolverXPBD's dt and iterations (dt 1/600 s: Newton's cloth example's
# 60 frames per second in 10 substeps).
CASES = [
    ("hanging-sheet", 4, 1 / 600, 10, "S"),
    ("hanging-sheet", 4, 1 / 600, 10, "L"),
    ("hanging-sheet", 8, 1 / 600, 10, "S"),
    ("hanging-sheet", 8, 1 / 600, 10, "L"),
    ("clamped-strip", 4, 1 / 600, 10, "A"),
    ("clamped-strip", 4, 1 / 600, 10, "B"),
    ("clamped-strip", 8, 1 / 600, 10, "A"),
    ("clamped-strip", 8, 1 / 600, 10, "C"),
    ("scenes/plate-mesh.toml", 1, 1 / 600, 10, "M"),
    ("scenes/plate-mesh.toml", 1, 1 / 1200, 10, "N"),
]
# The scenes' gravity (m/s^2): the hanging sheet hangs in its plane (-y), the strip sags out of it (-z).
# The imported plate (a scene file, not a built-in scene) sags out of its plane as the strip does.
GRAVITY = {"hanging-sheet": (0.0, -9.81, 0.0), "clamped-strip": (0.0, 0.0, -9.81),
           "scenes/plate-mesh.toml": (0.0, 0.0, -9.81)}


def rel_l2(u: np.ndarray, ref: np.ndarray) -> float:
    return float(np.linalg.norm(u - ref) / np.linalg.norm(ref))


def rel_max(u: np.ndarray, ref: np.ndarray) -> float:
    return float(np.linalg.norm(u - ref, axis=1).max() / np.linalg.norm(ref, axis=1).max())


def profile_report(pbdfit: str, scene: str, n: int, dt: float, iterations: int, point: dict,
                   rest: str = "fixed-point") -> dict:
    """`pbdfit simulate --json` of the profile: its object (vertices, triangles, fixed, masses, displacements);
    `rest`: simulate's `--method` (`stepping`: the dynamics stepped from the flat sheet, the state Newton reaches
    where the step has two)."""
    scene = str(REPO / scene) if scene.endswith(".toml") else scene
    cmd = [pbdfit, "simulate", "--scene", scene, "--model", "newton-cloth", "--n", str(n), "--dt", repr(dt), "--nit",
           str(iterations), "--param", f"spring_ke={point['spring_ke']!r}", "--param", f"edge_ke={point['edge_ke']!r}",
           "--setting", f"spring_kd={point['spring_kd']!r}", "--setting", f"edge_kd={point['edge_kd']!r}",
           "--method", rest, "--json"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {res.returncode}: {res.stderr.strip()}")
    report = json.loads(res.stdout)
    return report[0] if isinstance(report, list) else report


def newton_rest(report: dict, gravity, dt: float, iterations: int, point: dict, start=None, tol: float = 1e-7,
                max_steps: int = 200000, patience: int = 2000, dynamics: bool = False) -> dict:
    """Newton's own rest state of the sheet of `report` (a `simulate --json` object of `newton-cloth`),
    iterated from the displacements `start` (m; default: none, the flat sheet): `{"displacements", "steps",
    "converged", "stop_reason", "springs", "bends", "newton_version"}`. Warp's messages go to stderr."""
    stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        return _newton_rest(report, gravity, dt, iterations, point, start, tol, max_steps, patience, dynamics)
    finally:
        sys.stdout = stdout


def _newton_rest(report, gravity, dt, iterations, point, start, tol, max_steps, patience, dynamics=False) -> dict:
    import warp as wp

    import newton

    wp.init()
    X = np.asarray(report["vertices"], dtype=np.float64)
    tris = np.asarray(report["triangles"], dtype=np.int64)
    masses = np.asarray(report["masses"], dtype=np.float64)
    fixed = np.asarray(report["fixed"], dtype=np.int64)
    e1, e2 = X[tris[:, 1]] - X[tris[:, 0]], X[tris[:, 2]] - X[tris[:, 0]]
    areas = 0.5 * np.linalg.norm(np.cross(e1, e2), axis=1)
    # The areal density (kg/m^2) whose thirds of each triangle's mass are the sheet's lumped masses.
    density = float(masses.sum() / areas.sum())
    builder = newton.ModelBuilder(gravity=tuple(float(g) for g in gravity))
    builder.add_cloth_mesh(
        pos=(0.0, 0.0, 0.0), rot=wp.quat_identity(), scale=1.0, vel=(0.0, 0.0, 0.0),
        vertices=[tuple(map(float, v)) for v in X], indices=[int(i) for i in tris.reshape(-1)], density=density,
        add_springs=True, spring_ke=float(point["spring_ke"]), spring_kd=float(point["spring_kd"]),
        edge_ke=float(point["edge_ke"]), edge_kd=float(point["edge_kd"]), particle_radius=0.0,
    )
    built = np.asarray(builder.particle_mass, dtype=np.float64)
    free = np.ones(len(X), dtype=bool)
    free[fixed] = False
    if not np.allclose(built[free], masses[free], rtol=1e-9):
        raise RuntimeError("Newton's add_cloth_mesh masses are not the sheet's lumped masses")
    for i in fixed:
        builder.particle_mass[int(i)] = 0.0
    model = builder.finalize(device="cpu")
    solver = newton.solvers.SolverXPBD(model, iterations=int(iterations))
    s_in, s_out, control = model.state(), model.state(), model.control()

    # Each step from zero velocity (the rest map's iteration), or, with `dynamics`, Newton's own simulation: the
    # velocity each step leaves carried into the next, from the start at rest.
    velocity: list = [None]

    def step(x: np.ndarray) -> np.ndarray:
        s_in.particle_q.assign(x.astype(np.float32))
        if velocity[0] is None:
            s_in.particle_qd.zero_()
        else:
            s_in.particle_qd.assign(velocity[0])
        s_in.clear_forces()
        solver.step(s_in, s_out, control, None, dt)
        if dynamics:
            velocity[0] = s_out.particle_qd.numpy()
        return s_out.particle_q.numpy().astype(np.float64)

    X32 = model.particle_q.numpy().astype(np.float64)
    x0 = X32 if start is None else (X32 + np.asarray(start)).astype(np.float32).astype(np.float64)
    if dynamics:
        res = simulate(step, x0, max_steps, tol)
    else:
        res = fixed_point(step, x0, max_steps, tol, float(np.finfo(np.float32).eps), patience)
    bends = model.edge_indices.numpy()
    return {
        "newton_version": newton.__version__,
        "displacements": res["x"] - X32,
        "steps": res["steps"],
        "converged": res["converged"],
        "stop_reason": res["stop_reason"],
        "springs": int(model.spring_count),
        "bends": int(((bends[:, 0] >= 0) & (bends[:, 1] >= 0)).sum()),
    }


def simulate(step, x0: np.ndarray, max_steps: int, tol: float) -> dict:
    """Newton's own simulation from `x0` at rest: `step` (velocity kept) until a step moves no vertex by more than
    `tol` of the largest displacement, or `max_steps` (no growth verdict: the sheet accelerates from rest, and an
    undamped swing passes turning points)."""
    x, change = x0, math.inf
    for n in range(1, max_steps + 1):
        x_new = step(x)
        if not np.all(np.isfinite(x_new)):
            return dict(steps=n, converged=False, stop_reason="diverged_nonfinite", x=x)
        change = float(np.max(np.abs(x_new - x)))
        x = x_new
        u_max = float(np.max(np.abs(x - x0)))
        if n > 100 and change <= tol * u_max:
            return dict(steps=n, converged=True, stop_reason="tol", x=x)
    return dict(steps=max_steps, converged=False, stop_reason="max_steps", x=x, change=change)


def counts(report: dict) -> tuple[int, int]:
    """The springs and bending edges `add_cloth_mesh(add_springs=True)` makes of `report`'s triangles."""
    opposite: dict[tuple[int, int], list[int]] = {}
    for t in report["triangles"]:
        for k in range(3):
            a, b, o = t[k], t[(k + 1) % 3], t[(k + 2) % 3]
            opposite.setdefault((min(a, b), max(a, b)), []).append(o)
    pairs = set(opposite)
    bends = 0
    for os_ in opposite.values():
        if len(os_) == 2:
            pairs.add((min(os_), max(os_)))
            bends += 1
    return len(pairs), bends


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pbdfit", default=str(REPO / "target/debug/pbdfit"))
    ap.add_argument("--out", default=str(HERE / "results"))
    ap.add_argument("--goal", type=float, default=1e-3)
    ap.add_argument("--floor", action="store_true", help="also measure f32's floor by a shifted Newton run")
    ap.add_argument("--cases", choices=["all", "mesh"], default="all", help="mesh: the imported plate's cases only")
    ap.add_argument("--patience", type=int, default=2000,
                    help="steps without a smaller step change before Newton's iteration counts as stopped (the plate's "
                    "step change grows for thousands of steps as it folds down before it contracts)")
    args = ap.parse_args()
    stem = "newton_cloth" + ("_mesh" if args.cases == "mesh" else "")
    header = (f"{'scene':14s} {'N':>2s} {'dt':>7s} {'it':>2s} {'pt':2s} {'springs':>7s} {'bends':>5s} "
              f"{'max|u| (m)':>10s} {'rel L2':>9s} {'max':>9s} "
              + (f"{'from pbdfit':>11s} {'floor':>9s} " if args.floor else "")
              + f"{'Newton steps':>12s}  within")
    lines = [header]
    results = []
    ok = True
    version = None
    for scene, n, dt, iterations, pname in [c for c in CASES if args.cases == "all" or c[0].endswith(".toml")]:
        point = POINTS[pname]
        start = time.time()
        try:
            report = profile_report(args.pbdfit, scene, n, dt, iterations, point)
            newton = newton_rest(report, GRAVITY[scene], dt, iterations, point, patience=args.patience)
        except (RuntimeError, OSError) as e:
            print(f"newton_cloth: {scene} N={n} {pname}: {e}", file=sys.stderr)
            return 2
        version = newton["newton_version"]
        if (newton["springs"], newton["bends"]) != counts(report):
            print(f"newton_cloth: Newton made {newton['springs']} springs and {newton['bends']} bends, the profile's "
                  f"sheet has {counts(report)}", file=sys.stderr)
            return 2
        u, ref = np.asarray(report["displacements"]), newton["displacements"]
        l2, mx = rel_l2(u, ref), rel_max(u, ref)
        floor = moved = None
        if args.floor:
            other = newton_rest(report, GRAVITY[scene], dt, iterations, point, start=u, patience=args.patience)
            floor, moved = rel_l2(other["displacements"], ref), rel_l2(u, other["displacements"])
        settled = newton["converged"] or newton["stop_reason"] == "f32_floor"
        within = l2 <= args.goal and settled
        at_floor = floor is not None and l2 <= 1.5 * floor <= 15 * args.goal and moved < 0.1 * args.goal
        verdict = "yes" if within else "floor" if at_floor else "NO"
        ok &= verdict != "NO"
        umax = float(np.linalg.norm(ref, axis=1).max())
        results.append({"scene": scene, "n": n, "dt": dt, "iterations": iterations, "point": pname, **point,
                        "springs": newton["springs"], "bends": newton["bends"], "newton_steps": newton["steps"],
                        "newton_stop": newton["stop_reason"], "max_displacement": umax, "rel_l2": l2, "rel_max": mx,
                        "floor": floor, "from_pbdfit": moved, "verdict": verdict, "seconds": time.time() - start})
        lines.append(f"{Path(scene).stem:14s} {n:2d} {dt:7.4f} {iterations:2d} {pname:2s} {newton['springs']:7d} "
                     f"{newton['bends']:5d} {umax:10.3e} {l2:9.2e} {mx:9.2e} "
                     + (f"{moved:11.2e} {floor:9.2e} " if args.floor else "")
                     + f"{newton['steps']:12d}{'' if newton['converged'] else '*'}  {verdict}")
    lines.insert(0, f"pbdfit's newton-cloth profile against NVIDIA Newton {version} SolverXPBD (Warp, CPU, f32) on "
                 "sheets: add_cloth_mesh(add_springs=True, particle_radius=0)")
    lines.insert(1, "points: " + "; ".join(f"{k} " + ", ".join(f"{a} {b:g}" for a, b in v.items())
                                         for k, v in POINTS.items()))
    if any(r["newton_stop"] != "tol" for r in results):
        lines.append("Newton steps with *: Newton's iteration stopped moving (no smaller step change in 2000 steps) before "
                     "its step change fell below 1e-7 of max|u|")
    if args.floor:
        lines.append("from pbdfit: Newton's iteration started at pbdfit's rest state, against it; floor: Newton's two stops "
                     "(from the flat sheet and from pbdfit's state) against each other")
    lines.append(f"{'PASS' if ok else 'FAIL'} (goal: relative L2 <= {args.goal:g}"
                 + ("; floor: within 1.5 x floor <= 10 x goal, and from pbdfit < goal / 10)" if args.floor else ")"))
    print("\n".join(lines))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.txt").write_text("\n".join(lines) + "\n")
    (out / f"{stem}.json").write_text(json.dumps({"newton_version": version, "goal": args.goal,
                                                       "cases": results}, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
