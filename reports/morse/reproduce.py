"""The Morse study's hanging cloth, reproduced with pbdfit's cloth models (reports/morse/README.md).

The study (a parallel XPBD with a modified Morse potential; its claims M1 to M8 in the README) hangs a
cloth of 4,880 edges from two corners and compares four XPBD edge constraints at compliance 1e-5, 200
iterations per step, dt = 1/24 s, spring stiffness 10 and a global damping of 0, 0.3 and 1.0. This script
runs that set-up on ``morse-cloth.toml`` (pbdfit's hanging fabric at 40 x 40 cells with one diagonal per
cell: 4,880 edges) with ``cloth-xpbd`` (stretching), ``cloth-xpbd-hookean``, ``cloth-xpbd-stvk`` and
``cloth-xpbd-morse``, through the command line only:

- ``pbdfit fem --json``: the shell reference of the same body (its rest state; pbdfit has no dynamic shell);
- ``pbdfit simulate --json``: each constraint's rest state at the study's settings, stopped after
  REST_TIMEOUT s, and its error against the shell (pbdfit's metric, computed here from the two fields and
  checked once against ``pbdfit evaluate --json``);
- ``pbdfit simulate --frames DIR --frames-only``: each motion from the flat, unloaded sheet (the markers'
  tracks are read from the frames, which are then deleted);
- timed ``--frames-only`` runs of 0 and 48 steps: one step's time on this CPU (M8).

The set-up's uncertain parts are run as variants: the mesh (N 40, the study's size, and N 20), the
damping's form (the study gives none): ``rate`` (``v <- (1 - c dt) v``, c per second), ``rate-exp``
(``v <- exp(-c dt) v``) and ``per-step`` (``v <- (1 - c) v``, c per step; 1.0 is refused: it stops the
motion every step), and the unit of length (SI, and cgs: ``morse-cloth-cgs.toml``). A claim holds where it
holds in every variant, fails where it fails in every one, and is undecided where the variants disagree.

    PBDFIT_CLI=target/debug/pbdfit python3 reports/morse/reproduce.py [--out reports/morse] [--timing] [--figure]

Every command's output is kept in ``<out>/raw/`` (tracks as CSV, reports as JSON) and reused when present
(delete it to measure again); the tables and verdicts (``results.md``, ``results.json``) are written from
those files. Deterministic: the numbers depend on pbdfit only, except the timings (``--timing`` measures
them again).
"""

import argparse
import base64
import csv
import json
import math
import os
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time

CLI = os.environ.get("PBDFIT_CLI", "target/debug/pbdfit")
HERE = os.path.dirname(os.path.abspath(__file__))

# The study's set-up (its figure 5 caption and section on the hanging cloth).
DT_ARG = "1/24"
DT = 1.0 / 24.0
NIT = 200
ALPHA = 1e-5  # the study's XPBD compliance
K = 10.0  # the study's "spring stiffness", a factor in every constraint function
STEPS = 120  # 5 s at dt = 1/24
ALPHA_B = 1e4  # the bending compliance (1/J): the top of pbdfit's box, so bending is all but off
# (the study's cloth has edge constraints only; a flat sheet moving in its plane does not bend anyway)

# The four constraints: name, pbdfit model, the study's C (k > 0, l = |x2 - x1|, l0 the rest length).
CONSTRAINTS = [
    ("stretching", "cloth-xpbd", "k (l - l0)"),
    ("Hookean", "cloth-xpbd-hookean", "k (l - l0)^2 / 2"),
    ("StVK", "cloth-xpbd-stvk", "k (l^2 - l0^2)^2 / 2"),
    ("Morse", "cloth-xpbd-morse", "k (1 - exp(l - l0))^2"),
]
# The variants of the set-up's uncertain parts: name, scene file, cells along a side, the scene's length
# unit in m, and whether the exponential damping form runs too (it differs from `rate` by (c dt)^2 / 2).
VARIANTS = [
    ("N40", "morse-cloth.toml", 40, 1.0, False),
    ("N20", "morse-cloth.toml", 20, 1.0, True),
    ("N40-cgs", "morse-cloth-cgs.toml", 40, 0.01, False),
]
# The damping's forms: name -> the per-step velocity factor pbdfit's --damping takes (v <- (1 - d) v).
FORMS = {
    "rate": lambda c: c * DT,
    "rate-exp": lambda c: 1.0 - math.exp(-c * DT),
    "per-step": lambda c: c,
}
DAMPINGS = [(0.0, ["rate"]), (0.3, ["rate", "rate-exp", "per-step"]), (1.0, ["rate", "rate-exp"])]


