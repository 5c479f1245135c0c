"""One fit job, one report: ``pbdfit.fit`` returns ``pbdfit fit --json``'s report field for field, and every
option of ``pbdfit fit`` is a keyword of ``pbdfit.fit`` (the two lists are compared, so an option added to
one front end and not the other fails here).

The CLI binary comes from $PBDFIT_CLI, else target/debug or target/release of this repository; without
one the tests fail (they never skip)."""

import inspect
import json
import re
import subprocess

import pytest

import pbdfit
from pbdfit import _native
from studies import STUDY
from test_pbdfit import cli_json, cli_path, rows

# `pbdfit fit` options that are no fit keyword: output forms of the command line, and the backend
# (Python's fit computes its rest states on the CPU).
CLI_ONLY = {"help", "json", "vtk", "backend"}
# Repeatable flags whose keyword is their plural (a list or a dict).
PLURAL = {"start": "starts", "setting": "settings", "param": "params"}


def compare(py: pbdfit.FitResult, cli: dict) -> None:
    ours = py.as_dict()
    assert set(ours) == set(cli), (set(ours) ^ set(cli))
    # The result's fields are the report's.
    assert all(getattr(py, k) == v for k, v in ours.items())
    for key in cli:
        if key == "seconds":
            continue
        assert ours[key] == cli[key], key


def test_every_cli_option_is_a_python_keyword():
    cli = cli_options("fit")
    native = set(_native.job_keywords("fit"))
    python = set(inspect.signature(pbdfit.fit).parameters)
    assert cli == native, ("CLI only", cli - native, "keywords only", native - cli)
    assert python == native, ("pbdfit.fit only", python - native, "keywords only", native - python)


def cli_options(command: str) -> set:
    help_text = subprocess.run([cli_path(), command, "--help"], capture_output=True, text=True, check=True).stdout
    flags = {m.replace("-", "_") for m in re.findall(r"^\s+(?:-\w, )?--([a-z][a-z0-9-]*)", help_text, re.M)}
    return {PLURAL.get(f, f) for f in flags} - CLI_ONLY


def test_every_identify_option_is_a_python_keyword():
    native = set(_native.job_keywords("identify"))
    assert cli_options("identify") == native
    assert set(inspect.signature(pbdfit.identify).parameters) == native


def test_every_fem_option_is_a_python_keyword():
    native = set(_native.job_keywords("fem"))
    assert cli_options("fem") == native
    assert set(inspect.signature(pbdfit.fem).parameters) == native


def test_every_simulate_option_is_a_python_keyword():
    """Less the outputs (`--frames` and its `--frame-every`, `--frame-steps`, `--frames-only`); Python's
    `**parameters` are further `params`."""
    native = set(_native.job_keywords("simulate"))
    assert cli_options("simulate") - {"frames", "frame_every", "frame_steps", "frames_only"} == native
    assert set(inspect.signature(pbdfit.simulate).parameters) - {"parameters"} == native


def test_simulate_reports_equal_the_cli_field_for_field():
    """A compound scene with the sensitivity and options Python lacked (uniform masses, damping, the
    stepping method), an engine profile's setting, and a mass-spring model's dynamics."""
    cases = [
        (dict(scene="gravity", n=2, kd=0.4, sensitivity=True, mass_model="uniform", damping=0.1, method="stepping"),
         ["--scene", "gravity", "--n", "2", "--kd", "0.4", "--sensitivity", "--mass-model", "uniform", "--damping",
          "0.1", "--method", "stepping"]),
        (dict(scene="gravity-wall", n=2, model="newton-xpbd", nit=4, settings={"relaxation": 0.3}, k_mu=700.0,
              k_lambda=7000.0),
         ["--scene", "gravity-wall", "--n", "2", "--model", "newton-xpbd", "--nit", "4", "--setting",
          "relaxation=0.3", "--param", "k_mu=700", "--param", "k_lambda=7000"]),
        (dict(scene="gravity-wall", n=2, model="mass-spring", ks=200.0, integrator="implicit-euler", damping=0.5,
              steps=2000),
         ["--scene", "gravity-wall", "--n", "2", "--model", "mass-spring", "--ks", "200", "--integrator",
          "implicit-euler", "--damping", "0.5", "--steps", "2000"]),
    ]
    for keywords, flags in cases:
        py = pbdfit.simulate(**keywords)
        cli = cli_json("simulate", *flags)
        parts = list(py.values()) if isinstance(py, dict) else [py]
        clis = cli if isinstance(cli, list) else [cli]
        assert len(parts) == len(clis)
        for ours, theirs in zip(parts, clis):
            mine = ours.as_dict()
            assert set(mine) == set(theirs)
            assert {k: v for k, v in mine.items() if k != "seconds"} == {
                k: v for k, v in theirs.items() if k != "seconds"}
            assert ours.displacements.tolist() == theirs["displacements"]
    assert isinstance(pbdfit.simulate(**cases[2][0]), pbdfit.Dynamics)


