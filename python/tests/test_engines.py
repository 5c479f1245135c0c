"""The engine profiles against the engines themselves, side by side in one run.

``newton-xpbd`` against NVIDIA Newton 1.8 (``pip install newton``, ``SolverXPBD`` on the CPU): the rest
state of each profile equals the fixed point of Newton's own step on pbdfit's bodies to 1e-3 relative
(Newton computes in f32; its fixed point is defined to about 2e-5 on these bodies), and a point where
Newton's step has no stable fixed point is refused by the profile as such. The Newton side is
``benchmarks/engines/newton_rest.py``, which a user can run on any body.

CI installs ``newton`` and names it in ``PBDFIT_ENGINE_CHECKS``, which makes a missing ``newton`` a failure;
elsewhere the test is skipped with the reason printed (``pytest -rs``; ``engine_checks.py``).
"""

import os

import numpy as np
import pytest

import pbdfit

from engine_checks import ROOT, require_engine

require_engine("newton", "Newton")
import newton_rest  # noqa: E402

# Relative agreement asked of every profile (the engines compute in f32).
TOLERANCE = 1e-3


def lame(young, poisson):
    return young / (2 * (1 + poisson)), young * poisson / ((1 + poisson) * (1 - 2 * poisson))


def newton_body(scene, n, dt, nit, k_mu, k_lambda, relaxation):
    """pbdfit's body as Newton's ``add_soft_mesh`` takes it: the same vertices, tetrahedra and held set, the
    density that gives pbdfit's lumped masses, pbdfit's gravity."""
    s = pbdfit.Scene.load(scene, n=n)
    x = s.vertices
    t = s.tets
    e = [x[t[:, i]] - x[t[:, 0]] for i in (1, 2, 3)]
    volumes = np.einsum("ij,ij->i", np.cross(e[0], e[1]), e[2]) / 6.0
    assert (volumes > 0).all(), "pbdfit stores tetrahedra positively oriented"
    density = s.masses.sum() / volumes.sum()
    lumped = np.zeros(len(x))
    np.add.at(lumped, t.reshape(-1), np.repeat(density * volumes / 4.0, 4))
    assert np.allclose(lumped, s.masses, rtol=1e-12), f"{scene}: pbdfit's masses are not Newton's lumped masses"
    return {
        "vertices": x.tolist(),
        "tets": t.tolist(),
        "held": s.held.tolist(),
        "density": float(density),
        "gravity": s.gravity.tolist(),
        "dt": dt,
        "iterations": nit,
        "k_mu": k_mu,
        "k_lambda": k_lambda,
        "relaxation": relaxation,
        "tol": 1e-6,
        "max_steps": 20000,
    }


def profile(scene, n, dt, nit, k_mu, k_lambda, relaxation):
    return pbdfit.simulate(
        scene, model="newton-xpbd", dt=dt, nit=nit, n=n, settings={"relaxation": relaxation}, k_mu=k_mu,
        k_lambda=k_lambda,
    )


# (scene, N, k_mu, k_lambda, relaxation) at dt 0.01, 10 iterations: the Lame parameters of E 1e3 and 3e3
# Pa at nu 0.3, with the relaxation at which Newton's step converges there (0.9, its default, overshoots
# from N = 2 on).
MU1, LAMBDA1 = lame(1e3, 0.3)
MU3, LAMBDA3 = lame(3e3, 0.3)
SETTLING = [
    ("gravity-wall", 1, MU1, LAMBDA1, 0.9),
    ("gravity-wall", 2, MU1, LAMBDA1, 0.5),
    ("gravity-wall", 2, MU3, LAMBDA3, 0.5),
    ("gravity-wall", 4, MU1, LAMBDA1, 0.3),
    ("gravity-wall", 4, MU3, LAMBDA3, 0.3),
    ("gravity-ceiling", 2, MU1, LAMBDA1, 0.5),
    ("gravity-ceiling", 2, MU3, LAMBDA3, 0.5),
    ("gravity-ceiling", 4, MU1, LAMBDA1, 0.3),
    ("gravity-ceiling", 4, MU3, LAMBDA3, 0.3),
]


