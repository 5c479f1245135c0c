#!/usr/bin/env python3
"""Do the `genesis-pbd` profile's fitted parameters give, inside Genesis itself, the error pbdfit reports?

The Genesis counterpart of jolt_fitted.py. For each case (scene, N, material, dt, substeps, settings) it
  (a) fits the profile: `pbdfit fit --model genesis-pbd --dt DT --nit SUBSTEPS [--setting NAME=VALUE]
      --mass-model uniform --json` (the stretch and volume compliances, the error e);
  (b) runs the fitted body through Genesis 1.4.5 (genesis_rest.py: CPU backend, exactly pbdfit's mesh, held
      particles fixed, uniform masses, self-collision inactive; stepped with v = 0 at each step until at rest)
      in float64 (`gs.init(precision="64")`, tol 1e-12, as genesis_check.py), and for scale in float32
      (Genesis's default) at several origins (the same body translated: Genesis's own f32 spread), two ways:
      the same v = 0 iteration (tol 1e-7 or where it stalls, as genesis_check.py) and Genesis's plain
      dynamics from the undeformed body (--dynamics-steps, the second half averaged; genesis_rest.run_genesis
      with its stepping loop replaced, in a subprocess). The f64 plain dynamics are run too, as the control
      that both ways reach the same rest state where rounding is absent;
  (c) computes the error of Genesis's rest state against the same FEM reference (`pbdfit fem --mass-model
      uniform --json`) with the fit's metric: the mean over the vertices the FEM moves (free, |u_fem| >
      1e-12 max |u_fem|) of |u - u_fem|^2 / |u_fem|^2 (crates/pbdfit-fit/src/error_metric.rs);
  (d) reports e_genesis / e_pbdfit - 1 for f64 (the verdict; goal: within 1 %) and for f32 (the origins'
      mean field, and each origin for scale).
It also checks that pbdfit's mesh, held set and masses are the ones given to Genesis, and that the metric
computed here from `pbdfit simulate` at the fitted point reproduces the fit's own e.

Materials and settings: E = 1e3 Pa (nu 0.3) at Genesis's defaults (dt 0.01, 4 substeps, relaxations 0.1,
4 stretch / 1 volume pass), where the fitted stretch compliance is interior (1.7e-3 to 2.4e-3 m/N). At
E = 1e4 the default settings cannot make the body stiff enough and the fit returns the box's lower bound
(reports/engines/README.md); two cases take that material with the two ways out the report names, a larger
stretch_relaxation (0.3) and more substeps (16), where the fit is interior again. The volume compliance is
the inert direction of Genesis's profile (the fit's 1 % range of it spans the whole box, 1e-14 to 1e2): the fit
may leave it at either bound (at_bound, marked * in the table); Genesis runs it at that value like any other.

Run with the Python that has Genesis (README.md here):

    nice -n 10 /tmp/genesis-venv/bin/python benchmarks/engines/genesis_fitted.py [--pbdfit PATH]
        [--out DIR] [--only LABEL] [--no-f32] [--origins K] [--dynamics-steps S] [--pbdfit-source TEXT]

Writes DIR/genesis_fitted.txt and DIR/genesis_fitted.json (DIR: benchmarks/engines/results). Exit status 0
when every case's f64 ratio is within --goal (0.01), 1 otherwise, 2 on a setup error.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import genesis_check as gc  # noqa: E402  (the bodies, the Genesis runner and the mesh checks are shared)

ROOT = gc.ROOT
ORIGINS = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.3, 0.7, 0.1], [-0.45, 0.15, 0.8]]  # jolt_check.py's
CASES = [
    {"scene": "gravity-wall", "n": 2, "young": "1e3", "poisson": "0.3", "dt": "0.01", "substeps": 4, "settings": {}},
    {"scene": "gravity-wall", "n": 4, "young": "1e3", "poisson": "0.3", "dt": "0.01", "substeps": 4, "settings": {}},
    {"scene": "gravity-ceiling", "n": 2, "young": "1e3", "poisson": "0.3", "dt": "0.01", "substeps": 4,
     "settings": {}},
    {"scene": "gravity-floor", "n": 2, "young": "1e3", "poisson": "0.3", "dt": "0.01", "substeps": 4, "settings": {}},
    {"scene": "genesis-box", "n": None, "young": "1e3", "poisson": "0.3", "dt": "0.01", "substeps": 4,
     "settings": {}},
    {"scene": "gravity-wall", "n": 2, "young": "1e4", "poisson": "0.3", "dt": "0.01", "substeps": 4,
     "settings": {"stretch_relaxation": 0.3}},
    {"scene": "gravity-wall", "n": 2, "young": "1e4", "poisson": "0.3", "dt": "0.01", "substeps": 16, "settings": {}},
]


def label(c: dict) -> str:
    s = c["scene"] if c["n"] is None else f"{c['scene']} N={c['n']}"
    return s + f" E={c['young']} nit={c['substeps']}" + "".join(f" {k}={v}" for k, v in c["settings"].items())


def run_json(cmd: list[str]) -> dict:
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
    out = json.loads(res.stdout)
    return out[0] if isinstance(out, list) else out


def moved_vertices(u_fem: np.ndarray, held: np.ndarray) -> np.ndarray:
    """pbdfit's moved set: free vertices with |u_fem| > 1e-12 x the largest free |u_fem| (and > 0)."""
    norms = np.linalg.norm(u_fem, axis=1)
    largest = norms[~held].max()
    return np.nonzero(~held & (norms > 1e-12 * largest) & (norms > 0.0))[0]


