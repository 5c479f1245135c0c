"""The closed forms users apply to sheets, measured against the fit (reports/sheets/README.md).

For each case (a built-in sheet scene at one resolution and setting, with a fabric-like or a rubber-like
material and thickness) and each sheet mapping (``pbdfit mapping``: the closed form's parameters from
(E, nu, h)), the closed form's error (``pbdfit evaluate`` at its parameters, against the shell reference)
beside the error of the model's own fit at the same setting (``pbdfit fit``) and the fit's 1 % ranges.
A fit of ``cloth-pbd-isometric`` (no closed form) is added for the bending models' comparison.

    PBDFIT_CLI=target/debug/pbdfit python3 reports/sheets/measure.py [--out reports/sheets] [--timeout 600]
        [--max-seconds 420]

Every command's JSON (or its refusal) is kept in ``<out>/raw/`` and reused when present (delete it to
measure again); the report is generated from those files. A fit stopped by its budget (``--max-seconds``, on
a loaded machine) is marked so: its error is the best it found, an upper bound on the fit's. Otherwise
deterministic: the numbers depend on pbdfit only (the wall times in ``seconds`` do not).
"""

import argparse
import json
import os
import subprocess
import sys

CLI = os.environ.get("PBDFIT_CLI", "target/debug/pbdfit")

# name, scene, n, dt, nit, what it is, E (Pa), nu, h (m), density (kg/m^3), size (m, None: the scene's)
CASES = [
    ("hanging-fabric", "hanging-sheet", 4, 0.01, 10, "cotton-like fabric 1 x 1 m (the scene's own)",
     2e6, 0.3, 5e-4, 300.0, None),
    ("hanging-rubber", "hanging-sheet", 4, 0.01, 10, "rubber sheet 1 x 1 m", 5e6, 0.45, 2e-3, 1100.0, None),
    ("strip-stiff", "clamped-strip", 10, 0.002, 10, "stiff fabric or plastic strip 0.2 x 0.02 m",
     1e8, 0.3, 2e-3, 1100.0, 0.2),
    ("strip-rubber", "clamped-strip", 10, 0.002, 10, "rubber strip 0.2 x 0.02 m", 5e6, 0.45, 5e-3, 1100.0, 0.2),
    # The stiff strip over h and N: the bending models where bending carries the load.
    ("strip-stiff-h1", "clamped-strip", 10, 0.002, 10, "the stiff strip at half its thickness",
     1e8, 0.3, 1e-3, 1100.0, 0.2),
    ("strip-stiff-h4", "clamped-strip", 10, 0.002, 10, "the stiff strip at twice its thickness",
     1e8, 0.3, 4e-3, 1100.0, 0.2),
    ("strip-stiff-n20", "clamped-strip", 20, 0.002, 10, "the stiff strip at 20 cells", 1e8, 0.3, 2e-3, 1100.0, 0.2),
]
# mapping (None: a fit only), model
FORMS = [
    ("cloth-xpbd-van-gelder-bergou", "cloth-xpbd"),
    ("cloth-pbd-van-gelder-shells", "cloth-pbd"),
    ("jolt-cloth-godot", "jolt-cloth"),
    (None, "cloth-pbd-isometric"),
]
TIE = 0.01


def body_args(case):
    _, scene, n, dt, nit, _, young, poisson, h, rho, size = case
    args = ["--scene", scene, "--n", str(n), "--young", repr(young), "--poisson", repr(poisson),
            "--thickness", repr(h), "--density", repr(rho)]
    if size is not None:
        args += ["--size", repr(size)]
    return args, ["--dt", repr(dt), "--nit", str(nit)]


