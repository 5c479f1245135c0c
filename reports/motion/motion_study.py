"""The motion study's figure and tables (issue "Motion"): reads the releases of ``pbdfit study fits/motion.toml``
(``fits/results/motion/<model>/motion/releases.csv``; plots read results, never solvers) and draws, per
experiment (dt, nit, N), each model's frequency over the FEM's and its damping ratio beside the FEM's, at the
parameters that fit the sag. Prints the tables the report quotes. Deterministic.

    python3 reports/motion/motion_study.py [--results fits/results/motion] [--out reports/motion]

Writes ``motion-study.png`` (and an SVG beside it).
"""

import argparse
import csv
import math
import os

EXPERIMENTS = [("dt", "dt (s)", True), ("nit", "nit", True), ("n", "N", False)]


def number(text):
    return float(text) if text not in ("", None) else math.nan


def read(results):
    """Every model's releases: one sub-folder per model (the study file's ``models = [...]``), by name."""
    rows = {}
    for model in sorted(os.listdir(results)):
        path = os.path.join(results, model, "motion", "releases.csv")
        if os.path.isfile(path):
            with open(path, newline="") as f:
                rows[model] = list(csv.DictReader(f))
    return rows


def table(rows):
    """The findings' table: one line per model and experiment value."""
    lines = [
        "| model | experiment | value | frequency / FEM's | damping ratio (FEM's) | rest-state error | trajectory error: sag fit -> motion fit (rest-state error) | damping setting for the FEM's decay |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for model, rs in rows.items():
        for r in rs:
            if r["experiment"] == "base":
                continue
            knob = r["damping_knob"]
            model_ratio, fem_ratio = number(r["model_damping_ratio"]), number(r["fem_damping_ratio"])
            if not knob:
                setting = "no damping setting" if r["status"] == "ok" else "(failed)"
            elif r["damping_reached"] == "true":
                setting = f"{knob} = {number(r['damping_value']):.3g}"
            elif model_ratio > fem_ratio:
                setting = "none: its own damping is too much"
            else:
                setting = f"none in {knob}'s range"
            motion = (f"{number(r['motion_trajectory_error']):.3g} ({number(r['motion_rest_error']):.3g})"
                      if r["motion_trajectory_error"] else "failed (status)")
            lines.append(
                f"| {model} | {r['experiment']} | {number(r['value']):g} | {number(r['frequency_ratio']):.3f} | "
                f"{number(r['model_damping_ratio']):.4f} ({number(r['fem_damping_ratio']):.4f}) | "
                f"{number(r['rest_error']):.3g} | {number(r['trajectory_error']):.3g} -> {motion} | {setting} |"
            )
    return "\n".join(lines)


def draw(rows, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(EXPERIMENTS), figsize=(4.2 * len(EXPERIMENTS), 7.6), squeeze=False)
    for j, (experiment, label, log) in enumerate(EXPERIMENTS):
        top, bottom = axes[0][j], axes[1][j]
        fem_drawn = False
        ticks = []
        for model, rs in rows.items():
            sel = sorted((r for r in rs if r["experiment"] == experiment), key=lambda r: number(r["value"]))
            if not sel:
                continue
            x = [number(r["value"]) for r in sel]
            # A model whose fit does not reach the sag (rest-state error above 0.5) is drawn dashed: its
            # motion is that of another body.
            errors = sorted(number(r["rest_error"]) for r in rs if r["rest_error"])
            off = errors[len(errors) // 2] > 0.5
            style = dict(marker="o", linestyle="--" if off else "-",
                         label=f"{model} (sag not matched: rest-state error {errors[0]:.2g} to {errors[-1]:.3g})" if off else model)
            top.plot(x, [number(r["frequency_ratio"]) for r in sel], **style)
            bottom.plot(x, [number(r["model_damping_ratio"]) for r in sel], **style)
            ticks = x
            if not fem_drawn:
                bottom.plot(x, [number(r["fem_damping_ratio"]) for r in sel], color="black", linestyle="--",
                            label="FEM (Newmark, damping ratio 0.02)")
                fem_drawn = True
        top.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
        for ax in (top, bottom):
            if log:
                ax.set_xscale("log")
            ax.set_xticks(ticks)
            ax.set_xticklabels([f"{t:g}" for t in ticks])
            ax.minorticks_off()
            ax.set_xlabel(label)
            ax.grid(True, alpha=0.3)
        bottom.set_yscale("log")
        top.set_title(f"over {label} (the others at dt 0.01, nit 10, N 2)", fontsize=9)
        if j == 0:
            top.set_ylabel("frequency / FEM's")
            bottom.set_ylabel("damping ratio")
    handles, labels = axes[1][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle("Sag-fitted models released under gravity on gravity-wall (E 1e3 Pa, nu 0.3)", fontsize=11)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    os.makedirs(out, exist_ok=True)
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"motion-study.{ext}"), dpi=110, metadata={"Date": None} if ext == "svg" else None)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="fits/results/motion")
    parser.add_argument("--out", default="reports/motion")
    args = parser.parse_args()
    rows = read(args.results)
    if not rows:
        raise SystemExit(f"no releases under {args.results}: run `pbdfit study fits/motion.toml` first")
    draw(rows, args.out)
    print(table(rows))


if __name__ == "__main__":
    main()
