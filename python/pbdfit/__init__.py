"""pbdfit: physical parameters for Position Based Dynamics.

Simulate a body with an FEM reference and with PBD, XPBD or a mass-spring model, and fit the model's
parameters so that the rest states match. Units are SI throughout: lengths and displacements in m,
Young's modulus in Pa, masses in kg, time in s.

Bad input raises ``ValueError`` with the command line's message; internal failures ``RuntimeError``.
Long calls release the GIL; Ctrl-C raises ``KeyboardInterrupt`` once the computation has stopped (a study
keeps every finished fit and resumes on the next call).
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import numbers
import os
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native

__version__: str = _native.__version__

__all__ = [
    "Dynamics",
    "FemField",
    "FitResult",
    "RestState",
    "Scene",
    "fem",
    "evaluate",
    "fit",
    "identify",
    "lookup",
    "mapping",
    "modes",
    "motion",
    "read_results",
    "scenes",
    "settings",
    "simulate",
    "study",
    "table",
]

PathLike = Union[str, "os.PathLike[str]"]


def scenes() -> List[str]:
    """The built-in scene names: the gravity scenes (``gravity-floor``, ``gravity-wall``, ``gravity-ceiling``,
    the compound ``gravity``), the load cases (``tension``, ``compression``, ``shear``, ``torsion``),
    ``cantilever`` on an imported beam mesh, the contact scenes (``resting``, ``indentation``,
    ``incline``) and the sheets (``hanging-sheet``, ``clamped-strip``, ``clamped-plate``, ``supported-plate``:
    ``fem`` and ``modes`` take them)."""
    return list(_native.scenes())


class Scene:
    """A scene's body at one mesh resolution, as numpy arrays.

    Attributes (basic scenes):
        name: the scene name.
        source: what was loaded (a built-in name or a TOML path); pass a Scene anywhere a name is taken.
        n: mesh resolution (hexahedra per cube edge).
        vertices: (nv, 3) float64, rest positions in m.
        tets: (nt, 4) int64, vertex indices of each tetrahedron (positively oriented).
        held: (nv,) bool, the vertices held (in place, or at a prescribed displacement).
        prescribed: (nv, 3) float64, the displacement in m a load prescribes at held vertices (zero
            elsewhere and at plainly held ones).
        forces: (nv, 3) float64, nodal forces in N from tractions (gravity is separate).
        masses: (nv,) float64, vertex masses in kg.
        gravity: (3,) float64, in m/s^2.
        mass_model: ``lumped`` or ``uniform``.
        density: kg/m^3; size: the largest extent in m; mass: the total in kg (density times volume).
        parts: for a compound scene (``gravity``), its basic scenes; empty otherwise.
    """

    def __init__(self, source: str, compound: bool, bodies: List[Dict[str, Any]]) -> None:
        self.source = source
        self.parts: Tuple[Scene, ...] = ()
        if compound:
            self.name = source
            self.parts = tuple(Scene(b["name"], False, [b]) for b in bodies)
            self.n = int(bodies[0]["n"])
            return
        b = bodies[0]
        self.name = str(b["name"])
        self.n = int(b["n"])
        self.vertices: np.ndarray = b["vertices"]
        self.tets: np.ndarray = b["tets"]
        self.held: np.ndarray = b["held"]
        self.prescribed: np.ndarray = b["prescribed"]
        self.forces: np.ndarray = b["forces"]
        self.masses: np.ndarray = b["masses"]
        self.gravity: np.ndarray = b["gravity"]
        self.mass_model = str(b["mass_model"])
        self.density = float(b["density"])
        self.size = float(b["size"])
        self.mass = float(b["mass"])

    @property
    def compound(self) -> bool:
        """Whether this is a compound scene (its error is the norm of its parts' errors)."""
        return bool(self.parts)

    def __getattr__(self, name: str) -> Any:
        per_body = ("vertices", "tets", "held", "prescribed", "forces", "masses", "gravity", "mass_model", "density",
                    "size", "mass")
        if name in per_body and self.__dict__.get("parts"):
            parts = ", ".join(p.name for p in self.parts)
            raise ValueError(f"scene {self.name} is a compound of {parts}: use .parts[i].{name}")
        raise AttributeError(name)

    def __repr__(self) -> str:
        if self.compound:
            return f"Scene({self.name!r}, compound of {[p.name for p in self.parts]}, n={self.n})"
        return f"Scene({self.name!r}, n={self.n}, {len(self.vertices)} vertices, {len(self.tets)} tetrahedra)"

    @classmethod
    def load(
        cls,
        name_or_path: PathLike,
        n: Optional[int] = None,
        density: Optional[float] = None,
        size: Optional[float] = None,
    ) -> "Scene":
        """Loads a built-in scene by name or a scene TOML file, meshed at resolution ``n`` (default: the
        scene's own), with ``density`` (kg/m^3) and ``size`` (m, the largest extent) over the scene's."""
        source = os.fspath(name_or_path)
        compound, bodies = _native.scene_bodies(
            source, _count("n", n, 1), _number("density", density), _number("size", size)
        )
        return cls(source, compound, bodies)


def _count(name: str, value: Any, minimum: int = 0) -> Optional[int]:
    """An integer argument (``n``, ``nit``, ``grid``, ...) checked here: a negative one raised
    ``OverflowError`` from the native conversion, a float or a bool slipped through.
    ``None`` stays ``None`` (the native default). Ranges beyond ``minimum`` are the native side's to
    check, with the command line's message (``grid 1 must be at least 2``)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__} {value!r}")
    if not minimum <= value < 2**63:
        raise ValueError(f"{name} = {value}: must be an integer >= {minimum}")
    return int(value)


def _mapping_of(name: str, value: Any, example: str) -> Mapping[Any, Any]:
    """A dict argument (``box``, ``parameters``, ``settings``) checked here: a string or ``None`` raised
    ``AttributeError`` from ``.items()``."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name}: expected a dict such as {example}, got {type(value).__name__} {value!r}")
    return value


def _box(box: Any) -> Optional[Dict[str, Tuple[float, float]]]:
    """A search box ``{name: (lower, upper)}``: each bound a finite real number, checked as :func:`_number`
    checks one, under the name ``box['kd']``."""
    if box is None:
        return None
    out = {}
    for k, bounds in _mapping_of("box", box, "{'kd': (0, 0.5)}").items():
        _name("box", k)
        if isinstance(bounds, (str, bytes)) or not isinstance(bounds, Sequence) or len(bounds) != 2:
            raise ValueError(f"box[{k!r}] = {bounds!r}: expected (lower, upper), two numbers")
        out[k] = (_number(f"box[{k!r}]", bounds[0]), _number(f"box[{k!r}]", bounds[1]))
    return out


