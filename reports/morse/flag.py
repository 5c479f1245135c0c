"""The Morse study's flag in wind (claim M4), reproduced with pbdfit's cloth models (reports/morse/README.md).

The study: "the same mesh in wind, 100 iterations. M4: Stretching produces fewer wrinkles than the three
spring potentials, which produce more motion." Its settings: XPBD compliance 1e-5, spring stiffness 10
(mapped to pbdfit's ``alpha_d`` as for the hanging cloth, ``reproduce.alpha_d``), damping 0.3, dt 1/24 s,
100 iterations per step. The flag here is ``morse-flag.toml``: the hanging cloth's fabric and mesh held
along its whole left edge (pinned), gravity along -y, a steady wind (``[[load.wind]]``: the quadratic drag
of the air's velocity relative to each triangle) of 5 m/s along +x at an angle out of the flag's plane.
Each constraint's motion from the flat, still flag is run for 10 s (240 steps) by

    pbdfit simulate --scene <variant scene> --n N --model M --param alpha_d=... --param alpha_b=1e4
                    --dt 1/24 --nit 100 --damping d --frames DIR --frame-every 1 --frame-steps 240 --frames-only

and measured from its frames over the last 5 s, in two windows (5-7.5 s and 7.5-10 s):

- wrinkles: the mean absolute dihedral angle (rad) of the interior edges (the angle between the normals of
  the two triangles that share the edge), averaged over the window's frames;
- motion: the RMS speed (m/s) of the free vertices over the window (from consecutive frames' displacements)
  and their RMS displacement about their mean position over the window (m).

Variants of what the study leaves open (the wind's angle, the mesh, the damping's form): a comparison is
decided in a variant where it has the same sign in both windows and the difference exceeds both windows'
spread (the difference of the two windows' values of either constraint); M4 holds where every comparison
holds in every variant, fails where one fails in every variant, and is undecided otherwise.

    PBDFIT_CLI=target/debug/pbdfit python3 reports/morse/flag.py [--out reports/morse]

Writes ``raw-flag/`` (the variant scenes, per run a CSV of the per-frame measures) and reuses it when present;
then ``flag-results.md`` and ``flag-results.json`` from it. Deterministic (no timing enters the results).
"""

import argparse
import csv
import json
import math
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import reproduce  # noqa: E402  (the mapping, the command runner and the VTU reader)

NIT = 100
STEPS = 240  # 10 s at dt = 1/24
DT = reproduce.DT
WINDOWS = [(120, 180), (180, 240)]  # frames (steps) of the two measuring windows: 5-7.5 s and 7.5-10 s
SPEED = 5.0  # m/s
# Variants: name, cells along a side, the wind's angle out of the plane (degrees), the damping's form.
VARIANTS = [
    ("N40-15deg-rate", 40, 15.0, "rate"),
    ("N40-30deg-rate", 40, 30.0, "rate"),
    ("N20-15deg-rate", 20, 15.0, "rate"),
    ("N20-15deg-per-step", 20, 15.0, "per-step"),
]
C = 0.3  # the study's damping coefficient


def scene(raw, angle):
    """The variant's scene: morse-flag.toml with the wind at `angle` degrees out of the plane."""
    path = os.path.join(raw, f"morse-flag-{angle:g}deg.toml")
    a = math.radians(angle)
    wind = f"wind = [{SPEED * math.cos(a)!r}, 0.0, {SPEED * math.sin(a)!r}]"
    with open(os.path.join(HERE, "morse-flag.toml")) as f:
        text = f.read()
    lines = [wind if line.startswith("wind = ") else line for line in text.splitlines()]
    text = "\n".join(lines) + "\n"
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)
    return path


def hinges(triangles):
    """Interior edges as (a, b, c, d): the edge a-b shared by triangles (a, b, c) and (b, a, d) up to order."""
    seen = {}
    out = []
    for t in triangles:
        for i in range(3):
            a, b, c = t[i], t[(i + 1) % 3], t[(i + 2) % 3]
            key = (min(a, b), max(a, b))
            if key in seen:
                out.append((a, b, c, seen[key]))
            else:
                seen[key] = c
    return out


def sub(p, q):
    return (p[0] - q[0], p[1] - q[1], p[2] - q[2])


def cross(p, q):
    return (p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0])


def dot(p, q):
    return p[0] * q[0] + p[1] * q[1] + p[2] * q[2]


def dihedral(x, h):
    """The angle (rad) between the normals of the two triangles at hinge `h`."""
    a, b, c, d = h
    n1 = cross(sub(x[b], x[a]), sub(x[c], x[a]))
    n2 = cross(sub(x[a], x[b]), sub(x[d], x[b]))  # (b, a, d), wound as the mesh winds its other triangle
    s = cross(n1, n2)
    return math.atan2(math.sqrt(dot(s, s)), dot(n1, n2))


