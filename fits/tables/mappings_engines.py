"""The engines' closed-form mappings against direct fits of their profiles (the xpbd table's 200 points)

At the random points of ``accuracy.py``'s xpbd table (seed 27; the points are read from
``fits/tables/accuracy/xpbd.csv`` and checked to be the ones the generator draws, as ``mappings.py`` does;
all at N = 1 on the compound scene ``gravity`` unless ``--scene`` names another), for each engine mapping this
script

* fits the mapping's engine profile directly (``pbdfit.fit``, the same scene, reference, E, nu, dt, nit and
  N, gradient search, the library's defaults and the engine's default settings): ``jolt`` (dt is Jolt's
  step, nit its ``mNumIterations``) for ``jolt-godot``, ``newton-xpbd`` (nit is Newton's ``iterations``)
  for ``newton-lame``, ``pybullet-neohookean`` (dt and nit ignored: its rest state is a static equilibrium) for
  ``pybullet-lame`` and ``pybullet-smith`` (one entry each, ``--model pybullet-lame`` or ``pybullet-smith``);
* simulates the mapping's parameters (``pbdfit.mapping``, then ``pbdfit.evaluate`` on the same point):
  ``jolt-godot`` is Godot 4.4 to 4.6's default (edge compliance 8e-5 m/N, no volume constraint),
  ``newton-lame`` Newton's USD import (``k_mu``, ``k_lambda`` = the Lame parameters), ``pybullet-lame`` the
  Lame parameters as PyBullet's ``NeoHookeanMu``, ``NeoHookeanLambda``, ``pybullet-smith`` Smith et al.'s
  ``4/3 mu``, ``lambda + 5/6 mu``;

and records per point the mapping's error, the fit's error and their ratio, with XPBD's direct-fit error
at the point (from the accuracy rows) beside them. Ratios within 1 % of 1 are ties (accuracy.py's ``TIE``).
A point whose fit or mapping fails (no rest state, no stable rest state, diverged, outside the model's
range, formula undefined) is kept as a row with each side's status and message and counted apart.

    python fits/tables/mappings_engines.py [--model jolt|newton-xpbd] [--scene NAME] [--out fits/tables/mappings]
                                           [--limit K] [--summary-only]

``--scene`` (default: the table's scene, ``gravity``, the floor, wall and ceiling parts together) measures
both sides on another scene of ``pbdfit.scenes()`` at the same points (same N, E, nu, dt, nit). Why: Newton's
XPBD tetrahedra have no stable rest state in compression (its Jacobi passes oscillate or blow up there), so on
``gravity``, whose floor part is loaded in compression, ``newton-lame`` has a rest state at only a few points
and the ``newton-xpbd`` fit often finds none; the wall and the ceiling, where gravity mostly stretches and
bends the body (``gravity-wall``, ``gravity-ceiling``), are the scenes on which a Newton user can compare the
mapping with a fit. A point's rows and their file name then carry the scene: ``engines-<model>-<scene>.csv``
(the default scene keeps ``engines-<model>.csv``), and the summary gets a separate section per model and
scene after the default scene's, with the fitted parameters' ratios to the mapped ones beside.

Deterministic: the rows depend on the points and the library only. Rows are appended to
``<out>/engines-<model>[-<scene>].csv.partial`` as they finish (a rerun resumes from it) and written in point
order to ``<out>/engines-<model>[-<scene>].csv`` at the end (the partial file is removed after a full run). The
summary of every model and scene whose rows exist (the default scene first) is printed and written to
``<out>/engines-summary.txt``; ``--summary-only`` does only that.
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import sys
import time

import pbdfit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy import percentile  # noqa: E402
from mappings_strain import line  # noqa: E402 (the summary line of a ratio list, shared)
from mappings import accuracy_rows, parse  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# the xpbd table's scene: the default, whose rows keep the file names without a scene
TABLE_SCENE = "gravity"
# entry (the --model choice and the rows' file name) -> the engine mapping simulated in it, and the model
# both sides run (an entry per mapping: PyBullet's model has two)
MAPPINGS = {"jolt": "jolt-godot", "newton-xpbd": "newton-lame", "pybullet-lame": "pybullet-lame",
            "pybullet-smith": "pybullet-smith"}
MODEL = {"jolt": "jolt", "newton-xpbd": "newton-xpbd", "pybullet-lame": "pybullet-neohookean",
         "pybullet-smith": "pybullet-neohookean"}
COLUMNS = ["table", "young", "poisson", "dt", "nit", "n", "scene", "model", "mapping", "mapping_parameters",
           "mapping_error", "mapping_status", "mapping_message", "fit_parameters", "fit_error", "fit_at_bound",
           "fit_status", "fit_evaluations", "fit_failed_evaluations", "fit_message", "ratio", "xpbd_fit_error",
           "ratio_fit_to_xpbd_fit", "status", "pbdfit_version"]


def reason(message: str) -> str:
    """A short name for why a rest state is missing, from the library's message."""
    for key, name in (("no stable rest state", "unstable"), ("diverged", "diverged"), ("inverted", "inverted"),
                      ("outside model", "outside-range"), ("needs 0 < nu", "undefined")):
        if key in message:
            return name
    return "failed"


