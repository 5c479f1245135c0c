"""The xpbd-strain model and its closed form, against XPBD's direct fit (the xpbd table's 200 points)

At the random points of ``accuracy.py``'s xpbd table (seed 27; the points and XPBD's direct-fit errors are
read from ``fits/tables/accuracy/xpbd.csv`` and checked to be the ones the generator draws; all at N = 1),
this script

* fits ``xpbd-strain`` directly (``pbdfit.fit``, the same scene, reference and settings as accuracy.py's
  direct fits: the library's defaults, gradient search),
* simulates the closed form ``xpbd-strain-lame`` (``pbdfit.mapping``, then ``pbdfit.evaluate``:
  ``alpha_dev = (1 + nu) / E``, ``alpha_vol = 3 (1 - 2 nu) / E``),

and records per point the closed form's error, the xpbd-strain fit's error, XPBD's direct-fit error and
the ratios closed form / xpbd-strain fit, xpbd-strain fit / xpbd fit and closed form / xpbd fit. Ratios
within 1 % of 1 are ties (accuracy.py's ``TIE``): lower / within 1 % / higher counts, never a ranking of a tie.

    python fits/tables/mappings_strain.py [--out fits/tables/mappings] [--limit K] [--summary-only]

Deterministic: the rows depend on the points and the library only. Rows are appended to
``<out>/xpbd-strain.csv.partial`` as they finish (a rerun resumes from it) and written in point order to
``<out>/xpbd-strain.csv`` at the end; ``--summary-only`` prints the summary from that file. A point whose
fit, mapping or evaluation fails is a row with its status and reason, counted apart. Every figure the
README quotes is printed here.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time

import pbdfit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy import TIE, percentile, split  # noqa: E402
from mappings import accuracy_rows, parse  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MAPPING = "xpbd-strain-lame"
MODEL = "xpbd-strain"
COLUMNS = ["table", "young", "poisson", "dt", "nit", "n", "mapping", "mapping_parameters", "mapping_error",
           "strain_fit_parameters", "strain_fit_error", "strain_fit_at_bound", "strain_fit_status",
           "strain_fit_evaluations", "xpbd_fit_parameters", "xpbd_fit_error", "xpbd_fit_at_bound",
           "ratio_mapping_to_strain_fit", "ratio_strain_fit_to_xpbd_fit", "ratio_mapping_to_xpbd_fit", "status",
           "message", "pbdfit_version"]


def point_row(row: dict) -> dict:
    """One point: the closed form's and the xpbd-strain fit's errors beside XPBD's direct fit's."""
    q = dict(young=float(row["young"]), poisson=float(row["poisson"]), dt=float(row["dt"]), nit=int(row["nit"]),
             n=int(row["n"]))
    out = dict(table="xpbd", mapping=MAPPING, pbdfit_version=pbdfit.__version__,
               **{k: row[k] for k in ("young", "poisson", "dt", "nit", "n")})
    try:
        if row["status"] != "ok":
            raise LookupError(f"no xpbd direct fit at this point: {row['message']}")
        out.update(xpbd_fit_parameters=row["fit_parameters"], xpbd_fit_error=row["fit_error"],
                   xpbd_fit_at_bound=row["fit_at_bound"])
        m = pbdfit.mapping(MAPPING, **q)
        params = {p["name"]: p["value"] for p in m["parameters"]}
        out["mapping_parameters"] = ";".join(f"{k}={v!r}" for k, v in params.items())
        if m["outside_range"]:
            raise OverflowError(f"outside model {MODEL}'s allowed range: {', '.join(m['outside_range'])}")
        e_map = pbdfit.evaluate(m["scene"], q["young"], q["poisson"], params, model=MODEL, dt=q["dt"], n=q["n"],
                                nit=q["nit"])["error"]
        out["mapping_error"] = repr(e_map)
        fit = pbdfit.fit(m["scene"], q["young"], q["poisson"], model=MODEL, dt=q["dt"], n=q["n"], nit=q["nit"])
        e_xpbd = float(row["fit_error"])
        out.update(
            strain_fit_parameters=";".join(f"{k}={v!r}" for k, v in fit.parameters.items()),
            strain_fit_error=repr(fit.error),
            strain_fit_at_bound=";".join(fit.at_bound),
            strain_fit_status=fit.status,
            strain_fit_evaluations=fit.evaluations,
            ratio_mapping_to_strain_fit=repr(e_map / fit.error),
            ratio_strain_fit_to_xpbd_fit=repr(fit.error / e_xpbd),
            ratio_mapping_to_xpbd_fit=repr(e_map / e_xpbd),
            status="ok",
        )
    except (ValueError, OverflowError, LookupError) as e:
        out.update(status={ValueError: "failed", OverflowError: "outside-range", LookupError: "no-fit"}[type(e)],
                   message=str(e))
    return out


def line(name: str, ratios) -> str:
    if not ratios:
        return f"  {name}: no point"
    lo, tie, hi = split(ratios)
    return (f"  {name}: {len(ratios)} points: median {percentile(ratios, 0.5):.4g}, 90th percentile "
            f"{percentile(ratios, 0.9):.4g}, best {min(ratios):.4g}, worst {max(ratios):.4g}; "
            f"lower / within {TIE:.0%} / higher: {lo}/{tie}/{hi}")


def report(rows, path: str) -> None:
    ok = [r for r in rows if r["status"] == "ok"]
    bad = {}
    for r in rows:
        if r["status"] != "ok":
            bad[r["status"]] = bad.get(r["status"], 0) + 1
    print(f"model {MODEL} at the {len(rows)} points of accuracy/xpbd.csv (seed 27, N = 1): {len(ok)} evaluated"
          + "".join(f", {k}: {v}" for k, v in sorted(bad.items())) + f"; rows in {path}")
    for r in rows:
        if r["status"] != "ok":
            print(f"    {r['status']} at E = {float(r['young']):.3g}, nu = {float(r['poisson']):.3g}, dt = "
                  f"{float(r['dt']):.3g}, nit = {r['nit']}: {r['message']}")
    f = lambda rs, k: [float(r[k]) for r in rs]
    print(line(f"{MAPPING} / xpbd-strain direct fit", f(ok, "ratio_mapping_to_strain_fit")))
    print(line("xpbd-strain direct fit / xpbd direct fit", f(ok, "ratio_strain_fit_to_xpbd_fit")))
    print(line(f"{MAPPING} / xpbd direct fit", f(ok, "ratio_mapping_to_xpbd_fit")))
    print("  errors: median xpbd-strain fit {:.4g}, median xpbd fit {:.4g}, median {} {:.4g}".format(
        percentile(f(ok, "strain_fit_error"), 0.5), percentile(f(ok, "xpbd_fit_error"), 0.5), MAPPING,
        percentile(f(ok, "mapping_error"), 0.5)))
    budget = sum(1 for r in ok if r["strain_fit_status"] != "converged")
    print(f"  xpbd-strain fits not ending 'converged': {budget} "
          f"({', '.join(sorted({r['strain_fit_status'] for r in ok}))})")

    # Where the fits sit: inside the box, or on its edge (the stiffest compliance, 1e-12, is the lower edge:
    # the model cannot be stiff enough in dt and nit, whatever its constraints).
    inside = [r for r in ok if not r["strain_fit_at_bound"]]
    edge = [r for r in ok if r["strain_fit_at_bound"]]
    print(f"  xpbd-strain fit inside the box: {len(inside)} points; on its edge: {len(edge)}")
    print(line("    inside: " + f"{MAPPING} / xpbd-strain fit", f(inside, "ratio_mapping_to_strain_fit")))
    print(line("    inside: xpbd-strain fit / xpbd fit", f(inside, "ratio_strain_fit_to_xpbd_fit")))
    print(line("    inside: " + f"{MAPPING} / xpbd fit", f(inside, "ratio_mapping_to_xpbd_fit")))
    print(line("    on the edge: xpbd-strain fit / xpbd fit", f(edge, "ratio_strain_fit_to_xpbd_fit")))
    print(line("    on the edge: " + f"{MAPPING} / xpbd-strain fit", f(edge, "ratio_mapping_to_strain_fit")))
    if edge:
        lower = sum(1 for r in edge if all(parse(r["strain_fit_parameters"])[p] <= 1e-12 for p in
                                           r["strain_fit_at_bound"].split(";")))
        both = sum(1 for r in edge if r["xpbd_fit_at_bound"])
        print(f"    of the {len(edge)} on the edge: {lower} only at the stiff (lower) edge; {both} where the xpbd fit "
              f"is on its edge too; their errors: median xpbd-strain fit {percentile(f(edge, 'strain_fit_error'), 0.5):.4g}, "
              f"median xpbd fit {percentile(f(edge, 'xpbd_fit_error'), 0.5):.4g}")
    if inside:
        for p in ("alpha_dev", "alpha_vol"):
            d = sorted(math.log10(parse(r["mapping_parameters"])[p] / parse(r["strain_fit_parameters"])[p])
                       for r in inside if parse(r["mapping_parameters"])[p] > 0)
            print(f"    inside: {p} closed form - fitted, decades: median {percentile(d, 0.5):.3g} "
                  f"[{d[0]:.3g}, {d[-1]:.3g}]")

    # By the setting: the step's stiffness is limited by dt and nit, not by the constraint.
    print("  by setting (xpbd-strain fit / xpbd fit; lower / within 1 % / higher; strain fit on the edge):")
    groups = [("dt <= 1/300", lambda r: float(r["dt"]) <= 1 / 300 + 1e-12),
              ("1/300 < dt <= 1/100", lambda r: 1 / 300 + 1e-12 < float(r["dt"]) <= 1 / 100 + 1e-12),
              ("dt > 1/100", lambda r: float(r["dt"]) > 1 / 100 + 1e-12)]
    nits = [("nit <= 3", lambda r: int(r["nit"]) <= 3), ("4 <= nit <= 12", lambda r: 4 <= int(r["nit"]) <= 12),
            ("nit >= 13", lambda r: int(r["nit"]) >= 13)]
    for gname, g in groups:
        for nname, n in nits:
            rs = [r for r in ok if g(r) and n(r)]
            if not rs:
                continue
            ratios = f(rs, "ratio_strain_fit_to_xpbd_fit")
            lo, tie, hi = split(ratios)
            print(f"    {gname}, {nname}: {len(rs)} points, median {percentile(ratios, 0.5):.4g}, "
                  f"{lo}/{tie}/{hi}; on the edge {sum(1 for r in rs if r['strain_fit_at_bound'])}; closed form / "
                  f"strain fit median {percentile(f(rs, 'ratio_mapping_to_strain_fit'), 0.5):.4g}")
    # Where the xpbd-strain fit does worse than XPBD's, and where it is better but still far off.
    worse = [r for r in ok if float(r["ratio_strain_fit_to_xpbd_fit"]) > 1 + TIE]
    rng = lambda rs, k, fmt=".3g": f"[{min(float(r[k]) for r in rs):{fmt}}, {max(float(r[k]) for r in rs):{fmt}}]"
    if worse:
        print(f"  xpbd-strain fit higher than the xpbd fit by more than 1 % at {len(worse)} points: nit "
              f"{rng(worse, 'nit', '.0f')}, dt {rng(worse, 'dt')} s, E {rng(worse, 'young')} Pa, nu {rng(worse, 'poisson')}; "
              f"errors: xpbd-strain fit {rng(worse, 'strain_fit_error')}, xpbd fit {rng(worse, 'xpbd_fit_error')}")
        for lo in (9, 13):
            rs = [r for r in ok if int(r["nit"]) >= lo]
            print(f"    points with nit >= {lo}: {len(rs)}, of which {sum(1 for r in rs if r in worse)} higher")
    if edge:
        upper = [r for r in edge if any(parse(r["strain_fit_parameters"])[p] >= 1e2 for p in
                                        r["strain_fit_at_bound"].split(";"))]
        print(f"  xpbd-strain fit on the box's edge at {len(edge)} points (nit {rng(edge, 'nit', '.0f')}, E "
              f"{rng(edge, 'young')} Pa): a compliance at 1e-12 (the stiff edge) at {len(edge) - len(upper)}, "
              f"alpha_vol at 1e2 (no volume stiffness) at {len(upper)}; errors: xpbd-strain fit "
              f"{rng(edge, 'strain_fit_error')}, xpbd fit {rng(edge, 'xpbd_fit_error')}")
    for bound in (0.1, 0.01):
        print(f"  points with error below {bound}: xpbd-strain fit {sum(1 for r in ok if float(r['strain_fit_error']) < bound)}, "
              f"{MAPPING} {sum(1 for r in ok if float(r['mapping_error']) < bound)}, "
              f"xpbd fit {sum(1 for r in ok if float(r['xpbd_fit_error']) < bound)}")
    a = max(ok, key=lambda r: float(r["ratio_mapping_to_strain_fit"]))
    print(f"  worst {MAPPING} / xpbd-strain fit: {float(a['ratio_mapping_to_strain_fit']):.4g} at E = "
          f"{float(a['young']):.3g} Pa, nu = {float(a['poisson']):.3g}, dt = {float(a['dt']):.3g} s, nit = {a['nit']}: "
          f"closed form {a['mapping_parameters']}, fitted {a['strain_fit_parameters']}; closed form - fitted: "
          + ", ".join(f"{p} {math.log10(parse(a['mapping_parameters'])[p] / parse(a['strain_fit_parameters'])[p]):.3g} "
                      "decades" for p in ("alpha_dev", "alpha_vol")))
    a = max(ok, key=lambda r: float(r["ratio_strain_fit_to_xpbd_fit"]))
    print(f"  worst xpbd-strain fit / xpbd fit: {float(a['ratio_strain_fit_to_xpbd_fit']):.4g} at E = "
          f"{float(a['young']):.3g} Pa, nu = {float(a['poisson']):.3g}, dt = {float(a['dt']):.3g} s, nit = {a['nit']}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--out", default=os.path.join(HERE, "mappings"))
    ap.add_argument("--limit", type=int, default=None, help="only the first K points (a timing run)")
    ap.add_argument("--summary-only", action="store_true", help="print the summary of the written rows")
    args = ap.parse_args()
    path = os.path.join(args.out, f"{MODEL}.csv")
    if args.summary_only:
        with open(path, newline="") as f:
            report(list(csv.DictReader(f)), path)
        return 0
    points = accuracy_rows("xpbd", args.seed)[: args.limit]
    os.makedirs(args.out, exist_ok=True)
    partial = path + ".partial"
    done = {}
    if os.path.exists(partial):
        with open(partial, newline="") as f:
            for r in csv.DictReader(f):
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
            r = {k: str(v) for k, v in point_row(p).items()}
            w.writerow({k: r.get(k, "") for k in COLUMNS})
            f.flush()
            rows.append(r)
            print(f"\r{i + 1}/{len(points)} points, {time.time() - start:.0f} s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in COLUMNS})
    if args.limit is None:
        os.remove(partial)
    report(rows, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
