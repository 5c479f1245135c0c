"""The figure of the closed-form mappings against the lookup: error / direct fit's error at the 200 random points, per method and model.

Reads ``fits/tables/accuracy/<table>.csv`` (lookup, ``lookup --refine``) and ``fits/tables/mappings/<table>.csv``
(the closed-form mappings, written by ``mappings.py``), and in the xpbd panel ``fits/tables/mappings/xpbd-strain.csv``
(``mappings_strain.py``: the xpbd-strain model's closed form over its own direct fit, and its direct fit and
closed form over XPBD's, labelled so), and draws one panel per model: every point's ratio
on a log axis, a box (quartiles, whiskers at the 10th and 90th percentiles) per method, and the 1 % tie
band around 1. Points a mapping could not be evaluated at are counted in the method's label.

    python fits/tables/mappings_figure.py [--out reports/mappings.png]

Needs matplotlib. The output is deterministic for a given matplotlib (no date; an SVG gets a fixed hash salt).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def methods(table: str):
    """[(label, ratios, not evaluated)] for the lookup, the refined lookup and each mapping, in that order."""
    acc = [r for r in read(os.path.join(HERE, "accuracy", f"{table}.csv")) if r["status"] == "ok"]
    out = [("lookup", [float(r["ratio"]) for r in acc], 0),
           ("lookup --refine", [float(r["refined_ratio"]) for r in acc], 0)]
    rows = read(os.path.join(HERE, "mappings", f"{table}.csv"))
    for name in dict.fromkeys(r["mapping"] for r in rows):
        mine = [r for r in rows if r["mapping"] == name]
        ok = [float(r["ratio"]) for r in mine if r["status"] == "ok"]
        out.append((name, ok, len(mine) - len(ok)))
    # The xpbd-strain model (``mappings_strain.py``) at the xpbd table's points: its closed form against its
    # own direct fit, and its direct fit and closed form against XPBD's direct fit (the panel's reference).
    strain = os.path.join(HERE, "mappings", "xpbd-strain.csv")
    if table == "xpbd" and os.path.exists(strain):
        rows = read(strain)
        ok = [r for r in rows if r["status"] == "ok"]
        for label, column in [("xpbd-strain-lame\n/ xpbd-strain fit", "ratio_mapping_to_strain_fit"),
                              ("xpbd-strain fit\n/ xpbd fit", "ratio_strain_fit_to_xpbd_fit"),
                              ("xpbd-strain-lame\n/ xpbd fit", "ratio_mapping_to_xpbd_fit")]:
            out.append((label, [float(r[column]) for r in ok], len(rows) - len(ok)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "reports", "mappings.png"))
    args = ap.parse_args()
    plt.rcParams["svg.hashsalt"] = "pbdfit-issue-27"
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5), sharey=True)
    for ax, table in zip(axes, ["pbd", "xpbd"]):
        data = methods(table)
        ratios = [d[1] for d in data]
        ax.axhspan(0.99, 1.01, color="0.85", zorder=0, label="within 1 % of the direct fit")
        ax.boxplot(ratios, whis=(10, 90), showfliers=False, widths=0.5, zorder=2)
        for i, r in enumerate(ratios, start=1):
            # A deterministic spread of the points across the box's width (by rank).
            xs = [i - 0.2 + 0.4 * (k / max(len(r) - 1, 1)) for k in range(len(r))]
            ax.scatter(xs, sorted(r), s=4, alpha=0.5, color="C0", zorder=3)
        labels = [f"{name}\n({len(r)} pts" + (f", {miss} not evaluated)" if miss else ")") for name, r, miss in data]
        ax.set_xticks(range(1, len(data) + 1), labels, rotation=35, ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.set_title(f"model {table}: the {table} table's 200 random points (seed 27)")
        ax.grid(axis="y", which="major", alpha=0.3)
    axes[0].set_ylabel("simulated error / direct fit's error")
    axes[0].legend(loc="upper left", fontsize=8)
    fig.suptitle("Closed-form mappings against the table lookup and a direct fit (compound gravity scene, "
                 "linear static FEM)", fontsize=10)
    fig.tight_layout()
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    fig.savefig(args.out, metadata={"Date": None})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
