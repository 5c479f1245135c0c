#!/usr/bin/env python3
"""Check pbdfit's `jolt` engine profile against Jolt Physics itself (crates.io oxijolt, f32).

For each case (scene x N x parameter point) it
  (a) runs `pbdfit simulate --scene S --n N --model jolt ... --json`, which prints the rest state
      (`displacements`) and the body it simulated (`vertices`, `tets`, `constraints`, `masses`, `fixed`);
      that body is cross-checked against an independent construction of pbdfit's cube mesh here
      (`cube_mesh`), so a change of mesh convention fails loudly instead of passing for a Jolt difference;
  (b) runs the same body through Jolt with `jolt_rest` (benchmarks/engines/jolt), stepping the dynamics
      as a user would until it is at rest;
  (c) reports rel = max_i |u_pbdfit,i - u_jolt,i| / max_i |u_jolt,i| (Euclidean norms per vertex).

Jolt computes in f32, and its rest state is only defined to a precision that worsens as the substep
h = dt/nit shrinks: the per-substep gravity move g h^2 (1.1e-4 m at h = 1/300, 2.7e-5 m at 1/600) is
rounded to the f32 grid of the vertex coordinates (6e-8..1.2e-7 m near 1 m), a per-vertex load error of
0.1..0.4 % that depends on where the body sits. So each case also runs
  - Jolt at several origins (the same body translated, which exact arithmetic cannot see): their spread
    is Jolt's own f32 uncertainty;
  - `spec_rest`, an independent re-implementation of Jolt's step written from Jolt's C++ source, in plain
    f32 at the same origins (J-spec32: does Jolt do exactly this algorithm, up to f32 rounding order?)
    and in f64 iterated to round-off (spec64: does pbdfit compute this algorithm's rest state?).
A difference above the goal is "f32-limited" when pbdfit equals the f64 re-implementation (1e-6) and Jolt
equals the f32 one (within the goal): the difference is then Jolt's f32 arithmetic, not the profile.

Sections of the report:
  A. rest states at the parameter points (dt 1/60, mNumIterations 5 and 10);
  B. controls: the same points with one substep per step (h = dt = 1/60), where f32 resolves the rest
     state, so a modelling difference of the profile would show directly;
  C. trajectories at dt = 1/10 (large per-step motion, f32 ~1e-6): displacements after 1, 5 and 20 steps
     from the undeformed state, which depend on everything in the step (projection order included); the
     last row runs Jolt with its vertices renumbered (which changes Optimize's order) to show that the
     check is sensitive to the order.

Usage:
    python3 benchmarks/engines/jolt_check.py [--pbdfit PATH] [--jolt-rest PATH] [--spec-rest PATH]
        [--out DIR] [--quick]

Writes DIR/jolt.txt (the tables) and DIR/jolt.json (every number and displacement field), DIR defaulting
to benchmarks/engines/results. Exit status 0 when every rest case is "ok" or "f32-limited" and every
trajectory is within --goal (1e-3); 1 otherwise; 2 on a setup error. Building the binaries: see
benchmarks/engines/README.md.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GRAVITY = (0.0, -9.81, 0.0)
HELD_PLANE = {"gravity-floor": (1, 0.0), "gravity-wall": (2, 0.0), "gravity-ceiling": (1, 1.0)}

# Parameter points: Jolt's Edge::mCompliance (m/N), Volume::mCompliance (Jolt's C = |6V| - 6V0: 36 x the
# textbook C = V - V0 compliance; 3.6e-4 is 36 x 1e-5), mNumIterations, mLinearDamping (Jolt's default 0.1).
# The cube has density 1 (1 kg in all), so these give sags of 1.4 % (floor, ceiling) to 23 % (wall) of it.
POINTS = {
    "P1": {"edge_compliance": 3e-2, "volume_compliance": 3.6e-4, "iterations": 5, "linear_damping": 0.1, "dt": "1/60"},
    "P2": {"edge_compliance": 5e-2, "volume_compliance": 1.8e-2, "iterations": 10, "linear_damping": 0.1,
           "dt": "1/60"},
}
SCENES = ["gravity-floor", "gravity-wall", "gravity-ceiling"]
NS = [2, 4]
# Origins for the f32 spread: the world origin, the cube's centre (where Jolt's default re-centring keeps
# the local frame), and two arbitrary ones.
ORIGINS = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.3, 0.7, 0.1], [-0.45, 0.15, 0.8]]
TRAJECTORY_STEPS = [1, 5, 20]


def parse_dt(text: str) -> float:
    if "/" in text:
        a, b = text.split("/")
        return float(a) / float(b)
    return float(text)


# ------------------------------------------------------------------------------------------------
# pbdfit's cube mesh, built independently (docs/method.md's convention)
# ------------------------------------------------------------------------------------------------
def cube_mesh(n: int):
    """Vertices, positively oriented tets, edges (first-met order), lumped masses of the unit cube, and
    the signed 6V of a tet."""
    idx = lambda i, j, k: i + (n + 1) * (j + (n + 1) * k)
    verts = [(i / n, j / n, k / n) for k in range(n + 1) for j in range(n + 1) for i in range(n + 1)]
    a_corners = [(0, 0, 0), (1, 1, 0), (1, 0, 1), (0, 1, 1)]
    b_corners = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]

    def s6(t):
        p = [verts[v] for v in t]
        e = [[p[q][c] - p[0][c] for c in range(3)] for q in (1, 2, 3)]
        return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1])
                - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0])
                + e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]))

    tets = []
    for k in range(n):
        for j in range(n):
            for i in range(n):
                central, corners = (a_corners, b_corners) if (i + j + k) % 2 == 0 else (b_corners, a_corners)
                g = lambda c: idx(i + c[0], j + c[1], k + c[2])
                local = [[g(c) for c in central]]
                for c in corners:
                    fx, fy, fz = (1 - c[0], c[1], c[2]), (c[0], 1 - c[1], c[2]), (c[0], c[1], 1 - c[2])
                    local.append([g(c), g(fx), g(fy), g(fz)])
                for t in local:
                    if s6(t) < 0:
                        t[2], t[3] = t[3], t[2]
                    tets.append(t)
    edges, seen = [], set()
    for a, b, c, d in tets:
        for p, q in ((a, b), (a, c), (a, d), (b, c), (b, d), (c, d)):
            key = (min(p, q), max(p, q))
            if key not in seen:
                seen.add(key)
                edges.append([p, q])
    masses = [0.0] * len(verts)
    for t in tets:
        for v in t:
            masses[v] += s6(t) / 6.0 / 4.0
    return verts, tets, edges, masses, s6


assert cube_mesh(1)[1] == [[0, 3, 6, 5], [1, 0, 5, 3], [2, 3, 6, 0], [4, 5, 0, 6], [7, 6, 3, 5]]


def check_body(scene: str, n: int, out: dict) -> list[str]:
    """Differences between pbdfit's printed body and cube_mesh (empty when they agree)."""
    verts, tets, edges, masses, s6 = cube_mesh(n)
    problems = []
    if len(out["vertices"]) != len(verts) or any(
        max(abs(a - b) for a, b in zip(p, q)) > 1e-12 for p, q in zip(out["vertices"], verts)
    ):
        problems.append("vertices differ")
    if out["tets"] != tets:
        problems.append("tets differ")
    if any(s6(t) <= 0 for t in out["tets"]):
        problems.append("a tet is not positively oriented")
    if [c["particles"] for c in out["constraints"] if c["type"] == "distance"] != edges:
        problems.append("edges differ (set or order)")
    if len(out["masses"]) != len(masses) or any(abs(a - b) > 1e-12 for a, b in zip(out["masses"], masses)):
        problems.append("masses differ")
    axis, value = HELD_PLANE[scene]
    if sorted(out["fixed"]) != [i for i, v in enumerate(verts) if abs(v[axis] - value) < 1e-12]:
        problems.append("held vertices differ")
    return problems


