#!/usr/bin/env python3
"""pbdfit's `genesis-pbd` profile against Genesis 1.4.5 itself: rest states on the gravity cubes and Genesis's own mesh.

Run with the Python that has Genesis (the Genesis runs go through genesis_rest.py in a subprocess with the
same interpreter):

    nice -n 10 /tmp/venv-genesis/bin/python benchmarks/engines/genesis_check.py [--pbdfit target/debug/pbdfit]
        [--reuse benchmarks/engines/results/genesis.json] [--only gravity-wall] [--no-f32] [--no-volume]

Cases: gravity-wall (held z = 0), gravity-ceiling (held y = 1), gravity-floor (held y = 0) on the unit cube at
N = 2 and 4, and the genesis-box scene (scenes/genesis-box.toml: the mesh Genesis itself builds for a unit
Box, held z = 0); gravity (0, -9.81, 0), density 1 (1 kg in all), uniform masses, Genesis's defaults
otherwise (relaxations 0.1, 4 stretch passes, 1 volume pass). Two parameter points per case:

    A: dt = 0.01, 4 substeps, volume_compliance = 0     stretch_compliance 1e-3 (wall, box) or 1e-2 (floor, ceiling)
    B: dt = 0.01, 2 substeps, volume_compliance = 1e-6  stretch_compliance 3e-3 (wall, box) or 3e-2 (floor, ceiling)

(a largest displacement of 1.5 to 6 % of the cube; floor and ceiling need ten times the wall's compliance
for the same sag). The cubes are built here by pbdfit's convention (vertex (i,j,k) at (i/N, j/N, k/N),
index i + (N+1)(j + (N+1)k), five tetrahedra per cell, crates/pbdfit-mesh/src/cube.rs), and checked against
pbdfit's own mesh (`pbdfit simulate --json`) whenever the binary is there.

For every case and point it computes
- Genesis's rest state in float64 (tol 1e-12) and in float32 (Genesis's default; tol 1e-7, or where the f32
  iteration stalls) with genesis_rest.py: Genesis on the CPU, on exactly this mesh, held particles fixed,
  self-collision inactive (particle_size 1e-3 x the shortest particle distance), domain bounds far away;
- the fixed point of genesis_rest.py's float64 NumPy rewrite of Genesis's step (Newton, residual 1e-14);
- pbdfit's rest state, `pbdfit simulate --scene S --n N --model genesis-pbd --param stretch_compliance=A
  --param volume_compliance=B --dt DT --nit SUBSTEPS --mass-model uniform --json`, once the binary knows the
  genesis-pbd model (otherwise the pbdfit columns say n/a and the NumPy rewrite stands in);
and reports max_i |u_a,i - u_b,i| / max_i |u_b,i| (Euclidean norm per vertex, the maximum over vertices).
It also runs Genesis (f64) at volume_compliance 0, 1e-3 and 1e9 on four cases at point A to measure how far
Genesis's volume constraint (whose correction carries an extra |grad V|^2) moves the rest state; Genesis on
genesis-box with its own particle_size 0.25 (self-collision active, as a plain Genesis run has it); and,
where pbdfit refuses a point as having no stable rest state, Genesis's plain undamped dynamics from the
undeformed body for 8000 steps, to see whether Genesis's simulation settles at that rest state.

Output: benchmarks/engines/results/genesis.txt (the tables) and genesis.json (every number, the commands and
Genesis's displacements). --reuse FILE takes Genesis's displacements from an earlier genesis.json instead of
running Genesis (only NumPy needed then), to recheck pbdfit quickly after a change.
Exit status: 0 when every pbdfit row agrees with Genesis f64 within 1e-6 (or pbdfit has no genesis-pbd yet)
and the NumPy rewrite agrees with Genesis f64 within 1e-6; 1 otherwise.
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
sys.path.insert(0, HERE)
from genesis_rest import DEFAULTS, F64Reference  # noqa: E402  (NumPy only; Genesis is imported in the runs)

GRAVITY = [0.0, -9.81, 0.0]
POINTS = {
    "A": {"dt": 0.01, "substeps": 4, "volume_compliance": 0.0},
    "B": {"dt": 0.01, "substeps": 2, "volume_compliance": 1e-6},
}
STRETCH = {"wall": {"A": 1e-3, "B": 3e-3}, "box": {"A": 1e-3, "B": 3e-3},
           "floor": {"A": 1e-2, "B": 3e-2}, "ceiling": {"A": 1e-2, "B": 3e-2}}
TOL = {"64": 1e-12, "32": 1e-7}
MAX_STEPS = 60000
AGREE = 1e-6  # pbdfit (f64) and the NumPy rewrite against Genesis f64
VOLUME_CASES = [("gravity-wall", 2), ("gravity-floor", 2), ("gravity-wall", 4), ("genesis-box", None)]
VOLUME_COMPLIANCES = [0.0, 1e-3, 1e9]
PROBE_STEPS = 8000  # Genesis's plain dynamics where pbdfit refuses a point as unstable
NATIVE_PARTICLE_SIZE = 0.25  # what genesis_export_mesh.py built genesis-box.msh with

A_CORNERS = [(0, 0, 0), (1, 1, 0), (1, 0, 1), (0, 1, 1)]
B_CORNERS = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]


# ----------------------------------------------------------------------------------------------------------
# Meshes
# ----------------------------------------------------------------------------------------------------------
def unit_cube(n: int) -> tuple[np.ndarray, np.ndarray]:
    """pbdfit's unit cube: vertex (i, j, k) at (i/n, j/n, k/n) with index i + (n+1)(j + (n+1)k); cells k
    outermost, then j, then i; an even cell (i + j + k even) has the central tetrahedron on A's corners and
    corner tetrahedra at B's, an odd cell the reverse; central first, then the corner tetrahedra (c, c with x
    flipped, with y flipped, with z flipped) in list order; last two vertices swapped where the volume is
    negative."""
    idx = lambda i, j, k: i + (n + 1) * (j + (n + 1) * k)
    X = np.array([(i / n, j / n, k / n) for k in range(n + 1) for j in range(n + 1) for i in range(n + 1)])
    T = []
    for k in range(n):
        for j in range(n):
            for i in range(n):
                at = lambda c: idx(i + c[0], j + c[1], k + c[2])
                central, corners = (A_CORNERS, B_CORNERS) if (i + j + k) % 2 == 0 else (B_CORNERS, A_CORNERS)
                local = [[at(c) for c in central]]
                for c in corners:
                    flips = [tuple(1 - c[a] if a == axis else c[a] for a in range(3)) for axis in range(3)]
                    local.append([at(c)] + [at(f) for f in flips])
                for t in local:
                    if np.linalg.det(X[t[1:]] - X[t[0]]) < 0.0:
                        t[2], t[3] = t[3], t[2]
                    T.append(t)
    return X, np.array(T, dtype=np.int64)


assert unit_cube(1)[1].tolist() == [[0, 3, 6, 5], [1, 0, 5, 3], [2, 3, 6, 0], [4, 5, 0, 6], [7, 6, 3, 5]]


def read_msh22(path: str) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and 4-node tetrahedra of a Gmsh 2.2 ASCII file (as genesis_export_mesh.py writes it)."""
    lines = open(path).read().split("\n")
    i = lines.index("$Nodes")
    nn = int(lines[i + 1])
    ids, X = {}, []
    for k in range(nn):
        f = lines[i + 2 + k].split()
        ids[int(f[0])] = k
        X.append([float(v) for v in f[1:4]])
    j = lines.index("$Elements")
    T = []
    for k in range(int(lines[j + 1])):
        f = [int(v) for v in lines[j + 2 + k].split()]
        if f[1] == 4:
            T.append([ids[v] for v in f[3 + f[2]:3 + f[2] + 4]])
    return np.array(X), np.array(T, dtype=np.int64)