def dampings(variant):
    """The (c, forms) a variant runs: `rate-exp` only where the variant asks for it."""
    exp = variant[4]
    return [(c, [f for f in forms if exp or f != "rate-exp"]) for c, forms in DAMPINGS]
SAME = 0.1  # "almost the same": a ratio within [0.9, 1.1], the thesis claims' convention
BAND = 0.05  # settled: within 5 % of the release offset for good
REST_TIMEOUT = 150  # s: a rest state not found by then is recorded as such


def alpha_d(model, n, width=1.0):
    """pbdfit's compliance for the study's ``alpha`` and ``k`` (README, section The mapping).

    pbdfit's constraint functions are the study's divided by a factor: ``k`` for stretching, Hookean and
    Morse, so ``alpha_d = alpha / k^2``; ``4 k l0^3`` for StVK (pbdfit's ``C = l0 eps^2 / 2 =
    (l^2 - l0^2)^2 / (8 l0^3)``), so ``alpha_d = alpha / (16 k^2 l0^6)`` at the structural edges'
    ``l0 = width / n`` in the scene's length unit (a diagonal's factor is 8 times larger: see the
    README)."""
    if model == "cloth-xpbd-stvk":
        l0 = width / n
        return ALPHA / (16.0 * K * K * l0**6)
    return ALPHA / (K * K)