def _name(argument: str, key: Any) -> str:
    """A key of a dict argument: a name, so a string."""
    if not isinstance(key, str):
        raise TypeError(f"{argument}: names are strings, got {type(key).__name__} {key!r}")
    return key


def _named_numbers(argument: str, value: Any, example: str) -> Optional[Dict[str, float]]:
    """A dict of real numbers by name (``params``, ``settings``, ``parameters``, a start), the one check of
    every such argument: ``None`` stays ``None``; not a dict (a list, a string) is a TypeError naming the
    argument, a key not a string or a value not a real number (a string, a bool) a TypeError naming the
    key (``settings['relaxation']``), a NaN or infinite value a ValueError naming the key and the value."""
    if value is None:
        return None
    return {_name(argument, k): _number(f"{argument}[{k!r}]", v) for k, v in _mapping_of(argument, value, example).items()}


def _json(keywords: Mapping[str, Any]) -> str:
    """The keywords a native job reads, as JSON (``None`` left out: the native default). Every number has
    been checked by :func:`_number`, so a non-finite one here is a defect: JSON has no NaN, and the native
    side's parse error would name no keyword."""
    try:
        return json.dumps({k: v for k, v in keywords.items() if v is not None}, allow_nan=False)
    except ValueError:
        bad = [k for k, v in keywords.items() if v is not None and not _finite_json(v)]
        raise ValueError(f"{', '.join(bad)}: must be finite numbers (JSON has no NaN or infinity)") from None


