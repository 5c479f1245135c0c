"""The engines' closed forms for sheets against the shell and against the fit (reports/engines/README.md).

For each engine sheet profile and its closed form (``pbdfit mapping``: Newton's USD cloth import
``newton-cloth-usd``, MuJoCo's ``young = E`` ``mujoco-flex-young``, Genesis's default compliances
``genesis-cloth-defaults``), at seeded random materials (seed 54) on the hanging sheet and the clamped strip
at N 4 (MuJoCo also at N 8): the closed form's error (``pbdfit evaluate`` at its parameters, against the shell reference), the
error of the profile's own fit at the same setting (``pbdfit fit``) and their ratio. Each profile runs at
its engine's usual step: Newton's cloth example's substep (dt 1/600 s, 10 iterations), Genesis's default
(dt 0.01 s, one substep); MuJoCo's rest state ignores dt and nit, and its ``poisson`` and ``thickness``
settings are the point's nu and h.

    PBDFIT_CLI=target/debug/pbdfit python3 reports/engines/sheets.py [--out reports/engines] [--timeout 200]
        [--max-seconds 60]

Every command's JSON (or its refusal) is kept in ``<out>/sheets/raw/`` and reused when present (delete it to
measure again), with reports/sheets/measure.py's ``run``. Writes ``sheets.csv``, ``sheets.png`` and
``sheets-output.txt`` (the tables README.md quotes) under ``<out>``. A fit stopped by its budget is marked:
its error is the best it found, an upper bound on the fit's. Otherwise deterministic.
"""

import argparse
import csv
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sheets"))
from measure import run  # noqa: E402  (reports/sheets/measure.py: one command's JSON, kept under raw/)

SEED, POINTS = 54, 4
# scene, size (m, None: the scene's), density (kg/m^3), E range (Pa, log-uniform), h range (m, log-uniform);
# nu uniform in [0, 0.45] (mujoco-flex's poisson setting takes [0, 0.5)).
SCENES = [
    ("hanging-sheet", None, 300.0, (1e5, 1e7), (3e-4, 2e-3)),
    ("clamped-strip", 0.2, 1100.0, (5e6, 1e9), (1e-3, 5e-3)),
]
# engine, model, closed form, dt, nit, settings (point -> list), what the closed form is, resolutions N (MuJoCo's
# flex also at N 8: its fits take tens of seconds there; Newton's and Genesis's give no answer at N 4 already)
PROFILES = [
    ("Newton 1.8 XPBD cloth", "newton-cloth", "newton-cloth-usd", "1/600", 10, lambda p: [],
     "USD import: no springs (spring_ke 0), edge_ke = D", [4]),
    ("MuJoCo 4.0.1 flex", "mujoco-flex", "mujoco-flex-young", "0.01", 1,
     lambda p: [f"poisson={p['poisson']!r}", f"thickness={p['thickness']!r}"], "young = E", [4, 8]),
    ("Genesis 1.4.5 PBD.Cloth", "genesis-cloth", "genesis-cloth-defaults", "0.01", 1, lambda p: [],
     "defaults: stretch 1e-7, bending 1e-5", [4]),
]
GRAVITY = 9.81


def points():
    """The seeded materials, per scene (the same for every profile)."""
    rng = random.Random(SEED)
    out = []
    for scene, size, density, (e0, e1), (h0, h1) in SCENES:
        for k in range(POINTS):
            young = 10 ** rng.uniform(math.log10(e0), math.log10(e1))
            poisson = rng.uniform(0.0, 0.45)
            thickness = 10 ** rng.uniform(math.log10(h0), math.log10(h1))
            out.append(dict(scene=scene, point=k, size=size, density=density, young=float(f"{young:.4g}"),
                            poisson=round(poisson, 3), thickness=float(f"{thickness:.3g}")))
    return out


def body_args(p, n):
    args = ["--scene", p["scene"], "--n", str(n), "--young", repr(p["young"]), "--poisson", repr(p["poisson"]),
            "--thickness", repr(p["thickness"]), "--density", repr(p["density"])]
    return args + (["--size", repr(p["size"])] if p["size"] else [])


