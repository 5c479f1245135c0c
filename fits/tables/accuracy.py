"""How good is a table lookup between nodes?

For random points inside a shipped table's range that are not nodes, the lookup's parameters are simulated
(``pbdfit.evaluate``: the error a fit minimises) and compared with a direct gradient fit at the same point
(``pbdfit.fit``). The ratio lookup error / fit error is the lookup's cost; the goal is a median of at most
1.1 and a 90th percentile of at most 1.5. The same ratio and the rest states spent are recorded for
``lookup --refine`` (a gradient fit started from the lookup).

    python fits/tables/accuracy.py [--table pbd] [--points 200] [--seed 27] [--out fits/tables/accuracy]
                                   [--n-range 1:2]

``--n-range LO:HI`` draws N in [LO, HI] instead of the table's whole N axis: for a part-built table
(``pbd-full`` has N = 1 and 2 of 1, 2, 4, 8). With the same range as another table, the points are the
same (same seed, same draws): ``--table pbd-full --n-range 1:2`` repeats ``--table pbd``'s points.

Deterministic: the points come from a seeded generator; every row records the query, the lookup's and the
fit's parameters and errors, and the pbdfit version. Writes ``<out>/<table>.csv`` and prints the summary.
A point whose direct fit or lookup fails is kept as a row with its reason, and counted apart.
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


def table_range(table: str):
    """The (min, max) of each axis of a shipped table (``fits/tables/<table>/table.json``)."""
    import json

    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), table, "table.json")) as f:
        axes = json.load(f)["axes"]
    return {k: (min(v), max(v)) for k, v in axes.items()}


def random_point(rng: random.Random, r, draw_n: bool = True) -> dict:
    """A random (E, nu, dt, nit[, N]) inside the ranges ``r``: E and dt log-uniform, nu uniform, nit any
    integer (uniform in log2), N a whole number in its range. ``draw_n=False`` (``transfer.py``: a body has no
    N) draws the same E, nu, dt, nit from the same generator state and no N."""
    log_uniform = lambda lo, hi: 10 ** rng.uniform(math.log10(lo), math.log10(hi))
    point = dict(
        young=log_uniform(*r["young"]),
        poisson=rng.uniform(*r["poisson"]),
        dt=log_uniform(*r["dt"]),
        # nit between nodes: any integer in the range, drawn uniformly in log2.
        nit=int(round(2 ** rng.uniform(math.log2(r["nit"][0]), math.log2(r["nit"][1])))),
    )
    if draw_n:
        point["n"] = rng.randint(int(r["n"][0]), int(r["n"][1]))
    return point


def percentile(values, q):
    """Linear-interpolated percentile; an infinite value (a lookup with no rest state) counts as the largest."""
    v = sorted(values)
    if not v:
        return float("nan")
    k = (len(v) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    if lo == hi or v[hi] == v[lo]:
        return v[lo]
    if math.isinf(v[hi]):
        return math.inf
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


# Two errors within this fraction of each other are a tie: the fits' own identifiability range is the set
# of parameters whose error is within 1 % of the minimum, so a smaller difference ranks nothing.
TIE = 0.01


def split(ratios):
    """(lower by more than TIE, within TIE, higher by more than TIE): how often the compared error beat,
    tied or lost to the direct fit's."""
    return (sum(r < 1 - TIE for r in ratios), sum(abs(r - 1) <= TIE for r in ratios), sum(r > 1 + TIE for r in ratios))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--table", default="pbd")
    ap.add_argument("--points", type=int, default=200)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "accuracy"))
    ap.add_argument("--n-range", help="LO:HI, the N drawn (default: the table's N axis)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    r = table_range(args.table)
    if args.n_range:
        lo, hi = (int(x) for x in args.n_range.split(":"))
        r["n"] = (lo, hi)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"{args.table}.csv")
    rows, ratios, inside, failed = [], [], [], 0
    refined_ratios, evaluations = [], []
    start = time.time()
    for i in range(args.points):
        q = random_point(rng, r)
        row = dict(q, table=args.table, pbdfit_version=pbdfit.__version__)
        try:
            found = pbdfit.lookup(args.table, refine=True, **q)
            refined = found["refined"]
            model = found["model"]
            looked_up = {p["name"]: p["value"] for p in found["parameters"]}
            e_lookup = pbdfit.evaluate(found["scene"], q["young"], q["poisson"], looked_up, model=model,
                                       dt=q["dt"], n=q["n"], nit=q["nit"])["error"]
            fit = pbdfit.fit(found["scene"], q["young"], q["poisson"], model=model, dt=q["dt"], n=q["n"],
                             nit=q["nit"])
            row.update(
                lookup_parameters=";".join(f"{k}={v!r}" for k, v in looked_up.items()),
                lookup_error=repr(e_lookup),
                fit_parameters=";".join(f"{k}={v!r}" for k, v in fit.parameters.items()),
                fit_error=repr(fit.error),
                ratio=repr(e_lookup / fit.error),
                estimate_error_increase=repr(found["estimate"]["error_increase"]),
                fit_at_bound=";".join(fit.at_bound),
                fit_evaluations=fit.evaluations,
                refined_error=repr(refined["error"]),
                refined_ratio=repr(refined["error"] / fit.error),
                refined_evaluations=refined["evaluations"],
                status="ok",
            )
            refined_ratios.append(refined["error"] / fit.error)
            evaluations.append((refined["evaluations"], fit.evaluations))
            ratios.append(e_lookup / fit.error)
            if not fit.at_bound:
                inside.append(e_lookup / fit.error)
        except ValueError as e:
            failed += 1
            row.update(status="failed", message=str(e))
        rows.append(row)
        print(f"\r{i + 1}/{args.points} points, {time.time() - start:.0f} s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    columns = ["table", "young", "poisson", "dt", "nit", "n", "lookup_parameters", "lookup_error", "fit_parameters",
               "fit_error", "ratio", "estimate_error_increase", "fit_at_bound", "fit_evaluations", "refined_error",
               "refined_ratio", "refined_evaluations", "status", "message", "pbdfit_version"]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        for row in rows:
            w.writerow({k: row.get(k, "") for k in columns})
    print(f"table {args.table}: {len(ratios)} points (seed {args.seed}), {failed} failed; "
          f"lookup error / fit error: median {percentile(ratios, 0.5):.3f}, "
          f"90th percentile {percentile(ratios, 0.9):.3f}, worst {max(ratios) if ratios else float('nan'):.3f}; "
          f"lower / within 1 % / higher than the fit: {'/'.join(map(str, split(ratios)))}; rows in {path}")
    # Where the fit sits on the box's edge (stiff materials: kd = kv = 1), lookup and fit often agree
    # trivially; the points whose fit lies inside the box are the informative ones.
    print(f"  of which {len(inside)} with the fit inside the box: median {percentile(inside, 0.5):.3f}, "
          f"90th percentile {percentile(inside, 0.9):.3f}, worst {max(inside) if inside else float('nan'):.3f}")
    # lookup --refine: a gradient fit from the lookup's parameters (a 2 x 2 grid besides that start).
    print(f"  refined (lookup --refine) error / fit error: median {percentile(refined_ratios, 0.5):.4f}, "
          f"90th percentile {percentile(refined_ratios, 0.9):.4f}, worst "
          f"{max(refined_ratios) if refined_ratios else float('nan'):.4f}; lower / within 1 % / higher than the "
          f"fit: {'/'.join(map(str, split(refined_ratios)))}; rest states: refined median "
          f"{percentile([e[0] for e in evaluations], 0.5):.0f}, direct fit median "
          f"{percentile([e[1] for e in evaluations], 0.5):.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
