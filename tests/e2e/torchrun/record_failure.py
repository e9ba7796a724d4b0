"""A torch.distributed.elastic script whose main is decorated with @record.

Started by `mptrain torchrun`: the rank named by FAIL_RANK raises ValueError
at once, so @record writes TORCHELASTIC_ERROR_FILE with the message and the
traceback. With SECOND_RANK set, that rank catches SIGTERM (before anything
else, and says so by creating the file READY names, which the failing rank
waits for) and, once mptrain's SIGTERM has come, raises a RuntimeError of
its own: a second failure after mptrain began stopping the group. Other
ranks wait.
"""
import os
import signal
import time

SECOND = os.environ.get("SECOND_RANK") == os.environ["RANK"]
stopped = []
if SECOND:
    signal.signal(signal.SIGTERM, lambda signum, frame: stopped.append(signum))
    open(os.environ["READY"], "w").close()

from torch.distributed.elastic.multiprocessing.errors import record  # noqa: E402 (after the handler)


def fail_now(rank):
    raise ValueError(f"rank {rank} found a bad batch")


@record
def main():
    rank = int(os.environ["RANK"])
    if rank == int(os.environ.get("FAIL_RANK", "1")):
        if os.environ.get("SECOND_RANK"):
            deadline = time.monotonic() + 60
            while not os.path.exists(os.environ["READY"]) and time.monotonic() < deadline:
                time.sleep(0.02)
        fail_now(rank)
    if SECOND:
        deadline = time.monotonic() + 60
        while not stopped and time.monotonic() < deadline:
            time.sleep(0.02)
        raise RuntimeError(f"rank {rank} failed too")
    time.sleep(60)


if __name__ == "__main__":
    main()
