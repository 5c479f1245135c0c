"""The closed-form mappings users apply today, against the table lookup and a direct fit

At the same random points as ``accuracy.py`` (seed 27, the same generator; the points and the direct fit's
and the lookup's errors are read from ``fits/tables/accuracy/<table>.csv``, and the points are checked to
be the ones the generator draws), every mapping for the table's model (``pbdfit.mapping``: Van Gelder
springs, bulk-modulus and Macklin-Mueller volume compliances, Godot-Jolt's constant, their PBD
equivalents) is simulated on the table's scene (``pbdfit.evaluate``) and its error divided by the direct
fit's. A mapping whose parameter lies outside the model's allowed range, or whose formula is undefined, or
whose parameters have no rest state, is kept as a row with its status and message and counted apart.

    python fits/tables/mappings.py [--table pbd] [--out fits/tables/mappings] [--limit K]

Deterministic: the rows depend on the points and the library only. Writes ``<out>/<table>.csv`` (one row per
point and mapping) and prints the summary per mapping, with the lookup's and ``lookup --refine``'s figures
from the accuracy rows beside them.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import random
import sys
import time

import pbdfit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from accuracy import TIE, percentile, random_point, split, table_range  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ["table", "young", "poisson", "dt", "nit", "n", "mapping", "model", "parameters", "error", "fit_error",
           "ratio", "status", "message", "pbdfit_version"]


def accuracy_rows(table: str, seed: int):
    """The accuracy rows of ``table``, checked against the points the seeded generator draws."""
    with open(os.path.join(HERE, "accuracy", f"{table}.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    rng = random.Random(seed)
    r = table_range(table)
    for row in rows:
        q = random_point(rng, r)
        got = dict(young=float(row["young"]), poisson=float(row["poisson"]), dt=float(row["dt"]),
                   nit=int(row["nit"]), n=int(row["n"]))
        if got != q:
            raise SystemExit(f"accuracy/{table}.csv does not hold the points of seed {seed}: {got} != {q}")
    return rows


def summary(name: str, ratios, extra: str = "") -> str:
    if not ratios:
        return f"  {name}: no point evaluated{extra}"
    lo, tie, hi = split(ratios)
    return (f"  {name}: {len(ratios)} points, ratio to the direct fit: median {percentile(ratios, 0.5):.4g}, "
            f"90th percentile {percentile(ratios, 0.9):.4g}, best {min(ratios):.4g}, worst {max(ratios):.4g}; "
            f"lower / within {TIE:.0%} / higher: {lo}/{tie}/{hi}{extra}")


def parse(parameters: str) -> dict:
    return {k: float(v) for k, v in (kv.split("=") for kv in parameters.split(";"))}


def deviation(name: str, mapped: float, fitted: float) -> float:
    """Mapped minus fitted: in decades for a compliance (``alpha_*``), in value for a stiffness."""
    if name.startswith("alpha_"):
        return math.log10(mapped / fitted) if mapped > 0 and fitted > 0 else float("nan")
    return mapped - fitted


def details(name: str, evaluated) -> list:
    """The lines behind the README's reading of one mapping: where the fit lies inside the box, the tail
    above the 90th percentile, the worst point, and the ties where the mapping gives the fit's parameters.
    ``evaluated``: (accuracy row, mapping row, ratio) for every evaluated point."""
    out = []
    fmt = lambda v: f"{v:.3g}"
    names = list(parse(evaluated[0][1]["parameters"]))
    inside = [e for e in evaluated if not e[0]["fit_at_bound"]]
    if inside:
        devs = []
        for p in names:
            d = sorted(deviation(p, parse(m["parameters"])[p], parse(a["fit_parameters"])[p]) for a, m, _ in inside)
            devs.append(f"{p} median {fmt(percentile(d, 0.5))} [{fmt(d[0])}, {fmt(d[-1])}]")
        ratios = [r for _, _, r in inside]
        out.append(f"    fit inside the box at {len(inside)} points: ratio median {fmt(percentile(ratios, 0.5))}, 90th "
                   f"percentile {fmt(percentile(ratios, 0.9))}; mapped - fitted (decades for compliances): "
                   + "; ".join(devs))
    devs = []
    for p in names:
        d = sorted(deviation(p, parse(m["parameters"])[p], parse(a["fit_parameters"])[p]) for a, m, _ in evaluated)
        devs.append(f"{p} median {fmt(percentile(d, 0.5))}")
    out.append("    all points, mapped - fitted: " + "; ".join(devs))
    p90 = percentile([r for _, _, r in evaluated], 0.9)
    tail = [e for e in evaluated if e[2] > p90]
    if tail:
        ranges = []
        for p in names:
            mv = [parse(m["parameters"])[p] for _, m, _ in tail]
            fv = [parse(a["fit_parameters"])[p] for a, _, _ in tail]
            ranges.append(f"{p} mapped [{fmt(min(mv))}, {fmt(max(mv))}], fitted [{fmt(min(fv))}, {fmt(max(fv))}]")
        out.append(f"    above the 90th percentile ({len(tail)} points): E >= {fmt(min(float(a['young']) for a, _, _ in tail))} "
                   f"Pa, nit >= {min(int(a['nit']) for a, _, _ in tail)}; " + "; ".join(ranges))
    a, m, r = max(evaluated, key=lambda e: e[2])
    out.append(f"    worst: ratio {fmt(r)} at E = {fmt(float(a['young']))} Pa, nu = {fmt(float(a['poisson']))}, dt = "
               f"{fmt(float(a['dt']))} s, nit = {a['nit']}, N = {a['n']}: mapped {m['parameters']}, fitted "
               f"{a['fit_parameters']}")
    same = sum(1 for a, m, r in evaluated if abs(r - 1) <= TIE and parse(m["parameters"]) == parse(a["fit_parameters"]))
    out.append(f"    ties at points where the mapping gives exactly the fitted parameters: {same}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table", default="pbd")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--out", default=os.path.join(HERE, "mappings"))
    ap.add_argument("--limit", type=int, default=None, help="only the first K points (a timing run)")
    args = ap.parse_args()
    rows = accuracy_rows(args.table, args.seed)[: args.limit]
    model = "pbd" if args.table == "pbd" else "xpbd"
    mappings = [m["name"] for m in pbdfit.mapping("list") if m["model"] == model]
    out_rows, ratios, not_evaluated = [], {m: [] for m in mappings}, {m: {} for m in mappings}
    evaluated = {m: [] for m in mappings}
    start = time.time()
    for i, row in enumerate(rows):
        q = dict(young=float(row["young"]), poisson=float(row["poisson"]), dt=float(row["dt"]), nit=int(row["nit"]),
                 n=int(row["n"]))
        for name in mappings:
            out = dict(table=args.table, mapping=name, model=model, pbdfit_version=pbdfit.__version__,
                       **{k: row[k] for k in ("young", "poisson", "dt", "nit", "n")})
            try:
                if row["status"] != "ok":
                    raise LookupError(f"no direct fit at this point: {row['message']}")
                m = pbdfit.mapping(name, **q)
                params = {p["name"]: p["value"] for p in m["parameters"]}
                out["parameters"] = ";".join(f"{k}={v!r}" for k, v in params.items())
                if m["outside_range"]:
                    raise OverflowError(f"outside model {model}'s allowed range: {', '.join(m['outside_range'])}")
                e = pbdfit.evaluate(m["scene"], q["young"], q["poisson"], params, model=model, dt=q["dt"], n=q["n"],
                                    nit=q["nit"])["error"]
                fit_error = float(row["fit_error"])
                out.update(error=repr(e), fit_error=row["fit_error"], ratio=repr(e / fit_error), status="ok")
                ratios[name].append(e / fit_error)
                evaluated[name].append((row, out, e / fit_error))
            except (ValueError, OverflowError, LookupError) as e:
                status = {ValueError: "failed", OverflowError: "outside-range", LookupError: "no-fit"}[type(e)]
                out.update(status=status, message=str(e))
                not_evaluated[name][status] = not_evaluated[name].get(status, 0) + 1
            out_rows.append(out)
        print(f"\r{i + 1}/{len(rows)} points, {time.time() - start:.0f} s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{args.table}.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in out_rows:
            w.writerow({k: r.get(k, "") for k in COLUMNS})
    print(f"table {args.table} (model {model}): {len(rows)} points of seed {args.seed} (accuracy/{args.table}.csv); "
          f"error / direct fit's error; rows in {path}")
    ok = [r for r in rows if r["status"] == "ok"]
    print(summary("lookup", [float(r["ratio"]) for r in ok]))
    print(summary("lookup --refine", [float(r["refined_ratio"]) for r in ok]))
    for name in mappings:
        missing = "".join(f"; {k}: {v}" for k, v in sorted(not_evaluated[name].items()))
        print(summary(name, ratios[name], missing))
        if evaluated[name]:
            print("\n".join(details(name, evaluated[name])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
