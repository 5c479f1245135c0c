#!/usr/bin/env python3
"""pbdfit's `pybullet-neohookean` model against PyBullet itself (pybullet 3.2.7 from PyPI, CPU).

Run with a Python that has pybullet and NumPy (`python3 -m venv /tmp/pyb && /tmp/pyb/bin/pip install
pybullet numpy`):

    /tmp/pyb/bin/python benchmarks/engines/pybullet_check.py [--pbdfit target/release/pbdfit] [--out DIR]

Three parts, every body pbdfit's own mesh (`pbdfit simulate --json`: vertices, positively oriented
tetrahedra, held vertices), written as a legacy VTK file and loaded with `loadSoftBody(useNeoHookean=1)`
into a deformable world (`RESET_USE_DEFORMABLE_WORLD`, gravity (0, -9.81, 0), the body's mass given as
`mass=`, held vertices anchored to the world with `createSoftBodyAnchor`, no collision object), stepped
(dt 0.01, NeoHookeanDamping 0.1, sleeping off) until no vertex moves by more than 1e-9 of the largest
displacement over 50 steps (at most 20,000 steps):

1. Rest states: gravity-wall, -ceiling and -floor at N = 2 and 4 and the imported cantilever mesh, at two
   (mu, lambda) points each; pbdfit's rest state with `--mass-model uniform` (PyBullet's `mass=` spreads
   the mass evenly over the nodes) and, for the record, `lumped`. Measure: max_i |u_pyb,i - u_pbdfit,i| /
   max_i |u_pbdfit,i|. Goal 1e-3.
2. Fitted parameters inside PyBullet: `pbdfit fit --model pybullet-neohookean --mass-model uniform`
   against the linear FEM at a soft material (large strain, where the stable neo-Hookean and the linear
   FEM differ), PyBullet run at the fitted (mu, lambda), and its error against the same FEM (`pbdfit fem
   --json`) with the fit's metric (the mean over the vertices the FEM moves of |u - u_fem|^2 / |u_fem|^2).
   Goal: e_pybullet / e_pbdfit - 1 within 1 %.
3. The closed forms inside PyBullet: `pybullet-lame` (mu, lambda of (E, nu)) and `pybullet-smith` (4/3 mu,
   lambda + 5/6 mu) at a stiff material (small strain), the largest displacement against the linear FEM's.

Output: DIR/pybullet.txt (tables) and DIR/pybullet.json (every number and command); DIR defaults to
benchmarks/engines/results. Exit status 0 when every goal holds, 1 otherwise.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DT = 0.01
DAMPING = 0.1
MAX_STEPS = 20000
CHECK_EVERY = 50
REST_CHANGE = 1e-9
GOAL_REST = 1e-3
GOAL_FIT = 0.01

# (scene, N); two (mu, lambda) points each, chosen so the largest displacement is 1 to 15 % of the body.
REST_CASES = [
    ("gravity-wall", 2), ("gravity-wall", 4), ("gravity-ceiling", 2), ("gravity-ceiling", 4),
    ("gravity-floor", 2), ("gravity-floor", 4), ("cantilever", None),
]
POINTS = {"A": (3e3, 5e3), "B": (2e4, 1e5)}
FIT_CASES = [
    {"scene": "gravity-wall", "n": 2, "young": "1e3", "poisson": "0.3"},
    {"scene": "gravity-wall", "n": 4, "young": "1e3", "poisson": "0.3"},
    {"scene": "gravity-ceiling", "n": 2, "young": "1e3", "poisson": "0.45"},
    {"scene": "cantilever", "n": None, "young": "3e4", "poisson": "0.3"},
]
MAPPING_CASES = [("gravity-wall", 4, "1e5", "0.3"), ("gravity-ceiling", 4, "1e5", "0.45")]


def run_json(cmd: list[str]) -> dict:
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
    return json.loads(res.stdout)


def n_args(n) -> list[str]:
    return [] if n is None else ["--n", str(n)]


def simulate(exe: str, scene: str, n, mu: float, lam: float, masses: str) -> tuple[list[str], dict]:
    cmd = [exe, "simulate", "--scene", scene, *n_args(n), "--model", "pybullet-neohookean",
           "--param", f"mu={mu!r}", "--param", f"lambda={lam!r}", "--mass-model", masses, "--json"]
    return cmd, run_json(cmd)


def write_vtk(path: str, vertices, tets) -> None:
    with open(path, "w") as f:
        f.write("# vtk DataFile Version 2.0\npbdfit body\nASCII\nDATASET UNSTRUCTURED_GRID\n")
        f.write(f"POINTS {len(vertices)} double\n")
        for v in vertices:
            f.write(" ".join(repr(float(c)) for c in v) + "\n")
        f.write(f"CELLS {len(tets)} {5 * len(tets)}\n")
        for t in tets:
            f.write("4 " + " ".join(str(int(i)) for i in t) + "\n")
        f.write(f"CELL_TYPES {len(tets)}\n" + "10\n" * len(tets))


def pybullet_rest(p, body: dict, mu: float, lam: float, sleeping: bool = False) -> dict:
    """PyBullet's rest state of `body` (pbdfit's simulate JSON) at (mu, lambda): displacements per vertex.

    Sleeping is off (`ACTIVATION_STATE_DISABLE_SLEEPING`) unless `sleeping`: PyBullet puts a slow deformable
    body to sleep before it is at rest (the cantilever froze at 300 steps, 1.7e-3 from its rest state)."""
    x0 = np.array(body["vertices"], dtype=float)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "body.vtk")
        write_vtk(path, body["vertices"], body["tets"])
        p.resetSimulation(p.RESET_USE_DEFORMABLE_WORLD)
        p.setGravity(0, -9.81, 0)
        p.setTimeStep(DT)
        b = p.loadSoftBody(path, basePosition=[0, 0, 0], scale=1, mass=float(sum(body["masses"])),
                           useNeoHookean=1, NeoHookeanMu=mu, NeoHookeanLambda=lam, NeoHookeanDamping=DAMPING,
                           useSelfCollision=0, frictionCoeff=0.0)
    for i in body["fixed"]:
        p.createSoftBodyAnchor(b, int(i), -1, -1)
    if not sleeping:
        p.changeDynamics(b, -1, activationState=p.ACTIVATION_STATE_DISABLE_SLEEPING)

    def positions():
        return np.array(p.getMeshData(b, -1, flags=p.MESH_DATA_SIMULATION_MESH)[1], dtype=float)

    start = positions()
    if start.shape != x0.shape or np.abs(start - x0).max() > 1e-6:
        raise RuntimeError("PyBullet's nodes are not the VTK file's, in order")
    prev, steps, change, at_rest = start, 0, np.inf, False
    while steps < MAX_STEPS:
        for _ in range(CHECK_EVERY):
            p.stepSimulation()
        steps += CHECK_EVERY
        x = positions()
        change, prev = float(np.abs(x - prev).max()), x
        size = np.abs(x - x0).max()
        # At rest: nothing moves by more than REST_CHANGE of the displacement over CHECK_EVERY steps (f64
        # round-off moves a vertex by about 1e-12 m a step), or, asleep, nothing moves at all.
        if change <= REST_CHANGE * size and steps > CHECK_EVERY:
            at_rest = True
            break
    return {"displacements": (prev - x0).tolist(), "steps": steps, "last_change": change, "at_rest": at_rest}


def rel(u, ref) -> float:
    u, ref = np.asarray(u), np.asarray(ref)
    return float(np.linalg.norm(u - ref, axis=1).max() / np.linalg.norm(ref, axis=1).max())


def fit_error(u, u_fem, held) -> float:
    """pbdfit's error: mean over the vertices the FEM moves (not held) of |u - u_fem|^2 / |u_fem|^2."""
    u, u_fem = np.asarray(u), np.asarray(u_fem)
    terms = [np.sum((a - b) ** 2) / np.sum(b ** 2) for i, (a, b) in enumerate(zip(u, u_fem))
             if not held[i] and np.sum(b ** 2) > 0.0]
    return float(np.mean(terms))


