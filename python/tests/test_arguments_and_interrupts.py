"""Arguments checked in Python with Python's exceptions, naming the keyword and the key; and Ctrl-C, which
stops a fit, a simulation, a release test or a modal analysis instead of leaving it to compute behind the
``KeyboardInterrupt``."""

import json

import pytest

import pbdfit
from pbdfit import _native

NAN, INF = float("nan"), float("inf")


def test_a_non_finite_number_in_a_dict_is_a_value_error_naming_its_key():
    """JSON, which carries the keywords to the native side, has no NaN: its parse error named no key."""
    with pytest.raises(ValueError, match=r"^settings\['relaxation'\] = nan: must be a finite number$"):
        pbdfit.fit("gravity-wall", young=1e3, poisson=0.3, n=1, model="newton-xpbd", nit=10,
                   settings={"relaxation": NAN})
    with pytest.raises(ValueError, match=r"^box\['edge_compliance'\] = nan: must be a finite number$"):
        pbdfit.fit("gravity-wall", young=1e3, poisson=0.3, n=1, model="jolt", box={"edge_compliance": (NAN, 1)})
    # The same check in every function that takes such a dict.
    with pytest.raises(ValueError, match=r"^settings\['relaxation'\] = inf: must be a finite number$"):
        pbdfit.simulate("gravity-wall", n=1, model="newton-xpbd", settings={"relaxation": INF})
    with pytest.raises(ValueError, match=r"^params\['alpha_d'\] = nan: must be a finite number$"):
        pbdfit.motion("gravity-wall", n=1, model="xpbd", params={"alpha_d": NAN, "alpha_v": 0.01})
    with pytest.raises(ValueError, match=r"^starts\['kd'\] = -inf: must be a finite number$"):
        pbdfit.fit("gravity-wall", n=1, starts={"kd": -INF, "kv": 0.5})
    with pytest.raises(ValueError, match=r"^parameters\['kd'\] = nan: must be a finite number$"):
        pbdfit.evaluate("gravity-wall", young=1e3, poisson=0.3, parameters={"kd": NAN, "kv": 0.5})
    with pytest.raises(ValueError, match=r"^young = nan: must be a finite number$"):
        pbdfit.mapping("xpbd-van-gelder-bulk", young=NAN, poisson=0.3)


def test_a_string_or_a_bool_as_a_number_is_a_type_error_naming_its_key():
    """``float()`` took "0.5" and True (a bool is an int in Python) as setting values."""
    for value, shown in (("0.5", "str '0.5'"), (True, "bool True")):
        with pytest.raises(TypeError, match=rf"^settings\['relaxation'\]: expected a number, got {shown}$"):
            pbdfit.fit("gravity-wall", n=1, model="newton-xpbd", nit=10, settings={"relaxation": value})
        with pytest.raises(TypeError, match=rf"^settings\['relaxation'\]: expected a number, got {shown}$"):
            pbdfit.motion("gravity-wall", n=1, model="newton-xpbd", nit=10, settings={"relaxation": value})
        with pytest.raises(TypeError, match=rf"^box\['kd'\]: expected a number, got {shown}$"):
            pbdfit.fit("gravity-wall", n=1, box={"kd": (0, value)})
        with pytest.raises(TypeError, match=rf"^params\['kd'\]: expected a number, got {shown}$"):
            pbdfit.simulate("gravity-wall", n=1, params={"kd": value, "kv": 0.5})
        with pytest.raises(TypeError, match=rf"^alpha_v: expected a number, got {shown}$"):
            pbdfit.simulate("gravity-wall", n=1, model="xpbd", alpha_d=0.01, alpha_v=value)
        with pytest.raises(TypeError, match=rf"^poisson: expected a number, got {shown}$"):
            pbdfit.lookup("pbd", young=1e3, poisson=value, dt=0.01, nit=1, n=1)
    with pytest.raises(TypeError, match=r"^settings: names are strings, got int 1$"):
        pbdfit.simulate("gravity-wall", n=1, model="newton-xpbd", settings={1: 0.5})


def test_a_list_for_a_dict_is_a_type_error_in_every_function():
    """``motion(params=[...])`` raised AttributeError from ``.items()``."""
    expected = r"^params: expected a dict such as \{'kd': 0.3, 'kv': 0.5\}, got list \[0.01, 0.01\]$"
    with pytest.raises(TypeError, match=expected):
        pbdfit.motion("gravity-wall", n=1, model="xpbd", params=[1e-2, 1e-2])
    with pytest.raises(TypeError, match=expected):
        pbdfit.simulate("gravity-wall", n=1, model="xpbd", params=[1e-2, 1e-2])
    with pytest.raises(TypeError, match=r"^settings: expected a dict such as \{'relaxation': 0.8\}, got list"):
        pbdfit.motion("gravity-wall", n=1, model="newton-xpbd", settings=[0.5])
    with pytest.raises(TypeError, match=r"^starts: expected a dict such as \{'kd': 0.3, 'kv': 0.5\}, got float"):
        pbdfit.fit("gravity-wall", n=1, starts=[0.3, 0.5])


# Jobs that run for minutes uncancelled (the interrupt comes at the first poll for signals, 50 ms in).
LONG = {
    "simulate": {"scene": "gravity-wall", "n": 2, "model": "xpbd", "nit": 10, "dt": 1e-5,
                 "params": {"alpha_d": 0.01, "alpha_v": 0.01}},
    "fit": {"scene": "gravity-wall", "n": 3, "model": "xpbd", "nit": 10, "dt": 1e-4},
    "motion": {"scene": "gravity-wall", "n": 3, "model": "xpbd", "nit": 10, "dt": 1e-5,
               "params": {"alpha_d": 0.01, "alpha_v": 0.01}},
    "modes": {"scene": "gravity-wall", "n": 12, "count": 40},
}