# ------------------------------------------------------------------------------------------------
def pbdfit_args(scene: str, n: int, point: dict) -> list[str]:
    return ["simulate", "--scene", scene, "--n", str(n), "--model", "jolt",
            "--param", f"edge_compliance={point['edge_compliance']}",
            "--param", f"volume_compliance={point['volume_compliance']}",
            "--dt", point["dt"], "--nit", str(point["iterations"]),
            "--setting", f"linear_damping={point['linear_damping']}"]


def run_pbdfit(pbdfit: str, scene: str, n: int, point: dict) -> dict:
    cmd = [pbdfit, *pbdfit_args(scene, n, point), "--json"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"pbdfit failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr}")
    out = json.loads(res.stdout)
    problems = check_body(scene, n, out)
    if problems:
        raise RuntimeError(f"pbdfit's {scene} N={n} body is not the expected cube: {'; '.join(problems)}")
    out["_command"] = " ".join(cmd)
    return out


def read_vtu_displacements(path: Path) -> list[list[float]]:
    """The `displacement` array of one of pbdfit's binary .vtu frames (UInt64 header, Float64 data)."""
    text = path.read_text()
    m = re.search(r'Name="displacement"[^>]*>([^<]*)<', text)
    raw = base64.b64decode(m.group(1))
    nbytes = struct.unpack("<Q", raw[:8])[0]
    a = struct.unpack(f"<{nbytes // 8}d", raw[8:8 + nbytes])
    return [list(a[i:i + 3]) for i in range(0, len(a), 3)]


