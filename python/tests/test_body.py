"""The body's density and size: Python's ``density=`` and ``size=`` are the command line's ``--density`` and
``--size`` (the same report, field for field), the scene's arrays are the scaled body's, and bad values are
refused naming the keyword.

The CLI binary comes from $PBDFIT_CLI, else target/debug or target/release of this repository; without one
the tests fail (they never skip)."""

import numpy as np
import pytest

import pbdfit
from test_pbdfit import ROOT, cli_json


def test_fit_keywords_give_the_command_lines_report():
    common = dict(n=2, young=1e5, poisson=0.45, model="jolt", dt=1 / 60, nit=8)
    py = pbdfit.fit("gravity-wall", density=1100, size=0.1, **common).as_dict()
    cli = cli_json("fit", "--scene", "gravity-wall", "--n", "2", "--young", "1e5", "--poisson", "0.45", "--model", "jolt",
                   "--dt", "1/60", "--nit", "8", "--density", "1100", "--size", "0.1")
    assert {k: v for k, v in py.items() if k != "seconds"} == {k: v for k, v in cli.items() if k != "seconds"}
    assert py["body"] == [{"scene": "gravity-wall", "size_m": 0.1, "density_kg_per_m3": 1100.0,
                           "mass_kg": pytest.approx(1.1, rel=1e-12)}]
    # The body changes the answer: the thesis's 1 m cube of 1 kg/m^3 fits other parameters.
    assert pbdfit.fit("gravity-wall", **common).parameters != py["parameters"]


def test_scene_arrays_are_the_scaled_body_and_the_fem_scales_as_density_times_size_squared():
    plain = pbdfit.Scene.load("gravity-wall", n=2)
    rubber = pbdfit.Scene.load("gravity-wall", n=2, density=1100, size=0.1)
    assert np.array_equal(rubber.vertices, plain.vertices * 0.1)
    assert np.array_equal(rubber.held, plain.held)
    assert (rubber.density, rubber.size) == (1100.0, 0.1)
    assert rubber.mass == pytest.approx(1.1, rel=1e-12)
    assert rubber.masses.sum() == pytest.approx(1100 * 0.1 ** 3, rel=1e-12)
    # A linear static FEM's sag under gravity is rho g L^2 / E.
    base = pbdfit.fem("gravity-wall", n=2)
    np.testing.assert_allclose(pbdfit.fem("gravity-wall", n=2, density=2.0), 2 * base, rtol=0, atol=1e-12 * abs(base).max())
    np.testing.assert_allclose(pbdfit.fem("gravity-wall", n=2, size=2.0), 4 * base, rtol=0, atol=4e-12 * abs(base).max())
    part = pbdfit.simulate("gravity-wall", n=2, density=1100, size=0.1).as_dict()
    assert part["body"]["mass_kg"] == pytest.approx(1.1, rel=1e-12)


def test_bad_bodies_are_refused_naming_the_keyword():
    with pytest.raises(ValueError, match=r"^density must be a finite number > 0 kg/m\^3, got 0"):
        pbdfit.fit("gravity-wall", density=0)
    with pytest.raises(ValueError, match=r"^size must be a finite number > 0 m, got -1"):
        pbdfit.fem("gravity-wall", size=-1)
    with pytest.raises(ValueError, match="size"):
        pbdfit.Scene.load("gravity-wall", size=float("nan"))
    with pytest.raises(ValueError, match="apply to refine=True only"):
        pbdfit.lookup("pbd", young=3e4, poisson=0.3, dt=1 / 200, nit=4, n=1, density=1000)
    with pytest.raises(ValueError, match="^size: identify compares the FEM with measured markers"):
        pbdfit.identify("cantilever", measured=str(ROOT / "reports" / "measured" / "example" / "markers.csv"), size=0.1)