def point_row(entry: str, row: dict, scene: str = TABLE_SCENE) -> dict:
    """One point: the mapping's error and the profile's direct fit's error, on ``scene``."""
    name, model = MAPPINGS[entry], MODEL[entry]
    q = dict(young=float(row["young"]), poisson=float(row["poisson"]), dt=float(row["dt"]), nit=int(row["nit"]),
             n=int(row["n"]))
    out = dict(table="xpbd", model=model, mapping=name, pbdfit_version=pbdfit.__version__,
               **{k: row[k] for k in ("young", "poisson", "dt", "nit", "n")})
    if row["status"] == "ok":
        out["xpbd_fit_error"] = row["fit_error"]
    # The mapping, simulated.
    try:
        m = pbdfit.mapping(name, **q) if scene == TABLE_SCENE else pbdfit.mapping(name, **q, scene=scene)
        out["scene"] = m["scene"]
        params = {p["name"]: p["value"] for p in m["parameters"]}
        out["mapping_parameters"] = ";".join(f"{k}={v!r}" for k, v in params.items())
        if m["outside_range"]:
            raise ValueError(f"outside model {model}'s allowed range: {', '.join(m['outside_range'])}")
        e_map = pbdfit.evaluate(m["scene"], q["young"], q["poisson"], params, model=model, dt=q["dt"], n=q["n"],
                                nit=q["nit"])["error"]
        out.update(mapping_error=repr(e_map), mapping_status="ok")
    except ValueError as e:
        e_map = None
        out.update(mapping_status=reason(str(e)), mapping_message=str(e))
    # The direct fit of the profile.
    scene = out.get("scene", scene)
    out["scene"] = scene
    try:
        fit = pbdfit.fit(scene, q["young"], q["poisson"], model=model, dt=q["dt"], n=q["n"], nit=q["nit"])
        out.update(
            fit_parameters=";".join(f"{k}={v!r}" for k, v in fit.parameters.items()),
            fit_error=repr(fit.error),
            fit_at_bound=";".join(fit.at_bound),
            fit_status=fit.status,
            fit_evaluations=fit.evaluations,
            fit_failed_evaluations=fit.failed_evaluations,
        )
        if not math.isfinite(fit.error):
            raise ValueError(f"the fit found no parameters with a rest state (error {fit.error})")
        if "xpbd_fit_error" in out:
            out["ratio_fit_to_xpbd_fit"] = repr(fit.error / float(out["xpbd_fit_error"]))
        fit_ok = True
    except ValueError as e:
        fit_ok = False
        out.update(fit_status="no-fit", fit_message=str(e))
    if fit_ok and e_map is not None:
        out.update(ratio=repr(e_map / fit.error), status="ok")
    elif not fit_ok and e_map is None:
        out["status"] = "both-failed"
    else:
        out["status"] = "mapping-failed" if fit_ok else "fit-failed"
    return out


def counts(rows, key: str) -> str:
    c = {}
    for r in rows:
        c[r[key]] = c.get(r[key], 0) + 1
    return ", ".join(f"{k}: {v}" for k, v in sorted(c.items()))


def span(rows, key: str, fmt: str = ".3g") -> str:
    v = [float(r[key]) for r in rows]
    return f"[{min(v):{fmt}}, {max(v):{fmt}}]" if v else "[]"


def ratios_line(rows, label: str) -> str:
    """Fitted over mapped parameters (for newton-lame: k_mu_fit / mu, k_lambda_fit / lambda), medians."""
    rows = [r for r in rows if r["fit_parameters"] and r["mapping_parameters"]]
    if not rows:
        return f"    fitted / mapped at {label}: no point"
    parts = []
    for k in parse(rows[0]["fit_parameters"]):
        v = sorted(parse(r["fit_parameters"])[k] / parse(r["mapping_parameters"])[k] for r in rows)
        parts.append(f"{k} median {percentile(v, 0.5):.3g}, 10th-90th percentile [{percentile(v, 0.1):.3g}, "
                     f"{percentile(v, 0.9):.3g}], range [{v[0]:.3g}, {v[-1]:.3g}]")
    return f"    fitted / mapped at {label} ({len(rows)}): " + "; ".join(parts)


