"""A torch.distributed.elastic script whose main is decorated with @record.

Started by `mptrain torchrun`: the rank named by FAIL_RANK raises ValueError
at once, so @record writes TORCHELASTIC_ERROR_FILE with the message and the
traceback. With SECOND_RANK set, that rank ignores SIGTERM and raises a
RuntimeError of its own a moment later (a second failure). Other ranks wait.
"""
import os
import signal
import time

from torch.distributed.elastic.multiprocessing.errors import record


def fail_now(rank):
    raise ValueError(f"rank {rank} found a bad batch")


@record
def main():
    rank = int(os.environ["RANK"])
    if rank == int(os.environ.get("FAIL_RANK", "1")):
        fail_now(rank)
    if str(rank) == os.environ.get("SECOND_RANK"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(1.5)
        raise RuntimeError(f"rank {rank} failed too")
    time.sleep(60)


if __name__ == "__main__":
    main()