def why(result):
    """A refusal's reason, short."""
    if "timeout" in result:
        return f"timeout after {result['timeout']} s"
    text = result.get("message", "").splitlines()[-1] if result.get("message") else "refused"
    for key in ("diverged", "no stable rest state", "no grid point has a rest state", "beyond its own size",
                "no rest state"):
        if key in text:
            return key
    return text[:80]


def measure(out, timeout, max_seconds):
    raw = os.path.join(out, "sheets")
    rows = []
    for engine, model, mapping, dt, nit, settings, what, ns in PROFILES:
        for n, p in ((n, p) for n in ns for p in points()):
            tag = f"{p['scene']}-{p['point']}" + ("" if n == 4 else f"-n{n}")
            body = body_args(p, n)
            step = ["--dt", dt, "--nit", str(nit)]
            sets = [a for s in settings(p) for a in ("--setting", s)]
            mapped = run(raw, f"{tag}-{mapping}-mapping", ["mapping", "--mapping", mapping, *body], timeout)
            values = [(q["name"], q["value"]) for q in mapped["ok"]["parameters"]]
            params = [a for name, v in values for a in ("--param", f"{name}={v!r}")]
            closed = run(raw, f"{tag}-{mapping}-evaluate",
                         ["evaluate", *body, "--model", model, *params, *step, *sets], timeout)
            fit = run(raw, f"{tag}-{model}-fit",
                      ["fit", *body, "--model", model, *step, *sets, "--max-seconds", str(max_seconds)], timeout)
            row = dict(engine=engine, model=model, mapping=mapping, what=what, dt=dt, nit=nit, n=n, **p,
                       closed_parameters=";".join(f"{k}={v:.4g}" for k, v in values))
            row["closed_error"] = closed["ok"]["error"] if "ok" in closed else math.nan
            row["closed_note"] = "" if "ok" in closed else why(closed)
            row["fall"] = free_fall(closed)
            if "ok" in fit:
                f = fit["ok"]
                pairs = f["parameters"].items() if isinstance(f["parameters"], dict) else f["parameters"]
                row["fit_error"] = f["error"]
                row["fit_parameters"] = ";".join(f"{k}={v:.4g}" for k, v in pairs)
                row["fit_note"] = f["verdict"] + (" (budget)" if f["status"] == "budget" else "")
            else:
                row["fit_error"], row["fit_parameters"], row["fit_note"] = math.nan, "", why(fit)
            ce, fe = row["closed_error"], row["fit_error"]
            row["ratio"] = ce / fe if ce == ce and fe == fe and fe > 0 else math.nan
            rows.append(row)
    return rows


def g(v):
    return "-" if v != v else f"{v:.4g}"