def command(args, timeout=900):
    p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        sys.exit(f"pbdfit {' '.join(args)} failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    return p


def vtu_array(path, name):
    """A Float64 array of a binary .vtu as pbdfit writes it (base64, UInt64 header), as (x, y, z) rows."""
    with open(path) as f:
        text = f.read()
    if name == "Points":
        m = re.search(r"<Points><DataArray[^>]*>([^<]*)</DataArray>", text)
    else:
        m = re.search(r'<DataArray[^>]*Name="%s"[^>]*>([^<]*)</DataArray>' % name, text)
    raw = base64.b64decode(m.group(1).strip())
    (size,) = struct.unpack("<Q", raw[:8])
    values = struct.unpack("<%dd" % (size // 8), raw[8 : 8 + size])
    return [values[i : i + 3] for i in range(0, len(values), 3)]


def markers(points):
    """The tracked vertices: the lowest free corner (0, 0), the centre and the bottom edge's middle."""
    w = max(p[0] for p in points)

    def nearest(x, y):
        return min(range(len(points)), key=lambda i: abs(points[i][0] - x) + abs(points[i][1] - y))

    return {"corner": nearest(0.0, 0.0), "centre": nearest(0.5 * w, 0.5 * w), "bottom": nearest(0.5 * w, 0.0)}


def body_args(variant):
    return ["--scene", os.path.join(HERE, variant[1]), "--n", str(variant[2])]


def model_args(model, variant, damping):
    width = 1.0 / variant[3]
    args = ["--model", model, "--param", f"alpha_d={alpha_d(model, variant[2], width)!r}", "--param", f"alpha_b={ALPHA_B!r}",
            "--dt", DT_ARG, "--nit", str(NIT)]
    if damping > 0.0:
        args += ["--damping", repr(damping)]
    return args


def run_motion(raw, variant, name, model, form, c):
    """The marker tracks of one motion from the flat, unloaded sheet (CSV, in m), from ``simulate
    --frames-only`` (the frames alone, no rest state)."""
    mesh, unit = variant[0], variant[3]
    tag = f"{mesh}-{name}-{form}-{c:g}"
    track_path = os.path.join(raw, f"track-{tag}.csv")
    if os.path.exists(track_path):
        return
    print("running", tag, flush=True)
    frames = tempfile.mkdtemp(prefix="morse-frames-")
    try:
        command(["simulate", *body_args(variant), *model_args(model, variant, FORMS[form](c)), "--frames", frames,
                 "--frame-every", "1", "--frame-steps", str(STEPS), "--frames-only"])
        names = sorted(f for f in os.listdir(frames) if f.endswith(".vtu"))
        at = markers(vtu_array(os.path.join(frames, names[0]), "Points"))
        rows = []
        for step, f in enumerate(names):
            u = vtu_array(os.path.join(frames, f), "displacement")
            rows.append([step, step * DT] + [unit * x for x in (u[at["corner"]][0], u[at["corner"]][1],
                                                             u[at["centre"]][1], u[at["bottom"]][1])])
        with open(track_path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["step", "t_s", "corner_ux_m", "corner_uy_m", "centre_uy_m", "bottom_uy_m"])
            w.writerows(rows)
    finally:
        shutil.rmtree(frames, ignore_errors=True)


def moved_error(model_u, shell_u, held):
    """pbdfit's error (docs/method.md, section The error): the mean over the vertices the shell moves of
    ``(|u_model - u_shell| / |u_shell|)^2``; checked against ``pbdfit evaluate`` by ``check_error``."""
    norm = [math.sqrt(sum(x * x for x in u)) for u in shell_u]
    largest = max(norm[i] for i in range(len(norm)) if i not in held)
    moved = [i for i in range(len(norm)) if i not in held and norm[i] > 1e-12 * largest and norm[i] > 0.0]
    return sum((math.sqrt(sum((a - b) ** 2 for a, b in zip(model_u[i], shell_u[i]))) / norm[i]) ** 2
               for i in moved) / len(moved)


def run_rest(raw, variant, name, model):
    """The rest state at the study's settings (``simulate --json``, stopped after REST_TIMEOUT s), its
    markers and its error against the shell. A rest state that does not converge is kept, marked so; one
    not found in time is recorded as such (the motion is then measured about its own late mean)."""
    mesh, unit = variant[0], variant[3]
    path = os.path.join(raw, f"rest-{mesh}-{name}.json")
    if os.path.exists(path):
        return
    print("running rest", mesh, name, flush=True)
    args = ["simulate", *body_args(variant), *model_args(model, variant, 0.0), "--json"]
    t0 = time.perf_counter()
    try:
        p = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=REST_TIMEOUT)
    except subprocess.TimeoutExpired:
        summary = {"model": model, "timeout_s": REST_TIMEOUT, "converged": False}
    else:
        if not p.stdout.strip():
            # No rest state: refused or diverged (exit 2, the reason on stderr).
            summary = {"model": model, "converged": False, "failed": p.stderr.strip()[-1000:]}
            summary["wall_s"] = time.perf_counter() - t0
            dump(raw, path, summary)
            return
        r = json.loads(p.stdout)
        shell = load(raw, f"shell-{mesh}.json")
        edges = {tuple(sorted((t[a], t[b]))) for t in r["triangles"] for a, b in ((0, 1), (1, 2), (0, 2))}
        u = [[unit * x for x in d] for d in r["displacements"]]
        at = markers(r["vertices"])
        summary = {k: r[k] for k in ("model", "n", "dt", "nit", "parameters", "parameter_names", "converged",
                                     "residual", "iterations", "iterations_of", "method", "colour_groups",
                                     "constraint_count")}
        summary.update({
            "vertices": len(r["vertices"]),
            "triangles": len(r["triangles"]),
            "edges": len(edges),
            "unit_m": unit,
            "markers": {k: {"vertex": v, "rest_position_m": [unit * x for x in r["vertices"][v]],
                            "displacement_m": u[v]} for k, v in at.items()},
            "max_abs_uy_m": max(abs(d[1]) for d in u),
            "error_vs_shell": moved_error(r["displacements"], shell["displacements"], set(shell["fixed"])),
        })
    summary["wall_s"] = time.perf_counter() - t0
    dump(raw, path, summary)


def run_shell(raw, variant):
    """The shell reference's rest state (``fem --json``): its displacements (in the scene's unit, for the
    error) and markers (in m)."""
    mesh, unit = variant[0], variant[3]
    path = os.path.join(raw, f"shell-{mesh}.json")
    if os.path.exists(path):
        return
    print("running shell", mesh, flush=True)
    r = json.loads(command(["fem", *body_args(variant), "--json"]).stdout)
    at = markers(r["vertices"])
    summary = {k: r[k] for k in ("n", "young", "poisson", "reference", "body", "fixed", "displacements")}
    summary["unit_m"] = unit
    summary["markers"] = {k: {"vertex": v, "rest_position_m": [unit * x for x in r["vertices"][v]],
                              "displacement_m": [unit * x for x in r["displacements"][v]]} for k, v in at.items()}
    summary["max_abs_uy_m"] = unit * max(abs(d[1]) for d in r["displacements"])
    # Rayleigh's quotient with the static deflection as the shape: K u = M g, so
    # omega^2 = u.K.u / u.M.u = g sum m u_y / sum m |u|^2 (an upper bound on the lowest in-plane mode).
    g = 9.81 / unit
    num = sum(m * -u[1] for m, u in zip(r["masses"], r["displacements"]))
    den = sum(m * sum(x * x for x in u) for m, u in zip(r["masses"], r["displacements"]))
    summary["rayleigh_period_s"] = 2.0 * math.pi / math.sqrt(g * num / den)
    dump(raw, path, summary)


def check_error(raw):
    """``pbdfit evaluate`` at the smallest variant's stretching constraint, beside this script's error of
    the same rest state: the two must agree (the script's reading of pbdfit's metric)."""
    variant = min(VARIANTS, key=lambda v: v[2])
    path = os.path.join(raw, f"evaluate-{variant[0]}-stretching.json")
    if not os.path.exists(path):
        print("running evaluate", variant[0], "stretching", flush=True)
        r = json.loads(command(["evaluate", *body_args(variant), *model_args("cloth-xpbd", variant, 0.0),
                                "--json"]).stdout)
        dump(raw, path, r)
    ours = load(raw, f"rest-{variant[0]}-stretching.json")["error_vs_shell"]
    theirs = load(raw, f"evaluate-{variant[0]}-stretching.json")["error"]
    if abs(ours - theirs) > 1e-9 * abs(theirs):
        sys.exit(f"the script's error {ours!r} differs from pbdfit evaluate's {theirs!r}")
    return {"variant": variant[0], "script": ours, "evaluate": theirs}


def compliance_check(raw, factors=(1e-2, 1e2)):
    """The stretching constraint's rest sag at N 40 with its compliance 100 times smaller and larger than
    the study's: whether the compliance or the iteration count sets the cloth's stiffness here."""
    variant = VARIANTS[0]
    out = {}
    for f in factors:
        path = os.path.join(raw, f"rest-{variant[0]}-stretching-alpha-x{f:g}.json")
        if not os.path.exists(path):
            print("running rest", variant[0], "stretching at alpha x", f, flush=True)
            args = ["simulate", *body_args(variant), "--model", "cloth-xpbd", "--param",
                    f"alpha_d={f * alpha_d('cloth-xpbd', variant[2])!r}", "--param", f"alpha_b={ALPHA_B!r}",
                    "--dt", DT_ARG, "--nit", str(NIT), "--json"]
            r = json.loads(command(args).stdout)
            at = markers(r["vertices"])
            dump(raw, path, {"alpha_d": r["parameters"][0], "converged": r["converged"],
                             "bottom_uy_m": r["displacements"][at["bottom"]][1]})
        out[f"{f:g}"] = load(raw, os.path.basename(path))
    out["1"] = {"alpha_d": alpha_d("cloth-xpbd", variant[2]),
                "bottom_uy_m": load(raw, f"rest-{variant[0]}-stretching.json")["markers"]["bottom"]["displacement_m"][1]}
    return out


def load(raw, name):
    with open(os.path.join(raw, name)) as f:
        return json.load(f)


def dump(raw, path, value):
    with open(os.path.join(raw, path), "w") as f:
        json.dump(value, f, indent=1, sort_keys=True)


def run_timing(raw, repeats=2, steps=48):
    """One step's time at N 40 per constraint: (time of `steps` steps - time of 0) / steps, best of
    `repeats` (``--frames-only``: no rest state; the start-up cancels), as wall time and as the command's CPU time
    (user + system: on a shared machine the wall time counts the other processes' turns)."""
    path = os.path.join(raw, "timing.json")
    out = {"steps": steps, "repeats": repeats, "n": 40, "nit": NIT, "cpu": cpu_name(), "cores": os.cpu_count(),
           "load_average_before": os.getloadavg()[0], "per_step_s": {}, "per_step_cpu_s": {}}
    for name, model, _ in CONSTRAINTS:
        wall, cpu = {}, {}
        for k in (0, steps):
            for _ in range(repeats):
                frames = tempfile.mkdtemp(prefix="morse-timing-")
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                command(["simulate", *body_args(VARIANTS[0]), *model_args(model, VARIANTS[0], 0.0), "--frames",
                         frames, "--frame-every", "100000", "--frame-steps", str(k), "--frames-only"])
                w = time.perf_counter() - t0
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                c = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                shutil.rmtree(frames, ignore_errors=True)
                wall[k] = min(wall.get(k, w), w)
                cpu[k] = min(cpu.get(k, c), c)
        out["per_step_s"][name] = (wall[steps] - wall[0]) / steps
        out["per_step_cpu_s"][name] = (cpu[steps] - cpu[0]) / steps
        print(f"timing {name}: {out['per_step_s'][name]:.4f} s per step (wall), "
              f"{out['per_step_cpu_s'][name]:.4f} s (CPU)", flush=True)
    out["load_average_after"] = os.getloadavg()[0]
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


# ----------------------------------------------------------------------------------------------------
# Measures of a track


def read_track(raw, mesh, name, form, c):
    with open(os.path.join(raw, f"track-{mesh}-{name}-{form}-{c:g}.csv")) as f:
        rows = list(csv.DictReader(f))
    return [float(r["t_s"]) for r in rows], [float(r["bottom_uy_m"]) for r in rows]


def measure(t, y, y_rest):
    """The motion of the bottom edge's middle about the model's rest state: the release offset ``a0``
    (m), the deepest point, the half-cycles between crossings of the rest height with each one's peak
    offset, the period (twice the mean half-cycle), the logarithmic decrement per cycle over the first two
    cycles, the settling time (after it the offset stays within 5 % of ``a0``) and the final offset."""
    bad = [ti for ti, yi in zip(t, y) if not math.isfinite(yi)]
    if bad or y_rest is None:
        keys = ("release_offset_m", "deepest_m", "overshoot", "crossings", "period_s", "decrement_per_cycle",
                "settle_s", "final_offset", "reversals")
        return dict({k: None for k in keys}, diverged_s=bad[0] if bad else None)
    e = [yi - y_rest for yi in y]
    a0 = abs(e[0])
    crossings = []
    for i in range(1, len(e)):
        if e[i - 1] != 0.0 and (e[i] == 0.0 or (e[i] > 0) != (e[i - 1] > 0)):
            crossings.append(t[i - 1] + (t[i] - t[i - 1]) * e[i - 1] / (e[i - 1] - e[i]))
    # Peak offsets: the release, then each full half-cycle between two crossings.
    peaks = [a0]
    for a, b in zip(crossings, crossings[1:]):
        peaks.append(max(abs(ei) for ti, ei in zip(t, e) if a < ti < b))
    half = [b - a for a, b in zip(crossings, crossings[1:])]
    period = 2.0 * sum(half) / len(half) if half else None
    ratios = [math.log(p / q) for p, q in zip(peaks, peaks[1:]) if p > 0 and q > 0][:4]
    decrement = 2.0 * sum(ratios) / len(ratios) if ratios else None
    outside = [ti for ti, ei in zip(t, e) if abs(ei) > BAND * a0]
    settle = outside[-1] + DT if outside else 0.0
    reversals = sum(1 for i in range(1, len(y) - 1) if (y[i] - y[i - 1]) * (y[i + 1] - y[i]) < 0)
    return {
        "release_offset_m": a0,
        "deepest_m": min(y),
        "overshoot": (peaks[1] / a0) if len(peaks) > 1 else 0.0,
        "crossings": len(crossings),
        "period_s": period,
        "decrement_per_cycle": decrement,
        "settle_s": settle if settle <= t[-1] else None,
        "final_offset": abs(e[-1]) / a0,
        "reversals": reversals,
        "diverged_s": None,
    }


def spread(values):
    values = [v for v in values if v is not None]
    return max(values) / min(values) if values and min(values) > 0 else None


# ----------------------------------------------------------------------------------------------------
# The claims


def verdict(outcomes):
    """Holds where every variant holds, fails where every one fails, undecided where they disagree; the
    variants where it could not be measured (None) left out, and "not measured" where that is all."""
    outcomes = [o for o in outcomes if o is not None]
    if not outcomes:
        return "not measured"
    if all(outcomes):
        return "holds"
    if not any(outcomes):
        return "fails"
    return "undecided"


def score(raw):
    rest = {(m, name): load(raw, f"rest-{m}-{name}.json") for m, *_ in VARIANTS for name, _, _ in CONSTRAINTS}
    shell = {m: {k: v for k, v in load(raw, f"shell-{m}.json").items() if k != "displacements"}
             for m, *_ in VARIANTS}
    errors = {key: r.get("error_vs_shell") for key, r in rest.items()}
    # The height the motion settles about: the rest state's where one was found, else the undamped
    # motion's mean over its second half.
    centre = {}
    for (m, name), r in rest.items():
        if "markers" in r:
            centre[(m, name)] = (r["markers"]["bottom"]["displacement_m"][1], "rest state")
        else:
            t, y = read_track(raw, m, name, "rate", 0.0)
            late = [yi for ti, yi in zip(t, y) if ti >= t[-1] / 2]
            mean = sum(late) / len(late)
            centre[(m, name)] = ((mean, "mean of the undamped motion's second half") if math.isfinite(mean)
                                 else (None, "none: the motion diverged"))
    motion = {}
    for v in VARIANTS:
        m = v[0]
        for c, forms in dampings(v):
            for form in forms:
                for name, _, _ in CONSTRAINTS:
                    t, y = read_track(raw, m, name, form, c)
                    motion[(m, form, c, name)] = measure(t, y, centre[(m, name)][0])
    names = [n for n, _, _ in CONSTRAINTS]
    claims = {}

    # M1: no damping. (a) all four oscillate almost the same (period and deepest point within 10 %);
    # (b) Hookean is softer: a longer period and a larger rest sag than each of the other three.
    a, b, detail = [], [], []
    for m, *_ in VARIANTS:
        ms = [motion[(m, "rate", 0.0, n)] for n in names]
        diverged = [n for n, x in zip(names, ms) if x["diverged_s"] is not None]
        periods = [x["period_s"] for x in ms]
        deep = [-x["deepest_m"] if x["deepest_m"] is not None else None for x in ms]
        sp, sd = spread(periods), spread(deep)
        # A motion that diverges does not oscillate like the others; which is softer is then not measured.
        a.append(not diverged and None not in periods and sp <= 1 + SAME and sd <= 1 + SAME)
        sag = {n: (-centre[(m, n)][0] if centre[(m, n)][0] is not None else None) for n in names}
        per = dict(zip(names, periods))
        others = [n for n in names if n != "Hookean"]
        b.append(None if diverged else
                 all(per["Hookean"] is not None and (per[o] is None or per["Hookean"] > per[o]) for o in others)
                 and all(sag["Hookean"] > sag[o] for o in others))
        detail.append({"mesh": m, "diverged": diverged, "period_ratio_max_min": sp, "deepest_ratio_max_min": sd,
                       "periods_s": per, "deepest_m": dict(zip(names, deep)), "sag_m": sag,
                       "sag_from": {n: centre[(m, n)][1] for n in names}})
    claims["M1"] = {"parts": {"almost the same": verdict(a), "Hookean softer": verdict(b)},
                    "verdict": combine([verdict(a), verdict(b)]), "detail": detail}

    # M2: damping 0.3. Stretching and StVK settle sooner than Hookean and Morse (settling time; a motion
    # not settled within the run counts as later than any that did).
    outcomes, detail = [], []
    for v in VARIANTS:
        m = v[0]
        for form in dict(dampings(v))[0.3]:
            s = {n: motion[(m, form, 0.3, n)]["settle_s"] for n in names}
            diverged = [n for n in names if motion[(m, form, 0.3, n)]["diverged_s"] is not None]
            key = {n: (s[n] if s[n] is not None else math.inf) for n in names}
            fast = max(key["stretching"], key["StVK"])
            slow = min(key["Hookean"], key["Morse"])
            # Not measured where a motion diverged: it neither settles sooner nor later.
            outcomes.append(None if diverged else fast < slow)
            detail.append({"mesh": m, "form": form, "diverged": diverged, "settle_s": s,
                           "decrement_per_cycle": {n: motion[(m, form, 0.3, n)]["decrement_per_cycle"]
                                                   for n in names}})
    claims["M2"] = {"verdict": verdict(outcomes), "detail": detail}

    # M3: damping 1.0. (a) StVK and stretching move almost identically: the largest difference of their
    # tracks within 10 % of stretching's deepest point; (b) "peculiar" damping, smoother Hookean and Morse
    # with small wrinkles: untestable here (no predicate for "peculiar"; a sheet moving in its plane has
    # no wrinkles).
    outcomes, detail = [], []
    for v in VARIANTS:
        m = v[0]
        for form in dict(dampings(v))[1.0]:
            t, ys = read_track(raw, m, "stretching", form, 1.0)
            _, yv = read_track(raw, m, "StVK", form, 1.0)
            diff = max(abs(p - q) for p, q in zip(ys, yv)) / max(abs(p) for p in ys)
            outcomes.append(diff <= SAME if math.isfinite(diff) else None)
            detail.append({"mesh": m, "form": form, "track_difference": diff,
                           "settle_s": {n: motion[(m, form, 1.0, n)]["settle_s"] for n in names},
                           "reversals": {n: motion[(m, form, 1.0, n)]["reversals"] for n in names}})
    claims["M3"] = {"parts": {"StVK and stretching almost identical": verdict(outcomes),
                              "peculiar / smoother with wrinkles": "untestable"},
                    "verdict": combine([verdict(outcomes), "untestable"]), "detail": detail}

    # Which is closest to the shell: the rest state's error (pbdfit's metric) per mesh.
    closest = []
    for m, *_ in VARIANTS:
        e = {n: errors[(m, n)] for n in names}
        found = {n: x for n, x in e.items() if x is not None}
        closest.append({"mesh": m, "errors": e, "closest": min(found, key=found.get),
                        "shell_rayleigh_period_s": shell[m]["rayleigh_period_s"],
                        "shell_bottom_uy_m": shell[m]["markers"]["bottom"]["displacement_m"][1]})
    return {"rest": {f"{m}/{n}": v for (m, n), v in rest.items()}, "shell": shell,
            "centre": {f"{m}/{n}": {"bottom_uy_m": c[0], "from": c[1]} for (m, n), c in centre.items()},
            "motion": {"/".join([m, f, f"{c:g}", n]): v for (m, f, c, n), v in motion.items()},
            "claims": claims, "closest": closest}


def combine(parts):
    """A claim of several parts: fails if one fails, else undecided if one is, else untestable if one
    is, else holds (the thesis claims' rule)."""
    for v in ("fails", "undecided", "not measured", "untestable"):
        if v in parts:
            return v
    return "holds"


def fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return f"{x:.{digits}g}"


def report(results, timing):
    names = [n for n, _, _ in CONSTRAINTS]
    lines = ["# The Morse study's hanging cloth: measured (generated by reproduce.py)", ""]
    lines += ["## Mapping", "", "| constraint | study's C | pbdfit model | "
              + " | ".join(f"alpha_d, {v[0]}" for v in VARIANTS) + " |", "| --- | --- | --- |"
              + " --- |" * len(VARIANTS)]
    for name, model, c in CONSTRAINTS:
        lines.append(f"| {name} | `{c}` | `{model}` | "
                     + " | ".join(f"{alpha_d(model, v[2], 1.0 / v[3]):.4g}" for v in VARIANTS) + " |")
    lines += ["", f"alpha_b = {ALPHA_B:g} 1/J; dt = 1/24 s, nit = {NIT}; {STEPS} steps ({STEPS * DT:g} s).", ""]
    lines += ["## Rest states against the shell", "",
              "| mesh | edges | constraint | converged | rest sag, bottom middle (m) | shell's (m) | ratio | error |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in results["closest"]:
        m = c["mesh"]
        for n in names:
            r = results["rest"][f"{m}/{n}"]
            if "markers" not in r:
                why = f"no rest state in {r['timeout_s']} s" if "timeout_s" in r else "diverged"
                lines.append(f"| {m} | | {n} | {why} | | {c['shell_bottom_uy_m']:.4g} | | |")
                continue
            sag = r["markers"]["bottom"]["displacement_m"][1]
            lines.append(f"| {m} | {r['edges']} | {n} | {r['converged']} | {sag:.4g} | "
                         f"{c['shell_bottom_uy_m']:.4g} | {sag / c['shell_bottom_uy_m']:.3g} | {c['errors'][n]:.4g} |")
    lines += ["", "Closest to the shell: " + ", ".join(f"{c['mesh']} {c['closest']}" for c in results["closest"]),
              "", "The shell's period by Rayleigh's quotient with its static deflection (an upper bound on its "
              "lowest in-plane mode): " + ", ".join(f"{c['mesh']} {c['shell_rayleigh_period_s']:.4g} s"
                                                    for c in results["closest"]), ""]
    lines += ["## Motions (the bottom edge's middle, about the model's rest state)", "",
              "| mesh | form | c | constraint | deepest (m) | period (s) | decrement/cycle | overshoot | settle (s) | final offset | reversals |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for key, v in results["motion"].items():
        m, f, c, n = key.split("/")
        settle = fmt(v["settle_s"]) if v["settle_s"] is not None else f"> {STEPS * DT:g}"
        if v["diverged_s"] is not None:
            lines.append(f"| {m} | {f} | {c} | {n} | diverged at {v['diverged_s']:.3g} s | | | | | | |")
            continue
        lines.append(f"| {m} | {f} | {c} | {n} | {v['deepest_m']:.4g} | {fmt(v['period_s'])} | "
                     f"{fmt(v['decrement_per_cycle'])} | {v['overshoot']:.3g} | {settle} | "
                     f"{v['final_offset']:.3g} | {v['reversals']} |")
    lines += ["", "## Verdicts", ""]
    for cid, c in results["claims"].items():
        parts = "; ".join(f"{k}: {v}" for k, v in c.get("parts", {}).items())
        lines.append(f"- **{cid}: {c['verdict']}**" + (f" ({parts})" if parts else ""))
        for d in c["detail"]:
            lines.append("  - " + json.dumps(d, sort_keys=True, default=lambda x: round(x, 4)))
    cc = results["compliance_check"]
    lines += ["", "## The stretching constraint's compliance (N 40)", "",
              "| alpha_d (m/N) | rest sag, bottom middle (m) |", "| --- | --- |"]
    for k in sorted(cc, key=lambda k: cc[k]["alpha_d"]):
        lines.append(f"| {cc[k]['alpha_d']:.3g} | {cc[k]['bottom_uy_m']:.6g} |")
    ec = results["error_check"]
    lines += ["", f"The script's error equals `pbdfit evaluate`'s ({ec['variant']}, stretching): "
              f"{ec['script']!r} and {ec['evaluate']!r}."]
    if timing:
        lines += ["", "## One step at N 40 (M8)", "",
                  f"CPU: {timing['cpu']}, {timing['cores']} cores, load average {timing['load_average_before']:.2f} "
                  f"before and {timing['load_average_after']:.2f} after; dev build (opt-level 2), nit {NIT}, "
                  f"best of {timing['repeats']} of ({timing['steps']} steps - 0 steps) / {timing['steps']}.", "",
                  "| constraint | wall s per step | frames/s (wall) | CPU s per step | frames/s (CPU) |",
                  "| --- | --- | --- | --- | --- |"]
        for n in names:
            s, c = timing["per_step_s"][n], timing["per_step_cpu_s"][n]
            lines.append(f"| {n} | {s:.4f} | {1 / s:.1f} | {c:.4f} | {1 / c:.1f} |")
    return "\n".join(lines) + "\n"


def figure(raw, path):
    """The bottom edge's middle over time, the four constraints in each variant (rows) and damping
    (columns), with the shell's rest height; needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [(0.0, "rate"), (0.3, "rate"), (0.3, "per-step"), (1.0, "rate")]
    fig, axes = plt.subplots(len(VARIANTS), len(runs), figsize=(4 * len(runs), 3 * len(VARIANTS)), sharex=True,
                             squeeze=False)
    for row, v in enumerate(VARIANTS):
        shell = load(raw, f"shell-{v[0]}.json")["markers"]["bottom"]["displacement_m"][1]
        for col, (c, form) in enumerate(runs):
            ax = axes[row][col]
            for name, _, _ in CONSTRAINTS:
                t, y = read_track(raw, v[0], name, form, c)
                ax.plot(t, y, label=name, lw=1)
            ax.axhline(shell, color="k", ls="--", lw=0.8, label="shell at rest")
            ax.set_title(f"{v[0]}, c = {c:g} ({form})", fontsize=9)
            if col == 0:
                ax.set_ylabel("bottom middle u_y (m)")
            if row == len(VARIANTS) - 1:
                ax.set_xlabel("t (s)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80, metadata={"Software": None})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--timing", action="store_true", help="measure the step times again")
    ap.add_argument("--figure", action="store_true", help="draw motions.png (needs matplotlib)")
    args = ap.parse_args()
    raw = os.path.join(args.out, "raw")
    os.makedirs(raw, exist_ok=True)
    for variant in VARIANTS:
        run_shell(raw, variant)
        for name, model, _ in CONSTRAINTS:
            run_rest(raw, variant, name, model)
            for c, forms in dampings(variant):
                for form in forms:
                    run_motion(raw, variant, name, model, form, c)
    if args.timing or not os.path.exists(os.path.join(raw, "timing.json")):
        run_timing(raw)
    with open(os.path.join(raw, "timing.json")) as f:
        timing = json.load(f)
    checked = check_error(raw)
    results = score(raw)
    results["timing"] = timing
    results["error_check"] = checked
    results["compliance_check"] = compliance_check(raw)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    if args.figure:
        figure(raw, os.path.join(args.out, "motions.png"))
    text = report(results, timing)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
