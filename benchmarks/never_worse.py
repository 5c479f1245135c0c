#!/usr/bin/env python3
"""Compares two results folders fit by fit (issue "Fits that follow the gradient", goal "never worse").

usage: never_worse.py COMMITTED NEW

For every row of COMMITTED (the pattern search) it finds the row of NEW with the same scene, experiment,
value, E, nu, dt, N and nit, and prints the distribution of error(new) / error(committed): how many fits
are within 1 + 1e-6, how many better, and every exception above the margin with its numbers.
"""
import csv
import glob
import os
import sys

KEY = ["scene", "experiment", "value", "young", "poisson", "dt", "n", "nit"]


def rows(folder):
    out = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                out[tuple(r[k] for k in KEY)] = r
    return out


def main():
    old, new = rows(sys.argv[1]), rows(sys.argv[2])
    params = None
    within = better = worse = missing = 0
    exceptions = []
    ratios = []
    for key, r in old.items():
        n = new.get(key)
        if n is None:
            missing += 1
            continue
        if params is None:
            cols = list(r.keys())
            params = cols[cols.index("mass_model") + 1:cols.index("error")]
        e0, e1 = float(r["error"]), float(n["error"])
        ratio = e1 / e0 if e0 > 0 else (1.0 if e1 == 0 else float("inf"))
        ratios.append(ratio)
        if ratio <= 1 + 1e-6:
            within += 1
            if ratio < 1 - 1e-6:
                better += 1
        else:
            worse += 1
            exceptions.append((ratio, key, e0, e1, [r[p] for p in params], [n[p] for p in params], n.get("starts", "")))
    total = len(ratios)
    print(f"{total} fits compared ({missing} missing in the new folder)")
    print(f"error <= committed x (1 + 1e-6): {within} ({100.0 * within / max(total, 1):.2f} %), of which lower by more than 1e-6: {better}")
    print(f"worse: {worse}; worse than x 1.01: {sum(1 for x in exceptions if x[0] > 1.01)}")
    if ratios:
        print(f"best ratio {min(ratios):.6f}, worst ratio {max(ratios):.6f}")
    for ratio, key, e0, e1, p0, p1, starts in sorted(exceptions, reverse=True):
        k = dict(zip(KEY, key))
        print(f"  x{ratio:.8f}: {k['scene']} {k['experiment']} value={k['value']} E={k['young']} nu={k['poisson']} "
              f"dt={k['dt']} N={k['n']} nit={k['nit']}: {e0:.8g} -> {e1:.8g}; {params} {p0} -> {p1}; starts {starts}")


if __name__ == "__main__":
    main()
