"""``mujoco-flex`` against MuJoCo itself (``pip install mujoco``, its flex passive forces and integrator on the
CPU, f64): MuJoCo's flexcomp of pbdfit's sheet, run with damping until its own static residual at zero
velocity is below 1e-7 of a vertex's weight, rests where the profile's Newton solve of MuJoCo's flex forces
puts it. The hanging sheet (the membrane) and the clamped strip (the bending) at N = 2, the comparison of
``benchmarks/engines/mujoco_flex.py`` (the full check and its committed output) made small enough for CI.

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
