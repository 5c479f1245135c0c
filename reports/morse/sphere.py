"""The Morse study's cloth falling onto a sphere (its fig. 5, claim M6), with pbdfit's cloth models.

A sibling of ``reproduce.py`` (the hanging cloth, M1 to M3 and M8), with its set-up, mapping and verdict
convention: the four XPBD edge constraints (``cloth-xpbd`` stretching, ``-hookean``, ``-stvk``, ``-morse``)
at the study's compliance 1e-5, spring stiffness 10, 200 iterations, dt = 1/24 s and damping 0.3 on
``morse-sphere.toml`` (the hanging cloth's fabric, held by nothing, falling from 0.2 m onto a sphere of
radius 0.3 m with friction 0.3). Each motion is ``pbdfit simulate --frames DIR --frames-only`` (the frames'
``displacement`` and ``contact_force``, read and then deleted), 120 steps (5 s), from the flat sheet at rest.

Measured per run: the centre's and a corner's height over time, the final drape's corner drop (the corner's
fall below the centre's), the sphere's force on the cloth (mean over the last second, against the weight),
whether a vertex ends inside the sphere (the least gap) and whether the cloth slides off (the centre's
sideways motion). M6 ("all four behave almost alike under contact") holds in a variant where every pair of
the four has tracks within 10 % (the largest difference of the centre's and the corner's heights over the
run, relative to the corner's largest fall) and final corner drops and contact forces within a ratio of 1.1
(``reproduce.py``'s "almost the same"); holds where it holds in every variant, fails where it fails in
every one, undecided where they disagree. Variants: the mesh (N 40, the study's, and N 20), the unit of
length (SI, and cgs at N 40: ``morse-sphere-cgs.toml``) and the damping's form (``rate``: ``d = c dt``;
``per-step``: ``d = c``). The same measure with StVK left out is reported beside it.

    PBDFIT_CLI=target/debug/pbdfit python3 reports/morse/sphere.py [--out reports/morse]

Runs are kept in ``<out>/raw/sphere-*.csv`` and reused; ``sphere-results.md`` and ``sphere-results.json``
are written from them. Deterministic (pbdfit only).
"""

import argparse
import csv
import json
import math
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reproduce as R  # noqa: E402  (the hanging cloth's set-up, mapping and helpers)

C = 0.3  # the study's damping coefficient in fig. 5
FORMS = ["rate", "per-step"]
# The variants of the mesh and the unit of length (reproduce.py's tuples: name, scene, n, the scene's unit
# of length in m, and whether the exponential damping form runs: never here).
VARIANTS = [
    ("N40", os.path.join(R.HERE, "morse-sphere.toml"), 40, 1.0, False),
    ("N20", os.path.join(R.HERE, "morse-sphere.toml"), 20, 1.0, False),
    ("N40-cgs", os.path.join(R.HERE, "morse-sphere-cgs.toml"), 40, 0.01, False),
]
SPHERE_CENTRE = (0.5, 0.5, -0.5)  # m
SPHERE_RADIUS = 0.3  # m
MASS = 1.0 * 1.0 * 5e-4 * 300.0  # kg
G = 9.81
LAST = 1.0  # s over which the final state is averaged