def _finite_json(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
        return True
    except ValueError:
        return False


def _source(scene: Union[str, Scene, "os.PathLike[str]"]) -> str:
    return scene.source if isinstance(scene, Scene) else os.fspath(scene)


def _keyword(name: str, annotation: Any, value: Any) -> Any:
    """One keyword of a job's Python function as the native job reads it, by its annotation: a flag as a
    bool, a number checked by :func:`_number`, a count (at least 1) by :func:`_count`, a scene or a path as
    its text, a pair of numbers as a list; anything else (a name) as given. ``None`` is the job's default."""
    kinds = typing.get_args(annotation) or (annotation,)
    if bool in kinds:
        return bool(value)
    if value is None:
        return None
    if float in kinds:
        return _number(name, value)
    if int in kinds:
        return _count(name, value, 1)
    if Scene in kinds:
        return _source(value)
    if any(typing.get_origin(k) is os.PathLike for k in kinds):
        return os.fspath(value)
    if any(typing.get_origin(k) is tuple for k in kinds):
        return [_number(name, v) for v in value]
    return value


_Function = typing.TypeVar("_Function", bound=Callable[..., Any])


def _job(function: _Function) -> _Function:
    """A job's Python function from its signature and docstring alone (the body is ``...``): its arguments,
    each converted by :func:`_keyword` after its annotation, are the keywords of the native job of the
    function's name, and its report is returned as a dict. The signature stays the function's
    (``inspect.signature``, ``help``) and so does its static type."""
    signature = inspect.signature(function)
    hints = typing.get_type_hints(function)

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        keywords = {k: _keyword(k, hints[k], v) for k, v in bound.arguments.items()}
        return json.loads(_native.run_job(function.__name__, _json(keywords)))

    return typing.cast(_Function, run)


#: Python's annotation of each kind of keyword (``pbdfit_jobs::signature::Kind``), and its check.
_KINDS: Dict[str, Tuple[Any, Callable[[str, Any], Any]]] = {
    "flag": (bool, lambda name, value: bool(value)),
    "number": (float, lambda name, value: _number(name, value)),
    "count": (int, lambda name, value: _count(name, value, 1)),
    "pair": (Tuple[float, float], lambda name, value: None if value is None else [_number(name, v) for v in value]),
    "numbers": (Mapping[str, float], lambda name, value: _named_numbers(name, value, "{'kd': 0.3}")),
    "settings": (Mapping[str, Union[float, str]], lambda name, value: _settings(value)),
    "scene": (Union[str, Scene, "os.PathLike[str]"], lambda name, value: None if value is None else _source(value)),
    "path": (Union[str, "os.PathLike[str]"], lambda name, value: None if value is None else os.fspath(value)),
    "text": (str, lambda name, value: value),
}


def _job_function(name: str) -> Callable[..., Dict[str, Any]]:
    """The Python function of the job ``name``, made from the job itself (``_native.job_signature``): its
    parameters are the job's keywords (the required ones and the job's positional ones by position too,
    the rest by keyword only; ``None`` leaves a keyword to the job's default), each checked after its kind,
    its docstring the command's help and each keyword's, and it returns the job's report as a dict, as
    ``pbdfit NAME --json`` prints it. ``inspect.signature`` and ``help`` see the parameters."""
    spec = json.loads(_native.job_signature(name))
    parameters, checks = [], {}
    for keyword in spec["keywords"]:
        annotation, checks[keyword["name"]] = _KINDS[keyword["kind"]]
        if keyword["required"]:
            default = inspect.Parameter.empty
        else:
            default = False if annotation is bool else None
            annotation = annotation if annotation is bool else Optional[annotation]
        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD if keyword["positional"] else inspect.Parameter.KEYWORD_ONLY
        parameters.append(inspect.Parameter(keyword["name"], kind, default=default, annotation=annotation))
    signature = inspect.Signature(parameters, return_annotation=Dict[str, Any])

    def run(*args: Any, **kwargs: Any) -> Dict[str, Any]:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        keywords = {k: checks[k](k, v) for k, v in bound.arguments.items()}
        return json.loads(_native.run_job(name, _json(keywords)))

    run.__name__ = run.__qualname__ = name
    run.__module__ = __name__
    run.__doc__ = spec["doc"]
    setattr(run, "__signature__", signature)
    if name not in __all__:
        __all__.append(name)
    return run


def modes(
    scene: Union[str, Scene, "os.PathLike[str]"],
    n: Optional[int] = None,
    young: Optional[float] = None,
    poisson: Optional[float] = None,
    count: int = 6,
    material: Optional[str] = None,
    fem_mass: Optional[str] = None,
    mass_model: Optional[str] = None,
    split: Optional[str] = None,
    fix_orientation: bool = False,
    density: Optional[float] = None,
    size: Optional[float] = None,
    thickness: Optional[float] = None,
) -> Union[Dict[str, Any], Dict[str, Dict[str, Any]]]:
    """The ``count`` lowest natural frequencies and mode shapes of the scene's FEM body, as ``pbdfit modes``
    computes them (every option of the command line is a keyword here; a test compares the lists).

    Returns ``pbdfit modes --json``'s report as a dict (for a compound scene a dict of them by part name),
    with two arrays added: ``frequencies`` (count, Hz) and ``shapes`` (count, nv, 3; mass-normalised, zero
    at held vertices). ``material`` chooses the law whose small-strain stiffness is used, ``fem_mass`` the
    mass matrix (``lumped``, ``consistent``); the other keywords are ``fem``'s. On a sheet scene the modes are
    the linear shell's (lumped mass with rotary inertia), their shapes the vertices' translations.
    """
    keywords: Dict[str, Any] = dict(
        scene=_source(scene),
        n=_count("n", n, 1),
        young=_number("young", young),
        poisson=_number("poisson", poisson),
        count=_count("count", count, 1),
        material=material,
        fem_mass=fem_mass,
        mass_model=mass_model,
        split=split,
        fix_orientation=bool(fix_orientation),
        density=_number("density", density),
        size=_number("size", size),
        thickness=_number("thickness", thickness),
    )
    report = json.loads(_native.run_job("modes", _json(keywords)))
    compound = isinstance(report, list)
    parts = []
    for r in report if compound else [report]:
        r["frequencies"] = np.array([m["frequency"] for m in r["modes"]])
        r["shapes"] = np.array([m["shape"] for m in r["modes"]], dtype=np.float64)
        parts.append(r)
    if not compound:
        return parts[0]
    return {r["scene"]: r for r in parts}


def motion(
    scene: Union[str, Scene, "os.PathLike[str]"],
    young: Optional[float] = None,
    poisson: Optional[float] = None,
    model: Optional[str] = None,
    dt: Optional[float] = None,
    nit: Optional[int] = None,
    n: Optional[int] = None,
    params: Optional[Dict[str, float]] = None,
    fit: bool = False,
    fit_motion: bool = False,
    settings: Optional[Dict[str, float]] = None,
    material: Optional[str] = None,
    damping: float = 0.0,
    periods: float = 5.0,
    release: str = "gravity",
    mass_model: Optional[str] = None,
    fix_orientation: bool = False,
    density: Optional[float] = None,
    size: Optional[float] = None,
    thickness: Optional[float] = None,
    fem_damping: float = 0.0,
    fit_damping: bool = False,
) -> Dict[str, Any]:
    """The release test, as ``pbdfit motion`` runs it (every option of the command line is a keyword here; a
    test compares the lists): the body at rest, gravity switched on, the FEM (Newmark, no numerical damping)
    against ``model`` at ``dt`` and ``nit`` for ``periods`` periods of the FEM's first mode.

    Returns ``pbdfit motion --json``'s object: each side's ``frequency`` (Hz), logarithmic ``decrement`` and
    ``damping_ratio`` (``None`` where the signal does not oscillate in the window), the rest-state and
    trajectory errors, and both tracks over time, with ``times``, ``fem_track`` and ``model_track`` as arrays.
    ``params`` gives every model parameter by name, or ``fit=True`` fits them to the rest state first;
    ``release="unload"`` starts each body at its loaded rest state and switches the load off instead;
    ``fit_motion=True`` fits the parameters to the trajectory from there (``motion_fit`` says where it started).
    ``fem_damping`` gives the FEM body that damping ratio in its first mode (mass-proportional Rayleigh);
    ``fit_damping=True`` then searches the model's damping knob (the engine's damping setting, else
    ``damping``) for the FEM's decay, and ``damping_fit`` gives the value or says why none will do.

    On a sheet scene the FEM is the corotational shell's transient and ``model`` a cloth model (a gravity
    release, ``fit`` allowed; ``fit_motion``, ``fit_damping`` and ``release="unload"`` refused).
    """
    keywords: Dict[str, Any] = dict(
        scene=_source(scene), n=_count("n", n, 1), young=_number("young", young),
        poisson=_number("poisson", poisson), model=model, dt=_number("dt", dt), nit=_count("nit", nit, 1),
        params=_named_numbers("params", params, "{'kd': 0.3, 'kv': 0.5}") or {}, fit=bool(fit),
        fit_motion=bool(fit_motion), settings=_settings(settings) or {}, material=material,
        damping=_number("damping", damping), periods=_number("periods", periods), release=release,
        mass_model=mass_model, fix_orientation=bool(fix_orientation), density=_number("density", density),
        size=_number("size", size), thickness=_number("thickness", thickness),
        fem_damping=_number("fem_damping", fem_damping), fit_damping=bool(fit_damping),
    )
    r = json.loads(_native.run_job("motion", _json(keywords)))
    for key in ("times", "fem_track", "model_track"):
        r[key] = np.array(r[key], dtype=np.float64)
    return r


def fem(
    scene: Union[str, Scene, "os.PathLike[str]"],
    n: Optional[int] = None,
    young: Optional[float] = None,
    poisson: Optional[float] = None,
    material: Optional[str] = None,
    dynamic: bool = False,
    time: Optional[float] = None,
    dt: Optional[float] = None,
    split: Optional[str] = None,
    mass_model: Optional[str] = None,
    fix_orientation: bool = False,
    density: Optional[float] = None,
    size: Optional[float] = None,
    thickness: Optional[float] = None,
    fem_mass: Optional[str] = None,
    rayleigh: Optional[Tuple[float, float]] = None,
) -> Union["FemField", Dict[str, "FemField"]]:
    """FEM rest displacements in m: an (nv, 3) float64 array (a :class:`FemField`, whose ``report`` is the
    command line's JSON object, contact forces included), or for a compound scene a dict of them by part
    name, as ``pbdfit fem`` computes them (every option of the command line is a keyword here; a test
    compares the lists).

    ``young`` in Pa, ``poisson`` in (-1, 0.5); ``material`` is ``linear``, ``corotational``, ``stvk`` or
    ``neo-hookean`` (default: the scene's, else linear); ``dynamic`` reaches rest by implicit Euler with step
    ``dt`` (s), for ``time`` s if given, with ``fem_mass`` (``lumped``, ``consistent``) and Rayleigh damping
    ``rayleigh`` ``(A, B)``; ``split`` chooses the FEM mesh's tetrahedral split (``same``, ``opposite``,
    ``six``); ``mass_model`` (``lumped``, ``uniform``) replaces the scene's; ``fix_orientation`` reorients an
    imported mesh's inverted tetrahedra; ``density`` (kg/m^3) and ``size`` (m, the body's largest extent: the
    scene's geometry scaled uniformly to it) replace the scene's (the built-in scenes: a 1 m cube of
    1 kg/m^3). A body with obstacles is solved with its contacts. ``young`` and ``poisson`` default to 1e3 Pa
    and 0.3, or to a sheet scene's own material.

    A sheet scene (``hanging-sheet``, ``clamped-strip``, ``clamped-plate``, ``supported-plate``, or a file with
    a ``[sheet]`` table) is solved by the shell reference: ``material`` ``corotational`` (large rotations, the
    sheets' default), ``stvk`` (the same with a Saint Venant-Kirchhoff membrane) or ``linear``; ``thickness``
    (m) replaces the sheet's; the array is the vertices' translations (the rotations are in
    ``pbdfit fem --json``'s ``rotations``). ``dynamic`` runs the corotational shell's transient from the flat
    sheet at rest (implicit Euler with step ``dt``, to rest or for ``time`` s, Rayleigh damping ``rayleigh``,
    the lumped mass with the plate's rotary inertia) and gives its end state. The options of solids only
    (``split``, a ``consistent`` ``fem_mass``, ...) and a ``thickness`` for a solid are refused.
    """
    keywords: Dict[str, Any] = dict(
        scene=_source(scene),
        n=_count("n", n, 1),
        young=_number("young", young),
        poisson=_number("poisson", poisson),
        dt=_number("dt", dt),
        mass_model=mass_model,
        fix_orientation=bool(fix_orientation),
        density=_number("density", density),
        size=_number("size", size),
        thickness=_number("thickness", thickness),
        **_reference_keywords(material, dynamic, time, fem_mass, rayleigh, split),
    )
    report = json.loads(_native.run_job("fem", _json(keywords)))
    fields = [_fem_field(r) for r in (report if isinstance(report, list) else [report])]
    return {f.report["scene"]: f for f in fields} if isinstance(report, list) else fields[0]


class FemField(np.ndarray):
    """An FEM part's rest displacements, an (nv, 3) array in m, with its ``report``: ``pbdfit fem --json``'s
    object (the body, the solve, and for a body with obstacles ``contact``: each vertex's contact force and
    state, and the totals that balance)."""

    report: Dict[str, Any] = {}

    def __array_finalize__(self, obj: Any) -> None:
        self.report = getattr(obj, "report", {})


def _fem_field(report: Dict[str, Any]) -> FemField:
    field = np.array(report["displacements"], dtype=np.float64).view(FemField)
    field.report = report
    return field


@dataclass(frozen=True)
class RestState:
    """A model's rest state: ``displacements`` and ``positions`` (nv, 3) in m, and how it was found.
    :meth:`as_dict` is ``pbdfit simulate --json``'s object, field for field (a test compares them)."""

    scene: str
    displacements: np.ndarray
    positions: np.ndarray
    iterations: int
    converged: bool
    residual: float
    method: str
    sensitivity: Optional[Dict[str, np.ndarray]] = None
    report: Optional[Dict[str, Any]] = None

    def as_dict(self) -> Dict[str, Any]:
        """The report this rest state was made from (``pbdfit simulate --json``'s object)."""
        return dict(self.report or {})


@dataclass(frozen=True)
class Dynamics:
    """A mass-spring model's dynamics run with an ``integrator`` (``pbdfit simulate --integrator``):
    ``displacements`` and ``positions`` (nv, 3) in m where it ended, the ``steps`` run, whether the motion
    ``settled``, the last ``energy`` (J). :meth:`as_dict` is the command line's JSON object."""

    scene: str
    displacements: np.ndarray
    positions: np.ndarray
    steps: int
    settled: bool
    energy: Optional[float]
    report: Dict[str, Any]

    def as_dict(self) -> Dict[str, Any]:
        """The report (``pbdfit simulate --integrator ... --json``'s object)."""
        return dict(self.report)


def _simulated(report: Dict[str, Any]) -> Union[RestState, Dynamics]:
    """A part's report as a :class:`RestState` (or :class:`Dynamics` for an integrator's run)."""
    u, x = np.array(report["displacements"], dtype=float), np.array(report["rest_positions"], dtype=float)
    if "integrator" in report:
        return Dynamics(report["scene"], u, x, report["steps"], report["settled"], report["energy"], report)
    sensitivity = report.get("sensitivity")
    if sensitivity is not None:
        sensitivity = {name: np.array(c, dtype=float) for name, c in sensitivity.items()}
    return RestState(report["scene"], u, x, report["iterations"], report["converged"], report["residual"],
                     report["method"], sensitivity, report)


def _settings(settings: Any) -> Optional[Dict[str, Union[float, str]]]:
    """An engine profile's settings by the engine's names: each a number, or a word the model's setting
    takes (``{'order': 'sorted'}``, ``{'bend': 'dihedral'}``), passed as given (a number written as text
    is refused as a number would be); the native side looks a word
    up in the model's own setting and checks every name and range, as ``--setting`` does."""
    if settings is None:
        return None
    example = "{'relaxation': 0.8}"
    return {
        _name("settings", k): v if _is_word(v) else _number(f"settings[{k!r}]", v)
        for k, v in _mapping_of("settings", settings, example).items()
    }


def _is_word(value: Any) -> bool:
    """A setting's word: text that is no number (``"0.5"`` is a number written as text, refused as one)."""
    if not isinstance(value, str):
        return False
    try:
        float(value)
    except ValueError:
        return True
    return False


def simulate(
    scene: Union[str, Scene, "os.PathLike[str]"],
    model: Optional[str] = None,
    dt: Optional[float] = None,
    nit: Optional[int] = None,
    n: Optional[int] = None,
    sensitivity: bool = False,
    settings: Optional[Mapping[str, float]] = None,
    kd: Optional[float] = None,
    kv: Optional[float] = None,
    compliance_distance: Optional[float] = None,
    compliance_volume: Optional[float] = None,
    ks: Optional[float] = None,
    kvol: Optional[float] = None,
    params: Optional[Mapping[str, float]] = None,
    mass_model: Optional[str] = None,
    fix_orientation: bool = False,
    density: Optional[float] = None,
    size: Optional[float] = None,
    thickness: Optional[float] = None,
    integrator: Optional[str] = None,
    steps: Optional[int] = None,
    max_sweeps: Optional[int] = None,
    unbounded: bool = False,
    damping: Optional[float] = None,
    method: Optional[str] = None,
    **parameters: float,
) -> Union[RestState, Dynamics, Dict[str, Union[RestState, Dynamics]]]:
    """The rest state of ``model`` (``pbd``, ``xpbd``, ``mass-spring``, an engine profile, ...) with time
    step ``dt`` (s) and ``nit`` iterations, as ``pbdfit simulate`` computes it: every option of the command
    line is a keyword here under its Python name. The parameters by name, as keywords (``kd=0.5, kv=0.5``;
    XPBD ``alpha_d=..., alpha_v=...``; ``k_mu=...``) or in ``params``; kd and kv default to 0.5 and the
    compliances to 0, as there. A compound scene gives a dict by part name. ``sensitivity=True`` adds
    ``du*/dp`` per parameter (name -> (nv, 3) array, m per unit of the parameter). An engine profile's
    ``settings`` by the engine's names (``settings={"relaxation": 0.8}``). ``damping``: PBD velocity damping
    per step in [0, 1), or a mass-spring model's spring damping (N s/m); ``method``: ``fixed-point``
    (default) or ``stepping``; ``integrator`` (mass-spring models: ``verlet``, ``implicit-euler``, ...)
    runs the dynamics for at most ``steps`` steps instead and gives :class:`Dynamics`; ``max_sweeps`` bounds
    a PBD rest state's projection sweeps (default 20,000,000), a point that needs more is refused."""
    named = {**(_named_numbers("params", params, "{'kd': 0.3, 'kv': 0.5}") or {}),
             **{k: _number(k, v) for k, v in parameters.items()}}
    keywords: Dict[str, Any] = dict(
        scene=_source(scene), model=model, dt=_number("dt", dt), nit=_count("nit", nit, 1), n=_count("n", n, 1),
        sensitivity=bool(sensitivity), settings=_settings(settings), kd=_number("kd", kd), kv=_number("kv", kv),
        compliance_distance=_number("compliance_distance", compliance_distance),
        compliance_volume=_number("compliance_volume", compliance_volume), ks=_number("ks", ks),
        kvol=_number("kvol", kvol), params=named, mass_model=mass_model, fix_orientation=bool(fix_orientation),
        density=_number("density", density), size=_number("size", size), thickness=_number("thickness", thickness),
        integrator=integrator,
        steps=_count("steps", steps, 1), max_sweeps=_count("max_sweeps", max_sweeps, 1),
        unbounded=bool(unbounded), damping=_number("damping", damping),
        method=method,
    )
    report = json.loads(_native.run_job("simulate", _json(keywords)))
    states = [_simulated(r) for r in (report if isinstance(report, list) else [report])]
    if not isinstance(report, list):
        return states[0]
    return {s.scene: s for s in states}


@dataclass(frozen=True)
class FitResult:
    """A fit: ``pbdfit fit --json``'s report, field for field (a test compares them). The model's
    ``parameters`` (name -> value, in the model's units and order), the ``error`` (mean squared relative
    displacement error; compound: norm of the parts'), ``scene_errors`` (per part), ``at_bound``
    (parameters on the search box's edge; ``at_model_limit`` those at the model's own limit), and how it was
    made: ``body`` (each part's ``size_m``, ``density_kg_per_m3``, ``mass_kg``), ``model``, ``reference``, ``n``, ``dt``, ``nit``, ``young``/``poisson`` (``None`` for markers),
    ``box``, ``search``, ``starts`` (``{"total", "reached_minimum"}``), ``evaluations``, ``status``
    (``converged`` or ``budget``, then ``stopped`` says why), ``backend``, ``pbdfit_version``.
    ``identifiability`` holds the Hessian's ``condition`` and ``ranges_1_percent`` (with ``ranges_informative``
    ``False`` and the reason in ``ranges_note`` where a range collapses to the fitted point: then they carry
    no information); ``engine`` an engine
    profile's ``paste`` lines; ``intervals_95`` and ``bootstrap_*`` a fit to markers."""

    scene: str
    body: List[Dict[str, Any]]
    model: str
    parameters: Dict[str, float]
    error: float
    scene_errors: Dict[str, float]
    evaluations: int
    failed_evaluations: int
    failures: str
    at_bound: List[str]
    at_model_limit: List[str]
    seconds: float
    box: Dict[str, Dict[str, Any]]
    box_text: str
    n: int
    dt: float
    nit: int
    young: Optional[float]
    poisson: Optional[float]
    mass_model: str
    reference: str
    precision: str
    backend: str
    pbdfit_version: str
    grid_points: int
    search_moves: int
    search: str
    starts: Dict[str, int]
    status: str
    # ``answer``, or ``cannot_reproduce`` when the best point is no answer (no better than a body that does
    # not deform, or most points without a rest state); ``verdict_reason`` says why.
    verdict: str = "answer"
    verdict_reason: Optional[str] = None
    stopped: Optional[str] = None
    # An engine profile's fit whose search minimum ``simulate`` refuses (no stable rest state solved from the
    # undeformed body): the note saying which point the fit moved from; ``None`` otherwise.
    moved: Optional[str] = None
    # Warnings about the run (masses other than the engine's, with the rest-state difference they make).
    warnings: List[str] = field(default_factory=list)
    engine: Optional[Dict[str, Any]] = None
    # A gradient fit to measured markers: each parameter's 95 % confidence interval (Gauss-Newton).
    intervals_95: Optional[Dict[str, List[float]]] = None
    identifiability: Optional[Dict[str, Any]] = None
    # With ``bootstrap=K``: each parameter's 2.5 % and 97.5 % quantiles over K refits of resampled noise
    # (``None`` with fewer than 2 refits: one value is no interval), the refits made, failed, asked for,
    # the noise added (m), whether the quantiles are rough, and why the refits stopped early, if they did.
    bootstrap_95: Optional[Dict[str, List[float]]] = None
    bootstrap_replicates: Optional[int] = None
    bootstrap_failed: Optional[int] = None
    bootstrap_asked: Optional[int] = None
    bootstrap_noise: Optional[float] = None
    bootstrap_rough: Optional[bool] = None
    bootstrap_stopped: Optional[str] = None
    # PBD's stiffnesses also at the top level (as the command line's JSON).
    kd: Optional[float] = None
    kv: Optional[float] = None

    @property
    def condition(self) -> Optional[float]:
        """The Hessian's condition number at the fitted point (``identifiability["condition"]``)."""
        return None if self.identifiability is None else self.identifiability["condition"]

    @property
    def ranges(self) -> Dict[str, Tuple[float, float]]:
        """Each parameter's range within 1 % of the minimum error (``identifiability["ranges_1_percent"]``)."""
        if self.identifiability is None:
            return {}
        return {k: (v[0], v[1]) for k, v in self.identifiability["ranges_1_percent"].items()}

    @property
    def starts_reached_minimum(self) -> int:
        """How many of the gradient search's starts reached the minimum (``starts["reached_minimum"]``)."""
        return self.starts["reached_minimum"]

    def as_dict(self) -> Dict[str, Any]:
        """The report as ``pbdfit fit --json`` prints it (the JSON object this result was made from)."""
        return json.loads(self._report)

    @classmethod
    def _from_report(cls, report: str) -> "FitResult":
        result = cls(**json.loads(report))
        object.__setattr__(result, "_report", report)
        return result


def _starts(starts: Any) -> List[Dict[str, float]]:
    if starts is None:
        return []
    if isinstance(starts, Mapping):
        starts = [starts]
    out = []
    for s in starts:
        example = "{'kd': 0.3, 'kv': 0.5}"
        out.append(_named_numbers("starts", _mapping_of("starts", s, example), example))
    return out


def fit(
    scene: Union[str, Scene, "os.PathLike[str]"],
    young: Optional[float] = None,
    poisson: Optional[float] = None,
    model: Optional[str] = None,
    dt: Optional[float] = None,
    n: Optional[int] = None,
    nit: Optional[int] = None,
    box: Optional[Mapping[str, Tuple[float, float]]] = None,
    grid: Optional[int] = None,
    min_step: float = 1e-4,
    material: Optional[str] = None,
    search: Optional[str] = None,
    max_evaluations: int = 400,
    max_seconds: Optional[float] = None,
    measured: Optional[PathLike] = None,
    bootstrap: Optional[int] = None,
    settings: Optional[Mapping[str, float]] = None,
    unbounded: bool = False,
    starts: Optional[Union[Mapping[str, float], List[Mapping[str, float]]]] = None,
    precision: str = "f64",
    mass_model: Optional[str] = None,
    fix_orientation: bool = False,
    density: Optional[float] = None,
    size: Optional[float] = None,
    thickness: Optional[float] = None,
    dynamic: bool = False,
    time: Optional[float] = None,
    fem_mass: Optional[str] = None,
    rayleigh: Optional[Tuple[float, float]] = None,
    split: Optional[str] = None,
) -> FitResult:
    """Fits ``model``'s parameters so that its rest state matches the FEM reference of the material
    (``young`` in Pa, ``poisson``), as ``pbdfit fit`` does: every option of the command line is a keyword
    here under its Python name (``--max-seconds`` is ``max_seconds``; a test checks the two lists), and the
    result is the command line's JSON report (:class:`FitResult`). ``search`` (default ``None``: ``pbdfit
    fit``'s default, ``"gradient"``): ``"gradient"``, a coarse grid, then Levenberg-Marquardt on the rest
    state's sensitivity from each basin; ``"pattern"``, the thesis's fine grid and compass search
    (``min_step`` of each axis's width). ``box`` overrides parameter boxes (``{"kd": (0, 0.5)}``;
    ``unbounded=True`` lets PBD's stiffness above 1). ``starts``: further starts of the gradient search, each
    every parameter by name (``{"kd": 0.3, "kv": 0.5}`` or a list of them). A fit that spends
    ``max_evaluations`` or ``max_seconds`` returns its best point with ``status == "budget"``. Options left
    ``None`` take the command line's defaults (``pbdfit fit --help``).

    The FEM reference: ``material`` (``linear``, ``corotational``, ``stvk``, ``neo-hookean``; default the
    scene's), ``dynamic`` (implicit Euler with the fit's ``dt``; ``time``, ``fem_mass``, ``rayleigh``
    ``(A, B)``), ``split`` (``same``, ``opposite``, ``six``). The body: ``mass_model`` (``lumped``,
    ``uniform``; default the scene file's, else the engine's own for an engine profile: uniform for
    ``genesis-pbd`` and ``pybullet-neohookean``; else lumped; other masses than the engine's add a warning
    to the report's ``warnings``), ``fix_orientation`` (reorient an imported mesh's inverted tetrahedra),
    ``density`` (kg/m^3) and ``size`` (m, the body's largest extent: the scene's geometry is scaled uniformly
    to it), which replace the scene's (the built-in scenes: a 1 m cube of 1 kg/m^3). ``precision``:
    ``"f64"`` (pbdfit's) or ``"f32"`` (the reference library's own arithmetic, PBD models only).

    ``measured``: a marker CSV or a full-field ``.vtu`` (``pbdfit fit --measured``) to fit instead of the
    FEM reference (default: the scene's ``[reference] measured``, if it names one); ``young``,
    ``poisson`` and the FEM options are then refused. ``bootstrap=K`` refits K replicates of the markers'
    resampled noise (``pbdfit fit --bootstrap K``, same seed): ``bootstrap_95`` holds each parameter's
    2.5 % and 97.5 % quantiles; K is 2 to 10,000, and ``max_seconds`` bounds the fit and its refits
    together. ``settings``: an engine profile's settings by the engine's names (``--setting``)."""
    keywords: Dict[str, Any] = dict(
        scene=_source(scene), young=_number("young", young), poisson=_number("poisson", poisson), model=model,
        dt=_number("dt", dt), n=_count("n", n, 1), nit=_count("nit", nit, 1), box=_box(box),
        grid=_count("grid", grid), min_step=_number("min_step", min_step), search=search,
        max_evaluations=_count("max_evaluations", max_evaluations, 1),
        max_seconds=_number("max_seconds", max_seconds), measured=None if measured is None else os.fspath(measured),
        bootstrap=_count("bootstrap", bootstrap), settings=_settings(settings), unbounded=bool(unbounded),
        starts=_starts(starts), precision=precision, mass_model=mass_model, fix_orientation=bool(fix_orientation),
        density=_number("density", density), size=_number("size", size), thickness=_number("thickness", thickness),
        **_reference_keywords(material, dynamic, time, fem_mass, rayleigh, split),
    )
    return FitResult._from_report(_native.run_job("fit", _json(keywords)))


def _number(name: str, value: Any) -> Optional[float]:
    """A real argument checked here (``None`` stays ``None``): a string or a bool is a TypeError naming it,
    a NaN or an infinity a ValueError naming it and the value (JSON, which carries the keywords to the
    native side, has neither). Ranges are the native side's to check, with the command line's message."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} = {value}: must be a finite number")
    return value


@_job
def identify(
    scene: Union[str, Scene, "os.PathLike[str]"],
    measured: Optional[PathLike] = None,
    material: Optional[str] = None,
    n: Optional[int] = None,
    dt: Optional[float] = None,
    dynamic: bool = False,
    time: Optional[float] = None,
    fem_mass: Optional[str] = None,
    rayleigh: Optional[Tuple[float, float]] = None,
    split: Optional[str] = None,
    density: Optional[float] = None,
    size: Optional[float] = None,
    thickness: Optional[float] = None,
    mass_model: Optional[str] = None,
    fix_orientation: bool = False,
) -> Dict[str, Any]:
    """E and nu of an FEM law (``material``: linear by default) identified from a marker CSV, as
    ``pbdfit identify --json`` reports them (the same object; every option of the command line is a keyword
    here): ``young``, ``poisson``, their 95 % intervals ``young_interval_95`` and ``poisson_interval_95``
    (Gauss-Newton covariance; multiplicative in E; ``None`` for a parameter the markers do not determine,
    which ``undetermined`` names), ``poisson_at_bound`` (the searched range's bound nu lies on, its interval
    then one-sided up to it; else ``None``), ``covariance_ln_young_poisson`` (of ln E and nu; ``None`` where
    singular), ``error``, ``markers``, ``weighting``, ``evaluations``, ``reference``, ``measured``.
    ``measured``: a marker CSV or a full-field ``.vtu``; default: the scene's ``[reference] measured``. A
    dynamic reference: ``dynamic=True`` with the step ``dt``, ``time``, ``fem_mass``, ``rayleigh``. ``density``
    (kg/m^3) replaces the scene's; ``size`` is refused (the markers fix the body's scale); ``mass_model``
    (``lumped``, ``uniform``) replaces the scene's; ``fix_orientation`` reorients an imported mesh's inverted
    tetrahedra."""
    ...


def _reference_keywords(material, dynamic, time, fem_mass, rayleigh, split) -> Dict[str, Any]:
    """The FEM reference's options as the native jobs take them."""
    return dict(
        material=material,
        dynamic=bool(dynamic),
        time=_number("time", time),
        fem_mass=fem_mass,
        rayleigh=None if rayleigh is None else [_number("rayleigh", r) for r in rayleigh],
        split=split,
    )


