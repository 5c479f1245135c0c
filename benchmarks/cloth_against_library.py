"""pbdfit's cloth models against the reference PBD library (pypbd 2.2.2), stepped side by side.

Each case is a sheet (``hanging``: 1 m x 1 m, 8 x 8 quads, held at the two corners of one edge;
``strip``: 1 m x 0.2 m, 10 x 2 quads, clamped along a short edge; both start flat in the plane y = 0
under gravity (0, -9.81, 0), dt = 0.01 s, nit = 4, one substep) with one cloth model at one parameter
point. pbdfit's side is the example ``cloth_steps`` (crates/pbdfit-pbd/examples/cloth_steps.rs): it
prints the sheet, its constraints in list order and its positions after K steps. The library gets the
same particles, masses and constraints in the same order (``addDistanceConstraint``,
``addDihedralConstraint``, ... one call per constraint, then its own greedy colouring) and steps K
times.

The library's wheel is compiled with fused multiply-adds, so its own result moves when its start moves
by one ulp. Its floor is measured per case: the largest change of its positions after K steps when
every coordinate of its start moves one ulp up, or one ulp down. pbdfit must be within ten times that
floor. The strip's rest state (pbdfit's fixed point of the step map, Anderson to a relative residual
of 1e-13) is checked in the library's own arithmetic: one library step from it at zero velocity moves
it by ``rest: library step`` (0 at the library's fixed point up to its rounding), beside that step's
floor (its move for a one-ulp move of the start).

Usage: ``python benchmarks/cloth_against_library.py [EXAMPLE] [--write FIXTURE]`` (EXAMPLE defaults to
target/debug/examples/cloth_steps, built by ``cargo build -p pbdfit-pbd --example cloth_steps``);
``--write`` also writes the library's positions for the Rust test (crates/pbdfit-pbd/tests/pbd_tests/
cloth_library.rs) to benchmarks/cloth/library.txt. The committed output is benchmarks/cloth/README.md.
"""

import json
import subprocess
import sys

import numpy as np
import pypbd as pbd

STEPS = 50

# (case, model, parameters, settings): every constraint type the library has, on both sheets, at two
# parameter points each. XPBD stiffnesses are powers of two, so that 1 / alpha is exact both ways.
CASES = [
    (case, model, params, settings)
    for case in ("hanging", "strip")
    for model, points, settings in [
        # Stretch alone (bending stiffness 0: the hinges' corrections vanish) for the stretch's own floor.
        ("cloth-pbd", [(1.0, 0.0), (0.5, 0.0)], ""),
        ("cloth-fem", [(1.0, 0.3, 0.4, 0.0)], ""),
        ("cloth-strain", [(1.0, 1.0, 0.0)], ""),
        ("cloth-pbd", [(1.0, 0.5), (0.5, 0.05)], ""),
        ("cloth-pbd-isometric", [(1.0, 0.5), (0.5, 0.05)], ""),
        ("cloth-xpbd", [(2.0**-20, 2.0**-4), (2.0**-10, 2.0**2)], ""),
        ("cloth-fem", [(1.0, 0.3, 0.4, 0.5), (100.0, 0.1, 30.0, 0.05)], ""),
        ("cloth-strain", [(1.0, 1.0, 0.5), (0.5, 0.2, 0.05)], ""),
        ("cloth-strain", [(1.0, 1.0, 0.5)], "normalize_stretch=1,normalize_shear=1"),
    ]
    for params in points
]


def pbdfit_case(example, case, model, params, settings, steps=STEPS):
    args = [example, case, model, ",".join(repr(float(p)) for p in params), str(steps)]
    if settings:
        args.append(settings)
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def library_constraint(model, kind, p, params, settings):
    """Adds one constraint of pbdfit's list to the library's model, with the library's own arguments."""
    if kind == "distance":
        return model.addDistanceConstraint(p[0], p[1], params[0])
    if kind == "distance_xpbd":
        return model.addDistanceConstraint_XPBD(p[0], p[1], 1.0 / params[0])
    if kind == "dihedral":
        return model.addDihedralConstraint(p[0], p[1], p[2], p[3], params[-1])
    if kind == "isometric":
        return model.addIsometricBendingConstraint(p[0], p[1], p[2], p[3], params[1])
    if kind == "isometric_xpbd":
        return model.addIsometricBendingConstraint_XPBD(p[0], p[1], p[2], p[3], 1.0 / params[1])
    if kind == "fem_triangle":
        young, poisson, shear = params[0], params[1], params[2]
        return model.addFEMTriangleConstraint(p[0], p[1], p[2], young, young, shear, poisson, poisson)
    if kind == "strain_triangle":
        flags = dict(item.split("=") for item in settings.split(",") if item)
        return model.addStrainTriangleConstraint(p[0], p[1], p[2], params[0], params[0], params[1],
                                                 flags.get("normalize_stretch") == "1",
                                                 flags.get("normalize_shear") == "1")
    raise ValueError(kind)


