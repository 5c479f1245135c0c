"""Studies and tables on a real Dask cluster (LocalCluster, 2 worker processes): the files equal a local
run's (but the `seconds` column and summary.json's timing), a worker killed mid-run loses nothing, and an
interrupted driver resumes without recomputing a written fit.

dask and distributed are required (`pip install "./python[dask]"`; CI installs them): without them these
tests fail. PBDFIT_NO_DASK=1 skips them, loudly, for a machine that cannot install them."""

import csv
import io
import json
import os
import struct
from pathlib import Path

import pytest

import pbdfit
import pbdfit._dask
from studies import STUDY

if os.environ.get("PBDFIT_NO_DASK") == "1":
    pytest.skip(
        "PBDFIT_NO_DASK=1: the Dask cluster tests are SKIPPED on request (CI runs them with dask installed)",
        allow_module_level=True,
    )

from dask.distributed import Client, LocalCluster  # noqa: E402 (a missing dask fails these tests)

# 2 E x 2 nu x 3 nit at N = 1 on gravity-floor: 12 quick fits in three (dt, N, nit) groups; nit = 2 is
# interior, so leave-one-out predicts 4 nodes. With neighbour starts each task is a chain of two fits
# (nu 0 then 0.3 at one E), so a chain's second fit starts from the first.
TABLE = """
name = "tiny"
description = "test table"
model = "pbd"
scene = "gravity-floor"
[fit]
grid = 11
neighbour_starts = {chained}
[axes]
young = [1e3, 1e4]
poisson = [0.0, 0.3]
dt = [0.01]
nit = [1, 2, 4]
n = [1]
"""



def table_job(path: Path, out: Path) -> str:
    """The keywords of a table job, as ``pbdfit.table`` passes them to the driver."""
    return json.dumps({"file": str(path), "out": str(out)})


def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text)
    return path


def without_seconds(path: Path):
    rows = list(csv.reader(io.StringIO(path.read_text())))
    drop = rows[0].index("seconds")
    return [r[:drop] + r[drop + 1:] for r in rows]


def assert_same_files(local: Path, dask: Path):
    """Every CSV equal but the `seconds` column (table.csv has none: byte for byte), table.json byte for
    byte; summary.json equal but its timing, threads and backend."""
    names = sorted(p.name for p in local.iterdir() if not p.name.startswith("."))
    assert names == sorted(p.name for p in dask.iterdir() if not p.name.startswith("."))
    for name in names:
        a, b = local / name, dask / name
        if name == "motion":
            # A study's motion pass (its `[motion]` table): its rows, equal but the `seconds` column, and the
            # settings they were made with, byte for byte.
            assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir()) == ["pass.json", "releases.csv"]
            assert without_seconds(a / "releases.csv") == without_seconds(b / "releases.csv")
            assert (a / "pass.json").read_bytes() == (b / "pass.json").read_bytes()
        elif name == "table.json" or name == "table.csv":
            assert a.read_bytes() == b.read_bytes(), name
        elif name.endswith(".csv"):
            assert without_seconds(a) == without_seconds(b), name
        elif name == "summary.json":
            sa, sb = json.loads(a.read_text()), json.loads(b.read_text())
            for s in (sa, sb):
                for k in ("seconds", "threads", "backend", "computed", "resumed"):
                    s.pop(k)
            assert sa == sb
        else:
            raise AssertionError(f"unexpected file {name}")


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0") as cluster:
        with Client(cluster) as c:
            yield c


@pytest.mark.parametrize("chained", ["false", "true"])
def test_a_table_on_two_worker_processes_equals_the_local_build(tmp_path, client, chained):
    path = write(tmp_path, "tiny.toml", TABLE.format(chained=chained))
    local = pbdfit.table(path, jobs=1, progress=False, out=tmp_path / "local")
    lines = []
    summary = pbdfit.table(path, progress=lambda *a: lines.append(a), out=tmp_path / "dask", client=client)
    assert (summary["nodes"], summary["computed"], summary["resumed"], summary["submitted"]) == (12, 12, 0, 12)
    assert summary["simulated"] == local["simulated"] == 4
    assert [done for done, _, _ in lines] == list(range(13)), "a progress call per fit written"
    assert_same_files(tmp_path / "local", tmp_path / "dask")


def test_a_study_on_two_worker_processes_equals_the_local_run(tmp_path, client):
    path = write(tmp_path, "st.toml", STUDY)
    local = pbdfit.study(path, jobs=1, progress=False, out=tmp_path / "local")
    summary = pbdfit.study(path, progress=False, out=tmp_path / "dask", client=client)
    assert summary["fits"] == local["fits"] == 18
    assert summary["files"] == local["files"]
    assert_same_files(tmp_path / "local", tmp_path / "dask")


