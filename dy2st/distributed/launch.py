"""`python -m dy2st.distributed.launch --nproc_per_node N script.py args`: start the processes of
a data-parallel job with the environment paddle.distributed reads, forward their output with a
rank prefix, and stop every process (and what it started) when one fails or the launcher is
interrupted."""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import IO, Dict, List, Optional, Sequence

from . import env

# seconds a stopped process gets to exit after SIGTERM before it is killed
GRACE_SECONDS = 3.0
POLL_SECONDS = 0.05


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m dy2st.distributed.launch",
        description="Start the processes of a data-parallel job (paddle.distributed).")
    parser.add_argument("--nproc_per_node", type=int, default=1,
                        help="processes to start on this machine (default 1)")
    parser.add_argument("--nnodes", type=int, default=1, help="machines in the job (default 1)")
    parser.add_argument("--rank", type=int, default=None,
                        help="this machine's index among --nnodes (needed when --nnodes > 1)")
    parser.add_argument("--master", default=None,
                        help="ADDR:PORT where the processes meet (the machine of --rank 0); "
                             "default: 127.0.0.1 and a free port (one machine only)")
    parser.add_argument("--devices", "--gpus", dest="devices", default=None,
                        help="comma-separated GPU ids, one per process of this machine")
    parser.add_argument("--log_dir", default=None,
                        help="also write each process's output to LOG_DIR/workerlog.RANK")
    parser.add_argument("script", help="the training script")
    parser.add_argument("script_args", nargs=argparse.REMAINDER,
                        help="arguments passed to the script")
    args = parser.parse_args(list(argv))
    if args.nproc_per_node < 1:
        parser.error(f"--nproc_per_node must be at least 1, got {args.nproc_per_node}")
    if args.nnodes < 1:
        parser.error(f"--nnodes must be at least 1, got {args.nnodes}")
    if args.nnodes > 1 and (args.master is None or args.rank is None):
        parser.error("--nnodes > 1 needs --master ADDR:PORT (the machine of --rank 0) and "
                     "--rank (this machine's index)")
    if args.rank is None:
        args.rank = 0
    if not 0 <= args.rank < args.nnodes:
        parser.error(f"--rank {args.rank} is not a machine index of --nnodes {args.nnodes}")
    if args.master is not None and not _is_endpoint(args.master):
        parser.error(f"--master must be ADDR:PORT, got {args.master!r}")
    if args.devices is not None:
        ids = [d for d in args.devices.split(",") if d.strip()]
        if len(ids) != args.nproc_per_node:
            parser.error(f"--devices lists {len(ids)} devices for --nproc_per_node "
                         f"{args.nproc_per_node}")
    if not os.path.isfile(args.script):
        parser.error(f"the script {args.script!r} does not exist")
    return args


def _is_endpoint(text: str) -> bool:
    host, _, port = text.rpartition(":")
    return bool(host) and port.isdigit() and 0 < int(port) < 65536


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def process_envs(args: argparse.Namespace, master: str) -> List[Dict[str, str]]:
    """The environment of each process this machine starts (Paddle's variable names)."""
    nproc, world = args.nproc_per_node, args.nproc_per_node * args.nnodes
    host = master.rpartition(":")[0]
    endpoints = ([f"{host}:{free_port(host)}" for _ in range(nproc)] if args.nnodes == 1
                 else [])
    devices = args.devices.split(",") if args.devices else None
    envs = []
    for local in range(nproc):
        rank = args.rank * nproc + local
        e = {env.MASTER: master, env.TRAINER_ID: str(rank), env.TRAINERS_NUM: str(world),
             env.GLOBAL_RANK: str(rank), env.GLOBAL_SIZE: str(world),
             env.LOCAL_RANK: str(local), env.LOCAL_SIZE: str(nproc),
             env.RANK_IN_NODE: str(local), env.NNODES: str(args.nnodes),
             "PYTHONUNBUFFERED": "1"}
        if endpoints:
            e[env.TRAINER_ENDPOINTS] = ",".join(endpoints)
            e[env.CURRENT_ENDPOINT] = endpoints[local]
        if devices:
            e[env.SELECTED_GPUS] = devices[local].strip()
        envs.append(e)
    return envs