def fit_error(u, u_fem: np.ndarray, moved: np.ndarray) -> float:
    """pbdfit's error: mean over the moved vertices of |u - u_fem|^2 / |u_fem|^2."""
    u = np.asarray(u, dtype=np.float64)
    d = np.linalg.norm(u[moved] - u_fem[moved], axis=1) / np.linalg.norm(u_fem[moved], axis=1)
    return float(np.mean(d * d))


def package_versions() -> dict:
    """Versions of the Python packages Genesis runs on (this interpreter's)."""
    from importlib import metadata

    out = {"python": sys.version.split()[0]}
    for p in ("genesis-world", "quadrants", "torch", "numpy", "tetgen", "pymeshlab"):
        try:
            out[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[p] = None
    return out


def binary_info(exe: str) -> dict:
    info = gc.binary_info(exe)
    if info.get("exists"):
        info["sha256"] = hashlib.sha256(open(exe, "rb").read()).hexdigest()[:16]
        st = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "crates", "Cargo.toml", "Cargo.lock"],
                            capture_output=True, text=True).stdout.split("\n")
        info["uncommitted_sources"] = [s[3:] for s in st if s.strip()]
    return info


def case(args, c: dict, mesh_case: dict, log) -> dict:
    body_args = ["--scene", mesh_case["pbdfit_scene"]] + ([] if c["n"] is None else ["--n", str(c["n"])])
    material = ["--young", c["young"], "--poisson", c["poisson"]]
    settings = [a for k, v in c["settings"].items() for a in ("--setting", f"{k}={v!r}")]
    step = ["--dt", c["dt"], "--nit", str(c["substeps"])]
    fit_cmd = [args.pbdfit, "fit", *body_args, *material, "--model", "genesis-pbd", *step, *settings,
               "--mass-model", "uniform", "--json"]
    t0 = time.perf_counter()
    fit = run_json(fit_cmd)
    fit_seconds = time.perf_counter() - t0
    p = fit["parameters"]
    log(f"{label(c)}: fit stretch_compliance {p['stretch_compliance']:.6e}, volume_compliance "
        f"{p['volume_compliance']:.6e}, e {fit['error']:.6e}, at_bound {fit.get('at_bound', [])} ({fit_seconds:.1f} s)")

    # pbdfit's own rest state at the fitted point, and the FEM reference
    sim_cmd = [args.pbdfit, "simulate", *body_args, "--model", "genesis-pbd", *step, *settings,
               "--param", f"stretch_compliance={p['stretch_compliance']!r}",
               "--param", f"volume_compliance={p['volume_compliance']!r}", "--mass-model", "uniform", "--json"]
    sim = run_json(sim_cmd)
    gc.check_mesh(mesh_case, sim)
    fem_cmd = [args.pbdfit, "fem", *body_args, *material, "--mass-model", "uniform", "--json"]
    fem = run_json(fem_cmd)
    u_fem = np.asarray(fem["displacements"], dtype=np.float64)
    held = np.asarray(mesh_case["held"], dtype=bool)
    if sorted(fem["fixed"]) != np.nonzero(held)[0].tolist():
        raise SystemExit(f"{label(c)}: pbdfit fem holds other vertices")
    moved = moved_vertices(u_fem, held)
    e_pbdfit = float(fit["error"])
    e_sim = fit_error(sim["displacements"], u_fem, moved)

    # Genesis at the fitted point
    over = dict(dt=float(c["dt"]), substeps=int(c["substeps"]), stretch_compliance=float(p["stretch_compliance"]),
                volume_compliance=float(p["volume_compliance"]), **c["settings"])
    b = gc.body(mesh_case, "A", **over)
    t0 = time.perf_counter()
    g64 = gc.run_genesis(b, "64", log)
    u64 = np.asarray(g64["displacements"])
    e64 = fit_error(u64, u_fem, moved)
    # the f64 fixed point's plain-dynamics counterpart (the control: both must give the same rest state)
    d64 = run_dynamics(b, "64", args.dynamics_steps, log) if args.dynamics_steps else None
    g32, u32, d32, v32 = [], [], [], []
    if not args.no_f32:
        for o in ORIGINS[:args.origins]:
            bo = dict(b, vertices=(mesh_case["X"] + np.asarray(o)).tolist())
            g = gc.run_genesis(bo, "32", log)
            g32.append(g)
            u32.append(np.asarray(g["displacements"]))
            if args.dynamics_steps:
                d = run_dynamics(bo, "32", args.dynamics_steps, log)
                d32.append(d)
                v32.append(np.asarray(d["displacements"]))
    genesis_seconds = time.perf_counter() - t0
    ratio64 = e64 / e_pbdfit - 1.0
    u_sim = np.asarray(sim["displacements"])

    def f32_summary(fields: list) -> dict:
        """The origins' mean field and each origin: e, e / e_pbdfit - 1, and the distance from Genesis f64."""
        if not fields:
            return {"e": None, "ratio": None, "e_per_origin": [], "ratio_per_origin": [], "rel_vs_genesis64": [],
                    "rel_mean_vs_genesis64": None}
        each = [fit_error(u, u_fem, moved) for u in fields]
        e = fit_error(np.mean(fields, axis=0), u_fem, moved)
        return {"e": e, "ratio": e / e_pbdfit - 1.0, "e_per_origin": each,
                "ratio_per_origin": [x / e_pbdfit - 1.0 for x in each],
                "rel_vs_genesis64": [gc.rel(u, u64) for u in fields],
                "rel_mean_vs_genesis64": gc.rel(np.mean(fields, axis=0), u64)}

    keep = ("steps", "stop_reason", "converged", "max_step_change", "particle_size", "self_collision_pairs")
    dkeep = ("steps", "averaged_steps", "burn_in_steps", "block_means", "last_minus_mean")
    row = {
        "label": label(c), **c, "mass_model": "uniform",
        "stretch_compliance": p["stretch_compliance"], "volume_compliance": p["volume_compliance"],
        "at_bound": fit.get("at_bound", []), "ranges_1_percent": fit.get("identifiability", {}).get("ranges_1_percent"),
        "fit_status": fit.get("status"), "fit_evaluations": fit.get("evaluations"), "fit_seconds": fit_seconds,
        "engine_paste": fit.get("engine", {}).get("paste"),
        "vertices": len(u_fem), "held": int(held.sum()), "moved": len(moved),
        "max_u_fem": float(np.linalg.norm(u_fem, axis=1).max()),
        "max_u_genesis64": float(np.linalg.norm(u64, axis=1).max()),
        "e_pbdfit": e_pbdfit, "e_pbdfit_simulate": e_sim,
        "e_genesis64": e64, "ratio64": ratio64,
        "rel_pbdfit_vs_genesis64": gc.rel(u_sim, u64),
        "genesis64": {k: g64[k] for k in keep + ("particle_mass", "total_mass", "substep_dt")},
        "genesis64_dynamics": None if d64 is None else {
            **{k: d64[k] for k in dkeep}, "ratio": fit_error(d64["displacements"], u_fem, moved) / e_pbdfit - 1.0,
            "rel_vs_genesis64": gc.rel(d64["displacements"], u64)},
        "origins": ORIGINS[:len(g32)],
        "genesis32_fixed_point": {**f32_summary(u32), "runs": [{k: g[k] for k in keep} for g in g32]},
        "genesis32_dynamics": {**f32_summary(v32), "runs": [{k: d[k] for k in dkeep} for d in d32]},
        "genesis_version": g64["genesis_version"], "genesis_seconds": genesis_seconds,
        "commands": {"fit": fit_cmd, "simulate": sim_cmd, "fem": fem_cmd},
        "displacements": {"fem": u_fem.tolist(), "pbdfit": u_sim.tolist(), "genesis64": u64.tolist(),
                          "genesis64_dynamics": None if d64 is None else d64["displacements"],
                          "genesis32_fixed_point": [u.tolist() for u in u32],
                          "genesis32_dynamics": [u.tolist() for u in v32]},
    }
    ok64 = abs(ratio64) <= args.goal and g64["converged"] and abs(e_sim / e_pbdfit - 1.0) <= 1e-6
    row["verdict"] = "ok" if ok64 else "FAIL"
    for key in ("genesis32_fixed_point", "genesis32_dynamics"):
        q = row[key]["ratio"]
        row[key]["verdict"] = None if q is None else ("ok" if abs(q) <= args.goal else "over")
    f32 = lambda key: ("" if row[key]["ratio"] is None else f"; f32 {key.split('_', 1)[1].replace('_', ' ')}: mean "
                       f"{row[key]['ratio']:+.2e}, per origin " + ", ".join(f"{r:+.1e}" for r in row[key]["ratio_per_origin"]))
    log(f"    e_pbdfit {e_pbdfit:.6e} (simulate {e_sim:.6e}); e_genesis f64 {e64:.6e} ({ratio64:+.2e})"
        + f32("genesis32_fixed_point") + f32("genesis32_dynamics")
        + f"; pbdfit vs Genesis f64 {row['rel_pbdfit_vs_genesis64']:.1e} ({genesis_seconds:.0f} s in Genesis)")
    return row