def test_every_study_and_table_option_is_a_python_keyword():
    """The study file and the table definition are the commands' positional arguments (`STUDY`, `FILE`):
    Python's first parameter under the same name."""
    for command, positional in [("study", "study"), ("table", "file")]:
        native = set(_native.job_keywords(command))
        assert cli_options(command) | {positional} == native, command
        python = set(inspect.signature(getattr(pbdfit, command)).parameters) - {"progress", "client", "retries"}
        assert python == native, command


def test_a_study_with_the_options_python_lacked_equals_the_cli(tmp_path):
    """`only`, `poisson_stride`, `precision`, `search` and a reference option, through Python and the
    command line: the same rows (all but `seconds`)."""
    study = tmp_path / "st.toml"
    study.write_text(STUDY)
    options = ["--only", "gravity-wall/nit", "--poisson-stride", "2", "--precision", "f32", "--search",
               "pattern", "--material", "stvk"]
    subprocess.run([cli_path(), "study", str(study), "--out", str(tmp_path / "cli"), "--jobs", "1", *options],
                   check=True, capture_output=True)
    summary = pbdfit.study(study, jobs=1, progress=False, out=tmp_path / "py", only=["gravity-wall/nit"],
                           poisson_stride=2, precision="f32", search="pattern", material="stvk")
    assert summary["fits"] == 4 and summary["files"] == ["gravity-wall-nit.csv"]
    assert rows(tmp_path / "py" / "gravity-wall-nit.csv") == rows(tmp_path / "cli" / "gravity-wall-nit.csv")
    with pytest.raises(ValueError, match="^poisson_stride must be at least 1"):
        pbdfit._native.run_job("study", json.dumps({"study": str(study), "poisson_stride": 0}))
    with pytest.raises(ValueError, match="unknown field `stride`"):
        pbdfit._native.run_job("study", json.dumps({"study": str(study), "stride": 2}))


def test_a_study_in_lockstep_equals_the_cli_without(tmp_path):
    """`lockstep=K` (fits K at a time, their gradient searches' trials in shared batches): the rows of the
    command line's run without it, all but `seconds`; refused at 0, with the pattern search and with a
    client."""
    study = tmp_path / "st.toml"
    study.write_text(STUDY)
    subprocess.run([cli_path(), "study", str(study), "--out", str(tmp_path / "cli"), "--search", "gradient"],
                   check=True, capture_output=True)
    lines = []
    summary = pbdfit.study(study, progress=lambda done, total, line: lines.append(line), out=tmp_path / "py",
                           search="gradient", lockstep=3)
    assert summary["files"]
    for name in summary["files"]:
        assert rows(tmp_path / "py" / name) == rows(tmp_path / "cli" / name), name
    with pytest.raises(ValueError, match="^lockstep = 0: must be an integer >= 1"):
        pbdfit.study(study, lockstep=0)
    with pytest.raises(ValueError, match="^lockstep: study st runs the pattern search"):
        pbdfit.study(study, lockstep=2, out=tmp_path / "pattern")
    with pytest.raises(ValueError, match="^lockstep: with a client"):
        pbdfit.study(study, lockstep=2, client=object())