def run(out, name, args, timeout):
    """The command's JSON report, from ``raw/<name>.json`` if there, else by running it and keeping it."""
    path = os.path.join(out, "raw", name + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    print("running", name, flush=True)
    try:
        p = subprocess.run([CLI, *args, "--json"], capture_output=True, text=True, timeout=timeout)
        if p.returncode == 0:
            result = {"ok": json.loads(p.stdout)}
        else:
            result = {"refused": p.returncode, "message": p.stderr.strip()[-2000:]}
    except subprocess.TimeoutExpired:
        result = {"timeout": timeout}
    with open(path, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    # Read back, so a fresh run's table is the one a rerun from raw/ writes (keys sorted).
    with open(path) as f:
        return json.load(f)


def measure(out, timeout, max_seconds):
    rows = []
    for case in CASES:
        body, step = body_args(case)
        for mapping, model in FORMS:
            row = {"case": case[0], "model": model, "mapping": mapping}
            fit = run(out, f"{case[0]}-{model}-fit",
                      ["fit", *body, "--model", model, *step, "--max-seconds", str(max_seconds)], timeout)
            row["fit"] = fit
            if mapping is not None:
                mapped = run(out, f"{case[0]}-{mapping}-mapping",
                             ["mapping", "--mapping", mapping, *body, *step], timeout)
                row["mapped"] = mapped
                if "ok" in mapped:
                    params = []
                    for p in mapped["ok"]["parameters"]:
                        params += ["--param", f"{p['name']}={p['value']!r}"]
                    row["evaluated"] = run(out, f"{case[0]}-{mapping}-evaluate",
                                           ["evaluate", *body, "--model", model, *params, *step], timeout)
            rows.append(row)
    return rows


def number(v):
    return f"{v:.4g}" if isinstance(v, (int, float)) else str(v)


def fit_cell(fit):
    if "ok" not in fit:
        return "no fit (" + ("timeout" if "timeout" in fit else fit.get("message", "").splitlines()[-1][:80]) + ")"
    r = fit["ok"]
    pairs = r["parameters"].items() if isinstance(r["parameters"], dict) else r["parameters"]
    values = ", ".join(f"{k} {number(v)}" for k, v in pairs)
    budget = f" (budget: stopped after {r['seconds']:.0f} s, {r['evaluations']} evaluations)" if r["status"] == "budget" else ""
    return f"{number(r['error'])} at {values}{budget}"


def ranges_cell(fit):
    if "ok" not in fit:
        return ""
    r = fit["ok"]
    id_ = r.get("identifiability")
    if not id_:
        return "(none)"
    text = "; ".join(f"{k} [{number(lo)}, {number(hi)}]" for k, (lo, hi) in id_["ranges_1_percent"].items())
    if not id_["ranges_informative"]:
        text = "no information (" + id_["ranges_note"].split(" (")[0] + "): " + text
    return text


def verdict(fit):
    return fit["ok"]["verdict"].replace("_", " ") if "ok" in fit else ""


def closed_cell(row):
    mapped, evaluated = row.get("mapped"), row.get("evaluated")
    if mapped is None:
        return "(no closed form)", ""
    if "ok" not in mapped:
        return "refused: " + mapped.get("message", "")[:80], ""
    values = ", ".join(f"{p['name']} {number(p['value'])}" for p in mapped["ok"]["parameters"])
    if "ok" not in evaluated:
        why = "timeout" if "timeout" in evaluated else evaluated.get("message", "").splitlines()[-1][:100]
        return f"no rest state or refused at {values} ({why})", ""
    error = evaluated["ok"]["error"]
    fit = row["fit"]
    if "ok" not in fit:
        return f"{number(error)} at {values}", ""
    best = fit["ok"]["error"]
    ratio = error / best if best > 0 else float("inf")
    judged = "a tie with the fit (within 1 %)" if ratio <= 1 + TIE else f"{ratio:.3g} x the fit's"
    return f"{number(error)} at {values}", judged


def report(rows):
    lines = ["| case | model | fit: error at parameters | fit's verdict | fit's 1 % ranges | closed form | its error at "
             "its parameters | closed form / fit |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        closed, judged = closed_cell(row)
        lines.append(f"| {row['case']} | {row['model']} | {fit_cell(row['fit'])} | {verdict(row['fit'])} | "
                     f"{ranges_cell(row['fit'])} | {row['mapping'] or ''} | {closed} | {judged} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--max-seconds", type=int, default=420, help="each fit's budget (pbdfit fit --max-seconds)")
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "raw"), exist_ok=True)
    rows = measure(a.out, a.timeout, a.max_seconds)
    cases = "\n".join(f"- `{c[0]}`: {c[5]}: scene {c[1]}, N {c[2]}, dt {c[3]} s, nit {c[4]}, E {c[6]:g} Pa, nu {c[7]}, "
                      f"h {c[8]:g} m, density {c[9]:g} kg/m^3" + (f", size {c[10]} m" if c[10] else "")
                      for c in CASES)
    text = cases + "\n\n" + report(rows) + "\n"
    with open(os.path.join(a.out, "measured.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