@pytest.mark.parametrize("name", sorted(LONG))
def test_ctrl_c_stops_the_job_and_the_next_call_is_unaffected(name):
    """Ctrl-C (raised here at the call's first poll for signals, as the study tests do) sets the job's
    cancel flag; the call raises ``KeyboardInterrupt`` once the job has stopped at its next check (it
    waits for it, so nothing computes behind the exception: a job the flag did not reach would hold the
    call for its whole run). The job's threads keep no flag: the same process's next call gives the
    command line's result."""
    before = pbdfit.simulate("gravity-wall", model="pbd", dt=0.01, nit=1, n=1, kd=0.37, kv=0.62)
    with pytest.raises(KeyboardInterrupt):
        if not hasattr(_native, name):  # a job of the one entry
            _native.run_job(name, json.dumps(LONG[name]), True)
        else:
            getattr(_native, name)(json.dumps(LONG[name]), True)
    after = pbdfit.simulate("gravity-wall", model="pbd", dt=0.01, nit=1, n=1, kd=0.37, kv=0.62)
    assert after.converged and after.iterations == before.iterations
    assert after.displacements.tolist() == before.displacements.tolist()


def test_a_function_declared_by_its_signature_checks_its_arguments_by_their_annotations():
    """``identify``, ``lookup`` and ``mapping`` are their signature and docstring alone: each argument is
    checked after its annotation (a number finite, a count at least 1, a pair a list of numbers) and named,
    and the signature ``help`` shows is the declared one."""
    import inspect

    assert list(inspect.signature(pbdfit.mapping).parameters)[:3] == ["name", "young", "poisson"]
    assert inspect.signature(pbdfit.lookup).parameters["extrapolate"].default is False
    with pytest.raises(ValueError, match=r"^young = nan: must be a finite number$"):
        pbdfit.mapping("xpbd-van-gelder-bulk", young=NAN, poisson=0.3)
    with pytest.raises(ValueError, match=r"^nit = 0: must be an integer >= 1$"):
        pbdfit.lookup("pbd", 1e3, 0.3, 0.01, 0, 3)
    with pytest.raises(TypeError, match=r"^rayleigh: expected a number, got str 'a'$"):
        pbdfit.identify("gravity-wall", rayleigh=("a", 1.0))
    with pytest.raises(TypeError):
        pbdfit.mapping("list", colour="red")
    # Converted as the job reads them: the same report as the keywords written out.
    keywords = {"name": "xpbd-van-gelder-bulk", "young": 1e4, "poisson": 0.25, "dt": 0.01, "nit": 1, "n": 1}
    assert pbdfit.mapping(**keywords) == json.loads(_native.run_job("mapping", json.dumps(keywords)))


def test_a_function_made_from_its_job_has_the_job_s_keywords_and_checks_them():
    """``evaluate`` is made from its job (``_job_function``): its parameters are the job's keywords (the
    required ``scene`` and the job's positional ``young``, ``poisson``, ``parameters`` by position too, the
    rest by keyword only, every default ``None``, the job's, or ``False`` for a switch), its docstring the
    command's help and each keyword's, and each argument is checked after its kind and named."""
    import inspect

    parameters = inspect.signature(pbdfit.evaluate).parameters
    assert list(parameters)[:4] == ["scene", "young", "poisson", "parameters"]
    assert set(parameters) == set(_native.job_keywords("evaluate"))
    assert parameters["scene"].default is inspect.Parameter.empty
    assert parameters["model"].kind is inspect.Parameter.KEYWORD_ONLY and parameters["model"].default is None
    assert parameters["dynamic"].default is False
    assert pbdfit.evaluate.__name__ == "evaluate" and "evaluate" in pbdfit.__all__
    assert pbdfit.evaluate.__doc__.startswith("The error a fit minimises at given parameters")
    assert "\n    nit: Solver iterations per time step" in pbdfit.evaluate.__doc__
    given = {"kd": 0.3, "kv": 0.5}
    with pytest.raises(TypeError, match=r"^n: expected an integer, got float 1.5$"):
        pbdfit.evaluate("gravity-wall", 1e3, 0.3, given, n=1.5)
    with pytest.raises(ValueError, match=r"^young = nan: must be a finite number$"):
        pbdfit.evaluate("gravity-wall", NAN, 0.3, given)
    with pytest.raises(TypeError, match=r"^rayleigh: expected a number, got str 'a'$"):
        pbdfit.evaluate("gravity-wall", 1e3, 0.3, given, rayleigh=("a", 1.0))
    with pytest.raises(TypeError):
        pbdfit.evaluate("gravity-wall", 1e3, 0.3, given, "pbd")  # model is keyword-only
    # Converted as the job reads them: the same report as the keywords written out, and a Scene is its source.
    keywords = {"scene": "gravity-wall", "n": 1, "young": 2e3, "parameters": given}
    expected = json.loads(_native.run_job("evaluate", json.dumps(keywords)))
    assert pbdfit.evaluate(**keywords) == expected
    assert pbdfit.evaluate(pbdfit.Scene.load("gravity-wall"), 2e3, parameters=given, n=1) == expected
