"""Do the shipped stiffness tables transfer to bodies that are not the unit cube?

The shipped tables (``pbd``: N 1 and 2; ``xpbd``: N 1) are fitted on the unit cube (compound ``gravity``).
For seeded random points (E, nu, dt, nit) inside a table's range, on a target scene that is not the cube
(``cantilever``: the imported Gmsh beam, gravity; ``scenes/cylinder.toml``: the imported VTK cylinder under a
prescribed torsion), this script compares, with the linear static FEM reference of the target:

(a) a direct gradient fit on the target (``pbdfit fit --scene S --model M ... --json``);
(b) the table's lookup used as is, N chosen by a normalisation (below), its parameters simulated on the
    target (``pbdfit.evaluate``);
(c) ``pbdfit lookup --refine --scene S``: a short gradient fit on the target from the lookup's parameters.

Normalisations (how the cube's N is chosen for a body that has no N):

- ``n1``: N = 1, the table's coarsest cube, whatever the mesh.
- ``edge``: N_edge = mean edge length of the cube at N = 1 / mean edge length of the target mesh (N ~ 1 /
  mean edge; the cube's mean edge at N = 2 is 0.51 of N = 1's, so this is the cube of the same edge
  length), then the nearest table N in log2 N (the lookup refuses N outside the table). For the beam and
  the cylinder N_edge is about 10, so this is N = 2 for ``pbd`` and N = 1 (the same as ``n1``) for ``xpbd``.
- ``edge-extrap`` (``pbd`` only, the table having two N): each parameter looked up at N = 1 and N = 2 and
  extrapolated linearly in (log2 N, log10 parameter) to N_edge, then clamped into the model's box. This is
  not a lookup the tool offers; it tests whether the table's N trend carries to the mesh's resolution.

(c) is run from every normalisation's parameters: from ``n1`` by the tool's ``lookup --refine --scene S``;
from the others by ``pbdfit fit --grid 2 --start <parameters>``, the same short fit (a 2 x 2 grid plus the
start; equal, parameters and rest states, to ``lookup --refine`` where both run), because ``lookup --refine
--scene S --n 2`` is refused on an imported mesh ("N must be 1"). Equal parameters are refined once.

    /tmp/pyvenv/bin/python fits/tables/transfer.py [--points 12] [--seed 27] [--scenes cantilever,...]
        [--tables pbd,xpbd] [--pbdfit PATH] [--out fits/tables/transfer.csv]

Deterministic: the points come from a seeded generator (the same points for every scene and table); the
fits are deterministic. A lookup whose parameters have no rest state on the target (diverged, inverted)
is a row with status ``no-rest-state`` and counted apart (its error is not a number). Prints a Markdown
table of the ratios error(b) / error(a) and error(c) / error(a).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import subprocess
import sys
import time

import numpy as np

import pbdfit

from accuracy import TIE, percentile, random_point, split  # the same points, percentiles and ties

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

def table_axes(table: str):
    with open(os.path.join(HERE, table, "table.json")) as f:
        return json.load(f)["axes"]


def mean_edge(scene) -> float:
    """Mean length of the mesh's distinct edges (of the first part for a compound scene: all alike)."""
    if scene.compound:
        scene = scene.parts[0]
    t = np.asarray(scene.tets)
    pairs = np.concatenate([t[:, [i, j]] for i in range(4) for j in range(i + 1, 4)])
    pairs = np.unique(np.sort(pairs, axis=1), axis=0)
    v = np.asarray(scene.vertices)
    return float(np.linalg.norm(v[pairs[:, 0]] - v[pairs[:, 1]], axis=1).mean())


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-500:]}")
    return json.loads(p.stdout)


def setting_args(q):
    return ["--young", repr(q["young"]), "--poisson", repr(q["poisson"]), "--dt", repr(q["dt"]),
            "--nit", str(q["nit"])]


