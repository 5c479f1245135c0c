"""Refusals of bad input through Python, each named after what it pins: the Python path of the command line's fixes (crates/pbdfit/tests/cli_tests/refusals.rs)
raises ValueError with the command line's message where the input is bad, and never returns NaN or
panics (a panic used to surface as RuntimeError)."""

import csv
import math
from pathlib import Path

import pytest

import pbdfit


def wall_markers(tmp_path: Path, name: str, sigma=None) -> Path:
    """Markers at every vertex of gravity-wall (N = 2) that moves, from a PBD rest state."""
    sim = pbdfit.simulate("gravity-wall", model="pbd", dt=0.01, nit=1, n=2, kd=0.37, kv=0.62)
    header = "x,y,z,ux,uy,uz" + (",sigma" if sigma is not None else "")
    lines = [header]
    scene = pbdfit.Scene.load("gravity-wall", n=2)
    for x, u in zip(scene.vertices.tolist(), sim.displacements.tolist()):
        if any(c != 0.0 for c in u):
            lines.append(",".join(repr(v) for v in x + u) + (f",{sigma}" if sigma is not None else ""))
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_time_limit_beyond_the_clock_is_no_limit():
    for limit in (1e19, 1e300):
        r = pbdfit.fit("gravity-floor", n=1, max_seconds=limit)
        assert r.status == "converged"


def test_a_grid_beyond_the_bound_is_refused():
    with pytest.raises(ValueError, match=r"grid 1000000 gives 1000000\^2 grid points.*at most 316 points per axis"):
        pbdfit.fit("gravity-floor", n=1, grid=10**6)


def test_bootstrap_replicates_are_bounded(tmp_path):
    markers = wall_markers(tmp_path, "m.csv")
    for k in (0, 1, 10**9):
        with pytest.raises(ValueError, match=f"bootstrap {k} bootstrap replicates: give 2 to 10000"):
            pbdfit.fit("gravity-wall", n=2, measured=markers, bootstrap=k)
    r = pbdfit.fit("gravity-wall", n=2, measured=markers, bootstrap=2)
    assert (r.bootstrap_asked, r.bootstrap_replicates, r.bootstrap_stopped) == (2, 2, None)
    assert set(r.bootstrap_95) == {"kd", "kv"}


def test_a_mapping_that_leaves_f64_is_refused():
    with pytest.raises(ValueError, match=r"kd = NaN is not a finite number.*dt\^2 leaves f64's range"):
        pbdfit.mapping("pbd-van-gelder-bulk", young=1e3, poisson=0.3, dt=1e-300, nit=4, n=1)
    with pytest.raises(ValueError, match=r"1 / E overflows"):
        pbdfit.mapping("xpbd-strain-lame", young=5e-324, poisson=0.3, dt=0.01, nit=4, n=1)


def test_marker_sigmas_that_leave_f64_are_refused(tmp_path):
    for name, sigma in (("huge.csv", "1e300"), ("tiny.csv", "1e-300")):
        markers = wall_markers(tmp_path, name, sigma)
        with pytest.raises(ValueError, match=rf"{name}: row 1: sigma = .* over- or underflows f64"):
            pbdfit.fit("gravity-wall", n=2, measured=markers)
        with pytest.raises(ValueError, match=rf"{name}: row 1: sigma ="):
            pbdfit.identify("gravity-wall", measured=markers, n=2)


def test_a_resumed_table_does_not_trust_a_nan_row(tmp_path):
    definition = tmp_path / "small.toml"
    definition.write_text(
        'name = "small"\nmodel = "pbd"\nscene = "gravity-floor"\n[fit]\ngrid = 5\n[axes]\n'
        "young = [1e3, 1e4]\npoisson = [0.0, 0.3]\ndt = [0.01]\nnit = [1]\nn = [1]\n"
    )
    out = tmp_path / "out"
    pbdfit.table(definition, out=out, progress=False)
    table = (out / "table.csv").read_bytes()
    fits = out / "gravity-floor-table.csv"
    rows = list(csv.reader(fits.read_text().splitlines()))
    rows[2][rows[0].index("kd")] = "NaN"
    fits.write_text("\n".join(",".join(r) for r in rows) + "\n")
    summary = pbdfit.table(definition, out=out, progress=False)
    assert (summary["computed"], summary["resumed"]) == (1, 3)
    assert (out / "table.csv").read_bytes() == table
    for row in csv.DictReader((out / "table.csv").read_text().splitlines()):
        assert row["status"] != "ok" or math.isfinite(float(row["kd"]))