def run(raw, v, name, model, form):
    """One motion's tracks (CSV, SI): per step the centre's and the corner's (0, 0) displacements (m), the
    sphere's total force on the cloth (N) and the least gap of a vertex to the sphere (m)."""
    tag = f"{v[0]}-{name}-{form}"
    path = os.path.join(raw, f"sphere-{tag}.csv")
    if os.path.exists(path):
        return path
    print("running sphere", tag, flush=True)
    unit = v[3]
    newton = 1.0 if unit == 1.0 else 1e-5  # N per force unit: a dyne (g cm / s^2) in cgs
    frames = tempfile.mkdtemp(prefix="morse-sphere-")
    try:
        R.command(["simulate", *R.body_args(v), *R.model_args(model, v, R.FORMS[form](C)), "--frames", frames,
                   "--frame-every", "1", "--frame-steps", str(R.STEPS), "--frames-only"], timeout=3600)
        names = sorted(f for f in os.listdir(frames) if f.endswith(".vtu"))
        rest = [[unit * x for x in p] for p in R.vtu_array(os.path.join(frames, names[0]), "Points")]
        centre = min(range(len(rest)), key=lambda i: abs(rest[i][0] - 0.5) + abs(rest[i][1] - 0.5))
        corner = min(range(len(rest)), key=lambda i: abs(rest[i][0]) + abs(rest[i][1]))
        rows = []
        for step, f in enumerate(names):
            file = os.path.join(frames, f)
            u = [[unit * x for x in d] for d in R.vtu_array(file, "displacement")]
            force = [[newton * x for x in f] for f in R.vtu_array(file, "contact_force")]
            pos = [[r + d for r, d in zip(p, q)] for p, q in zip(rest, u)]
            gap = min(math.dist(p, SPHERE_CENTRE) for p in pos) - SPHERE_RADIUS
            total = [sum(f[k] for f in force) for k in range(3)]
            rows.append([step, step * R.DT, *u[centre], *u[corner], *total, gap])
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["step", "t_s", "centre_ux_m", "centre_uy_m", "centre_uz_m", "corner_ux_m", "corner_uy_m",
                        "corner_uz_m", "force_x_N", "force_y_N", "force_z_N", "least_gap_m"])
            w.writerows(rows)
    finally:
        shutil.rmtree(frames, ignore_errors=True)
    return path


