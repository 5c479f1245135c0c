"""Each engine's default mapping against the FEM and against the fit (issue "Your engine, not a textbook's").

For each engine profile, at one body and setting a user of that engine would run (gravity-wall, N = 2,
E = 1e4 Pa; the engine's usual dt and iterations), over nu: the error of what users set by default
(Newton: the Lame parameters, as its USD import does, mapping ``newton-lame``; Jolt: Godot's default
stiffness 0.5, mapping ``jolt-godot``; Genesis: its default compliances, 0 and 0; PyBullet: the Lame
parameters as ``NeoHookeanMu``, ``NeoHookeanLambda``, mapping ``pybullet-lame``) and the error of the
fitted parameters (``pbdfit.fit``, gradient search), with the fitted values. Deterministic.

    python reports/engines/engines.py [--out reports/engines]

Writes ``engines.csv`` and ``engines.png`` and prints the table the report quotes.
"""

import argparse
import csv
import math
import os

import pbdfit

SCENE, N, YOUNG = "gravity-wall", 2, 1e4
POISSON = [0.1, 0.2, 0.3, 0.4, 0.45]
ENGINES = [
    # name, model, dt, nit, settings, default parameters (nu -> dict), what the default is
    ("Newton 1.8 XPBD", "newton-xpbd", 0.01, 10, {"relaxation": 0.3},
     lambda nu: dict(zip(("k_mu", "k_lambda"), [p["value"] for p in pbdfit.mapping("newton-lame", YOUNG, nu, 0.01, 10, N)["parameters"]])),
     "k_mu, k_lambda = Lame parameters (USD import)"),
    ("Jolt 5.6 / Godot", "jolt", 1 / 60, 5, {},
     lambda nu: {"edge_compliance": 8e-5, "volume_compliance": 1e4},
     "Godot's default stiffness 0.5 (edge compliance 8e-5, no volume)"),
    ("Genesis 1.4.5 PBD", "genesis-pbd", 0.01, 4, {},
     lambda nu: {"stretch_compliance": 0.0, "volume_compliance": 0.0},
     "PBD.Elastic's default compliances 0, 0"),
    ("PyBullet 3.2 neo-Hookean", "pybullet-neohookean", 0.01, 1, {},
     lambda nu: dict(zip(("mu", "lambda"), [p["value"] for p in pbdfit.mapping("pybullet-lame", YOUNG, nu, 0.01, 1, N)["parameters"]])),
     "NeoHookeanMu, NeoHookeanLambda = Lame parameters"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = ap.parse_args()
    rows = []
    for name, model, dt, nit, settings, default, what in ENGINES:
        for nu in POISSON:
            try:
                d = pbdfit.evaluate(SCENE, YOUNG, nu, default(nu), model=model, dt=dt, n=N, nit=nit, settings=settings)
                default_error, note = d["error"], ""
            except ValueError as e:
                default_error, note = math.inf, str(e).split(":")[-1].strip()[:80]
            f = pbdfit.fit(SCENE, YOUNG, nu, model=model, dt=dt, n=N, nit=nit, settings=settings)
            rows.append(dict(engine=name, model=model, dt=dt, nit=nit, settings=settings, poisson=nu,
                             default=what, default_error=default_error, default_note=note, fit_error=f.error,
                             fitted=";".join(f"{k}={v:.6g}" for k, v in f.parameters.items()),
                             at_bound=",".join(f.at_bound)))
            r = rows[-1]
            print(f"{name:18} nu {nu:4}: default {r['default_error']:.4g}{' (' + note + ')' if note else ''}, "
                  f"fit {r['fit_error']:.4g} at {r['fitted']}{' [edge: ' + r['at_bound'] + ']' if r['at_bound'] else ''}")
    with open(os.path.join(args.out, "engines.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no figure")
        return
    fig, axes = plt.subplots(1, len(ENGINES), figsize=(20, 5), sharey=True)
    for ax, (name, model, dt, nit, settings, _, what) in zip(axes, ENGINES):
        mine = [r for r in rows if r["model"] == model]
        ax.semilogy([r["poisson"] for r in mine], [r["default_error"] for r in mine], "o-", color="red",
                    label="engine default")
        ax.semilogy([r["poisson"] for r in mine], [r["fit_error"] for r in mine], "s-", color="black",
                    label="fitted (pbdfit fit)")
        ax.set_title(f"{name}: {SCENE}, N = {N}, E = {YOUNG:g} Pa,\ndt = {dt:.4g} s, nit = {nit}\n"
                     f"default: {what}", fontsize=8)
        ax.set_xlabel("nu")
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("error against the linear FEM (mean squared relative)")
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "engines.png"), dpi=100)
    print("wrote", os.path.join(args.out, "engines.png"))


if __name__ == "__main__":
    main()