@pytest.mark.parametrize("scene,n,k_mu,k_lambda,relaxation", SETTLING)
def test_newton_profile_equals_newton(scene, n, k_mu, k_lambda, relaxation):
    engine = newton_rest.run(newton_body(scene, n, 0.01, 10, k_mu, k_lambda, relaxation))
    # Settled: the step change fell below 1e-6 of the displacement, or stalled at f32's few ulps there.
    assert engine["converged"] or engine["stop_reason"] == "f32_floor", f"Newton did not settle: {engine['stop_reason']}"
    ours = profile(scene, n, 0.01, 10, k_mu, k_lambda, relaxation)
    u_engine = np.asarray(engine["displacements"])
    difference = np.abs(ours.displacements - u_engine).max() / np.abs(u_engine).max()
    print(f"{scene} N={n} k_mu={k_mu:.6g} relaxation={relaxation}: max|u| {np.abs(u_engine).max():.4f} m, "
          f"relative difference {difference:.2e} ({engine['steps']} Newton steps)")
    assert difference < TOLERANCE


def test_newton_profile_equals_newton_on_an_imported_mesh(tmp_path):
    """An imported Gmsh mesh (Genesis's own remeshed unit box, 140 vertices, 413 tetrahedra) held on one face,
    with lumped masses as Newton's add_soft_mesh gives them."""
    mesh = ROOT / "scenes" / "meshes" / "genesis-box.msh"
    scene = tmp_path / "box.toml"
    scene.write_text(
        'name = "box"\n[body]\nmesh = "' + str(mesh) + '"\n[[held]]\nplane = "z = 0"\ntolerance = 1e-6\n'
        "[load]\ngravity = [0.0, -9.81, 0.0]\n[material]\ndensity = 1.0\nmass_model = \"lumped\"\n"
    )
    engine = newton_rest.run(newton_body(str(scene), None, 0.01, 10, MU1, LAMBDA1, 0.3))
    assert engine["converged"] or engine["stop_reason"] == "f32_floor", engine["stop_reason"]
    ours = profile(str(scene), None, 0.01, 10, MU1, LAMBDA1, 0.3)
    u_engine = np.asarray(engine["displacements"])
    difference = np.abs(ours.displacements - u_engine).max() / np.abs(u_engine).max()
    print(f"imported box: max|u| {np.abs(u_engine).max():.4f} m, relative difference {difference:.2e}")
    assert difference < TOLERANCE


@pytest.mark.parametrize("n,relaxation", [(2, 0.5), (4, 0.3)])
def test_newton_floor_has_no_stable_rest_state_in_either(n, relaxation):
    """A cube standing on its held floor compresses its tetrahedra. Newton's step from zero velocity has a
    fixed point there (the iteration of newton_rest.py finds it), but Newton's own dynamics move away from
    it: a nudge of 1e-4 grows. The profile measures the same instability (the step's spectral radius above
    1) and refuses the point instead of returning a rest state no simulation reaches."""
    body = newton_body("gravity-floor", n, 0.01, 10, MU1, LAMBDA1, relaxation)
    body["probe_steps"] = 300
    engine = newton_rest.run(body)
    growth = engine["probe"]["growth"]
    print(f"gravity-floor N={n} relaxation={relaxation}: Newton's nudge grew {growth:.3g} times in 300 steps")
    assert growth > 100
    with pytest.raises(ValueError, match="no stable rest state"):
        profile("gravity-floor", n, 0.01, 10, MU1, LAMBDA1, relaxation)


