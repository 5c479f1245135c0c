"""``mujoco-flex`` against MuJoCo itself (``pip install mujoco``, its flex passive forces and integrator on the
CPU, f64): MuJoCo's flexcomp of pbdfit's sheet, run with damping until its own static residual at zero
velocity is below 1e-7 of a vertex's weight, rests where the profile's Newton solve of MuJoCo's flex forces
puts it. The hanging sheet (the membrane) and the clamped strip (the bending) at N = 2, the comparison of
``benchmarks/engines/mujoco_flex.py`` (the full check and its committed output) made small enough for CI;
and the young a fit gives on the strip, run in MuJoCo, makes the error the fit reports.

CI installs ``mujoco`` and names it in ``PBDFIT_ENGINE_CHECKS``, which makes a missing ``mujoco`` a failure;
elsewhere the test is skipped with the reason printed (``pytest -rs``).
"""

import numpy as np
import pytest

from engine_checks import require_engine
from test_pbdfit import cli_path

require_engine("mujoco", "MuJoCo")
import mujoco_flex  # noqa: E402

# Both sides in f64; MuJoCo's run stops at a static residual of 1e-7 of a vertex's weight.
TOLERANCE = 1e-6


@pytest.mark.parametrize(
    "scene,n,point,damping",
    [
        ("hanging-sheet", 2, "S", 0.5),
        ("hanging-sheet", 2, "P", 0.5),
        ("clamped-strip", 2, "A", 2.0),
        ("clamped-strip", 2, "B", 2.0),
    ],
)
def test_mujoco_flex_profile_equals_mujoco(scene, n, point, damping):
    """The profile's rest state is MuJoCo's: same vertices, triangles, pins and masses, MuJoCo's own steps to
    rest; and MuJoCo compiled the profile's membrane metric and bending blocks (to round-off)."""
    report = mujoco_flex.profile_report(str(cli_path()), scene, n, mujoco_flex.POINTS[point])
    engine = mujoco_flex.mujoco_rest(report, mujoco_flex.GRAVITY[scene], mujoco_flex.POINTS[point], damping, 1e-3,
                                     max_time=120.0)
    assert engine["at_rest"], (engine["residual"], engine["speed"], engine["time"])
    assert engine["compiled_misfit"] < 1e-12, engine["compiled_misfit"]
    u = np.asarray(report["displacements"])
    difference = mujoco_flex.rel_l2(u, engine["displacements"])
    print(f"{scene} N={n} {point}: max|u| {np.abs(engine['displacements']).max():.4g} m, relative L2 {difference:.2e} "
          f"({engine['steps']} MuJoCo steps)")
    assert np.abs(engine["displacements"]).max() > 1e-4, "the sheet moved"
    assert difference < TOLERANCE


def test_fitted_young_gives_the_reported_error_inside_mujoco():
    """The answer in MuJoCo's terms: the young `pbdfit fit --model mujoco-flex` gives for the steel strip at
    N = 4 (poisson 0.3, thickness 1 mm), run in MuJoCo itself, makes the error against the shell that the fit
    reports (pbdfit's metric, recomputed here as ``benchmarks/engines/newton_cloth_fitted.py`` does), within
    1 %, and so does the part above the clamp's floor (the particles the profile holds beside the clamp, which
    the shell moves, each add 1)."""
    import json
    import subprocess

    body = ["--scene", "clamped-strip", "--n", "4"]
    model = ["--model", "mujoco-flex", "--setting", "poisson=0.3", "--setting", "thickness=0.001"]

    def run(args):
        out = subprocess.run([str(cli_path()), *args, "--json"], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        return r[0] if isinstance(r, list) else r

    fit = run(["fit", *body, *model])
    point = {"young": fit["parameters"]["young"], "poisson": 0.3, "thickness": 0.001, "elastic2d": "both"}
    report = mujoco_flex.profile_report(str(cli_path()), "clamped-strip", 4, point)
    fem = run(["fem", *body])
    u_fem = np.asarray(fem["displacements"], dtype=float)
    held = np.zeros(len(u_fem), dtype=bool)
    held[fem["fixed"]] = True
    norms = np.linalg.norm(u_fem, axis=1)
    moved = ~held & (norms > 1e-12 * norms[~held].max()) & (norms > 0.0)
    particle_held = np.zeros(len(u_fem), dtype=bool)
    particle_held[report["fixed"]] = True
    floor = np.count_nonzero(particle_held & moved) / np.count_nonzero(moved)
    engine = mujoco_flex.mujoco_rest(report, mujoco_flex.GRAVITY["clamped-strip"], point, 2.0, 1e-3, max_time=120.0)
    assert engine["at_rest"], (engine["residual"], engine["speed"], engine["time"])
    u = np.asarray(engine["displacements"])
    relative = np.linalg.norm(u[moved] - u_fem[moved], axis=1) / norms[moved]
    error = float(np.mean(relative**2))
    print(f"fit: young {point['young']:.6g} Pa, error {fit['error']:.6g} (floor {floor:.4g}); in MuJoCo: {error:.6g} "
          f"({error / fit['error'] - 1:+.1e}; above the floor {(error - floor) / (fit['error'] - floor) - 1:+.1e})")
    assert abs(error - fit["error"]) <= 0.01 * fit["error"]
    assert abs((error - floor) / (fit["error"] - floor) - 1.0) <= 0.01
