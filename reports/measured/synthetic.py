"""What the scripts of ``reports/measured/`` share: the command line to call, and synthetic markers.

``markers_csv`` draws ``count`` markers at random points of random tetrahedra of an FEM field (numpy's
generator seeded with ``seed``; barycentric weights uniform in [0.05, 1.05], normalised), interpolates the
field there, and with ``noise > 0`` adds Gaussian noise of ``noise`` times the largest marker displacement
per component, given as the markers' ``sigma``. Deterministic for a given seed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def cli() -> str:
    """The pbdfit command line: ``PBDFIT_CLI``, else the release build."""
    for c in [os.environ.get("PBDFIT_CLI"), str(ROOT / "target" / "release" / "pbdfit")]:
        if c and Path(c).is_file():
            return c
    sys.exit("no pbdfit binary: cargo build --release -p pbdfit, or set PBDFIT_CLI")


def run(*args: str) -> dict:
    """``pbdfit ARGS --json`` from the repository root, parsed; its stderr in the error where it fails."""
    out = subprocess.run([cli(), *args, "--json"], capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"pbdfit {' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def markers_csv(field: dict, count: int, seed: int, noise: float) -> str:
    """Marker CSV text for ``field`` (``pbdfit fem --json``: vertices, displacements, tets)."""
    rng = np.random.default_rng(seed)
    x = np.array(field["vertices"])
    u = np.array(field["displacements"])
    tets = np.array(field["tets"])
    chosen = []
    for _ in range(count):
        t = tets[rng.integers(len(tets))]
        w = rng.random(4) + 0.05
        w /= w.sum()
        chosen.append((w @ x[t], w @ u[t]))
    sigma = noise * max(np.linalg.norm(d) for _, d in chosen)
    rows = ["x,y,z,ux,uy,uz" + (",sigma" if noise > 0 else "")]
    for p, d in chosen:
        if noise > 0:
            d = d + rng.normal(0.0, sigma, 3)
        rows.append(",".join(repr(float(v)) for v in [*p, *d, *([sigma] if noise > 0 else [])]))
    return "\n".join(rows) + "\n"
