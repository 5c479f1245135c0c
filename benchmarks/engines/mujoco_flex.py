#!/usr/bin/env python3
"""pbdfit's `mujoco-flex` profile against MuJoCo itself (`pip install "mujoco==4.0.1"`, CPU, f64) on pbdfit's
sheets: the hanging sheet (in its plane: the membrane) and the clamped strip (sagging out of it: the bending),
two resolutions and two parameter points each, and the imported unstructured plate (`scenes/plate-mesh.toml`,
its mesh `scenes/meshes/plate.obj`, N = 1: its own resolution) at the strip's two points.

For each case this script
  (a) runs `pbdfit simulate SCENE --model mujoco-flex --json` (the sheet's vertices, triangles, lumped
      masses, the vertices the profile holds, and the profile's rest displacements: the static equilibrium
      of MuJoCo's flex forces, solved by Newton);
  (b) builds the same sheet as an MJCF `<flexcomp type="direct" dim="2">` (pbdfit's vertices and triangles in
      its order, `mass` the sheet's total; the held vertices pinned; no contacts) with `<elasticity young
      poisson thickness elastic2d>`, sets each vertex body's mass to the profile's lumped mass (flexcomp
      spreads `mass` evenly), gives every slide joint a damping `c` (N s/m) and runs MuJoCo's own `mj_step`
      (MuJoCo 4's `discrete` integrator: MuJoCo 4 refuses flex elasticity under implicit and implicitfast,
      and Euler needs steps far below 1 ms on the strip) from the flat sheet at rest; `uniform` is the same
      run with flexcomp's own even masses, against the profile: what a user who keeps flexcomp's masses
      gets; `forms` is how far MuJoCo's compiled `flex_stiffness` and `flex_bending` are from the profile's forms
      (relative to each array's largest entry);
  (c) judges rest by MuJoCo's own forces: every `CHECK` steps the state is copied, its velocities zeroed
      and `mj_forward` run; the static residual `|qfrc_passive - qfrc_bias|_inf / |m g|_inf` (the flex's
      passive force plus gravity, at zero velocity, over a vertex's weight) below `--residual` (default
      1e-7) and the largest joint speed below 1e-8 m/s ends the run ("rest"); `--max-time` s of simulated
      time without that ends it too ("not at rest", printed);
  (d) reports the relative L2 distance ||u_pbdfit - u_MuJoCo|| / ||u_MuJoCo|| and the largest vertex
      difference over the largest displacement (`max`).

Usage:
    python3 benchmarks/engines/mujoco_flex.py [--pbdfit target/debug/pbdfit] [--out DIR] [--goal G]
Writes DIR/mujoco_flex.txt and DIR/mujoco_flex.json (DIR: benchmarks/engines/results). A case is `yes` when
MuJoCo came to rest and the relative L2 is within --goal (default 1e-3), else `NO`. Exit status 0 when every
case is `yes`, 1 otherwise, 2 on a setup error.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

# <elasticity> points: young (Pa), poisson, thickness (m), elastic2d. On the hanging sheet (0.5 mm fabric,
# 300 kg/m^3) S and P stretch it in its plane; on the strip (1 mm, 7850 kg/m^3) A and B bend it (it droops
# 0.18 to 0.35 m at its tip: it is 0.3 m long).
POINTS = {
    "S": {"young": 2e6, "poisson": 0.3, "thickness": 5e-4, "elastic2d": "both"},
    "P": {"young": 2e5, "poisson": 0.0, "thickness": 5e-4, "elastic2d": "stretch"},
    "A": {"young": 2e9, "poisson": 0.3, "thickness": 1e-3, "elastic2d": "both"},
    "B": {"young": 2e8, "poisson": 0.2, "thickness": 1e-3, "elastic2d": "both"},
}
# (scene, N, point, joint damping c in N s/m, MuJoCo time step in s)
CASES = [
    ("hanging-sheet", 4, "S", 0.5, 1e-3),
    ("hanging-sheet", 4, "P", 0.5, 1e-3),
    ("hanging-sheet", 8, "S", 0.1, 1e-3),
    ("hanging-sheet", 8, "P", 0.1, 1e-3),
    ("clamped-strip", 4, "A", 2.0, 1e-3),
    ("clamped-strip", 4, "B", 2.0, 1e-3),
    ("clamped-strip", 8, "A", 1.0, 1e-3),
    ("clamped-strip", 8, "B", 1.0, 1e-3),
    ("scenes/plate-mesh.toml", 1, "A", 1.0, 1e-3),
    ("scenes/plate-mesh.toml", 1, "B", 1.0, 1e-3),
]
# The scenes' gravity (m/s^2): the hanging sheet hangs in its plane (-y), the strip sags out of it (-z).
# The imported plate (a scene file, not a built-in scene) sags out of its plane as the strip does.
GRAVITY = {"hanging-sheet": (0.0, -9.81, 0.0), "clamped-strip": (0.0, 0.0, -9.81),
           "scenes/plate-mesh.toml": (0.0, 0.0, -9.81)}
CHECK = 200


def rel_l2(u: np.ndarray, ref: np.ndarray) -> float:
    return float(np.linalg.norm(u - ref) / np.linalg.norm(ref))


def rel_max(u: np.ndarray, ref: np.ndarray) -> float:
    return float(np.linalg.norm(u - ref, axis=1).max() / np.linalg.norm(ref, axis=1).max())


def profile_report(pbdfit: str, scene: str, n: int, point: dict) -> dict:
    """`pbdfit simulate --json` of the profile: its object (vertices, triangles, fixed, masses, displacements)."""
    scene = str(REPO / scene) if scene.endswith(".toml") else scene
    cmd = [pbdfit, "simulate", "--scene", scene, "--model", "mujoco-flex", "--n", str(n),
           "--param", f"young={point['young']!r}", "--setting", f"poisson={point['poisson']!r}",
           "--setting", f"thickness={point['thickness']!r}", "--setting", f"elastic2d={point['elastic2d']}", "--json"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {res.returncode}: {res.stderr.strip()}")
    report = json.loads(res.stdout)
    return report[0] if isinstance(report, list) else report


def mjcf(report: dict, gravity, point: dict, timestep: float) -> str:
    """The sheet of `report` as an MJCF flexcomp with MuJoCo's flex elasticity at `point`."""
    X = np.asarray(report["vertices"], dtype=np.float64)
    tris = np.asarray(report["triangles"], dtype=np.int64)
    mass = float(np.sum(report["masses"]))
    pins = " ".join(str(int(i)) for i in report["fixed"])
    return f"""<mujoco>
  <option gravity="{' '.join(repr(float(g)) for g in gravity)}" timestep="{timestep!r}" integrator="discrete"/>
  <worldbody>
    <flexcomp name="sheet" type="direct" dim="2" point="{' '.join(repr(float(c)) for c in X.ravel())}"
              element="{' '.join(str(int(i)) for i in tris.ravel())}" mass="{mass!r}" radius="0.0001">
      <elasticity young="{point['young']!r}" poisson="{point['poisson']!r}" thickness="{point['thickness']!r}"
                  elastic2d="{point['elastic2d']}"/>
      <contact contype="0" conaffinity="0" selfcollide="none"/>
      <pin id="{pins}"/>
    </flexcomp>
  </worldbody>
</mujoco>"""