def pbdfit_trajectory(pbdfit: str, scene: str, n: int, point: dict, steps: int) -> list[list[list[float]]]:
    """pbdfit's displacements after 0..steps steps from rest (its VTK time series)."""
    d = Path(tempfile.mkdtemp(prefix="jolt_check_frames_"))
    try:
        cmd = [pbdfit, *pbdfit_args(scene, n, point), "--frames", str(d), "--frame-every", "1",
               "--frame-steps", str(steps)]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            raise RuntimeError(f"pbdfit failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr}")
        return [read_vtu_displacements(d / f"frame-{k:06d}.vtu") for k in range(steps + 1)]
    finally:
        shutil.rmtree(d, ignore_errors=True)


def jolt_body(p: dict, point: dict, **extra) -> dict:
    held = [False] * len(p["vertices"])
    for i in p["fixed"]:
        held[i] = True
    body = {
        "vertices": p["vertices"],
        "tets": p["tets"],
        "edges": [c["particles"] for c in p["constraints"] if c["type"] == "distance"],
        "held": held,
        "masses": p["masses"],
        "gravity": list(GRAVITY),
        "dt": parse_dt(point["dt"]),
        "iterations": point["iterations"],
        "edge_compliance": point["edge_compliance"],
        "volume_compliance": point["volume_compliance"],
        "linear_damping": point["linear_damping"],
        "gravity_factor": 1.0,
    }
    body.update(extra)
    return body


def run_jolt(jolt_rest: str, body: dict) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(body, f)
        path = f.name
    try:
        res = subprocess.run([jolt_rest, path], capture_output=True, text=True)
    finally:
        os.unlink(path)
    if res.returncode not in (0, 3):
        raise RuntimeError(f"jolt_rest failed ({res.returncode}): {res.stderr.strip()}")
    out = json.loads(res.stdout)
    if res.returncode == 3:
        out["warning"] = res.stderr.strip()
    return out


def norm(v) -> float:
    return math.sqrt(sum(c * c for c in v))


def rel(u, ref) -> float:
    """max_i |u_i - ref_i| / max_i |ref_i|."""
    return max(norm([a - b for a, b in zip(p, q)]) for p, q in zip(u, ref)) / max(norm(v) for v in ref)


def mean_field(fields):
    return [[sum(f[i][k] for f in fields) / len(fields) for k in range(3)] for i in range(len(fields[0]))]


# ------------------------------------------------------------------------------------------------
def run_spec(spec_rest: str, body: dict, precision: str) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(body, f)
        path = f.name
    try:
        res = subprocess.run([spec_rest, path, precision], capture_output=True, text=True)
    finally:
        os.unlink(path)
    if res.returncode not in (0, 3):
        raise RuntimeError(f"spec_rest failed ({res.returncode}): {res.stderr.strip()}")
    return json.loads(res.stdout)


