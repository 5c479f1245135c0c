"""What the engine checks share (``test_engines.py``, ``test_pybullet.py``): whether an engine's package is
there, and where its scripts are.

``PBDFIT_ENGINE_CHECKS`` (comma-separated package names; CI sets ``newton,pybullet,pypbd,mujoco``) makes a missing
package a failure; elsewhere its check is skipped with the reason printed (``pytest -rs``).
"""

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def require_engine(package: str, check: str) -> None:
    """Skips the calling test module when ``package`` is not importable, unless ``PBDFIT_ENGINE_CHECKS``
    names it (then raises); puts ``benchmarks/engines`` on the import path for the engine's scripts."""
    if importlib.util.find_spec(package) is None:
        if package in os.environ.get("PBDFIT_ENGINE_CHECKS", "").split(","):
            raise RuntimeError(f"PBDFIT_ENGINE_CHECKS names {package}, but `import {package}` fails: pip install {package}")
        pytest.skip(f"{package} is not installed (pip install {package}); the {check} check needs it",
                    allow_module_level=True)
    sys.path.insert(0, str(ROOT / "benchmarks" / "engines"))