def triangles_of(path):
    """The triangles of a frame (.vtu connectivity, Int64 or UInt64 binary as pbdfit writes it)."""
    import base64
    import re
    import struct
    text = open(path).read()
    m = re.search(r'<DataArray[^>]*Name="connectivity"[^>]*>([^<]*)</DataArray>', text)
    raw = base64.b64decode(m.group(1).strip())
    (size,) = struct.unpack("<Q", raw[:8])
    v = struct.unpack("<%dQ" % (size // 8), raw[8 : 8 + size])
    return [v[i : i + 3] for i in range(0, len(v), 3)]


def run(raw, variant, name, model):
    """Per-frame measures of one flag motion (CSV): mean |dihedral|, the free vertices' mean squared speed,
    and the free edge's mean x, y, z (m); and per window the free vertices' RMS displacement about their
    mean over the window (m), in a JSON beside it."""
    tag, n, angle, form = variant
    path = os.path.join(raw, f"flag-{tag}-{name}.csv")
    side = path[:-4] + "-motion.json"
    if os.path.exists(path) and os.path.exists(side):
        return path
    print("running", tag, name, flush=True)
    frames = tempfile.mkdtemp(prefix="morse-flag-")
    try:
        args = ["simulate", "--scene", scene(raw, angle), "--n", str(n), "--model", model,
                "--param", f"alpha_d={reproduce.alpha_d(model, n)!r}", "--param", f"alpha_b={reproduce.ALPHA_B!r}",
                "--dt", reproduce.DT_ARG, "--nit", str(NIT), "--damping", repr(reproduce.FORMS[form](C)),
                "--frames", frames, "--frame-every", "1", "--frame-steps", str(STEPS), "--frames-only"]
        reproduce.command(args)
        names = sorted(f for f in os.listdir(frames) if f.endswith(".vtu"))
        rest = reproduce.vtu_array(os.path.join(frames, names[0]), "Points")
        hs = hinges(triangles_of(os.path.join(frames, names[0])))
        free = [i for i, p in enumerate(rest) if p[0] > 1e-9]
        edge = [i for i, p in enumerate(rest) if p[0] > 1.0 - 1e-9]
        rows, previous = [], None
        sums = [[[0.0] * (3 * len(free)), 0.0, 0] for _ in WINDOWS]
        for step, f in enumerate(names):
            u = reproduce.vtu_array(os.path.join(frames, f), "displacement")
            x = [tuple(r + d for r, d in zip(p, q)) for p, q in zip(rest, u)]
            wrinkle = sum(abs(dihedral(x, h)) for h in hs) / len(hs)
            v2 = float("nan") if previous is None else sum(dot(sub(u[i], previous[i]), sub(u[i], previous[i]))
                                                          for i in free) / len(free) / (DT * DT)
            mean_edge = [sum(x[i][k] for i in edge) / len(edge) for k in range(3)]
            rows.append([step, step * DT, wrinkle, v2, *mean_edge])
            for (lo, hi), acc in zip(WINDOWS, sums):
                if lo < step <= hi:
                    flat = [c for i in free for c in u[i]]
                    acc[0] = [a + c for a, c in zip(acc[0], flat)]
                    acc[1] += sum(c * c for c in flat)
                    acc[2] += 1
            previous = u
        motion = []
        for total, squares, frames_in in sums:
            mean_sq = sum((t / frames_in) ** 2 for t in total)
            motion.append(math.sqrt(max(squares / frames_in - mean_sq, 0.0) / len(free)))
        with open(side, "w") as f:
            json.dump({"rms_motion_m": motion, "windows_steps": WINDOWS}, f, indent=1)
            f.write("\n")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["step", "t_s", "mean_abs_dihedral_rad", "mean_sq_speed_m2_s2", "free_edge_x_m",
                        "free_edge_y_m", "free_edge_z_m"])
            for r in rows:
                w.writerow([repr(v) if isinstance(v, float) else v for v in r])
    finally:
        shutil.rmtree(frames, ignore_errors=True)
    return path


def measures(path):
    """Per window: wrinkles (mean |dihedral|, rad), RMS speed (m/s), RMS displacement about the mean (m);
    and the last frame's free edge (m) and whether every value is finite."""
    rows = []
    with open(path) as f:
        r = csv.reader(f)
        next(r)
        for row in r:
            rows.append([float(v) for v in row])
    with open(path[:-4] + "-motion.json") as f:
        motion = json.load(f)["rms_motion_m"]
    out = []
    for (lo, hi), spread in zip(WINDOWS, motion):
        w = rows[lo + 1 : hi + 1]
        wrinkle = sum(r[2] for r in w) / len(w)
        speed = math.sqrt(sum(r[3] for r in w) / len(w))
        out.append({"wrinkles_rad": wrinkle, "rms_speed_m_s": speed, "rms_motion_m": spread})
    last = rows[-1]
    finite = all(math.isfinite(v) for r in rows for v in r[2:] if not (r[0] == 0 and math.isnan(v)))
    return {"windows": out, "free_edge_m": last[4:7], "finite": finite}


def compare(a, b, key, fewer):
    """`a` (stretching) against `b` (a spring) on `key` over the two windows: 'holds' where a < b (fewer)
    or a > b (not fewer: b more) ... as the claim wants in both windows by more than the windows' spread,
    'fails' where the opposite, else 'undecided'."""
    d = [b["windows"][i][key] - a["windows"][i][key] for i in range(2)]
    spread = max(abs(a["windows"][0][key] - a["windows"][1][key]), abs(b["windows"][0][key] - b["windows"][1][key]))
    want = 1.0 if fewer else -1.0  # fewer: stretching below the spring (d > 0)
    if all(want * x > spread for x in d):
        return "holds"
    if all(-want * x > spread for x in d):
        return "fails"
    return "undecided"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=HERE)
    p.add_argument("--only", nargs="*", help="run only these variants (tags); the results name those run")
    a = p.parse_args()
    raw = os.path.join(a.out, "raw-flag")
    os.makedirs(raw, exist_ok=True)
    results = {"settings": {"nit": NIT, "dt_s": DT, "steps": STEPS, "damping_c": C, "wind_m_s": SPEED,
                            "windows_steps": WINDOWS, "alpha": reproduce.ALPHA, "k": reproduce.K,
                            "alpha_b": reproduce.ALPHA_B}, "variants": {}}
    variants = [v for v in VARIANTS if not a.only or v[0] in a.only]
    for v in variants:
        runs = {}
        for name, model, _ in reproduce.CONSTRAINTS:
            runs[name] = measures(run(raw, v, name, model))
            runs[name]["model"] = model
            runs[name]["alpha_d"] = reproduce.alpha_d(model, v[1])
        verdicts = {}
        for name, _, _ in reproduce.CONSTRAINTS[1:]:
            verdicts[name] = {
                "fewer_wrinkles": compare(runs["stretching"], runs[name], "wrinkles_rad", True),
                "more_speed": compare(runs["stretching"], runs[name], "rms_speed_m_s", True),
                "more_motion": compare(runs["stretching"], runs[name], "rms_motion_m", True),
            }
        results["variants"][v[0]] = {"n": v[1], "angle_deg": v[2], "damping_form": v[3],
                                     "damping": reproduce.FORMS[v[3]](C), "runs": runs, "verdicts": verdicts}
    every = [x for v in results["variants"].values() for s in v["verdicts"].values() for x in s.values()]
    per = {}
    for part in ["fewer_wrinkles", "more_speed", "more_motion"]:
        vs = [s[part] for v in results["variants"].values() for s in v["verdicts"].values()]
        per[part] = "holds" if all(x == "holds" for x in vs) else "fails" if any(
            all(v["verdicts"][s][part] == "fails" for v in results["variants"].values())
            for s in results["variants"][variants[0][0]]["verdicts"]) else "undecided"
    overall = "holds" if all(x == "holds" for x in every) else "fails" if "fails" in per.values() else "undecided"
    results["verdict"] = {"M4": overall, "parts": per}
    with open(os.path.join(a.out, "flag-results.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
        f.write("\n")
    write_md(a.out, results)


def write_md(out, results):
    lines = ["# M4: the flag in wind (generated by flag.py)", ""]
    s = results["settings"]
    lines += [f"Settings: {s['nit']} iterations, dt = 1/24 s, {s['steps']} steps (10 s), damping c = {s['damping_c']}, "
              f"wind {s['wind_m_s']} m/s along +x at the variant's angle out of the plane; windows (steps) "
              f"{s['windows_steps'][0]} and {s['windows_steps'][1]}.", ""]
    for tag, v in results["variants"].items():
        lines += [f"## {tag} (N {v['n']}, wind at {v['angle_deg']:g} deg, damping {v['damping_form']}: "
                  f"d = {v['damping']:.4g} per step)", "",
                  "| constraint | alpha_d | wrinkles, rad (5-7.5 s / 7.5-10 s) | RMS speed, m/s | RMS motion, m | "
                  "free edge at 10 s (x, y, z), m | finite |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for name, r in v["runs"].items():
            w = r["windows"]
            lines.append(f"| {name} | {r['alpha_d']:.3g} | {w[0]['wrinkles_rad']:.4f} / {w[1]['wrinkles_rad']:.4f} | "
                         f"{w[0]['rms_speed_m_s']:.4f} / {w[1]['rms_speed_m_s']:.4f} | "
                         f"{w[0]['rms_motion_m']:.4f} / {w[1]['rms_motion_m']:.4f} | "
                         f"{', '.join(f'{c:.3f}' for c in r['free_edge_m'])} | {'yes' if r['finite'] else 'no (the run diverged)'} |")
        lines += ["", "| spring | stretching has fewer wrinkles | the spring moves faster | the spring moves more |",
                  "| --- | --- | --- | --- |"]
        for name, vd in v["verdicts"].items():
            lines.append(f"| {name} | {vd['fewer_wrinkles']} | {vd['more_speed']} | {vd['more_motion']} |")
        lines.append("")
    vd = results["verdict"]
    lines += ["## Verdict", "", f"**M4 {vd['M4']}** (fewer wrinkles: {vd['parts']['fewer_wrinkles']}; more speed: "
              f"{vd['parts']['more_speed']}; more motion: {vd['parts']['more_motion']}).", ""]
    with open(os.path.join(out, "flag-results.md"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
