"""The same cube stepped by pbdfit and by the reference PBD library (pypbd), in one run.

Both get the N = 8 GravityFloor cube of pbdfit's mesh (vertices, tetrahedra, masses, held set), the
same constraints in the same list order (distance constraints per unique edge, then volume constraints
per tetrahedron), kd = kv = 1, dt = 0.01, nit = 4. pbdfit's rate is `pbdfit bench pbd` (one thread);
the library's is its time step (semi-implicit Euler, nit projection sweeps over its constraint groups,
velocity update) timed over many steps. Usage: benchmarks/against-library.sh (makes the venv).
"""

import json
import re
import subprocess
import sys
import time

import pypbd as pbd

N, NIT, DT, STEPS = 8, 4, 0.01, 300


def main(cli: str) -> None:
    mesh = json.loads(
        subprocess.run(
            [cli, "simulate", "--scene", "gravity-floor", "--n", str(N), "--nit", str(NIT), "--dt", str(DT),
             "--kd", "1", "--kv", "1", "--json"],
            check=True, capture_output=True, text=True,
        ).stdout
    )
    points = [list(map(float, p)) for p in mesh["vertices"]]
    tets = [int(i) for t in mesh["tets"] for i in t]

    sim = pbd.Simulation.getCurrent()
    sim.initDefault()
    model = sim.getModel()
    model.addTetModel(points, tets)
    particles = model.getParticles()
    held = set(mesh["fixed"])
    for i, m in enumerate(mesh["masses"]):
        particles.setMass(i, 0.0 if i in held else float(m))
    for c in mesh["constraints"]:
        p = c["particles"]
        if c["type"] == "distance":
            model.addDistanceConstraint(p[0], p[1], 1.0)
        else:
            model.addVolumeConstraint(p[0], p[1], p[2], p[3], 1.0)
    model.initConstraintGroups()
    constraints = len(mesh["constraints"])
    step = sim.getTimeStep()
    step.setValueUInt(pbd.TimeStepController.MAX_ITERATIONS, NIT)
    assert step.getValueUInt(pbd.TimeStepController.MAX_ITERATIONS) == NIT
    pbd.TimeManager.getCurrent().setTimeStepSize(DT)
    for _ in range(20):  # warm-up
        step.step(model)
    start = time.perf_counter()
    for _ in range(STEPS):
        step.step(model)
    seconds = time.perf_counter() - start
    library = STEPS * NIT * constraints / seconds

    bench = subprocess.run([cli, "bench", "pbd", "--nit", str(NIT), "--n", str(N)], check=True,
                           capture_output=True, text=True).stdout
    row = next(line for line in bench.splitlines() if re.match(rf"\s*{N}\s", line))
    ours = float(row.split()[2])
    groups = len(model.getConstraintGroups())
    print(f"cube N = {N}: {constraints} constraints ({groups} library constraint groups), nit = {NIT}, dt = {DT}")
    print(f"reference library (pypbd {getattr(pbd, '__version__', '?')}), one thread: {library:.3e} projections/s "
          f"({STEPS} steps in {seconds:.3f} s, including its integration and velocity update)")
    print(f"pbdfit (`pbdfit bench pbd`, f64, one thread):          {ours:.3e} projections/s")
    print(f"ratio pbdfit / library: {ours / library:.2f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "target/release/pbdfit")
