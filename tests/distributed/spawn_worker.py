"""Functions that tests/distributed/test_spawn.py runs in spawned processes (the spawn start
method imports them by module)."""
import os
import time


def report(out_dir, tag):
    """Write what this process's environment says of the job."""
    rank, size = os.environ["PADDLE_TRAINER_ID"], os.environ["PADDLE_TRAINERS_NUM"]
    with open(os.path.join(out_dir, f"rank{rank}"), "w") as f:
        f.write(f"{tag} {rank} {size} {os.environ['PADDLE_MASTER']}")


def fail_on_rank_1(out_dir):
    rank = int(os.environ["PADDLE_TRAINER_ID"])
    with open(os.path.join(out_dir, f"pid{rank}"), "w") as f:
        f.write(str(os.getpid()))
    if rank == 1:
        raise ValueError("rank 1 fails on purpose")
    time.sleep(120)