def test_newton_wall_rest_state_is_stable_in_both():
    """The control: on the wall the same nudge stays a nudge in Newton (1.3 times it after 300 steps: an
    undamped XPBD body contracts slowly, and Newton's fixed point is itself known to a few 1e-5 only; on the
    floor it grows thousands of times), and the profile has the rest state."""
    body = newton_body("gravity-wall", 2, 0.01, 10, MU1, LAMBDA1, 0.5)
    body["probe_steps"] = 300
    engine = newton_rest.run(body)
    assert engine["probe"]["growth"] < 10
    assert profile("gravity-wall", 2, 0.01, 10, MU1, LAMBDA1, 0.5).converged


def test_fitted_parameters_give_the_reported_error_inside_newton():
    """The answer in the engine's terms: the parameters `pbdfit.fit` gives for Newton, run in Newton itself,
    make the error against the FEM that the fit reports (within 1 %)."""
    scene, n, young, poisson = "gravity-wall", 2, 1e3, 0.3
    fit = pbdfit.fit(scene, young, poisson, model="newton-xpbd", dt=0.01, n=n, nit=10, settings={"relaxation": 0.5})
    k_mu, k_lambda = fit.parameters["k_mu"], fit.parameters["k_lambda"]
    engine = newton_rest.run(newton_body(scene, n, 0.01, 10, k_mu, k_lambda, 0.5))
    assert engine["converged"] or engine["stop_reason"] == "f32_floor", engine["stop_reason"]
    reference = pbdfit.fem(scene, n=n, young=young, poisson=poisson)
    moved = np.linalg.norm(reference, axis=1) > 1e-12 * np.linalg.norm(reference, axis=1).max()
    u = np.asarray(engine["displacements"])
    relative = np.linalg.norm(u[moved] - reference[moved], axis=1) / np.linalg.norm(reference[moved], axis=1)
    error = float(np.mean(relative**2))
    print(f"fit: k_mu {k_mu:.4g}, k_lambda {k_lambda:.4g}, error {fit.error:.6g}; in Newton: {error:.6g}")
    assert abs(error - fit.error) <= 0.01 * fit.error


# newton-cloth against Newton's XPBD cloth (add_cloth_mesh(add_springs=True), SolverXPBD, 10 iterations) on
# the hanging sheet (in its plane) and the clamped strip (bent, with damping) at N = 2: the comparison of
# benchmarks/engines/newton_cloth.py, small enough for CI (Newton rests in about 400 and 2,100 steps there;
# measured 5.8e-6 and 5.8e-5 relative L2).
CLOTH = [
    ("hanging-sheet", 2, 1 / 60, {"spring_ke": 10.0, "edge_ke": 0.1, "spring_kd": 0.0, "edge_kd": 0.0}),
    ("clamped-strip", 2, 1 / 300, {"spring_ke": 300.0, "edge_ke": 30.0, "spring_kd": 0.3, "edge_kd": 0.03}),
]


@pytest.mark.parametrize("scene,n,dt,point", CLOTH)
def test_newton_cloth_profile_equals_newton(scene, n, dt, point):
    """The profile's rest state is Newton's fixed point of its own step from zero velocity, with Newton's
    springs and bending edges (counted as add_cloth_mesh makes them) and its masses (checked inside
    ``newton_rest``)."""
    import newton_cloth

    ours = pbdfit.simulate(
        scene, model="newton-cloth", dt=dt, nit=10, n=n, settings={k: point[k] for k in ("spring_kd", "edge_kd")},
        spring_ke=point["spring_ke"], edge_ke=point["edge_ke"],
    )
    report = ours.as_dict()
    engine = newton_cloth.newton_rest(report, newton_cloth.GRAVITY[scene], dt, 10, point)
    assert engine["converged"] or engine["stop_reason"] == "f32_floor", engine["stop_reason"]
    assert (engine["springs"], engine["bends"]) == newton_cloth.counts(report)
    u_engine = engine["displacements"]
    difference = newton_cloth.rel_l2(ours.displacements, u_engine)
    print(f"{scene} N={n}: max|u| {np.abs(u_engine).max():.4f} m, relative L2 {difference:.2e} "
          f"({engine['steps']} Newton steps)")
    assert difference < TOLERANCE