def _only(only: Any) -> Optional[List[str]]:
    """``only`` as a list of filters (one string is one filter)."""
    if only is None:
        return None
    if isinstance(only, str):
        return [only]
    return [str(f) for f in only]


def study(
    study: PathLike,
    only: Optional[Union[str, Sequence[str]]] = None,
    jobs: Optional[int] = None,
    out: Optional[PathLike] = None,
    poisson_stride: Optional[int] = None,
    material: Optional[str] = None,
    dynamic: bool = False,
    time: Optional[float] = None,
    fem_mass: Optional[str] = None,
    rayleigh: Optional[Tuple[float, float]] = None,
    split: Optional[str] = None,
    precision: Optional[str] = None,
    search: Optional[str] = None,
    lockstep: Optional[int] = None,
    progress: Union[bool, Callable[[int, int, str], Any]] = True,
    client: Any = None,
    retries: int = 3,
) -> Union[Dict[str, Any], List[Dict[str, Any]]]:
    """Runs or resumes the study file ``study`` on ``jobs`` threads (default: all cores), results in ``out``
    (default: ``results/<name>`` next to the file, as the command line). Every option of ``pbdfit study`` is
    a keyword here under its Python name, applied over the file as there: ``only`` (``scene``,
    ``scene/experiment`` or ``*/experiment``, one or a list), ``poisson_stride`` (every k-th nu), the FEM
    reference's ``material``, ``dynamic``, ``time``, ``fem_mass``, ``rayleigh``, ``split``, ``precision``
    (``f64``/``f32``), ``search`` (``gradient``/``pattern``) and ``lockstep`` (run that many fits at once, their
    gradient searches' trial rest states in shared batches: the same rows). Returns the run's summary; a file with
    ``models = [...]`` runs one study per model (results in ``out/<model>``) and returns a list of them.
    Ctrl-C raises ``KeyboardInterrupt`` after the fits in flight are written; calling again resumes.
    ``progress``: True prints a line to stderr every 50 fits and at the end; a callable ``(done, total,
    line)`` is called after each fit is written (one that raises stops the run as Ctrl-C does, and its
    exception is raised).

    With ``client`` (a ``dask.distributed.Client``; ``pip install "pbdfit[dask]"``) the fits run on its
    workers (pbdfit installed there; scene files the study names readable at the same paths) and this
    process writes the same files a local run would (see docs/dask.md); ``retries`` is how often Dask
    reruns a task that raised. The summary adds ``submitted`` (fits sent to the cluster)."""
    keywords: Dict[str, Any] = dict(
        study=os.fspath(study),
        only=_only(only),
        jobs=_count("jobs", jobs, 1),
        out=None if out is None else os.fspath(out),
        poisson_stride=_count("poisson_stride", poisson_stride, 1),
        precision=precision,
        search=search,
        lockstep=_count("lockstep", lockstep, 1),
        **_reference_keywords(material, dynamic, time, fem_mass, rayleigh, split),
    )
    text = _json(keywords)
    if client is not None:
        if jobs is not None:
            raise ValueError("jobs: with a client the fits run on the cluster's worker threads")
        if lockstep is not None:
            raise ValueError("lockstep: with a client each worker runs its fits one by one")
        from . import _dask

        return _dask.build("study", text, client, progress, retries)
    summaries = json.loads(_native.run_job("study", text, progress=progress))
    return summaries[0] if len(summaries) == 1 else summaries