# ----------------------------------------------------------------------------------------------------------
# Genesis's plain dynamics, averaged (the f32 diagnostic): run in a subprocess with the Genesis interpreter
# ----------------------------------------------------------------------------------------------------------
def dynamics_worker(path: str, precision: str, steps: int, blocks: int = 4) -> None:
    """Genesis's own undamped dynamics (no velocity reset) from the undeformed body at rest for `steps` steps;
    the rest state is the mean position over the second half, which is also split into `blocks` block means
    (their spread shows whether the motion is stationary). Prints genesis_rest.py's JSON with "block_means"
    (max_i |block mean - mean| / max_i |mean - X|) and "block_displacements" added. genesis_rest.run_genesis
    builds the body exactly as for the fixed point; only its stepping loop is replaced."""
    import genesis_rest as gr

    extra: dict = {}

    def average(step_fn, X, max_steps, tol, eps, growth_check=True):
        burn = steps - steps // 2
        size = (steps - burn) // blocks
        sums = [np.zeros_like(X) for _ in range(blocks)]
        x = X
        for n in range(1, steps + 1):
            x = step_fn()
            if not np.all(np.isfinite(x)):
                return dict(steps=n, converged=False, stop_reason="diverged_nonfinite", x=X, change=float("nan"),
                            history=[])
            k = (n - burn - 1) // size
            if n > burn and k < blocks:
                sums[k] += x
        means = [s / size for s in sums]
        mean = sum(means) / blocks
        scale = float(np.linalg.norm(mean - X, axis=1).max())
        extra["block_means"] = [float(np.linalg.norm(m - mean, axis=1).max()) / scale for m in means]
        extra["block_displacements"] = [(m - X).tolist() for m in means]
        extra["last_minus_mean"] = float(np.linalg.norm(x - mean, axis=1).max()) / scale
        return dict(steps=steps, converged=True, stop_reason="average", x=mean, change=max(extra["block_means"]),
                    history=[])

    gr.fixed_point = average
    body = gr.load_body(path)
    out = gr.run_genesis(body, precision, reset_velocity=False)
    out.update(extra, averaged_steps=steps // 2, burn_in_steps=steps - steps // 2)
    print(json.dumps(out))


def run_dynamics(b: dict, precision: str, steps: int, log) -> dict:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(b, f)
        path = f.name
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--dynamics-worker", path, precision,
                            str(steps)], capture_output=True, text=True)
    finally:
        os.unlink(path)
    try:
        out = json.loads(p.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        raise SystemExit(f"dynamics worker failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
    log(f"    genesis f{precision} plain dynamics: {steps} steps, mean of the last {out['averaged_steps']}; block means "
        "within " + ", ".join(f"{v:.1e}" for v in out["block_means"]) + f" of it; last step {out['last_minus_mean']:.1e} "
        "of max|u| from it")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = os.environ.get("PBDFIT") or next(
        (p for p in (os.path.join(ROOT, "target", "release", "pbdfit"), os.path.join(ROOT, "target", "debug", "pbdfit"))
         if os.path.exists(p)), os.path.join(ROOT, "target", "debug", "pbdfit"))
    ap.add_argument("--pbdfit", default=default, help="pbdfit binary (default: $PBDFIT, target/release, target/debug)")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--goal", type=float, default=0.01)
    ap.add_argument("--only", help="only the cases whose label contains this")
    ap.add_argument("--no-f32", action="store_true", help="skip the float32 Genesis runs")
    ap.add_argument("--origins", type=int, default=len(ORIGINS), help="origins of the f32 runs (1 to 4)")
    ap.add_argument("--dynamics-steps", type=int, default=6000,
                    help="steps of Genesis's plain dynamics, the second half averaged (0: skip those runs)")
    ap.add_argument("--pbdfit-source", help="where the binary was built from, for the header (default: the "
                    "repository's HEAD and its uncommitted sources now)")
    ap.add_argument("--dynamics-worker", nargs=3, metavar=("BODY", "PRECISION", "STEPS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.dynamics_worker:
        path, precision, steps = args.dynamics_worker
        dynamics_worker(path, precision, int(steps))
        return 0
    if not os.path.exists(args.pbdfit):
        print(f"missing {args.pbdfit}: build pbdfit (README.md here)", file=sys.stderr)
        return 2
    try:
        import genesis  # noqa: F401  (only to fail early; the runs import it in genesis_rest.py)
    except ImportError:
        print(f"{sys.executable} has no Genesis: see benchmarks/engines/README.md", file=sys.stderr)
        return 2

    logs: list[str] = []

    def log(s: str) -> None:
        print(s, file=sys.stderr, flush=True)
        logs.append(s)

    t_start = time.perf_counter()
    binary = binary_info(args.pbdfit)
    versions = package_versions()
    meshes = {(m["scene"], m["n"]): m for m in gc.cases()}
    rows = [case(args, c, meshes[(c["scene"], c["n"])], log) for c in CASES
            if not args.only or args.only in label(c)]
    if binary_info(args.pbdfit).get("mtime") != binary.get("mtime"):
        log("warning: the pbdfit binary changed during the run")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    wall = time.perf_counter() - t_start
    dirty = binary.get("uncommitted_sources") or []
    lines = [
        "Fitted genesis-pbd parameters run in Genesis: the error against the FEM, pbdfit's and Genesis's; " + now,
        f"(Genesis {rows[0]['genesis_version']} CPU backend, quadrants {versions['quadrants']}, torch {versions['torch']}, "
        f"numpy {versions['numpy']}, Python {versions['python']};",
        f" pbdfit: {args.pbdfit} ({binary.get('version')}, binary of {binary.get('mtime')}, sha256 {binary.get('sha256')}, "
        + (f"{args.pbdfit_source})" if args.pbdfit_source else f"repository at {binary.get('git_head')}"
           + (f", uncommitted: {', '.join(dirty)})" if dirty else ")")),
        f" fit: --model genesis-pbd --mass-model uniform, FEM linear static (pbdfit fem --mass-model uniform); metric: mean "
        "over moved vertices of |u - u_fem|^2 / |u_fem|^2;",
        " G64 = Genesis float64 stepped with v = 0 at each step to its fixed point (tol 1e-12, genesis_rest.py as in "
        "genesis_check.py);",
        (f" G64 dyn = Genesis float64's plain dynamics from the undeformed body, {args.dynamics_steps} steps, the mean of "
         "the second half (the control);" if args.dynamics_steps else " G64 dyn: not run (--dynamics-steps 0);"),
        f" gravity (0, -9.81, 0), 1 kg, uniform masses, dt 0.01, settings Genesis's defaults unless named; "
        f"goal |e_G64 / e_pbdfit - 1| <= {args.goal:g}; run took {wall / 60:.1f} min)",
        "",
        f"{'case':50} {'stretch_c':>10} {'volume_c':>10} {'e_pbdfit':>11} {'e_G64':>11} {'ratio-1':>9} {'|du|64':>8} "
        f"{'G64 dyn':>9} verdict",
    ]
    fmt = lambda x, f="+.2e": "-" if x is None else format(x, f)
    for r in rows:
        star = lambda k: "*" if k in r["at_bound"] else " "
        d64 = r["genesis64_dynamics"]
        lines.append(
            f"{r['label']:50} {r['stretch_compliance']:>9.4e}{star('stretch_compliance')} "
            f"{r['volume_compliance']:>9.3e}{star('volume_compliance')} {r['e_pbdfit']:>11.5e} {r['e_genesis64']:>11.5e} "
            f"{r['ratio64']:>+9.2e} {r['rel_pbdfit_vs_genesis64']:>8.1e} {fmt(d64 and d64['ratio']):>9} {r['verdict']}")
    lines += [
        "(ratio-1 = e_G64 / e_pbdfit - 1; * = at a bound of the fit's box; |du|64 = max_i |u_pbdfit - u_G64| / max_i "
        "|u_G64| at the fitted point;",
        " G64 dyn = e / e_pbdfit - 1 of the f64 dynamics' mean; e_pbdfit is the fit's own e, which `pbdfit simulate` "
        f"at the fitted point reproduces here to {max(abs(r['e_pbdfit_simulate'] / r['e_pbdfit'] - 1) for r in rows):.1e})",
        "",
        f"every case within {args.goal:g} in Genesis f64: {'yes' if all(r['verdict'] == 'ok' for r in rows) else 'NO'}",
    ]
    if not args.no_f32:
        lines += [
            "",
            f"Genesis float32 (its default) at {args.origins} origins (the body translated; e of the origins' mean "
            "field, and the range over single origins):",
            " fixed point = stepped with v = 0 at each step until the step change <= 1e-7 max|u| or stalls (as in "
            "genesis_check.py);",
            f" dynamics = plain dynamics from the undeformed body, {args.dynamics_steps} steps, mean of the second "
            "half; |du| = max_i |u_G32 - u_G64| / max_i |u_G64|",
            "",
            f"{'case':50} {'max|u| m':>9} {'h^2 g m':>8} | {'fixed point':>11} {'origins':>19} {'|du|':>8} | "
            f"{'dynamics':>9} {'origins':>19} {'|du|':>8} {'blocks':>8}",
        ]
        for r in rows:
            a, d = r["genesis32_fixed_point"], r["genesis32_dynamics"]
            rng = lambda q: (f"{min(q['ratio_per_origin']):+.1e}..{max(q['ratio_per_origin']):+.1e}"
                             if q["ratio_per_origin"] else "-")
            h = float(r["dt"]) / r["substeps"]
            blocks = max((max(x["block_means"]) for x in d["runs"]), default=None)
            lines.append(
                f"{r['label']:50} {r['max_u_genesis64']:>9.3e} {9.81 * h * h:>8.1e} | {fmt(a['ratio']):>11} "
                f"{rng(a):>19} {fmt(a['rel_mean_vs_genesis64'], '.1e'):>8} | {fmt(d['ratio']):>9} {rng(d):>19} "
                f"{fmt(d['rel_mean_vs_genesis64'], '.1e'):>8} {fmt(blocks, '.1e'):>8}")
        ok = lambda key: all(r[key]["verdict"] == "ok" for r in rows)
        lines += [
            "(blocks = the largest distance of a quarter's mean from the averaged mean, / max|u|: the f32 motion is "
            "stationary)",
            f"within {args.goal:g} in Genesis f32: fixed point {'yes' if ok('genesis32_fixed_point') else 'NO'}, "
            f"dynamics {'yes' if ok('genesis32_dynamics') else 'NO'}",
        ]
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "genesis_fitted.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "genesis_fitted.json"), "w") as f:
        json.dump({"date": now, "seconds": wall, "versions": versions, "genesis_version": rows[0]["genesis_version"],
                   "pbdfit": args.pbdfit, "pbdfit_binary": binary,
                   "pbdfit_source": args.pbdfit_source, "goal": args.goal, "origins": ORIGINS[:args.origins],
                   "tolerances": gc.TOL, "rows": rows, "log": logs}, f)
        f.write("\n")
    return 0 if all(r["verdict"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