def test_fem_equals_the_cli_with_the_options_python_lacked():
    """A dynamic reference with consistent mass and damping, uniform masses, and a contact scene: the
    command line's displacements to the last bit."""
    args = ["--scene", "gravity-wall", "--n", "2", "--dynamic", "--fem-mass", "consistent", "--rayleigh", "0.5,0",
            "--mass-model", "uniform", "--dt", "0.02"]
    cli = cli_json("fem", *args)
    py = pbdfit.fem("gravity-wall", n=2, dynamic=True, fem_mass="consistent", rayleigh=(0.5, 0.0),
                    mass_model="uniform", dt=0.02)
    assert py.tolist() == cli["displacements"]
    cli = cli_json("fem", "--scene", "resting", "--n", "2", "--poisson", "0.4")
    assert pbdfit.fem("resting", n=2, poisson=0.4).tolist() == cli["displacements"]


def test_the_report_equals_the_cli_field_for_field(tmp_path):
    # A compound scene with the pattern search.
    py = pbdfit.fit("gravity", young=2e3, poisson=0.35, search="pattern", grid=7)
    cli = cli_json("fit", "--scene", "gravity", "--young", "2e3", "--poisson", "0.35", "--search", "pattern",
                   "--grid", "7")
    compare(py, cli)
    assert list(py.scene_errors) == ["gravity-floor", "gravity-wall", "gravity-ceiling"]
    # An engine profile with a setting: its paste lines.
    py = pbdfit.fit("gravity-wall", model="newton-xpbd", nit=10, settings={"relaxation": 0.3})
    cli = cli_json("fit", "--scene", "gravity-wall", "--model", "newton-xpbd", "--nit", "10", "--setting",
                   "relaxation=0.3")
    compare(py, cli)
    assert py.model == "newton-xpbd[relaxation=0.3]" and any("k_mu=" in line for line in py.engine["paste"])
    # Options Python lacked before: unbounded, a start, f32, uniform masses, a split reference.
    py = pbdfit.fit("gravity-wall", model="pbd", unbounded=True, starts={"kd": 0.3, "kv": 0.5},
                    mass_model="uniform", split="six", box={"kd": (0.0, 1.5)})
    cli = cli_json("fit", "--scene", "gravity-wall", "--unbounded", "--start", "kd=0.3,kv=0.5", "--mass-model",
                   "uniform", "--split", "six", "--box", "kd=0:1.5")
    compare(py, cli)
    assert py.mass_model == "uniform" and py.box["kd"]["upper"] == 1.5
    py = pbdfit.fit("gravity-floor", precision="f32", search="pattern", grid=5)
    cli = cli_json("fit", "--scene", "gravity-floor", "--precision", "f32", "--search", "pattern", "--grid", "5")
    compare(py, cli)
    assert py.precision == "f32"
    # Markers with a bootstrap: the intervals and the refits.
    sim = cli_json("simulate", "--scene", "gravity-wall", "--n", "2", "--kd", "0.37", "--kv", "0.62")
    rng = __import__("random").Random(3)
    lines = ["x,y,z,ux,uy,uz,sigma"] + [
        ",".join(repr(v) for v in x + [c + rng.gauss(0, 1e-5) for c in u]) + ",1e-5"
        for x, u in zip(sim["vertices"], sim["displacements"]) if x[2] > 0.99
    ]
    markers = tmp_path / "markers.csv"
    markers.write_text("\n".join(lines) + "\n")
    py = pbdfit.fit("gravity-wall", n=2, measured=markers, bootstrap=3)
    cli = cli_json("fit", "--scene", "gravity-wall", "--n", "2", "--measured", str(markers), "--bootstrap", "3")
    compare(py, cli)
    assert py.young is None and py.bootstrap_asked == 3 and py.intervals_95 is not None