def test_a_sigma_array_of_the_wrong_length_is_refused(tmp_path):
    def field(sigma: str) -> Path:
        xml = (
            '<?xml version="1.0"?>\n<VTKFile type="UnstructuredGrid" version="0.1" byte_order="LittleEndian">\n'
            '<UnstructuredGrid>\n<Piece NumberOfPoints="4" NumberOfCells="1">\n<PointData>\n'
            '<DataArray type="Float64" Name="displacement" NumberOfComponents="3" format="ascii">'
            "0 -1e-3 0 0 -2e-3 0 0 -1.5e-3 0 0 -1.2e-3 0</DataArray>\n"
            f'<DataArray type="Float64" Name="sigma" NumberOfComponents="1" format="ascii">{sigma}</DataArray>\n'
            '</PointData>\n<Points>\n<DataArray type="Float64" NumberOfComponents="3" format="ascii">'
            "0.5 0.5 0.5 0.9 0.5 0.5 0.5 0.9 0.5 0.5 0.5 0.9</DataArray>\n</Points>\n<Cells>\n"
            '<DataArray type="Int64" Name="connectivity" format="ascii">0 1 2 3</DataArray>\n'
            '<DataArray type="Int64" Name="offsets" format="ascii">4</DataArray>\n'
            '<DataArray type="UInt8" Name="types" format="ascii">10</DataArray>\n</Cells>\n</Piece>\n'
            "</UnstructuredGrid>\n</VTKFile>\n"
        )
        path = tmp_path / f"field-{len(sigma.split())}.vtu"
        path.write_text(xml)
        return path

    with pytest.raises(ValueError, match=r"point data `sigma`.*4 points \(4 values\)"):
        pbdfit.fit("gravity-wall", n=2, measured=field("1e-4 1e-4 1e-4"))
    assert "chi-square" in pbdfit.fit("gravity-wall", n=2, measured=field("1e-4 1e-4 1e-4 1e-4")).reference


def fem_markers(tmp_path: Path, name: str, poisson: float, noise: float, seed: int) -> Path:
    """Markers at every moving vertex of gravity-wall (N = 2) with the linear FEM's displacements at
    E = 3e3 Pa, plus seeded Gaussian noise of ``noise`` times the largest displacement."""
    import random

    u = pbdfit.fem("gravity-wall", n=2, young=3e3, poisson=poisson)
    x = pbdfit.Scene.load("gravity-wall", n=2).vertices
    largest = max(math.sqrt(sum(c * c for c in d)) for d in u.tolist())
    rng = random.Random(seed)
    lines = ["x,y,z,ux,uy,uz"]
    for xi, ui in zip(x.tolist(), u.tolist()):
        if any(c != 0.0 for c in ui):
            lines.append(",".join(repr(v) for v in xi + [c + noise * largest * rng.gauss(0, 1) for c in ui]))
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_nu_on_the_search_bound_has_a_one_sided_interval(tmp_path):
    d = pbdfit.identify("gravity-wall", measured=fem_markers(tmp_path, "nu4995.csv", 0.4995, 0.0, 1), n=2)
    assert d["poisson_at_bound"] == 0.499
    lo, hi = d["poisson_interval_95"]
    assert lo < hi == 0.499
    e_lo, e_hi = d["young_interval_95"]
    assert e_lo < d["young"] < e_hi
    assert all(math.isfinite(c) for row in d["covariance_ln_young_poisson"] for c in row)


def test_noise_as_large_as_the_signal_names_what_is_not_identifiable(tmp_path):
    undetermined = 0
    for seed in range(1, 5):
        try:
            d = pbdfit.identify("gravity-wall", measured=fem_markers(tmp_path, f"n{seed}.csv", 0.3, 1.0, seed), n=2)
        except ValueError as e:
            # Noise that turns the markers against the load (the input's problem, ValueError).
            assert "no positive Young's modulus explains these markers" in str(e)
            continue
        for p in ("young", "poisson"):
            interval = d[f"{p}_interval_95"]
            if p in d["undetermined"]:
                undetermined += 1
                assert interval is None
            else:
                assert math.isfinite(interval[0]) and math.isfinite(interval[1]) and interval[0] < interval[1]
    assert undetermined > 0


def held_block(tmp_path: Path, name: str, obstacle: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\n[body]\nshape = "unit-cube"\nn = 1\n[[held]]\nplane = "y = 0"\n[load]\n'
        'gravity = [0.0, -9.81, 0.0]\n[material]\ndensity = 1.0\nmass_model = "lumped"\n' + obstacle
    )
    return path


def test_an_obstacle_that_never_touches_changes_no_refusal(tmp_path):
    far = held_block(
        tmp_path,
        "far",
        '[[obstacle]]\nshape = "sphere"\ncenter = [0.5, 50.02, 0.5]\nradius = 4.0\ndisplacement = [0.0, -0.12, 0.0]\n',
    )
    for scene in (held_block(tmp_path, "alone", ""), far):
        with pytest.raises(ValueError, match="inverted"):
            pbdfit.fem(scene, n=2, young=1e-3, material="neo-hookean")
        with pytest.raises(ValueError, match="inverted"):
            pbdfit.fit(scene, n=2, young=1e-3, material="neo-hookean")


def test_an_obstacle_may_not_end_with_a_held_vertex_inside_it(tmp_path):
    plane = held_block(
        tmp_path,
        "plane",
        '[[obstacle]]\nshape = "plane"\npoint = [0.0, 1.5, 0.0]\nnormal = [0.0, -1.0, 0.0]\n'
        "displacement = [0.0, -2.0, 0.0]\n",
    )
    with pytest.raises(ValueError, match=r"with held vertex .* shorten the obstacle's `displacement`"):
        pbdfit.fem(plane, n=2)
    with pytest.raises(ValueError, match="with held vertex"):
        pbdfit.simulate(plane, n=2, kd=0.5, kv=0.5)