def cases() -> list[dict]:
    out = []
    for scene, kind, axis, value in [("gravity-wall", "wall", 2, 0.0), ("gravity-ceiling", "ceiling", 1, 1.0),
                                     ("gravity-floor", "floor", 1, 0.0)]:
        for n in (2, 4):
            X, T = unit_cube(n)
            out.append(dict(scene=scene, kind=kind, n=n, X=X, T=T, held=np.abs(X[:, axis] - value) <= 1e-9,
                            pbdfit_scene=scene))
    toml = os.path.join(ROOT, "scenes", "genesis-box.toml")
    X, T = read_msh22(os.path.join(ROOT, "scenes", "meshes", "genesis-box.msh"))
    out.append(dict(scene="genesis-box", kind="box", n=None, X=X, T=T, held=np.abs(X[:, 2]) <= 1e-6,
                    pbdfit_scene=toml))
    return out


def body(case: dict, point: str, **over) -> dict:
    b = dict(DEFAULTS)
    b.update(vertices=case["X"].tolist(), tets=case["T"].tolist(), held=case["held"].tolist(), gravity=GRAVITY,
             density=1.0, stretch_compliance=STRETCH[case["kind"]][point], **POINTS[point])
    b.update(over)
    return b


def label(case: dict) -> str:
    return case["scene"] if case["n"] is None else f"{case['scene']} N={case['n']}"