def compiled_misfit(m, report: dict, point: dict) -> float:
    """The largest difference, relative to each array's largest entry, between MuJoCo's compiled
    `flex_stiffness` (the membrane metric, 6 numbers per triangle) and `flex_bending` (4 x 4 per interior edge)
    and the profile's forms (`crates/pbdfit-pbd/src/mass_spring/mujoco_flex.rs`: `A h (mu tr(B B') + lambda/2
    tr B tr B')` with plane stress's `lambda`, `D cos_theta c c^T / (A_1 + A_2)`), as `elastic2d` keeps them."""
    X = np.asarray(report["vertices"], dtype=np.float64)
    tris = np.asarray(report["triangles"], dtype=np.int64)
    E, nu, h = point["young"], point["poisson"], point["thickness"]
    mu, lam, D = E / (2 * (1 + nu)), E * nu / (1 - nu * nu), E * h**3 / (12 * (1 - nu * nu))
    worst = 0.0
    if point["elastic2d"] in ("stretch", "both"):
        ours = []
        for t in tris:
            x = X[t]
            normal = np.cross(x[1] - x[0], x[2] - x[0])
            area = np.linalg.norm(normal) / 2
            normal /= np.linalg.norm(normal)
            basis = []
            for e in range(3):
                bl, br = np.cross(normal, x[(e + 2) % 3] - x[e]), np.cross(x[(e + 1) % 3] - x[e], normal)
                basis.append((np.outer(bl, br) + np.outer(br, bl)) / (8 * area * area))
            k = [[area * h * (mu * np.trace(basis[i] @ basis[j]) + lam / 2 * np.trace(basis[i]) * np.trace(basis[j]))
                  for j in range(3)] for i in range(3)]
            ours.append([k[i][j] for i in range(3) for j in range(i, 3)])
        theirs = np.asarray(m.flex_stiffness).reshape(len(tris), -1)[:, :6]
        worst = max(worst, float(np.abs(theirs - ours).max() / np.abs(theirs).max()))
    if point["elastic2d"] in ("bend", "both"):
        def cot(v0, v1, v2):
            a, b = X[v1] - X[v0], X[v2] - X[v0]
            return a @ b / np.linalg.norm(np.cross(a, b))

        def area(a, b, c):
            return np.linalg.norm(np.cross(X[b] - X[a], X[c] - X[a])) / 2

        theirs = np.asarray(m.flex_bending).reshape(-1, 17)
        ours = np.zeros_like(theirs)
        for e in range(m.flex_edgenum[0]):
            (v0, v1), (v2, v3) = m.flex_edge[e], m.flex_edgeflap[e]
            if v3 < 0:
                continue
            a01, a02, a03, a04 = cot(v0, v1, v2), cot(v0, v3, v1), cot(v1, v2, v0), cot(v1, v0, v3)
            c = np.array([a03 + a04, a01 + a02, -(a01 + a03), -(a02 + a04)])
            t0 = -(a03 * (X[v2] - X[v0]) + a01 * (X[v2] - X[v1]))
            t1 = -(a04 * (X[v3] - X[v0]) + a02 * (X[v3] - X[v1]))
            cos_theta = -(t0 @ t1) / np.sum((X[v1] - X[v0]) ** 2)
            ours[e, :16] = (np.outer(c, c) * cos_theta * D / (area(v0, v1, v2) + area(v1, v0, v3))).ravel()
        worst = max(worst, float(np.abs(theirs[:, :16] - ours[:, :16]).max() / np.abs(theirs).max()))
    return worst