def label(scene: str, n) -> str:
    return scene if n is None else f"{scene} N={n}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pbdfit", default=os.environ.get("PBDFIT", os.path.join(ROOT, "target", "release", "pbdfit")))
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    args = ap.parse_args()
    import pybullet as p  # noqa: PLC0415 (only this script needs it)

    p.connect(p.DIRECT)
    simulate(args.pbdfit, "gravity-wall", 1, 3e3, 5e3, "uniform")  # fails early when the binary lacks the model
    from importlib.metadata import version as pkg_version  # noqa: PLC0415

    out = {"date": datetime.date.today().isoformat(), "pybullet": pkg_version("pybullet"), "dt": DT,
           "damping": DAMPING, "rest": [], "fitted": [], "mappings": []}
    lines = [f"pbdfit pybullet-neohookean against PyBullet {out['pybullet']} (deformable world, dt {DT}, "
             f"NeoHookeanDamping {DAMPING}, mass= the body's, held vertices anchored)", "",
             "1. Rest states: max_i |u_pybullet - u_pbdfit| / max |u_pbdfit| (goal 1e-3; pbdfit with uniform masses, "
             "and lumped for the record; asleep: uniform, PyBullet with its sleeping on)", "",
             f"{'case':24} {'pt':2} {'mu':>8} {'lambda':>8} {'max|u| m':>10} {'steps':>6} {'uniform':>9} {'lumped':>9} {'asleep':>9} verdict"]
    ok = True
    for scene, n in REST_CASES:
        for name, (mu, lam) in POINTS.items():
            cmd, uni = simulate(args.pbdfit, scene, n, mu, lam, "uniform")
            _, lump = simulate(args.pbdfit, scene, n, mu, lam, "lumped")
            pb = pybullet_rest(p, uni, mu, lam)
            asleep = pybullet_rest(p, uni, mu, lam, sleeping=True)
            r_sleep = rel(asleep["displacements"], uni["displacements"])
            r_uni, r_lump = rel(pb["displacements"], uni["displacements"]), rel(pb["displacements"], lump["displacements"])
            good = r_uni <= GOAL_REST and pb["at_rest"]
            ok &= good
            size = float(np.linalg.norm(np.asarray(uni["displacements"]), axis=1).max())
            out["rest"].append({"scene": scene, "n": n, "point": name, "mu": mu, "lambda": lam, "command": cmd,
                                "max_displacement": size, "rel_uniform": r_uni, "rel_lumped": r_lump,
                                "rel_sleeping": r_sleep, "sleeping_steps": asleep["steps"], **pb})
            lines.append(f"{label(scene, n):24} {name:2} {mu:8.0e} {lam:8.0e} {size:10.3e} {pb['steps']:6d} "
                         f"{r_uni:9.2e} {r_lump:9.2e} {r_sleep:9.2e} {'ok' if good else 'FAIL'}")
            print(lines[-1], flush=True)

    lines += ["", "2. Fitted parameters run in PyBullet: the error against the linear FEM, pbdfit's and PyBullet's "
              f"(goal |ratio - 1| <= {GOAL_FIT})", "",
              f"{'case':24} {'E':>5} {'nu':>5} {'mu':>11} {'lambda':>11} {'e_pbdfit':>11} {'e_pybullet':>11} {'ratio-1':>9} verdict"]
    for c in FIT_CASES:
        fit_cmd = [args.pbdfit, "fit", "--scene", c["scene"], *n_args(c["n"]), "--model", "pybullet-neohookean",
                   "--young", c["young"], "--poisson", c["poisson"], "--dt", str(DT), "--nit", "1",
                   "--mass-model", "uniform", "--json"]
        fit = run_json(fit_cmd)
        mu, lam = fit["parameters"]["mu"], fit["parameters"]["lambda"]
        fem_cmd = [args.pbdfit, "fem", "--scene", c["scene"], *n_args(c["n"]), "--young", c["young"],
                   "--poisson", c["poisson"], "--mass-model", "uniform", "--json"]
        fem = run_json(fem_cmd)
        _, body = simulate(args.pbdfit, c["scene"], c["n"], mu, lam, "uniform")
        held = [False] * len(body["vertices"])
        for i in body["fixed"]:
            held[i] = True
        pb = pybullet_rest(p, body, mu, lam)
        e_pb = fit_error(pb["displacements"], fem["displacements"], held)
        ratio = e_pb / fit["error"] - 1.0
        good = abs(ratio) <= GOAL_FIT
        ok &= good
        out["fitted"].append({**c, "fit_command": fit_cmd, "fem_command": fem_cmd, "mu": mu, "lambda": lam,
                              "e_pbdfit": fit["error"], "e_pybullet": e_pb, "ratio_minus_1": ratio,
                              "steps": pb["steps"], "at_rest": pb["at_rest"]})
        lines.append(f"{label(c['scene'], c['n']):24} {c['young']:>5} {c['poisson']:>5} {mu:11.5e} {lam:11.5e} "
                     f"{fit['error']:11.4e} {e_pb:11.4e} {ratio:+9.2e} {'ok' if good else 'FAIL'}")
        print(lines[-1], flush=True)

    lines += ["", "3. The closed forms in PyBullet at a stiff material: largest displacement over the linear FEM's", "",
              f"{'case':24} {'E':>5} {'nu':>5} {'mapping':15} {'mu':>11} {'lambda':>11} {'max|u| ratio':>12} {'field rel':>10}"]
    for scene, n, young, nu in MAPPING_CASES:
        fem = run_json([args.pbdfit, "fem", "--scene", scene, "--n", str(n), "--young", young, "--poisson", nu,
                        "--mass-model", "uniform", "--json"])
        u_fem = np.asarray(fem["displacements"])
        for mapping in ["pybullet-lame", "pybullet-smith"]:
            m = run_json([args.pbdfit, "baseline", "--mapping", mapping, "--young", young, "--poisson", nu, "--json"])
            mu, lam = (q["value"] for q in m["parameters"])
            _, body = simulate(args.pbdfit, scene, n, mu, lam, "uniform")
            pb = pybullet_rest(p, body, mu, lam)
            u = np.asarray(pb["displacements"])
            ratio = float(np.linalg.norm(u, axis=1).max() / np.linalg.norm(u_fem, axis=1).max())
            field = rel(u, u_fem)
            out["mappings"].append({"scene": scene, "n": n, "young": young, "poisson": nu, "mapping": mapping,
                                    "mu": mu, "lambda": lam, "max_ratio": ratio, "field_rel": field})
            lines.append(f"{label(scene, n):24} {young:>5} {nu:>5} {mapping:15} {mu:11.5e} {lam:11.5e} "
                         f"{ratio:12.5f} {field:10.2e}")
            print(lines[-1], flush=True)
    lines += ["", f"verdict: {'every goal holds' if ok else 'a goal FAILS'}"]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "pybullet.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(args.out, "pybullet.json"), "w") as f:
        json.dump(out, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