def rest_case(args, scene: str, n: int, pname: str, point: dict, origins: list) -> dict:
    p = run_pbdfit(args.pbdfit, scene, n, point)
    u_p = p["displacements"]
    t0 = time.perf_counter()
    dyn = dict(tol=args.tol, block=args.block, average=args.average, max_steps=args.max_steps)
    jolt = [run_jolt(args.jolt_rest, jolt_body(p, point, origin=o, **dyn)) for o in origins]
    spec32 = [run_spec(args.spec_rest, jolt_body(p, point, origin=o, **dyn), "f32") for o in origins]
    # The f64 re-implementation, iterated (quasi-statically: faster, same fixed point) to round-off.
    spec64 = run_spec(args.spec_rest, jolt_body(p, point, zero_velocity=True, tol=1e-11, window=20,
                                                max_steps=2_000_000), "f64")
    u_j = [j["displacements"] for j in jolt]
    spread = max((rel(a, b) for i, a in enumerate(u_j) for b in u_j[i + 1:]), default=0.0)
    r_jolt = rel(u_p, u_j[0])
    r_spec64 = rel(spec64["displacements"], u_p)
    r_jolt_spec32 = max(rel(j, s["displacements"]) for j, s in zip(u_j, spec32))
    converged = all(j["converged"] for j in jolt) and all(s["converged"] for s in spec32) and p["converged"] \
        and spec64["converged"]
    if not converged:
        verdict = "NOT CONVERGED"
    elif r_jolt <= args.goal:
        verdict = "ok"
    elif r_spec64 <= 1e-6 and r_jolt_spec32 <= args.goal:
        verdict = "f32-limited"
    else:
        verdict = "FAIL"
    return {
        "scene": scene, "n": n, "point": pname, **point, "origins": origins,
        "max_u_pbdfit": max(norm(v) for v in u_p), "max_u_jolt": max(norm(v) for v in u_j[0]),
        "rel_jolt": r_jolt, "rel_jolt_per_origin": [rel(u_p, u) for u in u_j],
        "rel_jolt_mean": rel(u_p, mean_field(u_j)), "jolt_spread": spread,
        "rel_spec32_per_origin": [rel(u_p, s["displacements"]) for s in spec32],
        "rel_jolt_spec32": r_jolt_spec32, "rel_spec64": r_spec64, "verdict": verdict,
        "jolt_steps": [j["steps"] for j in jolt], "jolt_converged": [j["converged"] for j in jolt],
        "spec32_steps": [s["steps"] for s in spec32], "spec64_steps": spec64["steps"],
        "seconds": time.perf_counter() - t0,
        "jolt_edges": jolt[0]["edge_constraints"], "jolt_volumes": jolt[0]["volume_constraints"],
        "jolt_version": jolt[0]["jolt_version"], "oxijolt_version": jolt[0]["oxijolt_version"],
        "pbdfit_converged": p["converged"], "pbdfit_residual": p["residual"], "pbdfit_command": p["_command"],
        "u_pbdfit": u_p, "u_jolt": u_j, "u_spec32": [s["displacements"] for s in spec32],
        "u_spec64": spec64["displacements"],
    }


