"""The worked example of measured markers: fitting to measured markers on an imported mesh.

A lab's measurement, made synthetic so that the truth is known: the shipped cantilever (scenes/cantilever.toml,
an imported Gmsh beam 1 x 0.2 x 0.2 m, 200 tetrahedra, clamped at x = 0, bending under its own weight) as a
neo-Hookean FEM with E = 1e4 Pa and nu = 0.35 (tip deflection about 4 % of the length). 50 markers at random
points of random tetrahedra carry the FEM displacement interpolated there plus Gaussian noise of 1 % of the
largest marker displacement per component, given as the markers' sigma.

1. ``identify`` (neo-Hookean, the true law) from the noisy markers: E and nu with 95 % intervals against the
   truth; from the noise-free markers: the truth to 1e-6. Also with the linear law (the wrong one), to show
   what a misspecified law does to E.
2. PBD and XPBD fitted to the noisy markers (dt = 0.001, nit = 8; gradient search, intervals from the
   Gauss-Newton covariance, a bootstrap of 12 refits as their check) against the same models fitted to the
   exact FEM field and to the noise-free markers without sigma (the relative error at the markers); each
   fit's parameters are also scored on the exact field (``pbdfit.evaluate``), which says what the markers
   and their weighting cost.
3. The residuals at the markers of each marker fit (``fit --vtk``'s ``.markers.csv``), drawn by
   ``example_figure.py``.

    python reports/measured/example.py      # writes reports/measured/example/*, prints the tables

Needs the command line (PBDFIT_CLI, else target/release/pbdfit), numpy and the pbdfit Python package.
Deterministic: numpy's generator with a fixed seed; every output records the pbdfit version.
"""

from __future__ import annotations

import json

import pbdfit
from synthetic import ROOT, markers_csv, run

OUT = ROOT / "reports" / "measured" / "example"
SCENE = "cantilever"
LAW, YOUNG, POISSON = "neo-hookean", 1e4, 0.35
MARKERS, NOISE, SEED = 50, 0.01, 2026
DT, NIT = 0.001, 8
MODELS = ["pbd", "xpbd"]
BOOTSTRAP = 12


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    field = run("fem", "--scene", SCENE, "--material", LAW, "--young", str(YOUNG), "--poisson", str(POISSON))
    noisy, exact = OUT / "markers.csv", OUT / "markers-exact.csv"
    noisy.write_text(markers_csv(field, MARKERS, SEED, NOISE))
    exact.write_text(markers_csv(field, MARKERS, SEED, 0.0))
    rel = lambda p: str(p.relative_to(ROOT))  # noqa: E731
    results: dict = {"pbdfit_version": pbdfit.__version__, "scene": SCENE, "truth": {
        "material": LAW, "young": YOUNG, "poisson": POISSON}, "markers": MARKERS, "noise": NOISE, "seed": SEED,
        "dt": DT, "nit": NIT, "identify": {}, "fits": {}}

    print(f"1. identify ({SCENE}, {MARKERS} markers, truth {LAW} E = {YOUNG:g} Pa, nu = {POISSON})")
    print("| markers | law | E (Pa) | 95 % interval | nu | 95 % interval | truth inside | FEM solves |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, path, law in [("exact", exact, LAW), ("1 % noise", noisy, LAW), ("1 % noise", noisy, "linear")]:
        r = run("identify", "--scene", SCENE, "--measured", rel(path), "--material", law)
        (e_lo, e_hi), (n_lo, n_hi) = r["young_interval_95"], r["poisson_interval_95"]
        inside = f"E {'yes' if e_lo <= YOUNG <= e_hi else 'no'}, nu {'yes' if n_lo <= POISSON <= n_hi else 'no'}"
        results["identify"][f"{label} {law}"] = r
        print(f"| {label} | {law} | {r['young']:.6g} | [{e_lo:.5g}, {e_hi:.5g}] | {r['poisson']:.5f} | "
              f"[{n_lo:.4f}, {n_hi:.4f}] | {inside} | {r['evaluations']} |")

    print(f"\n2. fits at dt = {DT}, nit = {NIT} (error on the exact field: pbdfit.evaluate of each fit's parameters)")
    print("| model | fitted to | parameters (95 % interval; bootstrap) | its own error | error on the exact field |")
    print("| --- | --- | --- | --- | --- |")
    common = ["--scene", SCENE, "--dt", str(DT), "--nit", str(NIT)]
    for model in MODELS:
        to_field = run("fit", *common, "--model", model, "--material", LAW, "--young", str(YOUNG),
                       "--poisson", str(POISSON))
        to_markers = run("fit", *common, "--model", model, "--measured", rel(noisy), "--bootstrap", str(BOOTSTRAP),
                         "--vtk", rel(OUT / f"{model}.vtu"))
        # The exact markers carry no sigma: the relative error at the markers, the field fit's measure.
        to_exact = run("fit", *common, "--model", model, "--measured", rel(exact))
        fits = [("exact field", to_field), ("noisy markers", to_markers), ("exact markers, no sigma", to_exact)]
        for what, r in fits:
            on_field = pbdfit.evaluate(SCENE, YOUNG, POISSON, r["parameters"], model=model, dt=DT, nit=NIT,
                                       material=LAW)["error"]
            r["error_on_exact_field"] = on_field
            cells = []
            for name, value in r["parameters"].items():
                cell = f"{name} {value:.5g}"
                if name in r.get("intervals_95", {}):
                    lo, hi = r["intervals_95"][name]
                    boot = r.get("bootstrap_95", {}).get(name)
                    cell += f" [{lo:.5g}, {hi:.5g}" + (f"; {boot[0]:.5g}, {boot[1]:.5g}]" if boot else "]")
                cells.append(cell)
            print(f"| {model} | {what} | {', '.join(cells)} | {r['error']:.4g} ({'chi-square' if 'chi-square' in r['reference'] else 'relative'}) "
                  f"| {on_field:.4g} |")
        results["fits"][model] = dict(fits)
    (OUT / "example.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    # The .vtu files are for ParaView; the residual CSVs are what the figure reads.
    for model in MODELS:
        (OUT / f"{model}.vtu").unlink(missing_ok=True)
    print(f"\nwrote {rel(OUT)}/: markers.csv, markers-exact.csv, example.json, <model>.markers.csv")


if __name__ == "__main__":
    main()