def test_refusals_name_the_keyword():
    with pytest.raises(ValueError, match="^n: mesh resolution"):
        _native.run_job("fit", json.dumps({"scene": "gravity-wall", "n": 0}))
    with pytest.raises(ValueError, match="unknown field `nits`"):
        _native.run_job("fit", json.dumps({"scene": "gravity-wall", "nits": 3}))
    with pytest.raises(ValueError, match="starts: give every parameter"):
        pbdfit.fit("gravity-wall", starts={"kd": 0.3})
    with pytest.raises(ValueError, match="precision: `f16`"):
        pbdfit.fit("gravity-wall", precision="f16")
    with pytest.raises(ValueError, match="^material sets the FEM reference, but the reference is the measured"):
        pbdfit.fit("gravity-wall", measured="does-not-matter.csv", material="stvk")
    with pytest.raises(ValueError, match="^bootstrap needs measured"):
        pbdfit.fit("gravity-wall", bootstrap=3)
    with pytest.raises(TypeError, match="young: expected a number"):
        pbdfit.fit("gravity-wall", young="1e3")


def test_every_modes_option_is_a_python_keyword():
    native = set(_native.job_keywords("modes"))
    assert cli_options("modes") == native
    assert set(inspect.signature(pbdfit.modes).parameters) == native


def test_modes_reports_equal_the_cli_field_for_field():
    """The imported cantilever with a consistent mass, and a compound scene by part; the arrays Python adds
    are the report's frequencies and shapes."""
    py = pbdfit.modes("cantilever", young=3e4, count=4, fem_mass="consistent")
    cli = cli_json("modes", "--scene", "cantilever", "--young", "3e4", "--count", "4", "--fem-mass", "consistent")
    assert {k: v for k, v in py.items() if k not in ("seconds", "frequencies", "shapes")} == {
        k: v for k, v in cli.items() if k != "seconds"}
    assert py["frequencies"].tolist() == [m["frequency"] for m in cli["modes"]]
    assert py["shapes"].shape == (4, len(cli["modes"][0]["shape"]), 3)
    parts = pbdfit.modes("gravity", n=2, count=2)
    assert sorted(parts) == ["gravity-ceiling", "gravity-floor", "gravity-wall"]
    with pytest.raises(ValueError, match="count"):
        pbdfit.modes("gravity-wall", n=1, count=100)


def test_every_motion_option_is_a_python_keyword():
    """Less `--figure` and `--frames`, files the command line writes (Python returns the tracks as arrays)."""
    native = set(_native.job_keywords("motion"))
    assert cli_options("motion") - {"figure", "frames", "frame_every"} == native
    assert set(inspect.signature(pbdfit.motion).parameters) == native


def test_motion_reports_equal_the_cli_field_for_field():
    py = pbdfit.motion("gravity-wall", n=2, model="jolt", nit=4, fit=True, fem_damping=0.05, fit_damping=True)
    cli = cli_json("motion", "--scene", "gravity-wall", "--n", "2", "--model", "jolt", "--nit", "4", "--fit",
                   "--fem-damping", "0.05", "--fit-damping")
    assert py["damping_fit"]["knob"] == "linear_damping"
    arrays = ("times", "fem_track", "model_track")
    assert {k: v for k, v in py.items() if k not in ("seconds",) + arrays} == {
        k: v for k, v in cli.items() if k not in ("seconds",) + arrays}
    for key in arrays:
        assert py[key].tolist() == cli[key], key
    with pytest.raises(ValueError, match="periods"):
        pbdfit.motion("gravity-wall", fit=True, periods=1e9)