def trajectory_case(args, scene: str, n: int, pname: str, point: dict, relabel: bool = False) -> dict:
    p = run_pbdfit(args.pbdfit, scene, n, point)
    frames = pbdfit_trajectory(args.pbdfit, scene, n, point, max(TRAJECTORY_STEPS))
    body = jolt_body(p, point)
    nv = len(body["vertices"])
    perm = list(range(nv))[::-1] if relabel else list(range(nv))  # vertex v becomes perm[v]
    if relabel:
        inv = [0] * nv
        for v in range(nv):
            inv[perm[v]] = v
        for key in ("vertices", "held", "masses"):
            body[key] = [body[key][inv[i]] for i in range(nv)]
        body["tets"] = [[perm[v] for v in t] for t in body["tets"]]
        body["edges"] = [[perm[v] for v in e] for e in body["edges"]]
    rels, maxu = [], []
    for k in TRAJECTORY_STEPS:
        j = run_jolt(args.jolt_rest, dict(body, fixed_steps=k))
        u_j = [j["displacements"][perm[v]] for v in range(nv)]
        rels.append(rel(frames[k], u_j))
        maxu.append(max(norm(v) for v in u_j))
    return {"scene": scene, "n": n, "point": pname, **point, "relabelled": relabel, "steps": TRAJECTORY_STEPS,
            "rel": rels, "max_u_jolt": maxu}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pbdfit", default=os.environ.get("PBDFIT", str(REPO / "target/debug/pbdfit")))
    ap.add_argument("--jolt-rest", default=os.environ.get("JOLT_REST", "/tmp/jolt-target/release/jolt_rest"))
    ap.add_argument("--spec-rest", default=os.environ.get("SPEC_REST", "/tmp/jolt-target/release/spec_rest"))
    ap.add_argument("--out", default=str(HERE / "results"))
    ap.add_argument("--name", default="jolt", help="output file stem")
    ap.add_argument("--goal", type=float, default=1e-3)
    ap.add_argument("--tol", type=float, default=2e-4,
                    help="rest: consecutive block means differ by less than tol x max|u|")
    ap.add_argument("--block", type=int, default=5000, help="rest: steps per block")
    ap.add_argument("--average", type=int, default=20000, help="rest: steps averaged after rest")
    ap.add_argument("--origins", type=int, default=len(ORIGINS), help="origins per section A case")
    ap.add_argument("--max-steps", type=int, default=400000)
    ap.add_argument("--quick", action="store_true", help="N = 2 only, 2 origins, no controls")
    args = ap.parse_args()
    if args.quick:
        args.origins = 2

    for exe in (args.pbdfit, args.jolt_rest, args.spec_rest):
        if not os.access(exe, os.X_OK):
            print(f"jolt_check: {exe} is not an executable (see benchmarks/engines/README.md)", file=sys.stderr)
            return 2
    ns = [2] if args.quick else NS
    started = time.perf_counter()
    lines: list[str] = []

    def emit(line: str = "") -> None:
        lines.append(line)
        print(line, flush=True)

    head = (f"{'scene':16s} {'N':>2s} {'pt':3s} {'nit':>3s} {'max|u| m':>9s} {'rel':>9s} {'centred':>9s} "
            f"{'mean':>9s} {'f32 sprd':>9s} {'J-spec32':>9s} {'spec64':>9s}  verdict")

    def row(r: dict) -> str:
        centred = r["rel_jolt_per_origin"][1] if len(r["rel_jolt_per_origin"]) > 1 else float("nan")
        return (f"{r['scene']:16s} {r['n']:2d} {r['point']:3s} {r['iterations']:3d} {r['max_u_jolt']:9.3e} "
                f"{r['rel_jolt']:9.2e} {centred:9.2e} {r['rel_jolt_mean']:9.2e} {r['jolt_spread']:9.2e} "
                f"{r['rel_jolt_spec32']:9.2e} {r['rel_spec64']:9.2e}  {r['verdict']}")

    try:
        emit("A. Rest states at the parameter points, dt = 1/60")
        emit(head)
        section_a = []
        for pname in POINTS:
            for scene in SCENES:
                for n in ns:
                    section_a.append(rest_case(args, scene, n, pname, POINTS[pname], ORIGINS[:args.origins]))
                    emit(row(section_a[-1]))
        section_b = []
        if not args.quick:
            emit()
            emit("B. Controls: the same points with mNumIterations = 1 (substep = dt = 1/60, where f32 resolves the rest state)")
            emit(head)
            for pname in POINTS:
                for scene in SCENES:
                    for n in ns:
                        point = dict(POINTS[pname], iterations=1)
                        section_b.append(rest_case(args, scene, n, pname, point, ORIGINS[:2]))
                        emit(row(section_b[-1]))
        emit()
        emit(f"C. Trajectories from the undeformed state, dt = 1/10: rel after {', '.join(map(str, TRAJECTORY_STEPS))} steps")
        section_c = []
        cases_c = [(s, n, pn, False) for pn in POINTS for s in SCENES for n in ns]
        cases_c.append(("gravity-wall", 2, "P1", True))
        for scene, n, pname, relabel in cases_c:
            point = dict(POINTS[pname], dt="1/10")
            r = trajectory_case(args, scene, n, pname, point, relabel)
            section_c.append(r)
            emit(f"{scene:16s} {n:2d} {pname:3s} nit {point['iterations']:2d} "
                 + " ".join(f"{x:9.2e}" for x in r["rel"])
                 + f"   max|u| {r['max_u_jolt'][-1]:.3e}" + ("   <- Jolt's vertices renumbered (order changed)" if relabel else ""))
    except RuntimeError as e:
        print(f"jolt_check: {e}", file=sys.stderr)
        return 2

    rest = section_a + section_b
    versions = sorted({(r["jolt_version"], r["oxijolt_version"]) for r in rest})
    ok_rest = all(r["verdict"] in ("ok", "f32-limited") for r in rest)
    ok_traj = all(max(r["rel"]) <= args.goal for r in section_c if not r["relabelled"])
    summary = [
        "",
        f"worst rel: A {max(r['rel_jolt'] for r in section_a):.2e}; "
        f"B {max((r['rel_jolt'] for r in section_b), default=float('nan')):.2e}; "
        f"C {max(max(r['rel']) for r in section_c if not r['relabelled']):.2e}; "
        f"pbdfit vs the f64 re-implementation {max(r['rel_spec64'] for r in rest):.1e}; "
        f"Jolt vs the f32 re-implementation {max(r['rel_jolt_spec32'] for r in rest):.1e}  (goal {args.goal:g})",
        f"{'PASS' if ok_rest and ok_traj else 'FAIL'} ({time.perf_counter() - started:.0f} s)",
    ]
    for line in summary:
        emit(line)
    preamble = [
        "pbdfit `jolt` profile vs Jolt Physics (crates.io oxijolt, f32, built from its bundled C++ source)",
        f"Jolt/oxijolt: {versions}; pbdfit: {args.pbdfit}",
        f"body: pbdfit's unit cube (density 1, lumped masses), gravity {GRAVITY}, gravity_factor 1; points "
        + "; ".join(f"{k}: edge {v['edge_compliance']:g} m/N, volume {v['volume_compliance']:g}, nit {v['iterations']}, "
                    f"damping {v['linear_damping']:g}/s" for k, v in POINTS.items()),
        "rel = max_i |u_pbdfit,i - u_jolt,i| / max_i |u_jolt,i|. Jolt's rest state: stepped until the means of two "
        f"consecutive {args.block}-step blocks differ by < {args.tol:g} max|u|, then averaged over {args.average} steps",
        "rel: body at the world origin (as pbdfit); centred: origin at the cube's centre; mean: of the Jolt runs at "
        f"{args.origins} origins; f32 sprd: largest rel between those runs (exact arithmetic cannot see the origin)",
        "J-spec32: largest rel between Jolt and spec_rest's plain-f32 re-implementation of Jolt's step at the same "
        "origin; spec64: rel between pbdfit and spec_rest in f64 (both to round-off)",
        "verdict: ok (rel <= goal); f32-limited (rel above the goal, but pbdfit = the f64 re-implementation to 1e-6 "
        "and Jolt = the f32 one within the goal: the difference is Jolt's f32 arithmetic); FAIL",
        "",
    ]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{args.name}.txt").write_text("\n".join(preamble + lines) + "\n")
    (out / f"{args.name}.json").write_text(json.dumps({
        "goal": args.goal, "tol": args.tol, "block": args.block, "average": args.average,
        "points": POINTS, "gravity": GRAVITY, "rest": section_a, "controls": section_b, "trajectories": section_c,
    }) + "\n")
    return 0 if ok_rest and ok_traj else 1


if __name__ == "__main__":
    sys.exit(main())
