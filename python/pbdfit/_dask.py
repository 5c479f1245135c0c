"""Studies and tables on a Dask cluster: ``pbdfit.study(path, client=client)``, ``pbdfit.table(path,
client=client)``.

The driver (this process) takes the results folder, resumes it and lists the pending fits as tasks;
workers run the tasks (``pbdfit._native.run_task_json``: fits only, no file written) and this process
writes every finished fit to its CSVs as it arrives, then does what a local run does after its fits
(sorted files, ``summary.json``; for a table leave-one-out, ``table.csv`` and ``table.json``). These are
the local runner's own pieces, so the files are those of a local run (but the ``seconds`` column and
``summary.json``'s timing, threads and backend), an interrupted run resumes without recomputing a
written fit, and a task whose worker dies is run again by Dask elsewhere.

dask is imported here only, when a client is given: pbdfit imports without it.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Callable, Dict, Optional, Union

from . import _native

Progress = Union[bool, Callable[[int, int, str], Any]]


def build(
    kind: str,
    keywords: str,
    client: Any,
    progress: Progress = True,
    retries: int = 3,
    _run_task: Optional[Callable[[str, str], str]] = None,
) -> Dict[str, Any]:
    """Runs (or resumes) the study or table (``kind``) of the job ``keywords`` (JSON: the options of
    ``pbdfit study`` or ``pbdfit table`` under their Python names) on ``client``'s workers; see the
    module's doc. ``progress``: True prints a line to stderr every 50 fits and at the end; a callable is
    called with (fits written in this run, fits this run must do, a line about the fit) after each fit
    is written (an exception it raises stops the run like Ctrl-C: every written fit stays). ``retries``:
    how often Dask runs a task again whose worker raised (a worker that dies has its tasks rescheduled
    anyway). ``_run_task`` (tests) replaces the workers' function (same arguments and result)."""
    try:
        from dask.distributed import as_completed
    except ImportError as e:
        raise ImportError(f'client=: dask is not installed ({e}); pip install "pbdfit[dask]"') from e

    driver = _native.Driver(kind, keywords)
    futures = []
    try:
        for notice in driver.notices:
            print(notice, file=sys.stderr)
        total, resumed = driver.total, driver.resumed

        def report(done: int, line: str) -> None:
            if callable(progress):
                progress(done, total, line)
            elif progress and (done == total or done % 50 == 0):
                print(f"[{done}/{total} fits, {resumed} resumed] {line}", file=sys.stderr)

        tasks = driver.tasks()
        report(0, f"{total} fits to do, {resumed} already done, in {len(tasks)} tasks on the cluster")
        run = _native.run_task_json if _run_task is None else _run_task
        source = driver.source
        futures = [client.submit(run, source, task, pure=False, retries=retries) for task in tasks]
        submitted = sum(len(json.loads(task)["fits"]) for task in tasks)
        for future in as_completed(futures):
            lines = driver.record(future.result())
            for i, line in enumerate(lines, start=driver.done - len(lines) + 1):
                report(i, line)
            # Drop the finished future's result from the cluster's memory.
            future.release()
        threads = sum(client.nthreads().values())
        summary = dict(driver.finish(threads))
    except BaseException:
        # Interrupted (Ctrl-C, a raising progress callback) or failed: what is written stays; the rest
        # is not waited for.
        if futures:
            client.cancel(futures)
        driver.close()
        raise
    summary["submitted"] = submitted
    return summary