def test_markers_against_the_load_are_a_value_error(tmp_path):
    with_load = fem_markers(tmp_path, "with.csv", 0.3, 0.0, 1).read_text().splitlines()
    against = [with_load[0]] + [
        ",".join(f[:3] + [repr(-float(v)) for v in f[3:]]) for f in (line.split(",") for line in with_load[1:])
    ]
    path = tmp_path / "against.csv"
    path.write_text("\n".join(against) + "\n")
    with pytest.raises(ValueError, match="no positive Young's modulus explains these markers"):
        pbdfit.identify("gravity-wall", measured=path, n=2)


def test_a_folder_without_table_files_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="is not a table folder"):
        pbdfit.lookup(tmp_path, young=150, poisson=0.1, dt=0.01, nit=1, n=1)


def test_silent_default_a_measured_scene_is_not_evaluated_against_the_fem(tmp_path):
    """A scene whose reference is measured markers was evaluated against the linear FEM; refused now,
    naming the markers, as a study, a table and `lookup --refine` refuse it."""
    wall_markers(tmp_path, "lab.csv")
    scene = tmp_path / "lab.toml"
    scene.write_text(
        'name = "lab"\n[body]\nshape = "unit-cube"\nn = 2\n[[held]]\nplane = "z = 0"\n[load]\n'
        'gravity = [0, -9.81, 0]\n[reference]\nmeasured = "lab.csv"\n'
    )
    with pytest.raises(ValueError, match="names measured markers"):
        pbdfit.evaluate(scene, young=1e3, poisson=0.3, parameters={"kd": 0.3, "kv": 0.5}, n=2)
    # `fit` on it fits the markers.
    assert "measured" in pbdfit.fit(scene, n=2).reference


def test_integers_and_dicts_are_checked_with_python_s_exceptions(tmp_path):
    """Negative integers raised OverflowError, a string box and ``parameters=None`` AttributeError: a bad
    value is a ValueError naming the argument, a wrong type a TypeError naming what is expected."""
    with pytest.raises(ValueError, match=r"n = -1: must be an integer >= 1"):
        pbdfit.fit("gravity-floor", n=-1)
    with pytest.raises(ValueError, match=r"nit = 0: must be an integer >= 1"):
        pbdfit.simulate("gravity-floor", nit=0, kd=0.5, kv=0.5)
    with pytest.raises(TypeError, match=r"n: expected an integer, got float"):
        pbdfit.fem("gravity-floor", n=1.5)
    with pytest.raises(TypeError, match=r"box: expected a dict such as \{'kd': \(0, 0.5\)\}, got str"):
        pbdfit.fit("gravity-floor", n=1, box="kd=0:1")
    with pytest.raises(ValueError, match=r"box\['kd'\] = 1: expected \(lower, upper\)"):
        pbdfit.fit("gravity-floor", n=1, box={"kd": 1})
    with pytest.raises(ValueError, match=r"parameters: model pbd needs kd"):
        pbdfit.evaluate("gravity-floor", young=1e3, poisson=0.3, parameters=None)
    with pytest.raises(TypeError, match=r"parameters: expected a dict"):
        pbdfit.evaluate("gravity-floor", young=1e3, poisson=0.3, parameters=[0.3, 0.5])
    with pytest.raises(ValueError, match=r"grid = -1: must be an integer >= 0"):
        pbdfit.fit("gravity-floor", n=1, grid=-1)


def test_a_local_study_reports_progress_to_a_callable(tmp_path):
    """``study(path, progress=callable)`` raised TypeError without a Dask client; the callable is now called
    after each fit, on the calling thread, as with a client; one that raises stops the run (the fits
    written stay, and a second call resumes from them)."""
    path = tmp_path / "tiny.toml"
    path.write_text(
        'name = "tiny"\nscenes = ["gravity-floor"]\n[base]\ndt = 0.01\nn = 1\nnit = 1\nyoung = 1e3\n'
        "[poisson]\nfrom = 0.0\nto = 0.3\nstep = 0.1\n[[experiment]]\nname = \"base\"\n"
    )
    seen = []
    summary = pbdfit.study(path, jobs=1, progress=lambda done, total, line: seen.append((done, total)))
    assert summary["fits"] == 4 and [d for d, _ in seen if d > 0][-1] == 4 and all(t == 4 for _, t in seen), seen

    class Stop(Exception):
        pass

    def stop(done, total, line):
        if done >= 1:
            raise Stop(line)

    with pytest.raises(Stop):
        pbdfit.study(path, jobs=1, progress=stop, out=tmp_path / "again")
    resumed = pbdfit.study(path, jobs=1, progress=False, out=tmp_path / "again")
    assert resumed["fits"] == 4 and resumed["resumed"] >= 1
    with pytest.raises(TypeError, match="progress: expected True, False or a callable"):
        pbdfit.study(path, progress="yes")
