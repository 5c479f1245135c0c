"""pbdfit's cloth models against the reference PBD library itself (pypbd 2.2.2), side by side in one run.

Every case of ``benchmarks/cloth_against_library.py`` (a hanging sheet and a clamped strip, every cloth
constraint type the library has, two parameter points each): pbdfit's positions after 50 steps (the
example ``cloth_steps``, which ``cargo test`` builds beside the CLI) within ten times the library's own
rounding floor (its move when its start moves one ulp), and the library's positions equal to the
committed ``benchmarks/cloth/library.txt`` (which the Rust test ``cloth.rs`` compares pbdfit against)
within the same bound, so a library that changed is caught here.

CI installs ``pypbd`` and names it in ``PBDFIT_ENGINE_CHECKS``, which makes a missing ``pypbd`` a failure;
elsewhere the test is skipped with the reason printed (``pytest -rs``; ``engine_checks.py``).
"""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from engine_checks import ROOT, require_engine

require_engine("pypbd", "cloth against the reference library")
sys.path.insert(0, str(ROOT / "benchmarks"))
import cloth_against_library as bench  # noqa: E402


def example():
    cli = Path(os.environ.get("PBDFIT_CLI", ROOT / "target" / "debug" / "pbdfit"))
    path = cli.resolve().parent / "examples" / "cloth_steps"
    assert path.exists(), f"{path} is missing: cargo build -p pbdfit-pbd --example cloth_steps (cargo test builds it)"
    return str(path)


def committed():
    """The committed library positions per (case, model, params, settings)."""
    cases = {}
    lines = (ROOT / "benchmarks" / "cloth" / "library.txt").read_text().splitlines()[1:]
    i = 0
    while i < len(lines):
        _, case, model, params, settings, _floor, n = lines[i].split()
        key = (case, model, tuple(float(p) for p in params.split(",")), "" if settings == "-" else settings)
        cases[key] = np.array([[float(v) for v in line.split()] for line in lines[i + 1:i + 1 + int(n)]])
        i += 1 + int(n)
    return cases


@pytest.mark.parametrize("case,model,params,settings", bench.CASES)
def test_cloth_model_equals_the_library(case, model, params, settings):
    row = bench.compare(example(), case, model, params, settings, rest=False)
    assert row["floor"] > 0
    assert row["difference"] <= 10 * row["floor"], row
    stored = committed()[(case, model, tuple(float(p) for p in params), settings)]
    assert np.abs(stored - row["library"]).max() <= 10 * row["floor"]