def report(entry: str, rows, path: str, scene: str = TABLE_SCENE) -> str:
    name, model = MAPPINGS[entry], MODEL[entry]
    out = []
    p = lambda s="": out.append(s)
    ok = [r for r in rows if r["status"] == "ok"]
    f = lambda rs, k: [float(r[k]) for r in rs]
    p(f"{name} (model {model}) at {len(rows)} points of accuracy/xpbd.csv (seed 27, scene {scene}, N = 1, default "
      f"engine settings): {len(ok)} ok; {counts(rows, 'status')}; pbdfit {', '.join(sorted({r['pbdfit_version'] for r in rows}))}; "
      f"rows in {os.path.relpath(path, os.path.dirname(os.path.dirname(HERE)))}")
    p(f"  mapping: {counts(rows, 'mapping_status')}")
    p(f"  direct fit: {counts(rows, 'fit_status')}")
    for side in ("mapping", "fit"):
        bad = [r for r in rows if r[f"{side}_status"] not in ("ok", "converged", "budget")]
        if bad:
            p(f"  {side} without a result at {len(bad)} points: E {span(bad, 'young')} Pa, nu {span(bad, 'poisson')}, "
              f"dt {span(bad, 'dt')} s, nit {span(bad, 'nit', '.0f')}")
            for r in bad[:5]:
                p(f"    e.g. E = {float(r['young']):.3g}, nu = {float(r['poisson']):.3g}, dt = {float(r['dt']):.3g}, "
                  f"nit = {r['nit']}: {r[side + '_message'][:300]}")
    p(line(f"{name} / {model} direct fit", f(ok, "ratio")))
    if scene != TABLE_SCENE and ok:
        e_map, e_fit = f(ok, "mapping_error"), f(ok, "fit_error")
        p(f"  at the {len(ok)} ok points: {name} error median {percentile(e_map, 0.5):.4g}, 90th percentile "
          f"{percentile(e_map, 0.9):.4g}; {model} fit error median {percentile(e_fit, 0.5):.4g}, 90th percentile "
          f"{percentile(e_fit, 0.9):.4g}")
    fitted = [r for r in rows if r["fit_error"] and math.isfinite(float(r["fit_error"]))]
    mapped = [r for r in rows if r["mapping_status"] == "ok"]
    if fitted:
        p(f"  errors: median {model} fit {percentile(f(fitted, 'fit_error'), 0.5):.4g} ({len(fitted)} points), "
          f"median {name} {percentile(f(mapped, 'mapping_error'), 0.5) if mapped else float('nan'):.4g} "
          f"({len(mapped)} points)")
        with_xpbd = [r for r in fitted if r["ratio_fit_to_xpbd_fit"]]
        p(line(f"{model} direct fit / xpbd direct fit (context: a different step)", f(with_xpbd, "ratio_fit_to_xpbd_fit")))
        edge = [r for r in fitted if r["fit_at_bound"]]
        p(f"  {model} fit on the box's edge at {len(edge)} points ({counts(edge, 'fit_at_bound') if edge else 'none'}); "
          f"not ending 'converged': {sum(1 for r in fitted if r['fit_status'] != 'converged')}")
        inside = [r for r in ok if not r["fit_at_bound"]]
        if inside:
            p(line(f"  fit inside the box: {name} / fit", f(inside, "ratio")))
            names = list(parse(inside[0]["fit_parameters"]))
            devs = []
            for k in names:
                d = sorted(math.log10(parse(r["mapping_parameters"])[k] / parse(r["fit_parameters"])[k]) for r in inside)
                devs.append(f"{k} median {percentile(d, 0.5):.3g} [{d[0]:.3g}, {d[-1]:.3g}]")
            p("    mapped - fitted, decades: " + "; ".join(devs))
        if scene != TABLE_SCENE:
            p(ratios_line(ok, "the ok points"))
            p(ratios_line(fitted, "every fitted point"))
    for bound in (0.1, 0.01):
        p(f"  points with error below {bound}: {model} fit {sum(1 for r in fitted if float(r['fit_error']) < bound)}, "
          f"{name} {sum(1 for r in mapped if float(r['mapping_error']) < bound)}")
    if ok:
        p90 = percentile(f(ok, "ratio"), 0.9)
        tail = [r for r in ok if float(r["ratio"]) > p90]
        if tail:
            p(f"  above the 90th percentile ({len(tail)} points): E {span(tail, 'young')} Pa, nu {span(tail, 'poisson')}, "
              f"dt {span(tail, 'dt')} s, nit {span(tail, 'nit', '.0f')}")
        a = max(ok, key=lambda r: float(r["ratio"]))
        p(f"  worst: ratio {float(a['ratio']):.4g} at E = {float(a['young']):.3g} Pa, nu = {float(a['poisson']):.3g}, "
          f"dt = {float(a['dt']):.3g} s, nit = {a['nit']}: mapped {a['mapping_parameters']} (error "
          f"{float(a['mapping_error']):.4g}), fitted {a['fit_parameters']} (error {float(a['fit_error']):.4g})")
        a = min(ok, key=lambda r: float(r["ratio"]))
        p(f"  best: ratio {float(a['ratio']):.4g} at E = {float(a['young']):.3g} Pa, nu = {float(a['poisson']):.3g}, "
          f"dt = {float(a['dt']):.3g} s, nit = {a['nit']}")
    return "\n".join(out)