class Forwarder(threading.Thread):
    """Copies one stream of a process to ours, each line prefixed with the rank."""

    lock = threading.Lock()

    def __init__(self, stream: IO[bytes], out: IO[bytes], rank: int,
                 log: Optional[IO[bytes]]) -> None:
        super().__init__(daemon=True)
        self.stream, self.out, self.log = stream, out, log
        self.prefix = f"[rank {rank}] ".encode()

    def run(self) -> None:
        for line in iter(self.stream.readline, b""):
            with self.lock:
                self.out.write(self.prefix + line)
                self.out.flush()
                if self.log is not None:
                    self.log.write(line)
                    self.log.flush()
        self.stream.close()


class Job:
    """The processes of this machine: started together, stopped together."""

    def __init__(self, command: List[str], envs: List[Dict[str, str]], first_rank: int,
                 log_dir: Optional[str]) -> None:
        self.procs: List[subprocess.Popen] = []
        self.threads: List[Forwarder] = []
        self.logs: List[IO[bytes]] = []
        if log_dir:
            os.makedirs(log_dir, exist_ok=True)
        out, err = sys.stdout.buffer, sys.stderr.buffer
        for i, extra in enumerate(envs):
            rank = first_rank + i
            log = open(os.path.join(log_dir, f"workerlog.{rank}"), "wb") if log_dir else None
            if log is not None:
                self.logs.append(log)
            # its own session: stopping the job reaches what the script started too
            proc = subprocess.Popen(command, env={**os.environ, **extra},
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True)
            self.procs.append(proc)
            for stream, target in ((proc.stdout, out), (proc.stderr, err)):
                t = Forwarder(stream, target, rank, log)
                t.start()
                self.threads.append(t)
        self.first_rank = first_rank

    def wait(self, interrupted: threading.Event) -> int:
        """0 when every process exits 0; else the first failure's exit status (after stopping
        the others). KeyboardInterrupt once `interrupted` is set."""
        while True:
            if interrupted.is_set():
                raise KeyboardInterrupt
            running = False
            for i, proc in enumerate(self.procs):
                code = proc.poll()
                if code is None:
                    running = True
                elif code != 0:
                    what = f"signal {-code}" if code < 0 else f"exit status {code}"
                    _say(f"rank {self.first_rank + i} failed ({what}); stopping the other "
                         "processes")
                    self.stop()
                    return code if code > 0 else 128 - code
            if not running:
                return 0
            interrupted.wait(POLL_SECONDS)

    def stop(self) -> None:
        """SIGTERM every process group still alive, SIGKILL what is left after the grace time."""
        for proc in self.procs:
            _signal_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + GRACE_SECONDS
        for proc in self.procs:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for proc in self.procs:
            # the group too: a process that exited may have left children behind
            _signal_group(proc, signal.SIGKILL)
            if proc.poll() is None:
                proc.wait()

    def close(self) -> None:
        for t in self.threads:
            t.join(timeout=1.0)
        for log in self.logs:
            log.close()


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _say(message: str) -> None:
    sys.stderr.write(f"[launch] {message}\n")
    sys.stderr.flush()


def launch(argv: Sequence[str]) -> int:
    """Run the job; returns the launcher's exit status."""
    args = parse_args(argv)
    master = args.master or f"127.0.0.1:{free_port()}"
    envs = process_envs(args, master)
    command = [sys.executable, "-u", args.script, *args.script_args]
    # SIGINT/SIGTERM only set a flag the wait loop reads: a KeyboardInterrupt raised anywhere
    # could land inside Popen.poll() holding its wait lock, and stop()'s wait() then hung
    interrupted = threading.Event()
    previous = {sig: signal.signal(sig, lambda signum, frame: interrupted.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    job = None
    try:
        job = Job(command, envs, args.rank * args.nproc_per_node, args.log_dir)
        return job.wait(interrupted)
    except KeyboardInterrupt:
        _say("interrupted; stopping the processes")
        return 130
    finally:
        if job is not None:
            job.stop()
            job.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main() -> None:
    sys.exit(launch(sys.argv[1:]))


if __name__ == "__main__":
    main()