def table(
    file: PathLike,
    out: Optional[PathLike] = None,
    jobs: Optional[int] = None,
    search: Optional[str] = None,
    partial: bool = False,
    lockstep: Optional[int] = None,
    progress: Union[bool, Callable[[int, int, str], Any]] = True,
    client: Any = None,
    retries: int = 3,
) -> Dict[str, Any]:
    """Builds or resumes a stiffness table from its definition ``file`` (``fits/tables/*.toml``) on ``jobs``
    threads (default: all cores), into ``out`` (default: ``<name>/`` next to the file): the files of
    ``pbdfit table`` (the fits' ``<scene>-table.csv``, ``summary.json``, ``table.csv``, ``table.json``), with
    its options: ``search`` over the file's, ``partial`` (fit nothing: write the table from the fits already
    in the folder, the others marked missing), ``lockstep`` (as for :func:`study`). Returns the build's summary (nodes, computed, resumed,
    failed, at_bound, simulated, seconds). Ctrl-C raises ``KeyboardInterrupt`` after the fits in flight are
    written; calling again resumes.

    With ``client`` (a ``dask.distributed.Client``) the fits run on its workers as for :func:`study`;
    leave-one-out and the table files are done here, after the fits."""
    keywords: Dict[str, Any] = dict(
        file=os.fspath(file),
        out=None if out is None else os.fspath(out),
        jobs=_count("jobs", jobs, 1),
        search=search,
        partial=bool(partial),
        lockstep=_count("lockstep", lockstep, 1),
    )
    text = _json(keywords)
    if client is not None:
        if jobs is not None:
            raise ValueError("jobs: with a client the fits run on the cluster's worker threads")
        if lockstep is not None:
            raise ValueError("lockstep: with a client each worker runs its fits one by one")
        from . import _dask

        return _dask.build("table", text, client, progress, retries)
    return json.loads(_native.run_job("table", text, progress=progress))