def csv_path(out: str, model: str, scene: str = TABLE_SCENE) -> str:
    return os.path.join(out, f"engines-{model}.csv" if scene == TABLE_SCENE else f"engines-{model}-{scene}.csv")


def read(path: str):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def run(model: str, points, out: str, full: bool, scene: str = TABLE_SCENE) -> None:
    path = csv_path(out, model, scene)
    partial = path + ".partial"
    done = {}
    if os.path.exists(partial):
        for r in read(partial):
            done[(r["young"], r["poisson"], r["dt"], r["nit"], r["n"])] = r
    new = not os.path.exists(partial)
    rows = []
    start = time.time()
    with open(partial, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        if new:
            w.writeheader()
        for i, p in enumerate(points):
            key = tuple(p[k] for k in ("young", "poisson", "dt", "nit", "n"))
            if key in done:
                rows.append(done[key])
                continue
            r = {k: str(v) for k, v in point_row(model, p, scene).items()}
            w.writerow({k: r.get(k, "") for k in COLUMNS})
            f.flush()
            rows.append(r)
            print(f"\r{model} {scene}: {i + 1}/{len(points)} points, {time.time() - start:.0f} s", end="", file=sys.stderr,
                  flush=True)
    print(f"\n{model} {scene}: {len(points)} points ({len(points) - len(done)} computed) in {time.time() - start:.0f} s",
          file=sys.stderr)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in COLUMNS})
    if full:
        os.remove(partial)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", choices=sorted(MAPPINGS), action="append",
                    help="only this entry: a model, or for PyBullet's model the mapping (repeatable; default: every "
                         "engine mapping)")
    ap.add_argument("--scene", default=TABLE_SCENE,
                    help=f"the scene both sides are measured on (default: the table's, {TABLE_SCENE}; another "
                         "writes engines-<model>-<scene>.csv)")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--out", default=os.path.join(HERE, "mappings"))
    ap.add_argument("--limit", type=int, default=None, help="only the first K points (a timing run)")
    ap.add_argument("--summary-only", action="store_true", help="print the summary of the written rows")
    args = ap.parse_args()
    models = args.model or list(MAPPINGS)
    if args.scene not in pbdfit.scenes():
        ap.error(f"unknown scene {args.scene!r}; the library's scenes: {', '.join(pbdfit.scenes())}")
    os.makedirs(args.out, exist_ok=True)
    if not args.summary_only:
        points = accuracy_rows("xpbd", args.seed)[: args.limit]
        for model in models:
            run(model, points, args.out, args.limit is None, args.scene)
    buf = io.StringIO()
    for model in MAPPINGS:
        path = csv_path(args.out, model)
        if os.path.exists(path):
            print(report(model, read(path), path), file=buf)
    # The other scenes' sections, each after a blank line, in the library's scene order.
    for scene in [s for s in pbdfit.scenes() if s != TABLE_SCENE]:
        for model in MAPPINGS:
            path = csv_path(args.out, model, scene)
            if os.path.exists(path):
                print(file=buf)
                print(report(model, read(path), path, scene), file=buf)
    text = buf.getvalue()
    print(text, end="")
    with open(os.path.join(args.out, "engines-summary.txt"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