def read(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return {k: [float(r[k]) for r in rows] for k in rows[0]}


def measure(tr):
    t = tr["t_s"]
    last = [i for i, ti in enumerate(t) if ti > t[-1] - LAST + 1e-9]
    mean = lambda key: sum(tr[key][i] for i in last) / len(last)  # noqa: E731
    finite = all(math.isfinite(x) for k in ("centre_uz_m", "corner_uz_m") for x in tr[k])
    return {
        "finite": finite,
        "centre_drop_m": -mean("centre_uz_m"),
        "corner_drop_m": -mean("corner_uz_m"),
        # The drape's corner drop: how far the corner hangs below the centre (m).
        "drape_m": mean("centre_uz_m") - mean("corner_uz_m"),
        "centre_slide_m": math.hypot(tr["centre_ux_m"][-1], tr["centre_uy_m"][-1]),
        "force_z_N": mean("force_z_N"),
        "force_over_weight": mean("force_z_N") / (MASS * G),
        "least_gap_m": min(tr["least_gap_m"][1:]),
        "final_gap_m": tr["least_gap_m"][-1],
        "deepest_corner_m": -min(tr["corner_uz_m"]),
    }


def track_difference(a, b):
    """The largest difference of two runs' centre and corner heights over the run, relative to the larger
    of the two corners' deepest falls."""
    scale = max(-min(a["corner_uz_m"]), -min(b["corner_uz_m"]))
    diff = max(max(abs(p - q) for p, q in zip(a[k], b[k])) for k in ("centre_uz_m", "corner_uz_m"))
    return diff / scale


def ratio(values):
    values = [abs(v) for v in values]
    return max(values) / min(values) if min(values) > 0 else math.inf


def spreads(ms, pairs, among):
    """The largest pairwise track difference and the ratios (largest over least) of the final drape, the
    corner's drop and the sphere's force among the constraints ``among``."""
    return {"track_difference_max": max(v for k, v in pairs.items() if set(k.split("/")) <= set(among)),
            "drape_ratio": ratio([ms[k]["drape_m"] for k in among]),
            "corner_drop_ratio": ratio([ms[k]["corner_drop_m"] for k in among]),
            "force_ratio": ratio([ms[k]["force_z_N"] for k in among])}


def is_alike(spread):
    """Almost alike: tracks within 10 % and every ratio within 1.1 (``reproduce.py``'s convention)."""
    return spread["track_difference_max"] <= R.SAME and all(
        v <= 1 + R.SAME for k, v in spread.items() if k != "track_difference_max")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=R.HERE)
    args = ap.parse_args()
    raw = os.path.join(args.out, "raw")
    os.makedirs(raw, exist_ok=True)
    names = [n for n, _, _ in R.CONSTRAINTS]
    results = {"runs": {}, "variants": [], "settings": {
        "scene": "morse-sphere.toml", "dt_s": R.DT, "nit": R.NIT, "steps": R.STEPS, "c": C, "alpha_b": R.ALPHA_B,
        "weight_N": MASS * G, "same": R.SAME}}
    outcomes, outcomes3 = [], []
    for v in VARIANTS:
        for form in FORMS:
            tracks = {}
            for name, model, _ in R.CONSTRAINTS:
                tracks[name] = read(run(raw, v, name, model, form))
                results["runs"][f"{v[0]}/{form}/{name}"] = dict(measure(tracks[name]),
                                                                alpha_d=R.alpha_d(model, v[2], 1.0 / v[3]))
            ms = {k: results["runs"][f"{v[0]}/{form}/{k}"] for k in names}
            pairs = {f"{a}/{b}": track_difference(tracks[a], tracks[b])
                     for i, a in enumerate(names) for b in names[i + 1:]}
            finite = all(m["finite"] for m in ms.values())
            spread = spreads(ms, pairs, names)
            alike = finite and is_alike(spread)
            # The same with StVK left out (its drape is the outlier): how alike the other three are.
            three = [k for k in names if k != "StVK"]
            spread3 = spreads(ms, pairs, three)
            outcomes.append(alike)
            outcomes3.append(finite and is_alike(spread3))
            results["variants"].append({"mesh": v[0], "form": form, "d": R.FORMS[form](C), "pairs": pairs,
                                        **spread, "alike": alike, "without_StVK": dict(spread3, alike=outcomes3[-1])})
    results["M6"] = R.verdict(outcomes)
    results["M6_without_StVK"] = R.verdict(outcomes3)
    with open(os.path.join(args.out, "sphere-results.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    lines = ["# The Morse study's cloth on a sphere: measured (generated by sphere.py)", "",
             f"Scene `morse-sphere.toml`; dt = 1/24 s, nit = {R.NIT}, c = {C}, {R.STEPS} steps; weight "
             f"{MASS * G:.4g} N; final values are means over the last {LAST:g} s.", "",
             "| mesh | form | constraint | centre drop (m) | corner drop (m) | drape: corner below centre (m) | "
             "deepest corner (m) | sphere's force z (N) | / weight | least gap (m) | final gap (m) | centre slide (m) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for key, m in results["runs"].items():
        mesh, form, name = key.split("/")
        lines.append(f"| {mesh} | {form} | {name} | {m['centre_drop_m']:.4g} | {m['corner_drop_m']:.4g} | "
                     f"{m['drape_m']:.4g} | {m['deepest_corner_m']:.4g} | {m['force_z_N']:.4g} | "
                     f"{m['force_over_weight']:.3g} | {m['least_gap_m']:.2e} | {m['final_gap_m']:.2e} | "
                     f"{m['centre_slide_m']:.3g} |")
    lines += ["", "| mesh | form | largest track difference (pair) | drape ratio | corner drop ratio | force ratio | "
              "almost alike |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for v in results["variants"]:
        worst = max(v["pairs"], key=v["pairs"].get)
        lines.append(f"| {v['mesh']} | {v['form']} | {v['track_difference_max']:.3g} ({worst}) | "
                     f"{v['drape_ratio']:.3g} | {v['corner_drop_ratio']:.3g} | {v['force_ratio']:.3g} | "
                     f"{v['alike']} |")
    lines += ["", "Without StVK (stretching, Hookean, Morse):", "",
              "| mesh | form | largest track difference | drape ratio | corner drop ratio | force ratio | almost alike |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for v in results["variants"]:
        w = v["without_StVK"]
        lines.append(f"| {v['mesh']} | {v['form']} | {w['track_difference_max']:.3g} | {w['drape_ratio']:.3g} | "
                     f"{w['corner_drop_ratio']:.3g} | {w['force_ratio']:.3g} | {w['alike']} |")
    lines += ["", f"**M6 (all four almost alike): {results['M6']}**; without StVK: {results['M6_without_StVK']}", ""]
    with open(os.path.join(args.out, "sphere-results.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