def library_run(sheet, params, settings, start=None, steps=STEPS, at_rest=False):
    """The library's positions after ``steps`` steps from ``start`` (default the flat sheet) at zero
    velocity; with ``at_rest`` its velocities are zeroed before every step (its step map iterated)."""
    sim = pbd.Simulation.getCurrent()
    sim.initDefault()
    model = sim.getModel()
    vertices = [np.array(v, dtype=float) for v in sheet["vertices"]]
    model.addTriangleModel(vertices, [i for t in sheet["triangles"] for i in t])
    particles = model.getParticles()
    for i, (m, held) in enumerate(zip(sheet["masses"], sheet["held"])):
        particles.setMass(i, 0.0 if held else float(m))
    for c in sheet["constraints"]:
        assert library_constraint(model, c["kind"], c["particles"], params, settings), c
    model.initConstraintGroups()
    if start is not None:
        for i, x in enumerate(start):
            particles.setPosition(i, np.array(x))
    step = sim.getTimeStep()
    step.setValueUInt(pbd.TimeStepController.NUM_SUB_STEPS, 1)
    step.setValueUInt(pbd.TimeStepController.MAX_ITERATIONS, sheet["nit"])
    pbd.TimeManager.getCurrent().setTimeStepSize(sheet["dt"])
    n = particles.size()
    for _ in range(steps):
        if at_rest:
            for i in range(n):
                particles.setVelocity(i, np.zeros(3))
        step.step(model)
    return np.array([particles.getPosition(i) for i in range(n)])


def floor(sheet, params, settings, reference):
    """The library's own rounding floor: its largest move when its start moves one ulp up or down."""
    start = np.array(sheet["vertices"], dtype=float)
    moves = []
    for direction in (np.inf, -np.inf):
        moved = library_run(sheet, params, settings, np.nextafter(start, direction))
        moves.append(np.abs(moved - reference).max())
    return max(moves)


def compare(example, case, model, params, settings, rest=True):
    sheet = pbdfit_case(example, case, model, params, settings)
    library = library_run(sheet, params, settings)
    ours = np.array(sheet["stepped"])
    row = {
        "case": case,
        "model": model + (f"[{settings}]" if settings else ""),
        "params": params,
        "constraints": len(sheet["constraints"]),
        "kinds": sorted({c["kind"] for c in sheet["constraints"]}),
        "moved": float(np.abs(library - np.array(sheet["vertices"])).max()),
        "floor": float(floor(sheet, params, settings, library)),
        "difference": float(np.abs(ours - library).max()),
        "library": library,
    }
    if rest and "positions" in sheet["rest"]:
        # pbdfit's rest state through the library's step map: how far one library step at zero velocity
        # moves it (0 at the library's own fixed point, up to its rounding), and its floor there.
        ours_rest = np.array(sheet["rest"]["positions"])
        mapped = library_run(sheet, params, settings, ours_rest, steps=1, at_rest=True)
        row["rest_difference"] = float(np.abs(mapped - ours_rest).max())
        row["rest_moved"] = float(np.abs(ours_rest - np.array(sheet["vertices"])).max())
        row["rest_floor"] = max(
            float(np.abs(library_run(sheet, params, settings, np.nextafter(ours_rest, d), steps=1, at_rest=True)
                         - mapped).max()) for d in (np.inf, -np.inf))
    return row


def main(argv):
    example = next((a for a in argv if not a.startswith("--") and a != "--write"), "target/debug/examples/cloth_steps")
    write = "--write" in argv
    rows = [compare(example, *c) for c in CASES]
    print(f"pypbd 2.2.2 against pbdfit, {STEPS} steps, dt = 0.01 s, nit = 4 (floor: the library's move for a one-ulp move of its start)")
    print(f"| case | model | parameters | constraints | moved (m) | library floor (m) | pbdfit - library (m) | ratio | rest: library step (m) | its floor (m) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    ok = True
    for r in rows:
        ratio = r["difference"] / r["floor"] if r["floor"] > 0 else (0.0 if r["difference"] == 0 else np.inf)
        ok &= r["difference"] <= 10 * r["floor"]
        rest = f"{r['rest_difference']:.2e} | {r['rest_floor']:.2e}" if "rest_difference" in r else "- | -"
        params = ", ".join(f"{p:g}" for p in r["params"])
        print(f"| {r['case']} | {r['model']} | {params} | {r['constraints']} ({', '.join(r['kinds'])}) | "
              f"{r['moved']:.3f} | {r['floor']:.2e} | {r['difference']:.2e} | {ratio:.2f} | {rest} |")
    print("all within ten times the library's floor" if ok else "SOME CASE IS NOT within ten times the floor")
    if write:
        with open("benchmarks/cloth/library.txt", "w") as f:
            f.write(f"# pypbd 2.2.2 positions after {STEPS} steps: case model params settings floor, then x y z per particle\n")
            for r, (case, model, params, settings) in zip(rows, CASES):
                f.write(f"case {case} {model} {','.join(repr(float(p)) for p in params)} {settings or '-'} "
                        f"{r['floor']!r} {len(r['library'])}\n")
                for x in r["library"]:
                    f.write(" ".join(repr(float(v)) for v in x) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
