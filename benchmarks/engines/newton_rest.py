#!/usr/bin/env python3
"""Rest (static equilibrium) state of a tetrahedral soft body under NVIDIA Newton's SolverXPBD.

Reference script for pbdfit engine profiles. It builds the body through Newton's public API
(ModelBuilder.add_soft_mesh, zero mass on held vertices), runs SolverXPBD on device "cpu", and
finds the fixed point of Newton's own step with the velocities reset to zero before every step:

    x_{n+1} = step(x_n, v = 0)        until  max_i |x_{n+1,i} - x_{n,i}| <= tol * max_i |x_n,i - X_i|

Input: a JSON file given as the first argument, or JSON on stdin:
    {"vertices": [[x,y,z],...], "tets": [[a,b,c,d],...] (positively oriented),
     "held": [bool,...], "density": float, "gravity": [gx,gy,gz], "dt": float,
     "iterations": int, "k_mu": float, "k_lambda": float, "k_damp": float (default 0),
     "relaxation": float (default: SolverXPBD's soft_body_relaxation default, 0.9),
     "max_steps": int, "tol": float,
     "particle_radius": float (optional, default 0.0; see below),
     "probe_steps": int (optional: after the fixed point, run Newton's own dynamics, velocities kept, this
     many steps from the fixed point nudged by 1e-4 of its largest displacement, and report the nudge's
     growth as "probe": {"steps", "nudge", "final", "growth"}: above 1 the rest state repels)}

Output (stdout): JSON {"newton_version", "warp_version", "steps", "converged", "displacements",
"max_step_change", "stop_reason", "rate"/"est_error" (geometric-tail estimate of the distance to
the fixed point), "particle_mass", "history" [[step, change, max|u|], ...]}.
Exit status 0 = converged; 2 = not converged (stop_reason "max_steps", "stalled": no new smallest step
change for 2000 steps, or "f32_floor": stalled at a few ulps); 3 = diverged (non-finite, or the step change
jumped to > 50x the smallest seen); 1 = bad input / build error (e.g. Newton dropped an inverted tet).
Numbers for a reimplementation to match: Newton f32 vs exact f64 agree to ~2e-5 relative on a unit cube.

Notes
- Newton computes in float32: the fixed point is only defined to f32 precision.  If the step change
  stalls at the f32 noise floor above tol*max|u|, the run is reported as not converged, with
  "stop_reason": "f32_floor" and the floor estimate, so the caller can decide.
- particle_radius defaults to 0.0 so that Newton's particle-particle contact kernel (which runs
  inside the XPBD iteration whenever any particle radius > 0, default radius 0.1) stays off: the
  body is then exactly "particles + tetrahedra".  Pass a radius to see Newton's default behaviour.
- --compare-f64 additionally runs an independent float64 NumPy replica of the same step (the spec in
  /tmp/research/newton-xpbd.md) through the same fixed-point loop and reports the difference.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np


_STDOUT = sys.stdout  # the JSON result goes here; everything else (Warp's chatter) goes to stderr


def _fail(msg: str, code: int = 1) -> None:
    print(json.dumps({"error": msg}), file=_STDOUT)
    print(f"newton_rest: {msg}", file=sys.stderr)
    sys.exit(code)


def _with_defaults(body: dict) -> dict:
    body = dict(body)
    for key in ("vertices", "tets", "held", "density", "gravity", "dt", "iterations", "k_mu", "k_lambda"):
        if key not in body:
            raise ValueError(f"missing key {key!r}")
    body.setdefault("k_damp", 0.0)
    body.setdefault("max_steps", 100000)
    body.setdefault("tol", 1e-6)
    body.setdefault("particle_radius", 0.0)
    if len(body["held"]) != len(body["vertices"]):
        raise ValueError("held must have one entry per vertex")
    return body


def load_body(path: str | None) -> dict:
    text = open(path).read() if path and path != "-" else sys.stdin.read()
    try:
        return _with_defaults(json.loads(text))
    except ValueError as e:
        _fail(str(e))
        raise


# ----------------------------------------------------------------------------------------------
# float64 replica of Newton 1.8 SolverXPBD.step for particles + tetrahedra (velocities in = 0)
# ----------------------------------------------------------------------------------------------
class F64Replica:
    def __init__(self, body: dict, relaxation: float, max_velocity: float = 1e5):
        X = np.asarray(body["vertices"], dtype=np.float64)
        T = np.asarray(body["tets"], dtype=np.int64)
        self.T = T
        Dm = np.stack([X[T[:, 1]] - X[T[:, 0]], X[T[:, 2]] - X[T[:, 0]], X[T[:, 3]] - X[T[:, 0]]], axis=-1)
        vol = np.linalg.det(Dm) / 6.0
        if np.any(vol <= 0.0):
            _fail("f64 replica: non-positive tet volume")
        self.DmInv = np.linalg.inv(Dm)
        mass = np.zeros(len(X))
        for t in range(len(T)):  # add_soft_mesh: density * V / 4 to each corner
            for a in T[t]:
                mass[a] += body["density"] * vol[t] / 4.0
        held = np.asarray(body["held"], dtype=bool)
        mass[held] = 0.0
        self.w = np.divide(1.0, mass, out=np.zeros_like(mass), where=mass != 0.0)
        self.inv_rest_volume = np.linalg.det(self.DmInv) * 6.0
        self.k_mu = float(body["k_mu"])
        self.k_lambda = float(body["k_lambda"])
        self.k_damp = float(body["k_damp"])
        self.g = np.asarray(body["gravity"], dtype=np.float64)
        self.dt = float(body["dt"])
        self.iterations = int(body["iterations"])
        self.relax = float(relaxation)
        self.vmax = max_velocity

    def step(self, x_in: np.ndarray, v_in: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        dt, w, T = self.dt, self.w, self.T
        # integrate_particles: v1 = v0 + (f*w + g*[w>0]) dt ; clamp |v1|<=vmax ; x1 = x0 + v1 dt
        v = v_in + np.where(w[:, None] > 0.0, self.g[None, :], 0.0) * dt
        mag = np.linalg.norm(v, axis=1)
        over = mag > self.vmax
        v[over] *= (self.vmax / mag[over])[:, None]
        x = x_in + v * dt
        lam = np.zeros((len(T), 2))
        for _ in range(self.iterations):
            delta = np.zeros_like(x)
            x0, x1, x2, x3 = (x[T[:, c]] for c in range(4))
            Ds = np.stack([x1 - x0, x2 - x0, x3 - x0], axis=-1)
            F = Ds @ self.DmInv
            f1, f2, f3 = F[:, :, 0], F[:, :, 1], F[:, :, 2]
            wc = w[T]  # (nt, 4)
            vc = v[T]  # (nt, 4, 3)
            for term in range(2):
                if term == 0:
                    C = np.einsum("tij,tij->t", F, F) - 3.0
                    dC = 2.0 * F
                    compliance = self.inv_rest_volume / self.k_mu
                    stiffness = self.k_mu
                else:
                    C = np.linalg.det(F) - 1.0  # + activation (0)
                    dC = np.stack([np.cross(f2, f3), np.cross(f3, f1), np.cross(f1, f2)], axis=-1)
                    compliance = self.inv_rest_volume / self.k_lambda
                    stiffness = self.k_lambda
                dP = dC @ np.transpose(self.DmInv, (0, 2, 1))
                g1, g2, g3 = dP[:, :, 0], dP[:, :, 1], dP[:, :, 2]
                g0 = -g1 - g2 - g3
                grads = np.stack([g0, g1, g2, g3], axis=1)  # (nt, 4, 3)
                wsum = np.einsum("tc,tcj,tcj->t", wc, grads, grads)
                alpha = compliance / dt / dt
                if self.k_damp > 0.0:
                    gamma = self.k_damp / (stiffness * dt)
                    gdv = dt * np.einsum("tcj,tcj->t", grads, vc)
                else:
                    gamma, gdv = 0.0, 0.0
                ok = wsum > 0.0
                dlam = np.where(ok, -(C + alpha * lam[:, term] + gamma * gdv) / np.where(ok, (1.0 + gamma) * wsum + alpha, 1.0), 0.0)
                dlam *= self.relax
                lam[:, term] += dlam
                for c in range(4):
                    np.add.at(delta, T[:, c], (wc[:, c] * dlam)[:, None] * grads[:, c, :])
            # apply_particle_deltas (Jacobi: all tets evaluated at the same x, deltas summed)
            x_new = x + delta
            v_new = (x_new - x_in) / dt
            mag = np.linalg.norm(v_new, axis=1)
            over = mag > self.vmax
            v_new[over] *= (self.vmax / mag[over])[:, None]
            x_new[over] = x_in[over] + v_new[over] * dt
            x, v = x_new, v_new
        return x, v


def _rate(changes: list) -> dict:
    """Contraction-rate estimate r from the last 100 step changes, and the implied distance to the fixed
    point, change * r / (1 - r) (geometric tail).  Only meaningful when the decay is geometric."""
    k = min(100, len(changes) - 1)
    if k < 10 or changes[-1 - k] <= 0.0 or changes[-1] <= 0.0:
        return {}
    r = (changes[-1] / changes[-1 - k]) ** (1.0 / k)
    return {"rate": r, "est_error": changes[-1] * r / (1.0 - r) if r < 1.0 else math.inf}


def fixed_point(step_fn, X: np.ndarray, max_steps: int, tol: float, eps: float, patience: int = 2000) -> dict:
    """Iterate x <- step(x, v=0).  Returns a result dict (converged / stop_reason / ...). It stops as stalled
    (or at f32's floor) after `patience` steps without a smaller step change."""
    x = X.copy()
    changes = []
    best = math.inf
    since_best = 0
    change = math.inf
    history = []
    scale = max(1.0, float(np.max(np.abs(X)))) if X.size else 1.0
    floor = 8.0 * eps * scale  # a few ulps of the coordinates
    for n in range(1, max_steps + 1):
        x_new = step_fn(x)
        if not np.all(np.isfinite(x_new)):
            return dict(steps=n, converged=False, stop_reason="diverged_nonfinite", x=x, change=math.nan, history=history)
        change = float(np.max(np.abs(x_new - x))) if x.size else 0.0
        changes.append(change)
        x = x_new
        u_max = float(np.max(np.abs(x - X))) if x.size else 0.0
        if n <= 10 or n % 100 == 0:
            history.append([n, change, u_max])
        if change <= tol * u_max or change == 0.0:
            return dict(steps=n, converged=True, stop_reason="tol", x=x, change=change, history=history,
                        **_rate(changes))
        if change < best:
            best, since_best = change, 0
        else:
            since_best += 1
        # a healthy run never moves more per step than at the start (~|g| dt^2); a jump far above the best
        # step change seen so far means the Jacobi/relaxation iteration is overshooting (blow-up)
        if n > 20 and change > 50.0 * best and change > floor:
            return dict(steps=n, converged=False, stop_reason="diverged_growing", x=x, change=change, history=history)
        if since_best > patience:
            reason = "f32_floor" if best <= floor else "stalled"
            return dict(steps=n, converged=False, stop_reason=reason, x=x, change=change, history=history,
                        best_change=best, floor=floor, **_rate(changes))
    return dict(steps=max_steps, converged=False, stop_reason="max_steps", x=x, change=change, history=history,
                **_rate(changes))


def run(body: dict, compare_f64: bool = False) -> dict:
    """Newton's rest state of ``body`` (the JSON of the module doc, with its defaults filled in by
    ``load_body``'s rules): the output dict of the module doc. Warp's messages go to stderr."""
    body = _with_defaults(body)
    stdout = sys.stdout
    sys.stdout = sys.stderr  # Warp prints init / module-load messages on stdout
    try:
        return _run(body, compare_f64)
    finally:
        sys.stdout = stdout


def _run(body: dict, compare_f64: bool) -> dict:
    import warp as wp

    import newton

    wp.init()
    device = "cpu"
    X = np.asarray(body["vertices"], dtype=np.float64)
    tets = np.asarray(body["tets"], dtype=np.int64)
    held = np.asarray(body["held"], dtype=bool)
    nv, nt = len(X), len(tets)

    builder = newton.ModelBuilder(gravity=tuple(float(g) for g in body["gravity"]))
    builder.add_soft_mesh(
        pos=(0.0, 0.0, 0.0),
        rot=wp.quat_identity(),
        scale=1.0,
        vel=(0.0, 0.0, 0.0),
        vertices=[tuple(map(float, v)) for v in X],
        indices=[int(i) for i in tets.reshape(-1)],
        density=float(body["density"]),
        k_mu=float(body["k_mu"]),
        k_lambda=float(body["k_lambda"]),
        k_damp=float(body["k_damp"]),
        particle_radius=float(body["particle_radius"]),
        add_surface_mesh_edges=False,  # zero-stiffness bending edges: solved but a no-op; skip them
    )
    if builder.particle_count != nv:
        _fail(f"builder has {builder.particle_count} particles, expected {nv}")
    if builder.tet_count != nt:
        _fail(f"builder kept {builder.tet_count} of {nt} tets (non-positive volume ones are dropped)")
    # held vertices: zero mass -> zero inverse mass (and no gravity in integrate_particles)
    for i in np.nonzero(held)[0]:
        builder.particle_mass[int(i)] = 0.0

    model = builder.finalize(device=device)
    solver_kwargs = {"iterations": int(body["iterations"])}
    if body.get("relaxation") is not None:
        solver_kwargs["soft_body_relaxation"] = float(body["relaxation"])
    solver = newton.solvers.SolverXPBD(model, **solver_kwargs)
    relaxation = solver.soft_body_relaxation

    s_in = model.state()
    s_out = model.state()
    control = model.control()
    dt = float(body["dt"])

    def newton_step(x: np.ndarray) -> np.ndarray:
        # SolverXPBD.step ping-pongs its scratch buffers through state_in, so reload it every step
        s_in.particle_q.assign(x.astype(np.float32))
        s_in.particle_qd.zero_()
        s_in.clear_forces()
        solver.step(s_in, s_out, control, None, dt)
        return s_out.particle_q.numpy().astype(np.float64)

    X32 = model.particle_q.numpy().astype(np.float64)  # rest positions as Newton stores them (f32)
    res = fixed_point(newton_step, X32, int(body["max_steps"]), float(body["tol"]), float(np.finfo(np.float32).eps))

    out = {
        "newton_version": newton.__version__,
        "warp_version": wp.__version__,
        "steps": res["steps"],
        "converged": res["converged"],
        "stop_reason": res["stop_reason"],
        "displacements": (res["x"] - X32).tolist(),
        "max_step_change": res["change"],
        "max_abs_displacement": float(np.max(np.abs(res["x"] - X32))) if nv else 0.0,
        "relaxation": relaxation,
        "iterations": solver.iterations,
        "particle_mass": model.particle_mass.numpy().astype(float).tolist(),
        "history": res["history"],
    }
    for k in ("best_change", "floor", "rate", "est_error"):
        if k in res:
            out[k] = res[k]

    if compare_f64:
        rep = F64Replica(body, relaxation, float(model.particle_max_velocity))
        zero = np.zeros_like(X)
        # one step from rest: Newton f32 vs f64 replica
        x1_newton = newton_step(X32)
        x1_f64, _ = rep.step(X.copy(), zero)
        res64 = fixed_point(lambda x: rep.step(x, zero)[0], X, int(body["max_steps"]), float(body["tol"]),
                            float(np.finfo(np.float64).eps))
        u64 = res64["x"] - X
        u32 = res["x"] - X32
        out["f64"] = {
            "one_step_max_abs_diff": float(np.max(np.abs(x1_newton - x1_f64))),
            "one_step_max_abs_disp": float(np.max(np.abs(x1_f64 - X))),
            "steps": res64["steps"],
            "converged": res64["converged"],
            "stop_reason": res64["stop_reason"],
            "max_step_change": res64["change"],
            "rate": res64.get("rate"),
            "est_error": res64.get("est_error"),
            "displacements": u64.tolist(),
            "rest_max_abs_diff_vs_newton": float(np.max(np.abs(u64 - u32))),
            "rest_rel_diff_vs_newton": float(np.max(np.abs(u64 - u32)) / max(np.max(np.abs(u64)), 1e-300)),
        }

    if body.get("probe_steps"):
        # Newton's own dynamics (velocities kept) from the fixed point, nudged by 1e-4 of its largest
        # displacement along a fixed pattern: a stable rest state damps the nudge, an unstable one grows it.
        u = res["x"] - X32
        nudge = 1e-4 * max(float(np.max(np.abs(u))), 1e-6) * np.cos(np.arange(X32.size)).reshape(X32.shape)
        nudge[np.asarray(body["held"], dtype=bool)] = 0.0
        x = res["x"] + nudge
        v = np.zeros_like(x)
        deviation = [float(np.max(np.abs(nudge)))]
        for _ in range(int(body["probe_steps"])):
            s_in.particle_q.assign(x.astype(np.float32))
            s_in.particle_qd.assign(v.astype(np.float32))
            s_in.clear_forces()
            solver.step(s_in, s_out, control, None, dt)
            x = s_out.particle_q.numpy().astype(np.float64)
            v = s_out.particle_qd.numpy().astype(np.float64)
            if not np.all(np.isfinite(x)):
                deviation.append(math.inf)
                break
            deviation.append(float(np.max(np.abs(x - res["x"]))))
        out["probe"] = {"steps": len(deviation) - 1, "nudge": deviation[0], "final": deviation[-1],
                        "growth": deviation[-1] / deviation[0]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("body", nargs="?", help="JSON body file (default: stdin)")
    ap.add_argument("--compare-f64", action="store_true", help="also run the float64 NumPy replica and compare")
    args = ap.parse_args()
    out = run(load_body(args.body), args.compare_f64)
    print(json.dumps(out), file=_STDOUT)
    if out["converged"]:
        sys.exit(0)
    msg = f"not converged: {out['stop_reason']} after {out['steps']} steps, last step change {out['max_step_change']:.3e}"
    print(f"newton_rest: {msg}", file=sys.stderr)
    sys.exit(3 if out["stop_reason"].startswith("diverged") else 2)


if __name__ == "__main__":
    main()
