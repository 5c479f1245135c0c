"""The figure of the worked example of measured markers: the residuals at the markers of each marker fit.

Reads ``reports/measured/example/<model>.markers.csv`` (written by ``example.py`` through ``fit --vtk``) and
draws, per model, the observed and the fitted vertical displacement of every marker along the beam (top),
and each marker's residual in units of its sigma (bottom; a band at +-2 where 95 % of pure noise falls).

    python reports/measured/example_figure.py [--out reports/measured/residuals.png]

Needs matplotlib. Deterministic for a given matplotlib (no date in the file).
"""

from __future__ import annotations

import argparse
import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["pbd", "xpbd"]


def rows(model: str):
    with open(os.path.join(HERE, "example", f"{model}.markers.csv"), newline="") as f:
        return [{k: float(v) for k, v in r.items() if v != ""} for r in csv.DictReader(f)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "residuals.png"))
    args = ap.parse_args()
    fig, axes = plt.subplots(2, len(MODELS), figsize=(5.2 * len(MODELS), 6.4), sharex=True, squeeze=False)
    for c, model in enumerate(MODELS):
        data = sorted(rows(model), key=lambda r: r["x"])
        x = [r["x"] for r in data]
        top, bottom = axes[0][c], axes[1][c]
        top.plot(x, [1e3 * r["uy"] for r in data], "o", ms=4, color="0.2", label="observed (1 % noise)")
        top.plot(x, [1e3 * r["model_uy"] for r in data], "x", ms=5, color="tab:red", label=f"{model} fitted")
        top.set_ylabel("vertical displacement u_y (mm)")
        top.set_title(f"{model}: fit to 50 markers")
        top.legend(fontsize=8)
        for k, (axis, colour) in enumerate(zip("xyz", ["tab:blue", "tab:orange", "tab:green"])):
            bottom.plot(x, [r[f"residual_{axis}"] / r["sigma"] for r in data], ".", color=colour,
                        label=f"residual {axis} / sigma")
        bottom.axhspan(-2, 2, color="0.9", zorder=0)
        bottom.axhline(0, color="0.5", lw=0.8)
        bottom.set_xlabel("marker position along the beam x (m)")
        bottom.set_ylabel("residual / sigma")
        bottom.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110, metadata={"Software": None})
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
