"""Fit PBD's stiffness to a material, then map the error over (kd, kv) around the fit.

Run from anywhere after `pip install ./python` (add matplotlib for the picture):

    python python/examples/fit_material.py --young 1e3 --poisson 0.3 --out error-surface.png
"""

import argparse

import numpy as np

import pbdfit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scene", default="gravity-floor")
    parser.add_argument("--young", type=float, default=1e3, help="Young's modulus in Pa")
    parser.add_argument("--poisson", type=float, default=0.3)
    parser.add_argument("--dt", type=float, default=0.01, help="time step in s")
    parser.add_argument("--nit", type=int, default=1)
    parser.add_argument("--points", type=int, default=21, help="surface points per axis")
    parser.add_argument("--out", default="error-surface.png")
    args = parser.parse_args()

    best = pbdfit.fit(args.scene, args.young, args.poisson, dt=args.dt, nit=args.nit)
    kd, kv = best.parameters["kd"], best.parameters["kv"]
    print(f"{args.scene}, E = {args.young:g} Pa, nu = {args.poisson}: kd = {kd:.4f}, kv = {kv:.4f}, "
          f"error = {best.error:.4g} ({best.reference} reference)")

    # The error surface: the rest state at each (kd, kv) against the FEM, with the fit's error metric
    # (mean squared relative displacement error over the vertices the FEM moves).
    u_fem = pbdfit.fem(args.scene, young=args.young, poisson=args.poisson)
    moved = np.linalg.norm(u_fem, axis=1) > 0
    kds = np.linspace(max(kd - 0.1, 0.01), min(kd + 0.1, 1.0), args.points)
    kvs = np.linspace(0.0, 1.0, args.points)
    error = np.empty((len(kvs), len(kds)))
    for i, v in enumerate(kvs):
        for j, d in enumerate(kds):
            rest = pbdfit.simulate(args.scene, dt=args.dt, nit=args.nit, kd=float(d), kv=float(v))
            diff = np.linalg.norm(rest.displacements - u_fem, axis=1)[moved]
            error[i, j] = np.mean((diff / np.linalg.norm(u_fem, axis=1)[moved]) ** 2)
    print(f"surface: {error.size} rest states, error from {error.min():.4g} to {error.max():.4g}")

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no picture (pip install matplotlib)")
        return
    fig, ax = plt.subplots(figsize=(6, 4.5))
    image = ax.contourf(kds, kvs, np.log10(error), levels=30)
    ax.plot([kd], [kv], "r+", markersize=14, label=f"fit: error {best.error:.3g}")
    ax.set_xlabel("kd")
    ax.set_ylabel("kv")
    ax.set_title(f"{args.scene}: log10 error, E = {args.young:g} Pa, nu = {args.poisson}")
    fig.colorbar(image, ax=ax)
    ax.legend()
    fig.savefig(args.out, dpi=120, bbox_inches="tight")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
