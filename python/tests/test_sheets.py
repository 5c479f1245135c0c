"""Sheets from Python: ``pbdfit.fem`` and ``pbdfit.modes`` on the built-in sheet scenes are the command
line's (the same report, field for field), with the shell reference's physics (the clamped strip's tip at
the cantilever beam's deflection, a thickness that scales the bending stiffness as h^3), and a sheet
given to a model, a thickness to a solid, or a bad thickness refused naming it.

The CLI binary comes from $PBDFIT_CLI, else target/debug or target/release of this repository; without one
the tests fail (they never skip)."""

import numpy as np
import pytest

import pbdfit
from test_pbdfit import cli_json


def test_fem_on_a_sheet_is_the_command_lines():
    u = pbdfit.fem("clamped-strip", n=20, poisson=0.0, material="linear")
    cli = cli_json("fem", "--scene", "clamped-strip", "--n", "20", "--poisson", "0", "--material", "linear")
    assert cli["reference"] == "linear shell" and cli["body"]["thickness_m"] == 1e-3
    assert u.shape == (len(cli["vertices"]), 3)
    assert u.tolist() == cli["displacements"]
    # The tip deflects as the cantilever beam's q L^4 / (8 E I) = 12 rho g L^4 / (8 E h^2): 1.0e-3 above it at
    # 20 x 2 cells (second order: 2.6e-4 at the scene's 40 x 4).
    vertices = np.array(cli["vertices"])
    tip = -u[np.isclose(vertices[:, 0], 0.3), 2].mean()
    beam = 12 * 7850 * 9.81 * 0.3 ** 4 / (8 * 2e11 * 1e-6)
    assert tip == pytest.approx(beam, rel=1.5e-3)
    # Half the thickness: an eighth of the bending stiffness for half the weight, four times the deflection.
    thin = pbdfit.fem("clamped-strip", n=20, poisson=0.0, material="linear", thickness=5e-4)
    assert -thin[np.isclose(vertices[:, 0], 0.3), 2].mean() == pytest.approx(4 * tip, rel=1e-6)


def test_modes_on_a_sheet_are_the_command_lines():
    py = pbdfit.modes("supported-plate", count=2)
    cli = cli_json("modes", "--scene", "supported-plate", "--count", "2")
    assert py["frequencies"].tolist() == [m["frequency"] for m in cli["modes"]]
    # The simply supported plate's lowest frequency, pi / a^2 sqrt(D / (rho h)) = 19.19 Hz, within 2e-3.
    d = 2e11 * 1e-9 / (12 * (1 - 0.3 ** 2))
    assert py["frequencies"][0] == pytest.approx(np.pi / 0.25 * np.sqrt(d / 7.85), rel=2e-3)
    assert py["shapes"].shape == (2, len(cli["modes"][0]["shape"]), 3)


def test_sheets_and_thicknesses_out_of_place_are_refused():
    with pytest.raises(ValueError, match="thickness"):
        pbdfit.fem("clamped-strip", thickness=0.0)
    with pytest.raises(ValueError, match="nan"):
        pbdfit.fem("clamped-strip", thickness=float("nan"))
    with pytest.raises(ValueError, match="tetrahedral solid"):
        pbdfit.fem("gravity-wall", thickness=1e-3)
    with pytest.raises(ValueError, match="fit a cloth model to it"):
        pbdfit.simulate("hanging-sheet", model="xpbd")
    with pytest.raises(ValueError, match="is a sheet"):
        pbdfit.fem("clamped-plate", split="six")
    with pytest.raises(ValueError, match="lumped"):
        pbdfit.fem("clamped-plate", dynamic=True, fem_mass="consistent")


def test_simulate_takes_a_cloth_model_on_a_sheet():
    """Python's simulate of a cloth model on a sheet is the command line's, field for field: the steel
    strip's rest state with the clamped column and the next held, as triangles."""
    kw = dict(model="cloth-xpbd", n=10, dt=0.002, nit=10)
    rest = pbdfit.simulate("clamped-strip", alpha_d=1e-8, alpha_b=1e-2, **kw)
    cli = cli_json("simulate", "--scene", "clamped-strip", "--model", "cloth-xpbd", "--param", "alpha_d=1e-8",
                   "--param", "alpha_b=1e-2", "--n", "10", "--dt", "0.002", "--nit", "10")
    report = rest.as_dict()
    for key in ("displacements", "fixed", "triangles", "constraints", "solve_order", "converged", "parameters"):
        assert report[key] == cli[key], key
    assert rest.converged and report["fixed"] == [0, 1, 11, 12] and "tets" not in report
    assert rest.displacements.shape == (22, 3) and rest.displacements[10, 2] < -0.1
    with pytest.raises(ValueError, match="is a tetrahedral solid"):
        pbdfit.simulate("gravity-wall", model="cloth-xpbd", alpha_d=1e-6, alpha_b=1.0, n=1)


def test_settings_on_a_sheet_is_the_command_lines():
    """``pbdfit.settings`` on a sheet sweeps a cloth model against the shell as the command line does, row for
    row: Jolt's cloth on the steel strip at N = 4 is too soft at every substep tried (no cheapest setting), two
    settings with the same substep rest alike, and its dihedral bend compliance is labelled rad/(N m)."""
    py = pbdfit.settings("clamped-strip", n=4, model="jolt-cloth", dt=[1 / 30, 1 / 60], nit=[1, 2])
    cli = cli_json("settings", "--scene", "clamped-strip", "--n", "4", "--model", "jolt-cloth", "--dt", "1/30,1/60",
                   "--nit", "1,2")
    assert py["rows"] == cli["rows"] and py["model"] == "jolt-cloth" and py["cheapest"] is None
    assert [r["cost"] for r in py["rows"]] == [30.0, 60.0, 60.0, 120.0]
    assert py["rows"][1]["error"] == pytest.approx(py["rows"][2]["error"], rel=1e-9)
    with pytest.raises(ValueError, match="scene clamped-strip is a sheet"):
        pbdfit.settings("clamped-strip", n=4, model="jolt")
    fit = pbdfit.fit("clamped-strip", n=4, model="jolt-cloth", settings={"bend": 1}, dt=1 / 30, nit=2)
    assert fit.box["bend_compliance"]["unit"] == "rad/(N m)" and fit.box["compliance"]["unit"] == "m/N"