def test_a_report_with_a_moved_minimum_and_warnings_equals_the_cli_field_for_field():
    # Masses other than the engine's: the report's `warnings` (Genesis gives every particle the same mass).
    py = pbdfit.fit("gravity-wall", n=1, model="genesis-pbd", nit=4, mass_model="lumped")
    cli = cli_json("fit", "--scene", "gravity-wall", "--n", "1", "--model", "genesis-pbd", "--nit", "4",
                   "--mass-model", "lumped")
    # The warning names the option in each front end's spelling (`mass_model = "lumped"`, `--mass-model
    # lumped`); every other field is the command line's.
    assert len(py.warnings) == len(cli["warnings"]) == 1
    assert 'mass_model = "lumped"' in py.warnings[0] and "--mass-model lumped" in cli["warnings"][0]
    ours = py.as_dict()
    assert set(ours) == set(cli) and all(ours[k] == cli[k] for k in cli if k not in ("seconds", "warnings"))
    assert py.mass_model == "lumped" and "genesis-pbd" in py.warnings[0]
    # Newton on the compressed floor: the search's minimum has no stable rest state as simulate solves it,
    # so the fit moves to the best earlier point of its path and says so in `moved`.
    args = dict(n=2, model="newton-xpbd", nit=10, settings={"relaxation": 0.3})
    py = pbdfit.fit("gravity-floor", **args)
    cli = cli_json("fit", "--scene", "gravity-floor", "--n", "2", "--model", "newton-xpbd", "--nit", "10",
                   "--setting", "relaxation=0.3")
    compare(py, cli)
    assert py.moved is not None and "simulate" in py.moved, py.moved


def test_fem_returns_the_command_line_s_report_with_its_contact_forces():
    u = pbdfit.fem("resting", n=1)
    cli = cli_json("fem", "--scene", "resting", "--n", "1")
    assert u.report["contact"]["forces"] and u.tolist() == cli["displacements"]
    assert {k: v for k, v in u.report.items() if k != "seconds"} == {k: v for k, v in cli.items() if k != "seconds"}


def test_a_setting_s_word_is_taken_as_the_command_line_takes_it():
    """A setting given by its word (``settings={"order": "sorted"}``, as ``--setting order=sorted``) reaches
    the job, which looks it up in the model's own setting: the same rest state as its number and as the
    command line's; a word of another model's setting is refused naming the model and the setting."""
    args = dict(model="jolt", n=1, dt=1 / 30, nit=2, params={"edge_compliance": 1e-4, "volume_compliance": 1e-4})
    by_word = pbdfit.simulate("gravity-wall", settings={"order": "sorted"}, **args).as_dict()
    by_number = pbdfit.simulate("gravity-wall", settings={"order": -1}, **args).as_dict()
    cli = cli_json("simulate", "--scene", "gravity-wall", "--model", "jolt", "--n", "1", "--dt", "1/30", "--nit", "2",
                   "--setting", "order=sorted", "--param", "edge_compliance=1e-4", "--param", "volume_compliance=1e-4")
    drop = lambda report: {k: v for k, v in report.items() if "seconds" not in k}
    assert by_word["model"] == "jolt[order=sorted]" and by_word["settings"]["order"] == -1
    assert drop(by_word) == drop(by_number) == drop(cli)
    with pytest.raises(ValueError, match=r"jolt.*bend"):
        pbdfit.simulate("gravity-wall", settings={"bend": "dihedral"}, **args)


def test_jolt_creation_order_is_a_setting_with_its_spread():
    """Jolt reads the order its edges are created in: ``settings={"order": -1}`` (the command line's
    ``--setting order=sorted``) fits in the sorted order, and the report's ``engine["orders"]`` gives the
    spread over the other orders at the fitted point, the same as the command line's."""
    args = dict(young=1e3, poisson=0.3, n=2, model="jolt", dt=1 / 30, nit=2)
    py = pbdfit.fit("gravity-wall", settings={"order": -1}, **args)
    cli = cli_json("fit", "--scene", "gravity-wall", "--young", "1e3", "--poisson", "0.3", "--n", "2", "--model",
                   "jolt", "--dt", "1/30", "--nit", "2", "--setting", "order=sorted")
    assert py.model == cli["model"] == "jolt[order=sorted]"
    orders = py.engine["orders"]
    assert orders == cli["engine"]["orders"]
    assert orders["order"] == "sorted"
    assert [o["order"] for o in orders["others"]] == ["profile"] + [f"shuffled (seed {k})" for k in range(1, 5)]
    assert orders["largest_move"] > 1e-2 and orders["beyond_fit_range"]