evaluate = _job_function("evaluate")


@_job
def lookup(
    table: Union[str, PathLike],
    young: float,
    poisson: float,
    dt: float,
    nit: int,
    n: int,
    extrapolate: bool = False,
    refine: bool = False,
    scene: Optional[Union[str, Scene, "os.PathLike[str]"]] = None,
    density: Optional[float] = None,
    size: Optional[float] = None,
    thickness: Optional[float] = None,
) -> Dict[str, Any]:
    """The stiffness table's parameters for a material and setting, as ``pbdfit lookup --json`` gives them
    (the same numbers): ``parameters`` (name, unit, value), the leave-one-out ``estimate`` of the error, the
    cell's ``corners`` and the ``nearest`` node, ``extrapolated`` axes (only with ``extrapolate=True``;
    outside the table's range the call raises ``ValueError`` naming the parameter otherwise). ``table``:
    a built-in table (``"pbd"``, ``"xpbd"``, ``"pbd-full"``, ``"xpbd-full"``) or a table folder. A part-built
    table (``pbd-full``, ``xpbd-full``: nodes not fitted yet) raises ``ValueError`` naming the missing nodes
    where the query's cell needs them (``missing_nodes`` counts a table's missing nodes). ``refine=True``
    adds ``refined``: a short gradient fit started from the looked-up parameters, on the table's scene or on ``scene`` (your part),
    as ``pbdfit lookup --refine [--scene]``; ``density`` and ``size`` give that fit's body (refused without
    ``refine``: a table holds fits of its own body)."""
    ...


