"""tools/fuzz.py over several processes (`--workers N`): each program is independent (its own
file, its own caches), so the long run splits across idle cores; programs report in seed order."""
from __future__ import annotations

import multiprocessing
import os
import sys
import tempfile
from typing import Any, List, Optional, Tuple

_STATE: List[Any] = []       # in a worker: [the fuzz module, its own directory]


def _start(fuzz: Any, directory: str) -> None:
    own = tempfile.mkdtemp(prefix="worker_", dir=directory)
    sys.path.insert(0, own)         # the programs' modules are imported from there
    _STATE[:] = [fuzz, own]


def _check(job: Tuple[int, bool, bool]) -> Tuple[int, int, Optional[Tuple]]:
    """One program: (runs, gradients compared, the failure's fields or None)."""
    program_seed, save, gradient = job
    fuzz, directory = _STATE
    report = fuzz.Report()
    try:
        runs, failure = fuzz.check_program(program_seed, directory, save, gradient, report)
    except Exception as e:  # noqa: BLE001 - a crash of the harness is a failure too
        runs, failure = 0, fuzz.Failure(program_seed, fuzz.generate(program_seed),
                                        f"crashed: {type(e).__name__}: {e}")
    fields = None if failure is None else (failure.seed, failure.source, failure.detail,
                                           failure.kind)
    return runs, report.gradients, fields


def fuzz_in_workers(fuzz: Any, seeds: List[int], save: bool, verbose: bool,
                    gradient: bool, workers: int) -> Any:
    """fuzz.fuzz(...) of these program seeds in `workers` processes: its Report."""
    report = fuzz.Report()
    jobs = [(s, save, gradient) for s in seeds]
    with tempfile.TemporaryDirectory(prefix="dy2st_fuzz_") as directory:
        # fork: the workers inherit the loaded dy2st and this module (spawn where there is none)
        context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
        with context.Pool(workers, initializer=_start, initargs=(fuzz, directory)) as pool:
            for runs, gradients, fields in pool.imap(_check, jobs, chunksize=4):
                report.gradients += gradients
                fuzz.add_outcome(report, runs, fuzz.Failure(*fields) if fields else None,
                                 verbose)
    return report