def table(rows):
    lines = ["| closed form | scene | N | E (Pa) | nu | h (m) | closed form: parameters | its error | fit: error at "
             "parameters | fit's verdict | closed form / fit |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        closed = g(r["closed_error"]) if r["closed_note"] == "" else f"no rest state ({r['closed_note']})"
        fit = f"{g(r['fit_error'])} at {r['fit_parameters']}" if r["fit_parameters"] else f"no fit ({r['fit_note']})"
        lines.append(f"| {r['mapping']} | {r['scene']} | {r['n']} | {r['young']:.4g} | {r['poisson']} | {r['thickness']:.3g} | "
                     f"{r['closed_parameters']} | {closed} | {fit} | {r['fit_note'].replace('_', ' ') if r['fit_parameters'] else ''} | "
                     f"{g(r['ratio'])} |")
    return "\n".join(lines)


def free_fall(result):
    """For a closed form whose motion diverged: (T, the largest displacement after the first window of T
    seconds, gravity's free fall g T^2 / 2 over the same time), from the refusal's text; else None."""
    text = result.get("message", "")
    if "ok" in result or "successive windows of " not in text:
        return None
    window = float(text.split("successive windows of ")[1].split(" ")[0])
    first = float(text.split(" was ")[1].split(", ")[1].split(" ")[0])
    return window, first, GRAVITY * window * window / 2


def summary(rows):
    lines = []
    for engine, model, mapping, dt, nit, _, what, ns in PROFILES:
        for n, (scene, *_) in ((n, s) for n in ns for s in SCENES):
            sel = [r for r in rows if r["mapping"] == mapping and r["scene"] == scene and r["n"] == n]
            rest = [r for r in sel if r["closed_note"] == ""]
            answers = [r for r in sel if r["fit_note"] == "answer"]
            ratios = sorted(r["ratio"] for r in sel if r["ratio"] == r["ratio"])
            text = (f"{mapping} ({what}; {model}, dt {dt} s, nit {nit}) on {scene} at N {n}: a rest state at "
                    f"{len(rest)} of {len(sel)} points, a fit that is an answer at {len(answers)}")
            if rest:
                text += f"; closed form's error {g(min(r['closed_error'] for r in rest))} to " \
                        f"{g(max(r['closed_error'] for r in rest))}"
            if answers:
                text += f"; fit's error {g(min(r['fit_error'] for r in answers))} to " \
                        f"{g(max(r['fit_error'] for r in answers))}"
            if ratios:
                text += f"; closed form / fit {g(ratios[0])} to {g(ratios[-1])} (median of {len(ratios)}: " \
                        f"{g((ratios[(len(ratios) - 1) // 2] + ratios[len(ratios) // 2]) / 2)})"
            falls = [r["fall"] for r in sel if r["fall"]]
            if falls:
                text += "; where it diverged, its largest displacement after the first window over gravity's free " \
                        "fall g T^2 / 2: " + ", ".join(f"{d:.4g} m / {f:.4g} m (T {t:.4g} s)" for t, d, f in falls)
            lines.append(text)
    return "\n".join(lines)


def figure(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    columns = [(p[2], n) for p in PROFILES for n in p[7]]
    fig, axes = plt.subplots(1, len(SCENES), figsize=(12, 4.4))
    for ax, (scene, *_) in zip(axes, SCENES):
        for k, (mapping, n) in enumerate(columns):
            sel = [r for r in rows if r["mapping"] == mapping and r["scene"] == scene and r["n"] == n]
            for j, r in enumerate(sel):
                x = k + (j - (len(sel) - 1) / 2) * 0.15
                if r["fit_parameters"]:
                    marker = "o" if r["fit_note"] == "answer" else "^"
                    ax.plot(x, r["fit_error"], marker, color="tab:blue", mfc="none" if marker == "^" else None,
                            label="fit" if marker == "o" else "fit, no answer (cannot reproduce)")
                if r["closed_note"] == "":
                    ax.plot(x, r["closed_error"], "s", color="tab:red", label="closed form")
                else:
                    ax.plot(x, 1e4, "x", color="tab:red", label="closed form: no rest state (at 1e4)")
        ax.set_xticks(range(len(columns)), [f"{m}\nN {n}" for m, n in columns], fontsize=7)
        ax.set_yscale("log")
        ax.set_title(f"{scene}", fontsize=9)
        ax.set_ylabel("error against the shell")
        ax.grid(alpha=0.3)
        handles, labels = ax.get_legend_handles_labels()
        unique = dict(zip(labels, handles))
        ax.legend(unique.values(), unique.keys(), fontsize=7)
    fig.suptitle(f"Engines' closed forms for sheets against the fit, at seeded materials (seed {SEED}; "
                 "reports/engines/sheets.py)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--timeout", type=int, default=200)
    ap.add_argument("--max-seconds", type=int, default=60, help="each fit's budget (pbdfit fit --max-seconds)")
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "sheets", "raw"), exist_ok=True)
    rows = measure(a.out, a.timeout, a.max_seconds)
    with open(os.path.join(a.out, "sheets.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    text = summary(rows) + "\n\n" + table(rows) + "\n"
    with open(os.path.join(a.out, "sheets-output.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    figure(rows, os.path.join(a.out, "sheets.png"))


if __name__ == "__main__":
    main()