@_job
def mapping(
    name: str,
    young: Optional[float] = None,
    poisson: Optional[float] = None,
    dt: Optional[float] = None,
    nit: Optional[int] = None,
    n: Optional[int] = None,
    scene: Optional[Union[str, Scene, "os.PathLike[str]"]] = None,
    density: Optional[float] = None,
    size: Optional[float] = None,
    thickness: Optional[float] = None,
) -> Any:
    """A closed-form mapping's parameters for (E, nu), as ``pbdfit mapping --mapping NAME --json`` (alias
    ``pbdfit baseline``) gives them (the same job): ``model``, ``parameters`` (name, unit, value, in_range),
    ``outside_range``, ``moduli``, the body's ``geometry`` and the mapping's ``description`` and ``source``.
    The mappings are the formulas engines and papers use (Van Gelder springs, bulk-modulus and
    Macklin-Mueller volume compliances, Godot-Jolt's constant, their PBD equivalents, and
    ``xpbd-strain-lame``: the xpbd-strain model's ``1 / (2 mu)``, ``1 / K``; for sheets, Van Gelder's membrane
    springs with Bergou's ``1 / D`` or the discrete shells' hinges, and Godot's rule for ``jolt-cloth``);
    ``mapping("list")`` lists them. ``scene`` (default ``"gravity"``, the tables' unit cube) gives the mesh at
    resolution ``n``; a sheet scene's mappings read its ``thickness`` too, and a mapping refuses the other
    kind of body with ``ValueError``. ``young`` and
    ``poisson`` are required; ``dt`` and ``nit`` only where the formula reads them (``uses_step``: the PBD
    mappings), ``n`` only where it reads the mesh (``uses_mesh``). An unknown name, a missing setting or a
    bad material raises ``ValueError`` with the CLI's message."""
    ...