def test_a_study_motion_pass_runs_after_the_cluster_fits(tmp_path, client):
    """A study with `[motion]`: the driver releases every fit the workers wrote, as a local run does."""
    path = write(tmp_path, "st.toml", STUDY + "[motion]\nperiods = 2\n")
    options = dict(only="gravity-wall/nit")
    pbdfit.study(path, jobs=1, progress=False, out=tmp_path / "local", **options)
    pbdfit.study(path, progress=False, out=tmp_path / "dask", client=client, **options)
    releases = without_seconds(tmp_path / "dask" / "motion" / "releases.csv")
    assert len(releases) == 1 + 6, "a row per fit row: 3 nu x nit in {1, 2}"
    assert_same_files(tmp_path / "local", tmp_path / "dask")


def test_a_study_with_options_on_the_cluster_equals_the_local_run_with_them(tmp_path, client):
    """The job's options reach the driver and the workers (they rebuild the study from the same keywords):
    only the wall's nit experiment, every other nu, the f32 arithmetic and the pattern search."""
    path = write(tmp_path, "st.toml", STUDY)
    options = dict(only="gravity-wall/nit", poisson_stride=2, precision="f32", search="pattern")
    local = pbdfit.study(path, jobs=1, progress=False, out=tmp_path / "local", **options)
    summary = pbdfit.study(path, progress=False, out=tmp_path / "dask", client=client, **options)
    # gravity-wall x nu in {0, 0.3} x nit in {1, 2}.
    assert summary["fits"] == local["fits"] == 4
    assert summary["files"] == local["files"] == ["gravity-wall-nit.csv"]
    assert_same_files(tmp_path / "local", tmp_path / "dask")


def test_a_worker_killed_mid_run_loses_nothing(tmp_path):
    path = write(tmp_path, "tiny.toml", TABLE.format(chained="false"))
    pbdfit.table(path, jobs=1, progress=False, out=tmp_path / "local")
    marker = tmp_path / "killed"

    def kill_once(source, task):
        # The first task of the last group (nit = 4) ends its own worker process, once: the tasks of
        # the earlier groups were submitted before it, so the run is under way.
        import os as _os
        import json as _json
        import signal as _signal

        import pbdfit as _pbdfit

        if _json.loads(task)["fits"][0]["key"]["nit"] == 4:
            try:
                fd = _os.open(str(marker), _os.O_CREAT | _os.O_EXCL | _os.O_WRONLY)
            except FileExistsError:
                pass
            else:
                _os.write(fd, str(_os.getpid()).encode())
                _os.close(fd)
                _os.kill(_os.getpid(), _signal.SIGKILL)
        return _pbdfit._native.run_task_json(source, task)

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0") as cluster:
        with Client(cluster) as c:
            before = set(c.run(os.getpid).values())
            summary = pbdfit._dask.build("table", table_job(path, tmp_path / "dask"), c, progress=False, _run_task=kill_once)
    killed = int(marker.read_text())
    assert killed in before, "the killed process was one of the workers"
    assert (summary["computed"], summary["resumed"]) == (12, 0)
    assert_same_files(tmp_path / "local", tmp_path / "dask")


def test_an_interrupted_driver_resumes_without_recomputing_written_fits(tmp_path, client):
    path = write(tmp_path, "tiny.toml", TABLE.format(chained="false"))
    pbdfit.table(path, jobs=1, progress=False, out=tmp_path / "local")
    out = tmp_path / "dask"

    class Stop(Exception):
        pass

    def stop_after_five(done, total, line):
        if done >= 5:
            raise Stop()

    with pytest.raises(Stop):
        pbdfit.table(path, progress=stop_after_five, out=out, client=client)
    rows = without_seconds(out / "gravity-floor-table.csv")[1:]
    assert len(rows) == 5, "every fit written before the interruption, and none after"
    assert not (out / "table.csv").exists()
    written = {(bits(r[3]), bits(r[4]), int(r[7])) for r in rows}  # young, poisson, nit

    log = tmp_path / "submitted.jsonl"

    def logged(source, task):
        with open(log, "a") as f:
            f.write(task + "\n")
        return pbdfit._native.run_task_json(source, task)

    summary = pbdfit._dask.build("table", table_job(path, out), client, progress=False, _run_task=logged)
    assert (summary["resumed"], summary["computed"], summary["submitted"]) == (5, 7, 7)
    # The fits sent again are exactly those not written before.
    keys = [fit["key"] for line in log.read_text().splitlines() for fit in json.loads(line)["fits"]]
    sent = {(k["young"], k["poisson"], k["nit"]) for k in keys}
    assert len(keys) == len(sent) == 7 and not sent & written
    assert_same_files(tmp_path / "local", out)


def bits(text: str) -> int:
    """A CSV number's f64 bits (the task keys' encoding)."""
    return struct.unpack("<Q", struct.pack("<d", float(text)))[0]
