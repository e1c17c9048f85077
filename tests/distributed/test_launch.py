"""`python -m dy2st.distributed.launch`: the processes get Paddle's environment, their output
comes back with a rank prefix, and a failing rank or an interrupt stops every process (and what
they started) within seconds, with a non-zero exit status. The scripts here need no jax."""
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from dy2st.distributed.launch import free_port, parse_args

ROOT = Path(__file__).resolve().parents[2]


def launch(tmp_path, script, *args, timeout=60, **kwargs):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(script))
    cmd = [sys.executable, "-m", "dy2st.distributed.launch", *args, str(path)]
    return subprocess.Popen(cmd, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by its parent) is gone for our purpose
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def pids(output):
    return [int(p) for line in output.splitlines() if "pids" in line
            for p in line.split("pids", 1)[1].split()]


SPAWNS = """
    import os, subprocess, sys, time
    rank = int(os.environ["PADDLE_TRAINER_ID"])
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    print("pids", os.getpid(), child.pid, flush=True)
"""


def test_processes_get_paddles_environment_and_a_rank_prefix(tmp_path):
    # (ParallelEnv's reading of these variables: tests/distributed/test_single_process.py)
    proc = launch(tmp_path, """
        import os, sys
        e = os.environ
        print("rank", e["PADDLE_TRAINER_ID"], "of", e["PADDLE_TRAINERS_NUM"],
              e["PADDLE_LOCAL_RANK"], e["PADDLE_MASTER"].startswith("127.0.0.1:"),
              len(e["PADDLE_TRAINER_ENDPOINTS"].split(",")),
              e["PADDLE_CURRENT_ENDPOINT"] in e["PADDLE_TRAINER_ENDPOINTS"], sys.argv[1:])
        print("to stderr", file=sys.stderr)
    """, "--nproc_per_node", "2")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    lines = sorted(line for line in out.splitlines() if "rank" in line)
    assert lines == [f"[rank {r}] rank {r} of 2 {r} True 2 True []" for r in range(2)]
    assert sorted(line for line in err.splitlines() if "stderr" in line) == \
        [f"[rank {r}] to stderr" for r in range(2)]


def test_a_failing_rank_stops_the_others_leaving_no_process(tmp_path):
    marker = tmp_path / "rank0-started"
    proc = launch(tmp_path, SPAWNS + f"""
    marker = {str(marker)!r}
    if rank == 0:
        open(marker, "w").close()
    else:
        while not os.path.exists(marker):      # fail once rank 0 runs (and told its pids)
            time.sleep(0.05)
        raise ValueError("rank 1 fails")
    time.sleep(120)
    """, "--nproc_per_node", "2")
    # timed from rank 0's start, when rank 1 fails: starting Pythons on a loaded machine is slow
    deadline = time.monotonic() + 60
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    start = time.monotonic()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert time.monotonic() - start < 30      # not the 120 s the other rank sleeps
    assert "[rank 1] ValueError: rank 1 fails" in err
    assert "rank 1 failed (exit status 1); stopping the other processes" in err
    started = pids(out)
    assert len(started) == 4            # two ranks, each with a child of its own
    assert not [p for p in started if alive(p)]


def test_a_rank_killed_by_a_signal_gives_a_non_zero_status(tmp_path):
    proc = launch(tmp_path, """
        import os, signal, time
        if os.environ["PADDLE_TRAINER_ID"] == "0":
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(120)
    """, "--nproc_per_node", "2")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGKILL
    assert "rank 0 failed (signal 9)" in err


def test_an_interrupted_launch_stops_every_process(tmp_path):
    proc = launch(tmp_path, SPAWNS + """
    time.sleep(120)
    """, "--nproc_per_node", "2")
    seen = []
    deadline = time.monotonic() + 30
    while len(seen) < 2 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if "pids" in line:
            seen.append(line)
    assert len(seen) == 2
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "interrupted" in err
    started = pids("".join(seen))
    assert len(started) == 4 and not [p for p in started if alive(p)]


def test_a_normal_exit_cleans_up_what_the_script_left_running(tmp_path):
    proc = launch(tmp_path, SPAWNS, "--nproc_per_node", "1", "--log_dir", str(tmp_path / "log"))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    started = pids(out)
    assert len(started) == 2 and not [p for p in started if alive(p)]
    assert "pids" in (tmp_path / "log" / "workerlog.0").read_text()


def test_several_machines_number_the_ranks_by_machine(tmp_path):
    proc = launch(tmp_path, """
        import os
        print("ids", os.environ["PADDLE_TRAINER_ID"], os.environ["PADDLE_TRAINERS_NUM"],
              os.environ["PADDLE_MASTER"], os.environ["PADDLE_NNODES"])
    """, "--nproc_per_node", "2", "--nnodes", "3", "--rank", "2", "--master", "10.1.2.3:6000")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert sorted(line for line in out.splitlines() if "ids" in line) == [
        "[rank 4] ids 4 6 10.1.2.3:6000 3", "[rank 5] ids 5 6 10.1.2.3:6000 3"]


@pytest.mark.parametrize("args, message", [
    (["--nproc_per_node", "2", "missing.py"], "the script 'missing.py' does not exist"),
    (["--nproc_per_node", "0"], "--nproc_per_node must be at least 1"),
    (["--nnodes", "2"], "--nnodes > 1 needs --master"),
    (["--nnodes", "2", "--master", "h:1", "--rank", "2"], "--rank 2 is not a machine index"),
    (["--master", "nohost"], "--master must be ADDR:PORT"),
    (["--nproc_per_node", "2", "--devices", "0"], "--devices lists 1 devices"),
])
def test_bad_arguments_are_named(tmp_path, capsys, args, message):
    script = tmp_path / "script.py"
    script.write_text("print('never')\n")
    if not args[-1].endswith(".py"):
        args = args + [str(script)]
    with pytest.raises(SystemExit) as exit_info:
        parse_args(args)
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_free_port_is_free():
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))       # nobody holds it