def _values(name: str, values: Any, check: Any) -> Optional[str]:
    """A list of values to try (or one, or the command line's comma-separated text) as that text."""
    if values is None or isinstance(values, str):
        return values
    if not isinstance(values, (list, tuple)):
        values = [values]
    return ",".join(repr(check(f"{name}[{i}]", v)) for i, v in enumerate(values))


def settings(
    scene: Union[str, Scene, "os.PathLike[str]"],
    young: Optional[float] = None,
    poisson: Optional[float] = None,
    model: Optional[str] = None,
    settings: Optional[Mapping[str, float]] = None,
    target: Optional[float] = None,
    target_rms: Optional[Union[str, float]] = None,
    dt: Optional[Union[str, float, List[float]]] = None,
    nit: Optional[Union[str, int, List[int]]] = None,
    n: Optional[int] = None,
    mass_model: Optional[str] = None,
    fix_orientation: bool = False,
    density: Optional[float] = None,
    size: Optional[float] = None,
    thickness: Optional[float] = None,
    material: Optional[str] = None,
    dynamic: bool = False,
    time: Optional[float] = None,
    fem_mass: Optional[str] = None,
    rayleigh: Optional[Tuple[float, float]] = None,
    split: Optional[str] = None,
) -> Dict[str, Any]:
    """The cheapest engine settings (time step ``dt`` and iterations or substeps ``nit``) at which ``model``
    (default ``jolt``) reaches the FEM of the material within ``target`` (a mean squared relative error,
    default 0.05) or ``target_rms`` (a percentage), as ``pbdfit settings --json`` reports them (the same job):
    ``rows`` (every setting's fit, cheapest first), ``cheapest``, ``best``, ``settings_matter``. ``dt`` and
    ``nit``: the values to try, a list (``[1/30, 1/60]``) or the command line's text (``"1/30,1/60"``);
    default the command line's. The body and the FEM reference's keywords are :func:`fit`'s."""
    keywords: Dict[str, Any] = dict(
        scene=_source(scene), young=_number("young", young), poisson=_number("poisson", poisson), model=model,
        settings=_settings(settings), target=_number("target", target),
        target_rms=None if target_rms is None else str(target_rms), dt=_values("dt", dt, _number),
        nit=_values("nit", nit, lambda name, v: _count(name, v, 1)), n=_count("n", n, 1), mass_model=mass_model,
        fix_orientation=bool(fix_orientation), density=_number("density", density), size=_number("size", size),
        thickness=_number("thickness", thickness),
        **_reference_keywords(material, dynamic, time, fem_mass, rayleigh, split),
    )
    return json.loads(_native.run_job("settings", _json(keywords)))


def read_results(path: PathLike) -> Any:
    """Every fit of a results folder (or one CSV file): a pandas DataFrame when pandas is installed, else
    a dict of numpy columns. Parameter columns are named by the model (``kd``, ``alpha_d``, ...)."""
    columns = {k: np.asarray(v) for k, v in _native.read_results(os.fspath(path)).items()}
    try:
        import pandas
    except ImportError:
        return columns
    return pandas.DataFrame(columns)
