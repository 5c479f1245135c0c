"""Type stubs of the extension module behind ``pbdfit`` (use the ``pbdfit`` package, not this module)."""

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

__version__: str

def scenes() -> List[str]: ...
def scene_bodies(scene: str, n: Optional[int] = None) -> Tuple[bool, List[Dict[str, Any]]]: ...
def fem(
    scene: str,
    n: Optional[int] = None,
    young: float = 1e3,
    poisson: float = 0.3,
    material: Optional[str] = None,
    dynamic: bool = False,
    time: Optional[float] = None,
    dt: float = 0.01,
    split: Optional[str] = None,
) -> Tuple[bool, List[Tuple[str, np.ndarray, str]]]: ...
def simulate(
    scene: str,
    model: str = "pbd",
    dt: float = 0.01,
    nit: int = 1,
    n: Optional[int] = None,
    parameters: Dict[str, float] = ...,
) -> List[Dict[str, Any]]: ...
def fit(
    scene: str,
    young: float,
    poisson: float,
    model: str = "pbd",
    dt: float = 0.01,
    n: Optional[int] = None,
    nit: int = 1,
    search_box: Optional[Dict[str, Tuple[float, float]]] = None,
    grid: Optional[int] = None,
    min_step: float = 1e-4,
    material: Optional[str] = None,
    search: Optional[str] = None,
    max_evaluations: int = 400,
    max_seconds: Optional[float] = None,
    measured: Optional[str] = None,
) -> Dict[str, Any]: ...
def study(
    path: str,
    jobs: Optional[int] = None,
    progress: bool = True,
    out: Optional[str] = None,
    _interrupt_after: Optional[int] = None,
) -> Dict[str, Any]: ...
def table(
    path: str,
    jobs: Optional[int] = None,
    progress: bool = True,
    out: Optional[str] = None,
    _interrupt_after: Optional[int] = None,
) -> Dict[str, Any]: ...
def run_task_json(source: str, task: str) -> str: ...

class Driver:
    def __init__(self, kind: str, path: str, out: Optional[str] = None) -> None: ...
    @property
    def source(self) -> str: ...
    @property
    def out(self) -> str: ...
    @property
    def fits(self) -> int: ...
    @property
    def resumed(self) -> int: ...
    @property
    def total(self) -> int: ...
    @property
    def done(self) -> int: ...
    @property
    def notices(self) -> List[str]: ...
    def tasks(self) -> List[str]: ...
    def record(self, outcome: str) -> List[str]: ...
    def finish(self, threads: int) -> Dict[str, Any]: ...
    def close(self) -> None: ...

def read_results(path: str) -> Dict[str, List[Any]]: ...
def lookup(table: str, young: float, poisson: float, dt: float, nit: int, n: int, extrapolate: bool = ..., refine: bool = ..., scene: Optional[str] = ...) -> str: ...
def evaluate(scene: str, young: float, poisson: float, parameters: Dict[str, float], model: str = ..., dt: float = ..., n: Optional[int] = ..., nit: int = ..., material: Optional[str] = ...) -> Dict[str, Any]: ...
def mapping(name: str, young: Optional[float] = ..., poisson: Optional[float] = ..., dt: Optional[float] = ..., nit: Optional[int] = ..., n: Optional[int] = ..., scene: Optional[str] = ...) -> str: ...
def identify(
    scene: str,
    measured: str,
    material: Optional[str] = None,
    n: Optional[int] = None,
    dt: float = 0.01,
) -> Dict[str, Any]: ...