def fmt(params):
    return ";".join(f"{k}={v!r}" for k, v in params.items())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", type=int, default=12)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--scenes", default="scenes/cylinder.toml,cantilever")
    ap.add_argument("--tables", default="pbd,xpbd")
    ap.add_argument("--pbdfit", default=os.environ.get("PBDFIT", "pbdfit"), help="the pbdfit command line")
    ap.add_argument("--out", default=os.path.join(HERE, "transfer.csv"))
    ap.add_argument("--first", type=int, default=0,
                    help="skip the points before this one (they are still drawn, so the points are the same)")
    ap.add_argument("--summary", action="store_true", help="only print the tables from the rows in --out")
    ap.add_argument("--append", action="store_true", help="append to --out instead of rewriting it")
    args = ap.parse_args()
    if args.summary:
        summarise(args.out)
        return 0
    exe = args.pbdfit
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.split()[-1]
    cube_edge = {n: mean_edge(pbdfit.Scene.load("gravity", n=n)) for n in (1, 2)}
    columns = ["point", "scene", "table", "normalisation", "n_edge", "n", "young", "poisson", "dt", "nit",
               "fit_parameters", "fit_error", "fit_at_bound", "fit_evaluations", "fit_seconds",
               "lookup_parameters", "lookup_error", "lookup_ratio", "refined_parameters", "refined_error",
               "refined_ratio", "refined_evaluations", "refined_seconds", "refined_via", "status", "message", "pbdfit_version"]
    rows = []
    summary = {}
    start = time.time()
    # Rows are written as they are made (a run stopped early keeps its finished points).
    mode = "a" if args.append and os.path.exists(args.out) else "w"
    out = open(args.out, mode, newline="")
    writer = csv.DictWriter(out, fieldnames=columns)
    if mode == "w":
        writer.writeheader()

    def emit(row):
        rows.append(row)
        writer.writerow({k: row.get(k, "") for k in columns})
        out.flush()
    for scene_name in args.scenes.split(","):
        scene = pbdfit.Scene.load(scene_name)
        h = mean_edge(scene)
        n_edge = cube_edge[1] / h
        for table in args.tables.split(","):
            axes = table_axes(table)
            r = {k: (min(v), max(v)) for k, v in axes.items()}
            table_ns = sorted(int(n) for n in axes["n"])
            nearest = min(table_ns, key=lambda n: abs(math.log2(n) - math.log2(n_edge)))
            norms = {"n1": 1, "edge": nearest}
            if len(table_ns) >= 2:
                norms["edge-extrap"] = None
            rng = random.Random(args.seed)  # the same points for every scene and table
            for i in range(args.points):
                q = random_point(rng, r, draw_n=False)
                if i < args.first:
                    continue
                base = dict(point=i, scene=scene_name, table=table, n_edge=f"{n_edge:.3f}", pbdfit_version=version,
                            **q)
                t0 = time.time()
                try:
                    fit = run_json([exe, "fit", "--scene", scene_name, "--model", table, *setting_args(q), "--json"])
                except RuntimeError as e:
                    emit(dict(base, normalisation="", status="fit-failed", message=str(e)))
                    continue
                fit_seconds = time.time() - t0
                model = fit["model"]
                box = fit["box"]
                fa = dict(fit_parameters=fmt(fit["parameters"]), fit_error=repr(fit["error"]),
                          fit_at_bound=";".join(fit["at_bound"]), fit_evaluations=fit["evaluations"],
                          fit_seconds=f"{fit_seconds:.2f}")
                lookups = {}
                for n in table_ns:
                    lk = run_json([exe, "lookup", "--table", table, *setting_args(q), "--n", str(n), "--json"])
                    lookups[n] = {p["name"]: p["value"] for p in lk["parameters"]}
                refined_cache = {}
                for norm, n in norms.items():
                    row = dict(base, **fa, normalisation=norm)
                    if n is None:
                        # log-linear extrapolation in (log2 N, log10 p) from the table's two smallest N.
                        n0, n1_ = table_ns[0], table_ns[1]
                        params = {}
                        for k in lookups[n0]:
                            p0, p1 = lookups[n0][k], lookups[n1_][k]
                            lo, hi = box[k]["lower"], box[k]["upper"]
                            if p0 > 0 and p1 > 0:
                                s = (math.log10(p1) - math.log10(p0)) / (math.log2(n1_) - math.log2(n0))
                                v = 10 ** (math.log10(p0) + s * (math.log2(n_edge) - math.log2(n0)))
                            else:
                                v = p1
                            params[k] = min(max(v, lo), hi)
                        row["n"] = f"{n_edge:.3f}"
                    else:
                        params = lookups[n]
                        row["n"] = n
                    row["lookup_parameters"] = fmt(params)
                    try:
                        e = pbdfit.evaluate(scene_name, q["young"], q["poisson"], params, model=model, dt=q["dt"],
                                            nit=q["nit"], n=None)["error"]
                        row.update(lookup_error=repr(e), lookup_ratio=repr(e / fit["error"]), status="ok")
                        summary.setdefault((scene_name, table, norm, "b"), []).append(e / fit["error"])
                    except ValueError as err:
                        row.update(status="no-rest-state", message=str(err)[:300])
                        summary.setdefault((scene_name, table, norm, "b-failed"), []).append(i)
                    key = tuple(sorted(params.items()))
                    if key not in refined_cache:
                        t1 = time.time()
                        try:
                            if n == 1:
                                # The tool's own `lookup --refine --scene S` (N = 1: an imported mesh takes no other N).
                                ref = run_json([exe, "lookup", "--table", table, *setting_args(q), "--n", "1",
                                                "--refine", "--scene", scene_name, "--json"])["refined"]
                                via = "lookup --refine"
                            else:
                                # `lookup --refine --scene S --n 2` is refused on an imported mesh ("N must be
                                # 1"); the same short fit by hand: a 2 x 2 grid plus the parameters as a start
                                # (equal to lookup --refine at N = 1, checked on both scenes).
                                start_arg = ",".join(f"{k}={v!r}" for k, v in params.items())
                                ref = run_json([exe, "fit", "--scene", scene_name, "--model", table,
                                                *setting_args(q), "--grid", "2", "--start", start_arg, "--json"])
                                via = "fit --grid 2 --start"
                            refined_cache[key] = (ref, time.time() - t1, via)
                        except RuntimeError as err:
                            refined_cache[key] = (None, str(err), "")
                    ref, secs, via = refined_cache[key]
                    if ref is None:
                        row["message"] = (row.get("message", "") + " refine failed: " + secs)[:500]
                    else:
                        rr = ref["error"] / fit["error"]
                        row.update(refined_parameters=fmt(ref["parameters"]), refined_via=via,
                                   refined_error=repr(ref["error"]), refined_ratio=repr(rr),
                                   refined_evaluations=ref["evaluations"], refined_seconds=f"{secs:.2f}")
                        summary.setdefault((scene_name, table, norm, "c"), []).append(rr)
                        summary.setdefault((scene_name, table, norm, "cost"), []).append(
                            (ref["evaluations"], fit["evaluations"], secs, fit_seconds))
                    emit(row)
                print(f"\r{scene_name} {table}: {i + 1}/{args.points} points, {time.time() - start:.0f} s", end="",
                      file=sys.stderr, flush=True)
            print(file=sys.stderr)
    out.close()

    print(f"\n{time.time() - start:.0f} s of fits and lookups", file=sys.stderr)
    summarise(args.out)
    return 0


