#!/usr/bin/env python3
"""Rest (static equilibrium) state of a tetrahedral body under Genesis's PBD elastic solver, run by Genesis itself.

Reference script for pbdfit's `genesis-pbd` engine profile. Run it with a Python that has genesis-world 1.4.5
(and torch) installed, e.g. /tmp/venv-genesis/bin/python. It builds a `gs.materials.PBD.Elastic` entity on
exactly the tetrahedral mesh given (Genesis always remeshes and tetrahedralises a morph itself, so the script
replaces `Mesh.remesh` with a no-op and `tetrahedralize_mesh` with a function returning the given vertices
and tetrahedra: the only way in, checked bit for bit), fixes the held particles with `fix_particles` after
`scene.build()`, and steps Genesis on the CPU backend with the particle velocities set to zero before every
step until the step no longer moves the body:

    x_{n+1} = scene.step() from (x_n, v = 0)    until  max_i |x_{n+1,i} - x_{n,i}| <= tol * max_i |x_n,i - X_i|

A step is `substeps` substeps of dt / substeps; the velocity carries over between the substeps of one step.
The fixed point is the dynamics' rest state (at rest v = 0 at the start of every substep), so it is pbdfit's
rest state of the same step; resetting v only removes the undamped oscillation on the way there.

Input: a JSON file given as the first argument, or JSON on stdin:
    {"vertices": [[x,y,z],...], "tets": [[a,b,c,d],...] (positively oriented), "held": [bool,...],
     "gravity": [gx,gy,gz], "dt": the step (s), "substeps": int,
     "stretch_compliance": m/N, "volume_compliance": m^3/N,
     "stretch_relaxation": 0.1, "volume_relaxation": 0.1,                 (defaults: Genesis's)
     "max_stretch_solver_iterations": 4, "max_volume_solver_iterations": 1,  (defaults: Genesis's)
     "density": kg/m^3 (pbdfit's density: the total mass is density x the tetrahedra's volume),
     "max_steps": 100000, "tol": 1e-6,
     "precision": "32" (Genesis's default) or "64",
     "particle_size": optional (default: 1e-3 x the shortest distance between two particles; see below)}

Output (stdout): JSON {"genesis_version", "precision", "steps", "converged", "stop_reason", "particle_mass",
"total_mass", "genesis_rho", "displacements", "max_step_change", "max_abs_displacement", "particle_size",
"particle_size_rule", "min_pair_distance", "self_collision_pairs", "history", ...}.
Exit status 0 = converged; 2 = not converged ("max_steps", "stalled", or "f32_floor": no new smallest step
change for 2000 steps, at a few ulps of the coordinates); 3 = diverged; 1 = bad input or build error.

What is held fixed so that Genesis computes pbdfit's model and nothing else:
- Mass. Genesis gives every particle the same mass, rho x (volume of the morph's surface) / (particle count),
  the held ones too (their inverse mass is 0 through the `free` flag). The morph here is a Box of the mesh's
  bounding box, so rho is set to density x V_tets / V_box: every particle then gets density x V_tets / n,
  which is pbdfit's `--mass-model uniform` (1/n each for the unit cube at density 1). The mass Genesis
  stored is read back from the solver and reported (`particle_mass`, `total_mass`). The mass matters: with
  a non-zero compliance the rest state depends on it, not only on the inverse-mass ratios.
- Self-collision. Genesis runs a particle self-collision pass every substep that cannot be switched off: a
  pair closer than particle_size whose rest distance exceeds it is pushed apart. particle_size (also the
  remesh target, unused here) is set far below the shortest distance between any two particles, so no pair
  can qualify; the output reports the value, the rule, the smallest pair distance at the end and the number
  of pairs the pass holds at particle_size there (`self_collision_pairs`, 0). Pass "particle_size" to see
  Genesis with the pass active: on the genesis-box mesh, particle_size 0.25 (what built that mesh) holds 35
  pairs at 0.25 m (mostly the box's edge segments, exactly 0.25 m at rest, which sqrt(d^2 + EPS) counts as
  farther) and moves the rest state by 15 % of max|u| (benchmarks/engines/README.md).
- The domain. PBDOptions' default lower bound z = 0 is a floor; the bounds are put 1000 body sizes away.
- The spatial hash (only used by self-collision and never changing a value) is given 8^3 cells instead of
  150^3, which only saves time.

--probe-dynamics STEPS then runs Genesis's plain (undamped, no velocity reset) dynamics from the undeformed
body for STEPS steps and reports the distance to the fixed point at checkpoints ("dynamics_probe": "settles"
when the last 100 steps stay within 1e-6 x max|u| of it): whether a simulation actually comes to rest there.

--compare-f64 also computes the fixed point of an independent float64 NumPy rewrite of the same step (the
spec in /tmp/research/genesis-pbd.md, checked against Genesis to 1e-14 m; the same code serves
genesis_check.py) and reports the difference.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np

_STDOUT = sys.stdout  # the JSON result goes here; Genesis's chatter goes to stderr

DEFAULTS = {
    "stretch_relaxation": 0.1,
    "volume_relaxation": 0.1,
    "max_stretch_solver_iterations": 4,
    "max_volume_solver_iterations": 1,
    "stretch_compliance": 0.0,
    "volume_compliance": 0.0,
    "density": 1.0,
    "max_steps": 100000,
    "tol": 1e-6,
    "precision": "32",
    "particle_size": None,
}


def _fail(msg: str, code: int = 1) -> None:
    print(json.dumps({"error": msg}), file=_STDOUT)
    print(f"genesis_rest: {msg}", file=sys.stderr)
    sys.exit(code)


def load_body(path: str | None) -> dict:
    text = open(path).read() if path and path != "-" else sys.stdin.read()
    body = json.loads(text)
    for key in ("vertices", "tets", "held", "gravity", "dt", "substeps"):
        if key not in body:
            _fail(f"missing key {key!r}")
    for k, v in DEFAULTS.items():
        body.setdefault(k, v)
    if len(body["held"]) != len(body["vertices"]):
        _fail("held must have one entry per vertex")
    return body


# ----------------------------------------------------------------------------------------------------------
# Geometry helpers
# ----------------------------------------------------------------------------------------------------------
def tet_volumes(X: np.ndarray, T: np.ndarray) -> np.ndarray:
    P = X[T]
    return np.linalg.det(P[:, 1:] - P[:, :1]) / 6.0


def unique_edges(T: np.ndarray) -> np.ndarray:
    """The unique vertex pairs of the tetrahedra (Genesis builds the same set; its order is a Python set's,
    which only changes the rounding order of the Jacobi sums)."""
    pairs = np.concatenate([T[:, [a, b]] for a in range(4) for b in range(a + 1, 4)])
    pairs.sort(axis=1)
    return np.unique(pairs, axis=0)


def min_pair_distance(X: np.ndarray) -> float:
    d = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    return float(d.min())


# ----------------------------------------------------------------------------------------------------------
# float64 NumPy rewrite of Genesis 1.4.5's PBD elastic substep (pbd_solver.py), without self-collision and
# domain boundary (both inactive in the runs above). Jacobi passes, corrections summed, each times its
# relaxation; the stretch compliance enters as alpha / h^2 with no kept multiplier; the volume correction
# carries Genesis's extra |grad|^2 (w_i = invm_i |g_i|^2 applied to s w_i g_i).
# ----------------------------------------------------------------------------------------------------------
class F64Reference:
    def __init__(self, body: dict, eps: float = 1e-15):
        X = np.asarray(body["vertices"], dtype=np.float64)
        T = np.asarray(body["tets"], dtype=np.int64)
        held = np.asarray(body["held"], dtype=bool)
        n = len(X)
        self.X, self.T = X, T
        self.free = ~held
        mass = float(body["density"]) * tet_volumes(X, T).sum() / n  # uniform, as in Genesis (and pbdfit)
        self.mass = mass
        self.w = np.where(held, 0.0, 1.0 / mass)
        self.E = unique_edges(T)
        self.l0 = np.linalg.norm(X[self.E[:, 0]] - X[self.E[:, 1]], axis=1)
        self.V0 = tet_volumes(X, T)
        self.h = float(body["dt"]) / int(body["substeps"])
        self.g = np.asarray(body["gravity"], dtype=np.float64)
        self.a_s = float(body["stretch_compliance"]) / self.h**2
        self.a_v = float(body["volume_compliance"]) / self.h**2
        self.r_s = float(body["stretch_relaxation"])
        self.r_v = float(body["volume_relaxation"])
        self.n_s = int(body["max_stretch_solver_iterations"])
        self.n_v = int(body["max_volume_solver_iterations"])
        self.eps = eps

    def solve(self, x: np.ndarray) -> np.ndarray:
        e0, e1 = self.E[:, 0], self.E[:, 1]
        w1, w2 = self.w[e0], self.w[e1]
        f = self.free
        for _ in range(self.n_s):
            nvec = x[e0] - x[e1]
            nn = (nvec * nvec).sum(1)
            C = np.sqrt(nn) - self.l0
            dp = (-C / (w1 + w2 + self.a_s) * self.r_s / np.sqrt(nn + self.eps))[:, None] * nvec
            d = np.zeros_like(x)
            np.add.at(d, e0, dp * w1[:, None])
            np.add.at(d, e1, -dp * w2[:, None])
            x[f] += d[f]
        T = self.T
        for _ in range(self.n_v):
            p1, p2, p3, p4 = (x[T[:, c]] for c in range(4))
            G = [np.cross(p4 - p2, p3 - p2) / 6.0, np.cross(p3 - p1, p4 - p1) / 6.0,
                 np.cross(p4 - p1, p2 - p1) / 6.0, np.cross(p2 - p1, p3 - p1) / 6.0]
            W = [self.w[T[:, c]] * (G[c] * G[c]).sum(1) for c in range(4)]
            Ws = W[0] + W[1] + W[2] + W[3]
            vol = (np.cross(p2 - p1, p3 - p1) * (p4 - p1)).sum(1) / 6.0
            ok = Ws > 0.0
            s = np.where(ok, -(vol - self.V0) / np.where(ok, Ws + self.a_v, 1.0) * self.r_v, 0.0)
            d = np.zeros_like(x)
            for c in range(4):
                np.add.at(d, T[:, c], (s * W[c])[:, None] * G[c])
            x[f] += d[f]
        return x

    def substep(self, x: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ipos = x.copy()
        v = v.copy()
        v[self.free] += self.g * self.h
        x = self.solve(x + v * self.h)
        return x, (x - ipos) / self.h

    def rest_map(self, x: np.ndarray) -> np.ndarray:
        """One substep from zero velocity: its fixed point is the rest state."""
        return self.substep(x, np.zeros_like(x))[0]

    def rest_state(self, tol: float = 1e-14, max_newton: int = 60) -> dict:
        """Fixed point of rest_map by Newton's method with a finite-difference Jacobian (the residual is
        exact, so the answer is exact to rounding whatever the Jacobian's error)."""
        f = self.free
        fi = np.nonzero(f)[0]
        x = self.X.copy()
        for _ in range(50):
            x = self.rest_map(x)
        m = 3 * len(fi)
        res = math.inf
        for it in range(max_newton):
            base = self.rest_map(x)
            r = (base - x)[f].ravel()
            res = float(np.abs(r).max()) if m else 0.0
            if res <= tol:
                return {"x": x, "newton_iterations": it, "residual": res, "converged": True}
            J = np.empty((m, m))
            hfd = 1e-7
            for k in range(m):
                xp = x.copy()
                xp[fi[k // 3], k % 3] += hfd
                J[:, k] = (self.rest_map(xp)[f].ravel() - base[f].ravel()) / hfd
            J -= np.eye(m)
            x = x.copy()
            x[f] += np.linalg.solve(J, -r).reshape(-1, 3)
        return {"x": x, "newton_iterations": max_newton, "residual": res, "converged": False}


# ----------------------------------------------------------------------------------------------------------
# The stepping loop
# ----------------------------------------------------------------------------------------------------------
def fixed_point(step_fn, X: np.ndarray, max_steps: int, tol: float, eps: float, growth_check: bool = True) -> dict:
    x = X.copy()
    best, since_best, change = math.inf, 0, math.inf
    history = []
    changes = []
    scale = max(1.0, float(np.max(np.abs(X)))) if X.size else 1.0
    floor = 8.0 * eps * scale
    for n in range(1, max_steps + 1):
        x_new = step_fn()
        if not np.all(np.isfinite(x_new)):
            return dict(steps=n, converged=False, stop_reason="diverged_nonfinite", x=x, change=math.nan, history=history)
        change = float(np.max(np.abs(x_new - x)))
        changes.append(change)
        x = x_new
        u_max = float(np.max(np.abs(x - X)))
        if n <= 10 or n % 100 == 0:
            history.append([n, change, u_max])
        if change <= tol * u_max or change == 0.0:
            history.append([n, change, u_max])
            return dict(steps=n, converged=True, stop_reason="tol", x=x, change=change, history=history, **_rate(changes))
        if change < best:
            best, since_best = change, 0
        else:
            since_best += 1
        # (undamped dynamics swing through small step changes at their turning points: no growth check there)
        if growth_check and n > 20 and change > 50.0 * best and change > floor:
            return dict(steps=n, converged=False, stop_reason="diverged_growing", x=x, change=change, history=history)
        if since_best > 2000:
            reason = "f32_floor" if best <= floor else "stalled"
            return dict(steps=n, converged=False, stop_reason=reason, x=x, change=change, history=history,
                        best_change=best, floor=floor, **_rate(changes))
    return dict(steps=max_steps, converged=False, stop_reason="max_steps", x=x, change=change, history=history,
                **_rate(changes))


def _rate(changes: list) -> dict:
    """Contraction rate per step from the last 100 step changes and the implied distance to the fixed point
    (geometric tail, change r / (1 - r))."""
    k = min(100, len(changes) - 1)
    if k < 10 or changes[-1 - k] <= 0.0 or changes[-1] <= 0.0:
        return {}
    r = (changes[-1] / changes[-1 - k]) ** (1.0 / k)
    return {"rate": r, "est_error": changes[-1] * r / (1.0 - r) if r < 1.0 else math.inf}


def run_genesis(body: dict, precision: str, reset_velocity: bool = True, probe_steps: int = 0) -> dict:
    X = np.asarray(body["vertices"], dtype=np.float64)
    T = np.asarray(body["tets"], dtype=np.int64)
    held = np.asarray(body["held"], dtype=bool)
    n, m = len(X), len(T)
    vols = tet_volumes(X, T)
    if np.any(vols <= 0.0):
        _fail(f"{int((vols <= 0).sum())} tetrahedra are not positively oriented")
    shortest = min_pair_distance(X)
    if body["particle_size"] is None:
        ps = 1e-3 * shortest
        ps_rule = "1e-3 x the shortest distance between two particles (%.6g m)" % shortest
    else:
        ps = float(body["particle_size"])
        ps_rule = "given"

    sys.stdout = sys.stderr  # Genesis prints its banner on stdout
    import torch
    import genesis as gs

    gs.init(backend=gs.cpu, precision=precision, logging_level="warning")
    import genesis.engine.mesh as gm
    import genesis.utils.mesh as mu

    # Genesis always remeshes the morph's surface and runs TetGen on it; hand it this mesh instead.
    gm.Mesh.remesh = lambda self, *a, **k: None
    mu.tetrahedralize_mesh = lambda mesh, cfg: (X.copy(), T.astype(np.int32))

    lo, hi = X.min(0), X.max(0)
    size = np.maximum(hi - lo, 1e-9)
    v_box = float(np.prod(size))
    v_tets = float(vols.sum())
    rho = float(body["density"]) * v_tets / v_box  # -> particle mass = density * V_tets / n (pbdfit uniform)
    far = 1000.0 * float(size.max())
    cell = 1.25 * ps
    scene = gs.Scene(
        sim_options=gs.options.SimOptions(dt=float(body["dt"]), substeps=int(body["substeps"]),
                                          gravity=tuple(float(g) for g in body["gravity"])),
        pbd_options=gs.options.PBDOptions(
            particle_size=ps,
            lower_bound=tuple(float(a) for a in lo - far),
            upper_bound=tuple(float(a) for a in hi + far),
            hash_grid_res=(8 * cell, 8 * cell, 8 * cell),
            max_stretch_solver_iterations=int(body["max_stretch_solver_iterations"]),
            max_volume_solver_iterations=int(body["max_volume_solver_iterations"]),
        ),
        show_viewer=False,
    )
    material = gs.materials.PBD.Elastic(
        rho=rho,
        stretch_compliance=float(body["stretch_compliance"]),
        stretch_relaxation=float(body["stretch_relaxation"]),
        volume_compliance=float(body["volume_compliance"]),
        volume_relaxation=float(body["volume_relaxation"]),
    )
    ent = scene.add_entity(material=material, morph=gs.morphs.Box(pos=tuple((lo + hi) / 2.0), size=tuple(size)))
    scene.build()

    X0 = np.asarray(ent.init_particles, dtype=np.float64)  # the rest positions as Genesis stores them
    elems = np.asarray(ent._elems)
    if X0.shape != X.shape or not np.array_equal(elems, T):
        _fail("Genesis did not take the given mesh")
    if np.abs(X0 - X).max() > 1e-6 * max(1.0, float(np.abs(X).max())):
        _fail("Genesis's particles differ from the given vertices")
    n_edges = len(ent.edges)
    if n_edges != len(unique_edges(T)):
        _fail(f"Genesis has {n_edges} edges, expected {len(unique_edges(T))}")
    solver = ent.solver
    mass = solver.particles_info.mass.to_numpy().astype(np.float64)[:n]
    held_idx = np.nonzero(held)[0]
    if len(held_idx):
        ent.fix_particles(held_idx)
    zeros = torch.zeros((n, 3), dtype=gs.tc_float)

    def step() -> np.ndarray:
        if reset_velocity:
            ent.set_particles_vel(zeros)
        scene.step()
        return ent.get_particles_pos().cpu().numpy().astype(np.float64)

    eps = float(np.finfo(np.float32 if precision == "32" else np.float64).eps)
    res = fixed_point(step, X0, int(body["max_steps"]), float(body["tol"]), eps, growth_check=reset_velocity)
    x = res["x"]
    # distances as the self-collision pass measures them: sqrt(|d|^2 + gs.EPS), so a pair whose rest distance
    # equals particle_size counts as farther apart than it
    d_rest = np.sqrt(((X0[:, None] - X0[None]) ** 2).sum(-1) + float(gs.EPS))
    d_now = np.sqrt(((x[:, None] - x[None]) ** 2).sum(-1))
    np.fill_diagonal(d_now, np.inf)
    d_now_eps = np.sqrt(d_now**2 + float(gs.EPS))
    out = {
        "genesis_version": gs.__version__,
        "precision": precision,
        "backend": "cpu",
        "steps": res["steps"],
        "converged": res["converged"],
        "stop_reason": res["stop_reason"],
        "particle_mass": float(mass[0]),
        "particle_mass_uniform": bool(np.all(mass == mass[0])),
        "total_mass": float(mass.sum()),
        "genesis_rho": rho,
        "tet_volume": v_tets,
        "displacements": (x - X0).tolist(),
        "max_step_change": res["change"],
        "max_abs_displacement": float(np.max(np.abs(x - X0))),
        "particle_size": ps,
        "particle_size_rule": ps_rule,
        "min_pair_distance": float(d_now.min()),
        # pairs the self-collision pass acts on: closer than particle_size with a rest distance above it (the
        # pass pushes them back to particle_size, so at rest they sit there: counted within 1e-6 of it)
        "self_collision_pairs": int(((d_now_eps < ps * (1.0 + 1e-6)) & (d_rest > ps)).sum()) // 2,
        "n_particles": n,
        "n_tets": m,
        "n_edges": n_edges,
        "n_held": int(len(held_idx)),
        "dt": float(body["dt"]),
        "substeps": int(body["substeps"]),
        "substep_dt": float(solver.substep_dt),
        "stretch_compliance": float(body["stretch_compliance"]),
        "volume_compliance": float(body["volume_compliance"]),
        "stretch_relaxation": float(body["stretch_relaxation"]),
        "volume_relaxation": float(body["volume_relaxation"]),
        "max_stretch_solver_iterations": int(body["max_stretch_solver_iterations"]),
        "max_volume_solver_iterations": int(body["max_volume_solver_iterations"]),
        "velocity_reset_each_step": reset_velocity,
        "tol": float(body["tol"]),
        "history": res["history"],
    }
    for k in ("best_change", "floor", "rate", "est_error"):
        if k in res:
            out[k] = res[k]
    if probe_steps > 0:
        out["dynamics_probe"] = probe_dynamics(ent, scene, X0, x, probe_steps, torch, gs)
    sys.stdout = _STDOUT
    return out


def probe_dynamics(ent, scene, X0: np.ndarray, x_rest: np.ndarray, steps: int, torch, gs) -> dict:
    """Genesis's own undamped dynamics from the undeformed body at rest (a plain simulation: no velocity
    reset), with the distance max_i |x_i - x*_i| to the fixed point x* found above at checkpoints: it decays
    where the simulation settles at x*, and grows or stalls where x* repels."""
    ent.set_particles_pos(torch.tensor(X0, dtype=gs.tc_float))  # also zeroes the velocities
    u_max = float(np.linalg.norm(x_rest - X0, axis=1).max())
    marks = {1, 10, 100, 1000, 2000, 5000, steps} | {k for k in range(0, steps + 1, max(1, steps // 20))}
    trace, window = [], 0.0
    for k in range(1, steps + 1):
        scene.step()
        x = ent.get_particles_pos().cpu().numpy().astype(np.float64)
        d = float(np.linalg.norm(x - x_rest, axis=1).max())
        if not np.isfinite(d):
            trace.append([k, d])
            break
        window = max(window, d) if k > steps - 100 else window
        if k in marks:
            trace.append([k, d])
    return {"steps": steps, "distance": trace, "last_100_max": window,
            "settles": bool(np.isfinite(window) and window <= 1e-6 * u_max)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("body", nargs="?", help="JSON body file (default: stdin)")
    ap.add_argument("--precision", choices=["32", "64"], help="Genesis's precision (default: the body's, else 32)")
    ap.add_argument("--compare-f64", action="store_true", help="also the float64 NumPy rewrite's fixed point")
    ap.add_argument("--no-velocity-reset", action="store_true",
                    help="step the undamped dynamics as they are (slower to settle, same fixed point)")
    ap.add_argument("--probe-dynamics", type=int, default=0, metavar="STEPS",
                    help="then run Genesis's undamped dynamics from the undeformed body for STEPS steps and "
                         "report how far they stay from the fixed point (does a plain simulation settle there?)")
    args = ap.parse_args()
    body = load_body(args.body)
    precision = args.precision or str(body["precision"])
    out = run_genesis(body, precision, reset_velocity=not args.no_velocity_reset, probe_steps=args.probe_dynamics)
    if args.compare_f64:
        ref = F64Reference(body)
        r = ref.rest_state()
        u_ref = r["x"] - ref.X
        u_gen = np.asarray(out["displacements"])
        diff = float(np.abs(u_ref - u_gen).max())
        out["f64"] = {
            "converged": r["converged"],
            "newton_iterations": r["newton_iterations"],
            "residual": r["residual"],
            "particle_mass": ref.mass,
            "displacements": u_ref.tolist(),
            "rest_max_abs_diff_vs_genesis": diff,
            "rest_rel_diff_vs_genesis": diff / max(float(np.abs(u_ref).max()), 1e-300),
        }
    print(json.dumps(out), file=_STDOUT)
    if out["converged"]:
        sys.exit(0)
    print(f"genesis_rest: not converged: {out['stop_reason']} after {out['steps']} steps, "
          f"last step change {out['max_step_change']:.3e}", file=sys.stderr)
    sys.exit(3 if out["stop_reason"].startswith("diverged") else 2)


if __name__ == "__main__":
    main()