# ----------------------------------------------------------------------------------------------------------
# Runs
# ----------------------------------------------------------------------------------------------------------
def run_genesis(b: dict, precision: str, log, probe: int = 0) -> dict:
    b = dict(b, tol=TOL[precision], max_steps=MAX_STEPS)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(b, f)
        path = f.name
    try:
        cmd = [sys.executable, os.path.join(HERE, "genesis_rest.py"), path, "--precision", precision]
        if probe:
            cmd += ["--probe-dynamics", str(probe)]
        p = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        os.unlink(path)
    try:
        out = json.loads(p.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        raise SystemExit(f"genesis_rest.py failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
    if "error" in out:
        raise SystemExit(f"genesis_rest.py: {out['error']}")
    ok = out["converged"] or (precision == "32" and out["stop_reason"] == "f32_floor")
    if not ok:
        raise SystemExit(f"genesis_rest.py did not reach rest: {out['stop_reason']} after {out['steps']} steps")
    log(f"    genesis f{precision}: {out['steps']} steps, {out['stop_reason']}, max|u| "
        f"{out['max_abs_displacement']:.6g} m, particle mass {out['particle_mass']:.6g} kg, "
        f"particle_size {out['particle_size']:.3g} m, self-collision pairs {out['self_collision_pairs']}")
    return out


def pbdfit_has_genesis(exe: str) -> bool:
    if not exe or not os.path.exists(exe):
        return False
    p = subprocess.run([exe, "simulate", "--help"], capture_output=True, text=True)
    return "genesis-pbd" in p.stdout and "- genesis-pbd" in p.stdout


def pbdfit_cmd(exe: str, case: dict, b: dict, model: str = "genesis-pbd") -> list[str]:
    cmd = [exe, "simulate", "--scene", case["pbdfit_scene"]]
    if case["n"] is not None:
        cmd += ["--n", str(case["n"])]
    cmd += ["--model", model]
    if model == "genesis-pbd":
        cmd += ["--param", f"stretch_compliance={b['stretch_compliance']!r}",
                "--param", f"volume_compliance={b['volume_compliance']!r}",
                "--dt", repr(b["dt"]), "--nit", str(b["substeps"])]
    return cmd + ["--mass-model", "uniform", "--json"]


def run_pbdfit(cmd: list[str], fatal: bool = True) -> dict:
    """pbdfit's JSON; a refusal (non-zero exit) is fatal, or with fatal=False returned as {"error": message}."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        msg = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
        if fatal:
            raise SystemExit(f"pbdfit failed (exit {p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
        return {"error": msg, "exit": p.returncode}
    out = json.loads(p.stdout)
    return out[0] if isinstance(out, list) else out


def binary_info(exe: str) -> dict:
    if not exe or not os.path.exists(exe):
        return {"path": exe, "exists": False}
    st = os.stat(exe)
    info = {"path": exe, "exists": True, "mtime": datetime.datetime.fromtimestamp(
        st.st_mtime, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")}
    try:
        info["version"] = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
        info["git_head"] = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                          text=True).stdout.strip()
    except OSError:
        pass
    return info


def check_mesh(case: dict, pb: dict) -> None:
    """pbdfit's mesh, held set and masses must be the ones given to Genesis."""
    V = np.asarray(pb["vertices"], dtype=np.float64)
    if V.shape != case["X"].shape or np.abs(V - case["X"]).max() > 1e-12:
        raise SystemExit(f"{label(case)}: pbdfit's vertices differ from the body given to Genesis")
    if not np.array_equal(np.asarray(pb["tets"]), case["T"]):
        raise SystemExit(f"{label(case)}: pbdfit's tetrahedra differ from the body given to Genesis")
    if sorted(pb["fixed"]) != np.nonzero(case["held"])[0].tolist():
        raise SystemExit(f"{label(case)}: pbdfit holds other vertices")
    m = np.asarray(pb["masses"])
    if np.abs(m - 1.0 / len(V)).max() > 1e-12 * 1.0:
        raise SystemExit(f"{label(case)}: pbdfit's uniform masses are not 1/n")


def rel(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.linalg.norm(a - b, axis=1).max() / np.linalg.norm(b, axis=1).max())


def fmt(x) -> str:
    return "n/a" if x is None else f"{x:.2e}"


# ----------------------------------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pbdfit", default=os.path.join(ROOT, "target", "debug", "pbdfit"))
    ap.add_argument("--reuse", help="take Genesis's displacements from this genesis.json instead of running Genesis")
    ap.add_argument("--only", help="only the cases whose label contains this")
    ap.add_argument("--no-f32", action="store_true", help="skip the float32 Genesis runs")
    ap.add_argument("--no-volume", action="store_true", help="skip the volume-compliance sweep")
    ap.add_argument("--no-native", action="store_true",
                    help="skip the genesis-box run with Genesis's own particle_size (self-collision active)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "genesis"), help="output path without suffix")
    args = ap.parse_args()

    logs: list[str] = []

    def log(s: str) -> None:
        print(s, file=sys.stderr, flush=True)
        logs.append(s)

    old = {}
    if args.reuse:
        prev = json.load(open(args.reuse))
        old = {(r["case"], r["point"]): r for r in prev["rows"]}
        old.update({(r["case"], f"vc={r['volume_compliance']!r}"): r for r in prev.get("volume_runs", [])})
        if prev.get("native"):
            old[("native", "A")] = prev["native"]
    have = pbdfit_has_genesis(args.pbdfit)
    binary_start = binary_info(args.pbdfit)
    log(f"pbdfit {args.pbdfit}: " + ("has --model genesis-pbd" if have else
        "no genesis-pbd model yet (or no binary): pbdfit columns n/a, the NumPy rewrite stands in"))
    genesis_version = None
    rows, volume_rows, volume_runs = [], [], []
    native = None
    for case in cases():
        if args.only and args.only not in label(case):
            continue
        if os.path.exists(args.pbdfit):  # the mesh check needs any model; pbd is always there
            check_mesh(case, run_pbdfit(pbdfit_cmd(args.pbdfit, case, {}, model="pbd")))
        for point in POINTS:
            b = body(case, point)
            lab = label(case)
            log(f"{lab} point {point}: dt {b['dt']}, substeps {b['substeps']}, stretch_compliance "
                f"{b['stretch_compliance']:g}, volume_compliance {b['volume_compliance']:g}")
            row = {"case": lab, "scene": case["scene"], "n": case["n"], "point": point,
                   "dt": b["dt"], "substeps": b["substeps"], "stretch_compliance": b["stretch_compliance"],
                   "volume_compliance": b["volume_compliance"], "vertices": len(case["X"]),
                   "held": int(case["held"].sum())}
            if args.reuse:
                r = old[(lab, point)]
                g64, g32 = r["genesis_f64"], r.get("genesis_f32")
                genesis_version = prev.get("genesis_version")
            else:
                g64 = run_genesis(b, "64", log)
                g32 = None if args.no_f32 else run_genesis(b, "32", log)
                genesis_version = g64["genesis_version"]
            keep = ("steps", "stop_reason", "converged", "max_step_change", "particle_mass", "total_mass",
                    "particle_size", "min_pair_distance", "self_collision_pairs", "max_abs_displacement",
                    "displacements", "est_error")
            row["genesis_f64"] = {k: g64[k] for k in keep if k in g64}
            row["genesis_f32"] = None if g32 is None else {k: g32[k] for k in keep if k in g32}
            u64 = np.asarray(g64["displacements"])
            row["max_u_genesis"] = float(np.linalg.norm(u64, axis=1).max())
            ref = F64Reference(b)
            rs = ref.rest_state()
            u_ref = rs["x"] - ref.X
            row["numpy_f64"] = {"newton_iterations": rs["newton_iterations"], "residual": rs["residual"],
                                "converged": rs["converged"]}
            row["rel_numpy_vs_genesis64"] = rel(u_ref, u64)
            row["rel_genesis32_vs_genesis64"] = None if g32 is None else rel(g32["displacements"], u64)
            row["rel_numpy_vs_genesis32"] = None if g32 is None else rel(u_ref, g32["displacements"])
            row["pbdfit_command"] = None
            row["rel_pbdfit_vs_genesis64"] = row["rel_pbdfit_vs_genesis32"] = row["rel_pbdfit_vs_numpy"] = None
            if have:
                cmd = pbdfit_cmd(args.pbdfit, case, b)
                pb = run_pbdfit(cmd, fatal=False)
                row["pbdfit_command"] = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)
                if "error" in pb:
                    row["pbdfit_error"] = pb["error"]
                    log(f"    pbdfit refused: {pb['error']}")
                    # does Genesis's own simulation settle at this rest state? (plain undamped dynamics)
                    if args.reuse and old[(lab, point)].get("genesis_dynamics_probe"):
                        probe = old[(lab, point)]["genesis_dynamics_probe"]
                    else:
                        log(f"    Genesis f64 dynamics from the undeformed body, {PROBE_STEPS} steps")
                        probe = run_genesis(b, "64", log, probe=PROBE_STEPS)["dynamics_probe"]
                    row["genesis_dynamics_probe"] = probe
                    log(f"    Genesis's dynamics: distance to the rest state {probe['distance'][-1][1]:.2e} m after "
                        f"{probe['steps']} steps ({'settles' if probe['settles'] else 'does not settle'})")
                else:
                    check_mesh(case, pb)
                    u_pb = np.asarray(pb["displacements"])
                    row["pbdfit_converged"] = pb.get("converged")
                    row["rel_pbdfit_vs_genesis64"] = rel(u_pb, u64)
                    row["rel_pbdfit_vs_genesis32"] = None if g32 is None else rel(u_pb, g32["displacements"])
                    row["rel_pbdfit_vs_numpy"] = rel(u_pb, u_ref)
            log(f"    max|u| {row['max_u_genesis']:.4g} m; NumPy vs Genesis f64 {fmt(row['rel_numpy_vs_genesis64'])}, "
                f"Genesis f32 vs f64 {fmt(row['rel_genesis32_vs_genesis64'])}, pbdfit vs Genesis f64 "
                f"{fmt(row['rel_pbdfit_vs_genesis64'])}, pbdfit vs Genesis f32 {fmt(row['rel_pbdfit_vs_genesis32'])}")
            rows.append(row)

        if args.no_volume or (case["scene"], case["n"]) not in VOLUME_CASES:
            continue
        # Genesis's volume constraint at point A: volume_compliance 0 (the row above), 1e-3 and 1e9
        us, refs = {}, {}
        for vc in VOLUME_COMPLIANCES:
            b = body(case, "A", volume_compliance=vc)
            lab = label(case)
            if vc == POINTS["A"]["volume_compliance"]:
                us[vc] = np.asarray(next(r for r in rows if r["case"] == lab and r["point"] == "A")["genesis_f64"]["displacements"])
            elif args.reuse:
                us[vc] = np.asarray(old[(lab, f"vc={vc!r}")]["genesis_f64"]["displacements"])
            else:
                log(f"{lab} point A, volume_compliance {vc:g}")
                us[vc] = np.asarray(run_genesis(b, "64", log)["displacements"])
            if vc != POINTS["A"]["volume_compliance"]:
                volume_runs.append({"case": lab, "volume_compliance": vc,
                                    "genesis_f64": {"displacements": us[vc].tolist()}})
            ref = F64Reference(b)
            refs[vc] = ref.rest_state()["x"] - ref.X
        off = VOLUME_COMPLIANCES[-1]
        for vc in VOLUME_COMPLIANCES[:-1]:
            volume_rows.append({"case": label(case), "point": "A", "stretch_compliance": STRETCH[case["kind"]]["A"],
                                "volume_compliance": vc, "reference_volume_compliance": off,
                                "rel_genesis": rel(us[vc], us[off]), "rel_numpy": rel(refs[vc], refs[off]),
                                "max_u_genesis": float(np.linalg.norm(us[vc], axis=1).max())})
        log("    volume: " + ", ".join(f"vc {r['volume_compliance']:g} vs 1e9: Genesis {r['rel_genesis']:.2e} "
                                        f"(NumPy {r['rel_numpy']:.2e})" for r in volume_rows[-2:]))

    # ---- Genesis as it runs by default on its own mesh: particle_size = the remesh target, self-collision on
    box = next((c for c in cases() if c["scene"] == "genesis-box"), None)
    if not args.no_native and box is not None and not (args.only and args.only not in label(box)):
        if args.reuse and ("native", "A") in old:
            native = old[("native", "A")]
        else:
            log(f"genesis-box point A, particle_size {NATIVE_PARTICLE_SIZE} (self-collision active)")
            g = run_genesis(body(box, "A", particle_size=NATIVE_PARTICLE_SIZE), "64", log)
            native = {"particle_size": NATIVE_PARTICLE_SIZE, "steps": g["steps"],
                      "self_collision_pairs": g["self_collision_pairs"], "displacements": g["displacements"],
                      "max_u": float(np.linalg.norm(np.asarray(g["displacements"]), axis=1).max())}
        r = next(r for r in rows if r["case"] == "genesis-box" and r["point"] == "A")
        native["rel_vs_inactive"] = rel(native["displacements"], r["genesis_f64"]["displacements"])
        native["max_u_inactive"] = r["max_u_genesis"]
        native["particle_size_inactive"] = r["genesis_f64"]["particle_size"]
        log(f"    self-collision at particle_size {NATIVE_PARTICLE_SIZE}: {native['self_collision_pairs']} pairs held, "
            f"rest state moved by {native['rel_vs_inactive']:.3g} of max|u|")

    # ---- results ----
    ok_numpy = all(r["rel_numpy_vs_genesis64"] <= AGREE for r in rows)
    ok_pbdfit = all((r["rel_pbdfit_vs_genesis64"] is None and not r.get("pbdfit_error"))
                    or (r["rel_pbdfit_vs_genesis64"] is not None and r["rel_pbdfit_vs_genesis64"] <= AGREE)
                    for r in rows)
    refused = [r for r in rows if r.get("pbdfit_error")]
    binary_end = binary_info(args.pbdfit)
    if {k: binary_end.get(k) for k in ("exists", "mtime")} != {k: binary_start.get(k) for k in ("exists", "mtime")}:
        log("warning: the pbdfit binary changed during the run")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"pbdfit genesis-pbd against Genesis {genesis_version} (CPU backend), rest states; {now}",
        "columns: max_i |u_a,i - u_b,i| / max_i |u_b,i| (Euclidean norm per vertex); G64, G32 = Genesis in float64 /",
        "float32 (its default), stepped with v = 0 at each step until the step change <= 1e-12 (f64) / 1e-7 (f32) x max|u|",
        "or the f32 iteration stalled; NumPy = genesis_rest.py's float64 rewrite of Genesis's step, Newton fixed point.",
        f"pbdfit: {args.pbdfit} " + (f"--model genesis-pbd (binary of {binary_start.get('mtime')}, repository at "
                                     f"{binary_start.get('git_head')})" if have else "has no genesis-pbd model yet: n/a"),
        "points: A = dt 0.01, 4 substeps, volume_compliance 0; B = dt 0.01, 2 substeps, volume_compliance 1e-6;",
        "gravity (0, -9.81, 0), 1 kg, uniform masses, relaxations 0.1, 4 stretch / 1 volume pass (Genesis's defaults).",
        "",
        f"{'case':22s} {'pt':2s} {'s_comp':>7s} {'max|u| m':>9s} {'steps64':>7s} {'steps32':>7s} "
        f"{'NumPy-G64':>9s} {'G32-G64':>9s} {'pbdfit-G64':>10s} {'pbdfit-G32':>10s} {'pbdfit-NumPy':>12s}",
    ]
    for r in rows:
        s32 = "-" if r["genesis_f32"] is None else str(r["genesis_f32"]["steps"]) + (
            "*" if r["genesis_f32"]["stop_reason"] == "f32_floor" else "")
        lines.append(f"{r['case']:22s} {r['point']:2s} {r['stretch_compliance']:7.0e} {r['max_u_genesis']:9.4g} "
                     f"{r['genesis_f64']['steps']:7d} {s32:>7s} {fmt(r['rel_numpy_vs_genesis64']):>9s} "
                     f"{fmt(r['rel_genesis32_vs_genesis64']):>9s} {fmt(r['rel_pbdfit_vs_genesis64']):>10s} "
                     f"{fmt(r['rel_pbdfit_vs_genesis32']):>10s} {fmt(r['rel_pbdfit_vs_numpy']):>12s}")
    lines.append("(* = the f32 run stopped where its step change stalled at the f32 floor, not at the tolerance;")
    lines.append(" pbdfit n/a in a row with a pbdfit binary that has genesis-pbd = pbdfit refused the point, below)")
    for r in refused:
        lines.append(f"pbdfit refused {r['case']} point {r['point']}: {r['pbdfit_error']}")
        pr = r.get("genesis_dynamics_probe")
        if pr:
            d = {k: v for k, v in pr["distance"]}
            lines.append(f"  Genesis itself (f64, plain undamped dynamics from the undeformed body): max_i |x_i - x*_i| = "
                         + ", ".join(f"{d[k]:.1e} m" + f" at step {k}" for k in sorted(d) if k in (1, 100, 1000, 2000, 5000, pr["steps"]) or k == max(d))
                         + (" : it settles there" if pr["settles"] else " : it does NOT settle there"))
    if volume_rows:
        lines += ["", "Genesis's volume constraint (its correction carries an extra |grad V|^2): rest state at point A",
                  "with volume_compliance vc against vc = 1e9 (the constraint off), Genesis f64 (NumPy rewrite alongside)",
                  f"{'case':22s} {'vc':>7s} {'Genesis':>9s} {'NumPy':>9s}"]
        for r in volume_rows:
            lines.append(f"{r['case']:22s} {r['volume_compliance']:7g} {r['rel_genesis']:9.2e} {r['rel_numpy']:9.2e}")
    if native is not None:
        lines += ["", f"Genesis's self-collision: genesis-box at point A with particle_size {native['particle_size']} (what built",
                  f"its mesh) instead of {native['particle_size_inactive']:.3g}: {native['self_collision_pairs']} pairs held at particle_size, "
                  f"max|u| {native['max_u']:.4g} m instead of {native['max_u_inactive']:.4g} m,",
                  f"rest state moved by {native['rel_vs_inactive']:.3g} of max|u| ({native['steps']} steps to rest)"]
    lines += ["", f"NumPy rewrite within {AGREE:g} of Genesis f64 everywhere: {'yes' if ok_numpy else 'NO'}",
              "pbdfit within %g of Genesis f64 everywhere: %s" % (AGREE, ("yes" if ok_pbdfit else "NO") if have else "n/a (no genesis-pbd)")]
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out + ".txt", "w") as f:
        f.write(text)
    with open(args.out + ".json", "w") as f:
        json.dump({"genesis_version": genesis_version, "date": now, "pbdfit": args.pbdfit,
                   "pbdfit_has_genesis_pbd": have, "pbdfit_binary": binary_start, "points": POINTS, "stretch_compliance": STRETCH,
                   "tolerances": TOL, "agree": AGREE, "rows": rows, "volume": volume_rows, "volume_runs": volume_runs,
                   "native": native, "log": logs}, f)
    print(text)
    return 0 if ok_numpy and ok_pbdfit else 1


if __name__ == "__main__":
    sys.exit(main())
