#!/usr/bin/env python3
"""Writes the tetrahedral mesh Genesis builds for a PBD elastic box, as a Gmsh 2.2 ASCII file.

Run it with a Python that has genesis-world 1.4.5 installed (e.g. /tmp/venv-genesis/bin/python):

    python benchmarks/engines/genesis_export_mesh.py [--particle-size 0.25] [--out scenes/meshes/genesis-box.msh]

Genesis makes a PBD body's particles itself: it remeshes the morph's surface (pymeshlab isotropic explicit
remeshing, target edge length = PBDOptions.particle_size) and tetrahedralises it with TetGen (switches
"pq1.1/10Y" from the morph's defaults); the particles are TetGen's vertices (the remeshed surface's first,
then the interior Steiner points). This script builds `gs.morphs.Box(pos=(0.5, 0.5, 0.5), size=(1, 1, 1))`
(the unit cube in the positive octant) as a `gs.materials.PBD.Elastic` entity on the CPU backend in float64,
and writes Genesis's own particles (`entity.init_particles`) and tetrahedra (`entity._elems`) unchanged:
nodes in Genesis's particle order (node i + 1 = particle i), element type 4 (4-node tetrahedron), every
tetrahedron checked positively oriented (det[x1 - x0, x2 - x0, x3 - x0] > 0; one that is not has its last two
vertices swapped and the count is printed). Coordinates are written with 17 significant digits, so the
float64 values read back bit for bit.

It prints a JSON summary on stdout: particle and tetrahedron counts, the mass Genesis gives each particle
(rho x the Box's volume / particle count, rho = 1), the tetrahedra's total volume, the shortest edge, and
the vertex counts on the faces x, y, z = 0 and 1 (what a plane selector will hold). The remesh is cached by
Genesis under ~/.cache/genesis/rm; TetGen is deterministic, so a rerun writes the same file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "..", "scenes", "meshes", "genesis-box.msh"))


def write_msh22(path: str, X: np.ndarray, T: np.ndarray, header: str) -> None:
    with open(path, "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n")
        f.write("$Comments\n" + header.rstrip("\n") + "\n$EndComments\n")
        f.write(f"$Nodes\n{len(X)}\n")
        for i, p in enumerate(X):
            f.write(f"{i + 1} {float(p[0])!r} {float(p[1])!r} {float(p[2])!r}\n")
        f.write("$EndNodes\n")
        f.write(f"$Elements\n{len(T)}\n")
        for e, t in enumerate(T):
            # elm-number elm-type(4 = tetrahedron) number-of-tags physical-tag elementary-tag node-list
            f.write(f"{e + 1} 4 2 1 1 {t[0] + 1} {t[1] + 1} {t[2] + 1} {t[3] + 1}\n")
        f.write("$EndElements\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--particle-size", type=float, default=0.25,
                    help="PBDOptions.particle_size: Genesis's remesh target edge length (m); default 0.25")
    ap.add_argument("--out", default=DEFAULT_OUT, help="the .msh file to write")
    args = ap.parse_args()

    # Genesis prints a banner on sys.stdout and TetGen its statistics on file descriptor 1: send both to
    # stderr while Genesis runs, so stdout carries only the JSON summary.
    sys.stdout.flush()
    saved_fd = os.dup(1)
    os.dup2(2, 1)
    stdout = sys.stdout
    sys.stdout = sys.stderr
    import genesis as gs

    gs.init(backend=gs.cpu, precision="64", logging_level="warning")
    scene = gs.Scene(
        sim_options=gs.options.SimOptions(dt=1e-2, substeps=1),
        pbd_options=gs.options.PBDOptions(particle_size=args.particle_size),
        show_viewer=False,
    )
    ent = scene.add_entity(material=gs.materials.PBD.Elastic(rho=1.0),
                           morph=gs.morphs.Box(pos=(0.5, 0.5, 0.5), size=(1.0, 1.0, 1.0)))
    scene.build()
    X = np.asarray(ent.init_particles, dtype=np.float64)
    T = np.asarray(ent._elems, dtype=np.int64).copy()
    mass = ent.solver.particles_info.mass.to_numpy().astype(np.float64)[: len(X)]
    sys.stderr.flush()
    os.dup2(saved_fd, 1)
    os.close(saved_fd)
    sys.stdout = stdout

    P = X[T]
    vol = np.linalg.det(P[:, 1:] - P[:, :1]) / 6.0
    flipped = int((vol < 0).sum())
    T[vol < 0] = T[vol < 0][:, [0, 1, 3, 2]]
    P = X[T]
    vol = np.linalg.det(P[:, 1:] - P[:, :1]) / 6.0
    assert np.all(vol > 0.0), "degenerate tetrahedron in Genesis's mesh"
    used = np.unique(T)
    assert len(used) == len(X), "Genesis's mesh has unused particles"
    edges = np.unique(np.sort(np.concatenate([T[:, [a, b]] for a in range(4) for b in range(a + 1, 4)]), axis=1), axis=0)
    lengths = np.linalg.norm(X[edges[:, 0]] - X[edges[:, 1]], axis=1)

    header = (
        f"Genesis {gs.__version__} PBD elastic mesh of gs.morphs.Box(pos=(0.5, 0.5, 0.5), size=(1, 1, 1)), "
        f"particle_size {args.particle_size!r}: pymeshlab remesh + TetGen 'pq1.1/10Y', float64; "
        f"written by benchmarks/engines/genesis_export_mesh.py. Node i+1 = Genesis particle i."
    )
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    write_msh22(args.out, X, T, header)

    on = lambda axis, value: int((np.abs(X[:, axis] - value) <= 1e-9).sum())
    summary = {
        "genesis_version": gs.__version__,
        "out": args.out,
        "particle_size": args.particle_size,
        "particles": len(X),
        "tets": len(T),
        "edges": len(edges),
        "flipped_to_positive": flipped,
        "particle_mass_genesis": float(mass[0]),
        "particle_mass_uniform": bool(np.all(mass == mass[0])),
        "tet_volume": float(vol.sum()),
        "min_tet_volume": float(vol.min()),
        "edge_length_min_median_max": [float(lengths.min()), float(np.median(lengths)), float(lengths.max())],
        "bbox": [X.min(0).tolist(), X.max(0).tolist()],
        "face_vertices": {f"{'xyz'[a]} = {v}": on(a, v) for a in range(3) for v in (0, 1)},
    }
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
