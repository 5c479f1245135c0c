"""The Python package against the command line: results equal the CLI's JSON to the last bit, arrays have
the documented shapes and dtypes, errors map to ValueError, and a study interrupted from Python resumes
like the CLI's.

The CLI binary comes from $PBDFIT_CLI, else target/debug or target/release of this repository; without
one the tests fail (they never skip)."""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import pbdfit

ROOT = Path(__file__).resolve().parents[2]


def cli_path() -> str:
    candidates = [os.environ.get("PBDFIT_CLI")] + [str(ROOT / "target" / p / "pbdfit") for p in ("debug", "release")]
    for c in candidates:
        if c and Path(c).is_file():
            return c
    raise AssertionError("no pbdfit CLI binary: build it (cargo build) or set PBDFIT_CLI")


def cli_json(*args: str):
    out = subprocess.run([cli_path(), *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_scenes_and_arrays_have_the_documented_shapes_and_dtypes():
    assert pbdfit.scenes() == [
        "gravity-floor", "gravity-wall", "gravity-ceiling", "gravity",
        "tension", "compression", "shear", "torsion", "cantilever",
        "resting", "indentation", "incline",
        "hanging-sheet", "clamped-strip", "clamped-plate", "supported-plate", "draped-sheet",
    ]
    s = pbdfit.Scene.load("gravity-floor", n=2)
    assert s.vertices.shape == (27, 3) and s.vertices.dtype == np.float64
    assert s.tets.shape == (40, 4) and s.tets.dtype == np.int64
    assert s.held.shape == (27,) and s.held.dtype == np.bool_
    assert s.held.sum() == 9 and np.all(s.vertices[s.held][:, 1] == 0.0)
    assert s.masses.shape == (27,) and abs(s.masses.sum() - 1.0) < 1e-12
    assert list(s.gravity) == [0.0, -9.81, 0.0]
    assert s.prescribed.shape == (27, 3) and not s.prescribed.any() and not s.forces.any()
    t = pbdfit.Scene.load("tension", n=2)
    assert np.allclose(t.forces.sum(axis=0), [0.0, 10.0, 0.0], rtol=0, atol=1e-12)
    r = pbdfit.Scene.load("torsion", n=2)
    assert r.held.sum() == 18 and np.abs(r.prescribed[r.vertices[:, 1] == 1.0]).max() > 0.0
    g = pbdfit.Scene.load("gravity")
    assert g.compound and [p.name for p in g.parts] == ["gravity-floor", "gravity-wall", "gravity-ceiling"]
    with pytest.raises(ValueError, match="compound"):
        g.vertices


def test_fem_equals_the_cli_to_the_last_bit():
    for material in ["linear", "stvk"]:
        ours = pbdfit.fem("gravity-wall", n=2, young=1e3, poisson=0.3, material=material)
        theirs = cli_json("fem", "--scene", "gravity-wall", "--n", "2", "--material", material)
        assert ours.shape == (27, 3) and ours.dtype == np.float64
        assert np.array_equal(ours, np.array(theirs["displacements"]))
    # docs/method.md's reference value (scikit-fem), 1e-9 relative.
    u = pbdfit.fem("gravity-wall", n=4)
    assert abs(np.linalg.norm(u, axis=1).max() / 2.6792241782e-2 - 1) < 1e-9
    parts = pbdfit.fem("gravity", n=1)
    assert sorted(parts) == ["gravity-ceiling", "gravity-floor", "gravity-wall"]


def test_simulate_equals_the_cli_to_the_last_bit():
    ours = pbdfit.simulate("gravity-wall", model="pbd", dt=0.01, nit=4, n=2, kd=0.5, kv=0.5)
    theirs = cli_json("simulate", "--scene", "gravity-wall", "--n", "2", "--nit", "4", "--kd", "0.5", "--kv", "0.5")
    assert np.array_equal(ours.displacements, np.array(theirs["displacements"]))
    assert ours.iterations == theirs["iterations"] and ours.converged
    # Methodology reference value (the reference library's exact fixed point).
    assert abs(np.linalg.norm(ours.displacements, axis=1).max() / 2.6455782944e-3 - 1) < 1e-9


def test_fit_equals_the_cli_to_the_last_bit():
    ours = pbdfit.fit("gravity", young=1e3, poisson=0.3, model="pbd", dt=0.01, n=1, nit=1)
    theirs = cli_json("fit", "--scene", "gravity", "--young", "1e3", "--poisson", "0.3")
    assert ours.parameters == theirs["parameters"]
    assert ours.error == theirs["error"]
    assert ours.scene_errors == theirs["scene_errors"]
    assert ours.at_bound == theirs["at_bound"] and ours.evaluations == theirs["evaluations"]
    assert ours.reference == theirs["reference"] == "linear static"
    xpbd = pbdfit.fit("gravity-floor", 1e3, 0.3, model="xpbd", box={"alpha_d": (1e-8, 1e-2)})
    theirs = cli_json("fit", "--scene", "gravity-floor", "--model", "xpbd", "--box", "alpha_d=1e-8:1e-2")
    assert xpbd.parameters == theirs["parameters"] and xpbd.error == theirs["error"]


def test_gradient_fit_and_sensitivity_equal_the_cli():
    ours = pbdfit.fit("gravity", 1e3, 0.3, search="pattern")
    theirs = cli_json("fit", "--scene", "gravity", "--young", "1e3", "--poisson", "0.3", "--search", "pattern")
    assert ours.search == theirs["search"] == "pattern" and ours.parameters == theirs["parameters"]
    grad = pbdfit.fit("gravity", 1e3, 0.3, search="gradient")
    assert grad.search == "gradient" and grad.error <= ours.error * (1 + 1e-6)
    assert 1 <= grad.starts_reached_minimum <= grad.starts["total"] and grad.status == "converged"
    rest = pbdfit.simulate("gravity-wall", n=2, kd=0.4, kv=0.6, sensitivity=True)
    cli = cli_json("simulate", "--scene", "gravity-wall", "--n", "2", "--kd", "0.4", "--kv", "0.6", "--sensitivity")
    for name in ("kd", "kv"):
        assert np.array_equal(rest.sensitivity[name], np.array(cli["sensitivity"][name]))


def test_bad_input_raises_value_error_with_the_cli_message():
    cases = [
        (lambda: pbdfit.fem("gravity-floor", poisson=0.5), ["fem", "--scene", "gravity-floor", "--poisson", "0.5"]),
        (lambda: pbdfit.fem("nope"), ["fem", "--scene", "nope"]),
        (lambda: pbdfit.fit("gravity-floor", 1e3, 0.3, model="pbx"), ["fit", "--scene", "gravity-floor", "--model", "pbx"]),
        (lambda: pbdfit.fem("gravity-floor", material="rubber"), ["fem", "--scene", "gravity-floor", "--material", "rubber"]),
    ]
    for call, args in cases:
        with pytest.raises(ValueError) as info:
            call()
        out = subprocess.run([cli_path(), *args], capture_output=True, text=True)
        assert out.returncode == 2
        # The CLI prefixes its message with "pbdfit: error: " (clap's own errors differ in form).
        if "pbdfit: error:" in out.stderr:
            assert str(info.value) in out.stderr, (str(info.value), out.stderr)
    with pytest.raises(ValueError, match="has no parameter `ks`"):
        pbdfit.simulate("gravity-floor", kd=0.5, kv=0.5, ks=3.0)
    # The fit's options are checked by the same rules as the command line's and the study files'
    # (FitRequest), each named in its own spelling.
    fit_cases = [
        (dict(grid=1), "grid 1 must be at least 2", ["--grid", "1"], "--grid 1 must be at least 2"),
        (dict(min_step=0.0), "min_step 0 must be a finite number > 0", ["--min-step", "0"], "--min-step 0 must be"),
        (dict(max_seconds=-1.0), "max_seconds -1 must be", ["--max-seconds", "-1"], "--max-seconds -1 must be"),
        (dict(box={"kd": (0.5, 0.2)}), "box for kd", ["--box", "kd=0.5:0.2"], "box for kd"),
    ]
    for kwargs, python_says, flags, cli_says in fit_cases:
        with pytest.raises(ValueError, match=python_says):
            pbdfit.fit("gravity-floor", 1e3, 0.3, **kwargs)
        out = subprocess.run([cli_path(), "fit", "--scene", "gravity-floor", *flags], capture_output=True, text=True)
        assert out.returncode == 2 and cli_says in out.stderr, out.stderr
    with pytest.raises(ValueError, match="^model mass-spring needs ks: give ks=VALUE$"):
        pbdfit.simulate("gravity-floor", model="mass-spring")


STUDY = """
name = "tiny"
scenes = ["gravity-floor", "gravity"]
[base]
dt = 0.01
n = 1
nit = 1
young = 1e3
[poisson]
from = 0.0
to = 0.4
step = 0.1
[fit]
grid = 6
[[experiment]]
name = "base"
"""


def rows(path: Path):
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    seconds = header.index("seconds")
    return [",".join(f for i, f in enumerate(line.split(",")) if i != seconds) for line in lines[1:]]


def test_an_interrupted_study_keeps_its_fits_and_resumes_like_the_cli(tmp_path):
    (tmp_path / "tiny.toml").write_text(STUDY)
    out = tmp_path / "py"
    with pytest.raises(KeyboardInterrupt):
        pbdfit._native.run_job("study", json.dumps({"study": str(tmp_path / "tiny.toml"), "jobs": 1, "out": str(out)}),
                               progress=False, _interrupt_after=3)
    done = sum(len(rows(f)) for f in out.glob("*.csv"))
    assert done == 3, done
    summary = pbdfit.study(tmp_path / "tiny.toml", jobs=1, progress=False, out=out)
    assert (summary["resumed"], summary["computed"], summary["fits"]) == (3, 7, 10)
    cli_out = tmp_path / "cli"
    subprocess.run([cli_path(), "study", str(tmp_path / "tiny.toml"), "--out", str(cli_out), "--jobs", "1"],
                   check=True, capture_output=True)
    for f in ["gravity-floor-base.csv", "gravity-base.csv"]:
        assert rows(out / f) == rows(cli_out / f), f
    table = pbdfit.read_results(out)
    columns = table if isinstance(table, dict) else {c: table[c].to_numpy() for c in table.columns}
    assert len(columns["error"]) == 10 and columns["error"].dtype == np.float64
    assert set(columns["scene"]) == {"gravity-floor", "gravity"}
    assert np.all(columns["kd"] >= 0) and np.all(columns["kd"] <= 1)
    assert set(columns["reference"]) == {"linear static"}


def test_lookup_gives_the_command_lines_numbers():
    # A node, a point between nodes, and an extrapolated query: the same JSON as `pbdfit lookup --json`.
    queries = [
        ("pbd", 1e3, 0.3, 0.01, 1, 1, False),
        ("pbd", 3e4, 0.27, 1 / 200, 4, 2, False),
        ("xpbd", 2e5, 0.41, 0.002, 8, 1, False),
        ("pbd", 1e9, 0.3, 0.01, 1, 1, True),
    ]
    for table, young, poisson, dt, nit, n, extrapolate in queries:
        got = pbdfit.lookup(table, young=young, poisson=poisson, dt=dt, nit=nit, n=n, extrapolate=extrapolate)
        args = ["lookup", "--table", table, "--young", repr(young), "--poisson", repr(poisson), "--dt", repr(dt),
                "--nit", str(nit), "--n", str(n)]
        assert got == cli_json(*args, *(["--extrapolate"] if extrapolate else []))
        assert [p["name"] for p in got["parameters"]] == (["kd", "kv"] if table == "pbd" else ["alpha_d", "alpha_v"])
        assert "estimate" in got and "nearest" in got and got["extrapolated_any"] == extrapolate
    # Outside the range without extrapolate, and a bad material: ValueError with the CLI's message.
    for kwargs, flags in [(dict(young=1e9), ["--young", "1e9"]), (dict(poisson=0.5), ["--poisson", "0.5"])]:
        query = dict(young=1e3, poisson=0.3, dt=0.01, nit=1, n=1)
        query.update(kwargs)
        with pytest.raises(ValueError) as info:
            pbdfit.lookup("pbd", **query)
        base = {"--young": "1e3", "--poisson": "0.3", "--dt": "0.01", "--nit": "1", "--n": "1"}
        base[flags[0]] = flags[1]
        out = subprocess.run([cli_path(), "lookup", "--table", "pbd", *sum(base.items(), ())], capture_output=True, text=True)
        assert out.returncode == 2 and str(info.value) in out.stderr, (str(info.value), out.stderr)


def test_a_float_handed_through_python_is_the_command_line_s_to_the_bit():
    # Lame's lambda at E 1e4, nu 0.1 is 1136.3636363636363, a float JSON parsers can read 1 ulp off: the
    # error Python's evaluate gives at the newton-lame parameters is the command line's, bit for bit.
    values = [p["value"] for p in pbdfit.mapping("newton-lame", 1e4, 0.1, 0.01, 10, 2)["parameters"]]
    params = dict(zip(("k_mu", "k_lambda"), values))
    got = pbdfit.evaluate("gravity-wall", 1e4, 0.1, params, model="newton-xpbd", dt=0.01, n=2, nit=10,
                          settings={"relaxation": 0.3})
    cli = cli_json("evaluate", "--scene", "gravity-wall", "--young", "1e4", "--poisson", "0.1", "--model",
                   "newton-xpbd", "--dt", "0.01", "--n", "2", "--nit", "10", "--setting", "relaxation=0.3",
                   "--param", f"k_mu={values[0]!r}", "--param", f"k_lambda={values[1]!r}")
    assert got["error"] == cli["error"], (got["error"], cli["error"])


# The engine profiles that simulate sheets (their mappings take a sheet scene).
SHEET_PROFILES = {"jolt-cloth", "newton-cloth", "genesis-cloth", "mujoco-flex"}


def test_mapping_gives_the_command_lines_numbers():
    # Every mapping, on the tables' cube and on another scene: the same JSON as `pbdfit baseline --json`.
    listed = pbdfit.mapping("list")
    assert listed == cli_json("baseline", "--mapping", "list")
    # The tables' two models have mappings (the list itself is the registry's, not written out here).
    assert {"pbd", "xpbd"} <= {m["model"] for m in listed}
    queries = [(1e4, 0.25, 0.01, 4, 1, None), (2.5e5, 0.49, 1 / 300, 8, 2, None), (3e3, 0.3, 0.002, 1, 1, "cantilever")]
    # A cloth model's mapping takes a sheet scene (a solid's is refused, as the CLI test checks).
    sheet_queries = [(2e6, 0.3, 0.01, 10, 4, "hanging-sheet"), (1e8, 0.45, 0.002, 4, 10, "clamped-strip")]
    for m in listed:
        sheet = m["model"].startswith("cloth-") or m["model"] in SHEET_PROFILES
        for young, poisson, dt, nit, n, scene in sheet_queries if sheet else queries:
            got = pbdfit.mapping(m["name"], young=young, poisson=poisson, dt=dt, nit=nit, n=n, scene=scene)
            args = ["baseline", "--mapping", m["name"], "--young", repr(young), "--poisson", repr(poisson), "--dt",
                    repr(dt), "--nit", str(nit), "--n", str(n)] + ([] if scene is None else ["--scene", scene])
            assert got == cli_json(*args)
            assert got["model"] == m["model"] and got["scene"] == (scene or "gravity")
    # The unit cube at N = 1: alpha_v = mean tetrahedron volume (1/5 m^3) / K, K = E / (3 (1 - 2 nu)).
    got = pbdfit.mapping("xpbd-van-gelder-bulk", young=1e4, poisson=0.25, dt=0.01, nit=1, n=1)
    alpha_v = next(p["value"] for p in got["parameters"] if p["name"] == "alpha_v")
    assert abs(alpha_v - 0.2 / (1e4 / 1.5)) <= 1e-15 * alpha_v
    # An unknown name, a missing setting, an undefined formula: ValueError with the CLI's message.
    base = ["--young", "1e4", "--poisson", "0", "--dt", "0.01", "--nit", "1", "--n", "1"]
    for name in ["lame", "xpbd-macklin-lame"]:
        with pytest.raises(ValueError) as info:
            pbdfit.mapping(name, young=1e4, poisson=0.0, dt=0.01, nit=1, n=1)
        out = subprocess.run([cli_path(), "baseline", "--mapping", name, *base], capture_output=True, text=True)
        assert out.returncode == 2 and str(info.value) in out.stderr, (str(info.value), out.stderr)
    with pytest.raises(ValueError, match="poisson is required"):
        pbdfit.mapping("pbd-fixed", young=1e4)
    # dt, nit and n only where the formula reads them.
    lame = pbdfit.mapping("newton-lame", young=1e4, poisson=0.3)
    assert not lame["uses_step"] and not lame["uses_mesh"]
    with pytest.raises(ValueError, match="dt is required"):
        pbdfit.mapping("pbd-van-gelder-bulk", young=1e4, poisson=0.3, n=1)


def test_evaluate_gives_the_fits_own_error_at_its_optimum():
    # At the fitted parameters, evaluate() gives the fit's error, on a basic and a compound scene, to the
    # rest state's tolerance (the fit's rest state was warm-started, this one starts from rest); missing or
    # foreign parameters are refused by name.
    for scene in ("gravity-floor", "gravity"):
        r = pbdfit.fit(scene, 1e3, 0.3, search="pattern")
        e = pbdfit.evaluate(scene, 1e3, 0.3, r.parameters)
        assert abs(e["error"] - r.error) <= 1e-7 * r.error, (e, r.error)
        expected = r.scene_errors or {scene: r.error}
        assert e["scene_errors"].keys() == expected.keys()
        for part, value in expected.items():
            assert abs(e["scene_errors"][part] - value) <= 1e-7 * value, (part, e, expected)
    with pytest.raises(ValueError, match="needs kv"):
        pbdfit.evaluate("gravity-floor", 1e3, 0.3, {"kd": 0.5})
    with pytest.raises(ValueError, match="has no parameter `ks`"):
        pbdfit.evaluate("gravity-floor", 1e3, 0.3, {"kd": 0.5, "kv": 0.5, "ks": 1.0})


def test_a_part_built_table_names_its_missing_nodes():
    # pbd-full has N = 1, 2 and 4 fitted of 1, 2, 4, 8: a query at N = 3 works (and says the table is
    # part-built), one at N = 5 needs N = 8 nodes and raises the CLI's message naming them.
    got = pbdfit.lookup("pbd-full", young=3e4, poisson=0.3, dt=0.005, nit=4, n=3)
    assert got["missing_nodes"] == 3072 and got == cli_json(
        "lookup", "--table", "pbd-full", "--young", "3e4", "--poisson", "0.3", "--dt", "0.005", "--nit", "4", "--n", "3")
    with pytest.raises(ValueError) as info:
        pbdfit.lookup("pbd-full", young=3e4, poisson=0.3, dt=0.005, nit=4, n=5)
    message = str(info.value)
    assert "part-built (9216 of 12288 nodes fitted)" in message and "N = 8" in message and "pbdfit table" in message
    assert "fit it directly (seconds): `pbdfit fit --scene gravity --model pbd --young 30000 --poisson 0.3" in message
    assert "N = 4;" not in message and "N = 4," not in message  # the cell's fitted nodes are not listed
    out = subprocess.run([cli_path(), "lookup", "--table", "pbd-full", "--young", "3e4", "--poisson", "0.3", "--dt",
                          "0.005", "--nit", "4", "--n", "5"], capture_output=True, text=True)
    assert out.returncode == 2 and message in out.stderr, (message, out.stderr)


def test_lookup_refine_reaches_the_direct_fit():
    # A gradient fit from the lookup's parameters: the direct fit's error, in fewer rest states, as the CLI.
    query = dict(young=3e4, poisson=0.3, dt=0.005, nit=4, n=1)
    got = pbdfit.lookup("pbd", refine=True, **query)
    direct = pbdfit.fit("gravity", **query)
    assert abs(got["refined"]["error"] - direct.error) <= 1e-6 * direct.error, (got["refined"], direct.error)
    cli = cli_json("lookup", "--table", "pbd", "--young", "3e4", "--poisson", "0.3", "--dt", "0.005", "--nit", "4",
                   "--n", "1", "--refine")
    for d in (got, cli):
        d["refined"].pop("seconds")
    assert got == cli
    on_part = pbdfit.lookup("pbd", refine=True, scene="cantilever", **query)
    assert on_part["refined"]["scene"] == "cantilever"
    with pytest.raises(ValueError, match="only with refine"):
        pbdfit.lookup("pbd", scene="cantilever", **query)



def test_fit_to_measured_markers_equals_the_cli(tmp_path):
    """``fit(measured=...)`` gives the command line's ``fit --measured`` numbers, and the parameters that
    made the markers."""
    sim = cli_json("simulate", "--scene", "gravity-wall", "--n", "2", "--kd", "0.37", "--kv", "0.62")
    lines = ["x,y,z,ux,uy,uz"]
    for x, u in zip(sim["vertices"], sim["displacements"]):
        if x[2] > 0.99:
            lines.append(",".join(repr(v) for v in x + u))
    markers = tmp_path / "markers.csv"
    markers.write_text("\n".join(lines) + "\n")
    cli = cli_json("fit", "--scene", "gravity-wall", "--n", "2", "--measured", str(markers))
    py = pbdfit.fit("gravity-wall", n=2, measured=markers)
    assert py.parameters == {"kd": cli["kd"], "kv": cli["kv"]}
    assert py.error == cli["error"]
    assert abs(py.parameters["kd"] - 0.37) < 1e-4 and abs(py.parameters["kv"] - 0.62) < 1e-3
    assert "markers.csv" in py.reference
    assert {k: list(v) for k, v in py.intervals_95.items()} == cli["intervals_95"]
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y,z,ux,uy,uz\n0.5,0.5,0.5,0,NaN,0\n")
    with pytest.raises(ValueError, match="row 1, column uy"):
        pbdfit.fit("gravity-wall", measured=bad)
    with pytest.raises(ValueError, match="young and poisson"):
        pbdfit.fit("gravity-wall", young=1e3, measured=markers)
    # Noisy markers (a seeded 1 % of the largest displacement) and a bootstrap: the numbers of
    # `fit --bootstrap`, and a scene file that names the markers gives the same fit without `measured`.
    rng = __import__("random").Random(7)
    largest = max(abs(v) for line in lines[1:] for v in map(float, line.split(",")[3:]))
    noisy = ["x,y,z,ux,uy,uz,sigma"] + [
        ",".join(line.split(",")[:3] + [repr(float(v) + rng.gauss(0, 0.01 * largest)) for v in line.split(",")[3:]])
        + f",{0.01 * largest!r}"
        for line in lines[1:]
    ]
    noisy_file = tmp_path / "noisy.csv"
    noisy_file.write_text("\n".join(noisy) + "\n")
    cli = cli_json("fit", "--scene", "gravity-wall", "--n", "2", "--measured", str(noisy_file), "--bootstrap", "4")
    py = pbdfit.fit("gravity-wall", n=2, measured=noisy_file, bootstrap=4)
    assert py.bootstrap_replicates == cli["bootstrap_replicates"] == 4
    assert {k: list(v) for k, v in py.bootstrap_95.items()} == cli["bootstrap_95"]
    scene = tmp_path / "lab.toml"
    scene.write_text(
        'name = "lab"\n[body]\nshape = "unit-cube"\nn = 2\n[[held]]\nplane = "z = 0"\n[load]\ngravity = [0, -9.81, 0]\n'
        '[reference]\nmeasured = "noisy.csv"\n'
    )
    assert pbdfit.fit(scene, n=2).parameters == py.parameters
    with pytest.raises(ValueError, match="bootstrap needs measured"):
        pbdfit.fit("gravity-wall", bootstrap=3)


def test_identify_equals_the_cli(tmp_path):
    """``identify`` gives ``pbdfit identify --json``'s numbers: E and nu of the linear FEM that made the
    markers."""
    fem = cli_json("fem", "--scene", "gravity-wall", "--n", "2", "--young", "3e3", "--poisson", "0.35")
    lines = ["x,y,z,ux,uy,uz"]
    for x, u in zip(fem["vertices"], fem["displacements"]):
        if x[2] > 0.49:
            lines.append(",".join(repr(v) for v in x + u))
    markers = tmp_path / "markers.csv"
    markers.write_text("\n".join(lines) + "\n")
    cli = cli_json("identify", "--scene", "gravity-wall", "--n", "2", "--measured", str(markers))
    py = pbdfit.identify("gravity-wall", markers, n=2)
    # The same report, field for field (only the time differs).
    assert set(py) == set(cli)
    for key in cli:
        assert key == "seconds" or py[key] == cli[key], key
    assert abs(py["young"] / 3e3 - 1) < 1e-6 and abs(py["poisson"] - 0.35) < 1e-6


def test_a_table_built_from_python_equals_the_clis(tmp_path):
    (tmp_path / "tiny.toml").write_text(
        'name = "tiny"\ndescription = "t"\nmodel = "pbd"\nscene = "gravity-floor"\n[fit]\ngrid = 11\n'
        "[axes]\nyoung = [1e3, 1e4]\npoisson = [0.0, 0.3]\ndt = [0.01]\nnit = [1, 2, 4]\nn = [1]\n"
    )
    summary = pbdfit.table(tmp_path / "tiny.toml", jobs=1, progress=False)
    assert (summary["nodes"], summary["computed"], summary["resumed"], summary["simulated"]) == (12, 12, 0, 4)
    assert summary["out"] == str(tmp_path / "tiny")
    cli_out = tmp_path / "cli"
    subprocess.run([cli_path(), "table", str(tmp_path / "tiny.toml"), "--out", str(cli_out), "--jobs", "1"],
                   check=True, capture_output=True)
    for name in ("table.csv", "table.json"):
        assert (tmp_path / "tiny" / name).read_bytes() == (cli_out / name).read_bytes(), name
    again = pbdfit.table(tmp_path / "tiny.toml", progress=False)
    assert (again["computed"], again["resumed"]) == (0, 12)
