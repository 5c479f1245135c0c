"""``pybullet-neohookean`` against PyBullet itself (``pip install pybullet``, its deformable world on the CPU).

PyBullet computes in double precision, so its rest state and pbdfit's agree to the stopping tolerance of the
PyBullet run (1e-9 of the displacement over 50 steps): asked here to 1e-6 on the wall at N = 2 and 4, the
ceiling, the floor and the imported cantilever (uniform masses: PyBullet's ``mass=`` spreads the body's mass
evenly), and the fitted parameters, run in PyBullet, give the error pbdfit reports within 1 %. The PyBullet
side is ``benchmarks/engines/pybullet_check.py`` (the full check and its committed output).

CI installs ``pybullet`` and sets ``PBDFIT_ENGINE_CHECKS=newton,pybullet``, which makes a missing ``pybullet``
a failure; elsewhere the test is skipped with the reason printed (``pytest -rs``).
"""

import pytest

from engine_checks import require_engine
from test_pbdfit import cli_path

require_engine("pybullet", "PyBullet")
import pybullet_check  # noqa: E402

# Both sides in f64; the PyBullet run stops within 1e-9 of its rest state (pybullet_check: 1e-10 to 4e-9).
TOLERANCE = 1e-6


@pytest.fixture(scope="module")
def bullet():
    import pybullet

    client = pybullet.connect(pybullet.DIRECT)
    yield pybullet
    pybullet.disconnect(client)


@pytest.mark.parametrize(
    "scene,n,mu,lam",
    [
        ("gravity-wall", 2, 3e3, 5e3),
        ("gravity-wall", 4, 2e4, 1e5),
        ("gravity-ceiling", 2, 3e3, 5e3),
        ("gravity-floor", 2, 3e3, 5e3),
        ("cantilever", None, 3e3, 5e3),
    ],
)
def test_rest_states_equal_pybullets(bullet, scene, n, mu, lam):
    _, body = pybullet_check.simulate(cli_path(), scene, n, mu, lam, "uniform")
    pb = pybullet_check.pybullet_rest(bullet, body, mu, lam)
    assert pb["at_rest"], f"PyBullet not at rest after {pb['steps']} steps (last change {pb['last_change']:.3e} m)"
    d = pybullet_check.rel(pb["displacements"], body["displacements"])
    assert d < TOLERANCE, f"{scene} N = {n}: pbdfit vs PyBullet {d:.3e}"


def test_fitted_parameters_give_the_reported_error_inside_pybullet(bullet):
    """The fit at a soft material (large strain: the stable neo-Hookean differs from the linear FEM), run in
    PyBullet, gives pbdfit's error against the same FEM within 1 %."""
    args = ["--scene", "gravity-wall", "--n", "2", "--young", "1e3", "--poisson", "0.3", "--mass-model", "uniform"]
    fit = pybullet_check.run_json([cli_path(), "fit", *args, "--model", "pybullet-neohookean", "--dt", "0.01",
                                   "--nit", "1", "--json"])
    fem = pybullet_check.run_json([cli_path(), "fem", *args, "--json"])
    mu, lam = fit["parameters"]["mu"], fit["parameters"]["lambda"]
    _, body = pybullet_check.simulate(cli_path(), "gravity-wall", 2, mu, lam, "uniform")
    held = [False] * len(body["vertices"])
    for i in body["fixed"]:
        held[i] = True
    pb = pybullet_check.pybullet_rest(bullet, body, mu, lam)
    e_pybullet = pybullet_check.fit_error(pb["displacements"], fem["displacements"], held)
    assert fit["error"] > 1e-6, "a case where the model and the FEM differ measurably"
    assert abs(e_pybullet / fit["error"] - 1.0) <= 0.01, f"{e_pybullet} vs pbdfit's {fit['error']}"