def mujoco_rest(report: dict, gravity, point: dict, damping: float, timestep: float, residual_goal: float = 1e-7,
                max_time: float = 600.0, lumped: bool = True) -> dict:
    """MuJoCo's own rest state of the sheet of `report` (see the module doc), with the profile's lumped masses
    (or, `lumped=False`, flexcomp's even ones):
    `{"displacements", "steps", "time", "residual", "speed", "at_rest", "compiled_misfit", "mujoco_version"}`."""
    import mujoco

    m = mujoco.MjModel.from_xml_string(mjcf(report, gravity, point, timestep))
    X = np.asarray(report["vertices"], dtype=np.float64)
    masses = np.asarray(report["masses"], dtype=np.float64)
    free = np.ones(len(X), dtype=bool)
    free[np.asarray(report["fixed"], dtype=np.int64)] = False
    vertex_body = m.flex_vertbodyid[m.flex_vertadr[0]:m.flex_vertadr[0] + m.flex_vertnum[0]]
    even = m.body_mass[vertex_body[free]]
    if not np.allclose(even, masses.sum() / len(X), rtol=1e-12):
        raise RuntimeError("flexcomp did not spread the sheet's mass evenly over its points")
    if lumped:
        m.body_mass[vertex_body[free]] = masses[free]
    else:
        masses = np.full(len(X), masses.sum() / len(X))
    m.dof_damping[:] = damping
    d = mujoco.MjData(m)
    probe = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    weight = float(np.abs(masses[free]).max() * np.linalg.norm(gravity))
    steps, residual, speed = 0, np.inf, np.inf
    while steps * timestep < max_time:
        for _ in range(CHECK):
            mujoco.mj_step(m, d)
        steps += CHECK
        probe.qpos[:] = d.qpos
        probe.qvel[:] = 0.0
        mujoco.mj_forward(m, probe)
        residual = float(np.abs(probe.qfrc_passive - probe.qfrc_bias).max() / weight)
        speed = float(np.abs(d.qvel).max())
        if not np.isfinite(residual):
            break
        if residual <= residual_goal and speed <= 1e-8:
            break
    mujoco.mj_forward(m, probe)
    u = np.asarray(probe.flexvert_xpos, dtype=np.float64) - X
    return {"mujoco_version": mujoco.__version__, "displacements": u, "steps": steps, "time": steps * timestep,
            "compiled_misfit": compiled_misfit(m, report, point),
            "residual": residual, "speed": speed, "at_rest": bool(residual <= residual_goal and speed <= 1e-8)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pbdfit", default=str(REPO / "target/debug/pbdfit"))
    ap.add_argument("--out", default=str(HERE / "results"))
    ap.add_argument("--goal", type=float, default=1e-3)
    ap.add_argument("--residual", type=float, default=1e-7)
    ap.add_argument("--max-time", type=float, default=600.0)
    args = ap.parse_args()
    lines = [f"{'scene':14s} {'N':>2s} {'pt':2s} {'max|u| (m)':>10s} {'rel L2':>9s} {'max':>9s} {'residual':>9s} "
             f"{'MuJoCo steps':>12s} {'t (s)':>7s} {'uniform':>9s} {'forms':>8s}  within"]
    results, ok, version = [], True, None
    for scene, n, pname, damping, timestep in CASES:
        point = POINTS[pname]
        start = time.time()
        try:
            report = profile_report(args.pbdfit, scene, n, point)
            engine = mujoco_rest(report, GRAVITY[scene], point, damping, timestep, args.residual, args.max_time)
            even = mujoco_rest(report, GRAVITY[scene], point, damping, timestep, args.residual, args.max_time, False)
        except (RuntimeError, OSError, ValueError) as e:
            print(f"mujoco_flex: {scene} N={n} {pname}: {e}", file=sys.stderr)
            return 2
        version = engine["mujoco_version"]
        u, ref = np.asarray(report["displacements"]), engine["displacements"]
        l2, mx = rel_l2(u, ref), rel_max(u, ref)
        verdict = "yes" if engine["at_rest"] and l2 <= args.goal else "NO"
        ok &= verdict == "yes"
        umax = float(np.linalg.norm(ref, axis=1).max())
        uniform = rel_l2(u, even["displacements"])
        results.append({"scene": scene, "n": n, "point": pname, **point, "joint_damping": damping,
                        "timestep": timestep, "mujoco_steps": engine["steps"], "mujoco_time": engine["time"],
                        "residual": engine["residual"], "speed": engine["speed"], "at_rest": engine["at_rest"],
                        "max_displacement": umax, "uniform_rel_l2": uniform, "rel_l2": l2, "rel_max": mx,
                        "compiled_misfit": engine["compiled_misfit"], "verdict": verdict,
                        "seconds": time.time() - start})
        lines.append(f"{Path(scene).stem:14s} {n:2d} {pname:2s} {umax:10.3e} {l2:9.2e} {mx:9.2e} {engine['residual']:9.1e} "
                     f"{engine['steps']:12d} {engine['time']:7.1f} {uniform:9.2e} {engine['compiled_misfit']:8.1e}  "
                     f"{verdict}{'' if engine['at_rest'] else ' (not at rest)'}")
        print(lines[-1], flush=True)
    lines.insert(0, f"pbdfit's mujoco-flex profile against MuJoCo {version} (CPU, f64) on sheets: flexcomp type=direct "
                 "dim=2, pinned held vertices, no contacts, integrator discrete, slide-joint damping")
    lines.insert(1, "points: " + "; ".join(f"{k} " + ", ".join(f"{a} {b}" for a, b in v.items())
                                         for k, v in POINTS.items()))
    lines.append("uniform: MuJoCo at rest with flexcomp's even masses (mass / points per vertex body) against the "
                 "profile (lumped masses): the error of keeping flexcomp's masses")
    lines.append(f"rest: every {CHECK} steps, MuJoCo's static residual |qfrc_passive - qfrc_bias|_inf at zero velocity "
                 f"over a vertex's weight <= {args.residual:g} and max |qvel| <= 1e-8 m/s")
    lines.append(f"{'PASS' if ok else 'FAIL'} (goal: relative L2 <= {args.goal:g})")
    print(lines[-1])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "mujoco_flex.txt").write_text("\n".join(lines) + "\n")
    (out / "mujoco_flex.json").write_text(json.dumps({"mujoco_version": version, "goal": args.goal,
                                                      "cases": results}, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
