#!/usr/bin/env python3
"""Jolt's `CreateConstraints` on small triangle meshes: the constraint counts Jolt itself makes, against those
of pbdfit's port (`crates/pbdfit-pbd/src/engines/jolt_faces.rs`, whose unit tests assert the same counts).

Cases: a 2 x 2 grid of unit quads, each split along its (i, j)-(i+1, j+1) diagonal (vertex i + 3 j at (i, j, 0)),
with each bend type, and with its bottom row kinematic; and two triangles [0, 2, 3], [1, 3, 2] whose shared
edge (2, 3) is the last of Jolt's sorted edge list, which Jolt's walk creates twice.

Usage: python3 benchmarks/engines/jolt_faces.py [--jolt-rest PATH] [--out DIR]
Writes DIR/jolt_faces.txt (DIR: benchmarks/engines/results). Exit status 0 when every count agrees.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def grid():
    v = lambda i, j: i + 3 * j
    faces = []
    for j in range(2):
        for i in range(2):
            a, b, c, d = v(i, j), v(i + 1, j), v(i + 1, j + 1), v(i, j + 1)
            faces += [[a, b, c], [a, c, d]]
    return [[k % 3, k // 3, 0.0] for k in range(9)], faces


# (name, vertices, faces, held, bend type, expected (edges, dihedral) from jolt_faces.rs's tests)
GRID_V, GRID_F = grid()
CASES = [
    ("grid 2x2, distance", GRID_V, GRID_F, [False] * 9, "distance", (24, 0)),
    ("grid 2x2, dihedral", GRID_V, GRID_F, [False] * 9, "dihedral", (20, 8)),
    ("grid 2x2, none", GRID_V, GRID_F, [False] * 9, "none", (20, 0)),
    ("grid 2x2, distance, bottom row held", GRID_V, GRID_F, [k < 3 for k in range(9)], "distance", (22, 0)),
    ("two faces, last edge shared", [[0, 0, 0], [2, 1, 0], [1, 0, 0], [1, 1, 0]], [[0, 2, 3], [1, 3, 2]],
     [False] * 4, "none", (6, 0)),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jolt-rest", default=os.environ.get("JOLT_REST", "/tmp/jolt-target/release/jolt_rest"))
    ap.add_argument("--out", default=str(HERE / "results"))
    args = ap.parse_args()
    if not os.access(args.jolt_rest, os.X_OK):
        print(f"jolt_faces: {args.jolt_rest} is not an executable (see benchmarks/engines/README.md)", file=sys.stderr)
        return 2
    lines = ["Jolt's CreateConstraints (crates.io oxijolt, Jolt built from its bundled source) against pbdfit's port",
             f"{'case':40s} {'Jolt edges':>10s} {'dihedral':>8s} {'pbdfit edges':>12s} {'dihedral':>8s}  agree"]
    ok = True
    version = None
    for name, vertices, faces, held, bend, expected in CASES:
        body = {"vertices": vertices, "faces": faces, "held": held, "masses": [1.0] * len(vertices),
                "gravity": [0, -9.81, 0], "dt": 1 / 60, "iterations": 1, "edge_compliance": 1e-3,
                "volume_compliance": 0.0, "shear_compliance": 1e-3, "bend_compliance": 1e-2,
                "create_constraints": bend, "count_only": True}
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(body, f)
            path = f.name
        try:
            res = subprocess.run([args.jolt_rest, path], capture_output=True, text=True)
        finally:
            os.unlink(path)
        if res.returncode != 0:
            print(f"jolt_faces: jolt_rest failed ({res.returncode}): {res.stderr.strip()}", file=sys.stderr)
            return 2
        out = json.loads(res.stdout)
        version = out["jolt_version"]
        got = (out["edge_constraints"], out["dihedral_constraints"])
        agree = got == expected
        ok &= agree
        lines.append(f"{name:40s} {got[0]:10d} {got[1]:8d} {expected[0]:12d} {expected[1]:8d}  {'yes' if agree else 'NO'}")
    lines.insert(1, f"Jolt {version}")
    lines.append("PASS" if ok else "FAIL")
    print("\n".join(lines))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "jolt_faces.txt").write_text("\n".join(lines) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