def summarise(path):
    """Prints the Markdown tables from every row of ``path`` (a run may be several appended runs)."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    versions = sorted({r["pbdfit_version"] for r in rows})
    fig = lambda v: f"{v:.4g}" if v == v else "-"  # inf prints as inf
    order = ["n1", "edge", "edge-extrap"]
    groups = {}
    for r in rows:
        groups.setdefault((r["scene"], r["table"]), []).append(r)
    print(f"\npbdfit {', '.join(versions)}; rows in {path}. Ratios: error on the target / the direct fit's error "
          f"there; a tie is within {TIE:.0%} (the fits' identifiability margin).\n")
    for subset, keep in (("all points", lambda r: True),
                         ("points whose direct fit error is below 1 (the model can follow the target)",
                          lambda r: float(r["fit_error"]) < 1)):
        print(f"**{subset}**\n")
        print("| scene | table | normalisation (N) | points | (b) lookup / fit: median | 90th | max | lower / tie / "
              "higher | no rest state | (c) refine / fit: median | 90th | max | lower / tie / higher | rest states "
              "(c) / (a): median | (c): median | (a): median |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for (sc, tb), rs in groups.items():
            failed = sorted({int(r["point"]) for r in rs if r["status"] == "fit-failed"})
            for norm in order:
                nr = [r for r in rs if r["normalisation"] == norm and r["status"] != "fit-failed" and keep(r)]
                if not nr:
                    continue
                # A lookup with no rest state on the target (diverged, inverted) counts as an infinite ratio.
                b = [float(r["lookup_ratio"]) if r["status"] == "ok" else math.inf for r in nr]
                bf = [r for r in nr if r["status"] == "no-rest-state"]
                c = [float(r["refined_ratio"]) for r in nr if r["refined_ratio"]]
                ev = [(int(r["refined_evaluations"]), int(r["fit_evaluations"])) for r in nr if r["refined_ratio"]]
                n_label = nr[0]["n"] if norm != "edge-extrap" else f"{float(nr[0]['n']):.2f}"
                print("| " + " | ".join([
                    sc, tb, f"{norm} ({n_label})", str(len(nr)),
                    fig(percentile(b, 0.5)), fig(percentile(b, 0.9)), fig(max(b) if b else float("nan")),
                    "/".join(map(str, split(b))), str(len(bf)),
                    fig(percentile(c, 0.5)), fig(percentile(c, 0.9)), fig(max(c) if c else float("nan")),
                    "/".join(map(str, split(c))),
                    fig(percentile([x[0] / x[1] for x in ev], 0.5)),
                    fig(percentile([x[0] for x in ev], 0.5)), fig(percentile([x[1] for x in ev], 0.5))]) + " |")
            if failed and subset == "all points":
                print(f"| {sc} | {tb} | direct fit failed (no rest state anywhere on its grid) at points "
                      f"{', '.join(map(str, failed))}: left out above | | | | | | | | | | | | | | | |")
        print()
    # Normalisation against normalisation, point by point: the other's lookup error against n1's (no rest
    # state = infinite; two infinite errors tie).
    print("**each normalisation's lookup error against n1's, point by point (lower / within 1 % / higher)**\n")
    print("| scene | table | normalisation | all points | points whose direct fit error is below 1 |")
    print("| --- | --- | --- | --- | --- |")
    err = lambda r: float(r["lookup_error"]) if r["status"] == "ok" else math.inf
    for (sc, tb), rs in groups.items():
        by = {(r["point"], r["normalisation"]): r for r in rs if r["status"] != "fit-failed"}
        for norm in order[1:]:
            cells = []
            for keep in (lambda r: True, lambda r: float(r["fit_error"]) < 1):
                lo = tie = hi = 0
                for (pt, nm), r in by.items():
                    if nm != norm or (pt, "n1") not in by or not keep(r):
                        continue
                    a, b = err(r), err(by[(pt, "n1")])
                    if a == b or (a < math.inf and b < math.inf and abs(a / b - 1) <= TIE):
                        tie += 1
                    elif a < b:
                        lo += 1
                    else:
                        hi += 1
                cells.append(f"{lo} / {tie} / {hi}")
            if any(k[1] == norm for k in by):
                print(f"| {sc} | {tb} | {norm} | {cells[0]} | {cells[1]} |")
    print()


if __name__ == "__main__":
    sys.exit(main())
