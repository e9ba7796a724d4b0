"""nested_pools.py MODE: pools inside processes a worker's program starts
itself, as real programs start them. Each process that did work prints one
line "MODE PID omp OMP_NUM_THREADS blas BLAS_THREADS torch TORCH_THREADS
allowed CPU_LIST" (blas: its OpenBLAS's thread count, -1 when none is
loaded; torch: -1 where torch is not used).
  joblib      joblib.Parallel(n_jobs=-1) over numpy work (loky: exec'd workers)
  subprocess  one program run with subprocess.run, alone
  dataloader  a torch DataLoader with 2 workers (forked) doing numpy work
Run by tests/e2e/launch/nested_pools.sh."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from where import allowed, blas_threads  # noqa: E402


def report(mode, torch_threads=-1):
    return (f"{mode} {os.getpid()} omp {os.environ.get('OMP_NUM_THREADS', '-')} blas {blas_threads()} "
            f"torch {torch_threads} allowed {allowed()}")


def numpy_work(seconds):
    import numpy
    a = numpy.random.default_rng(os.getpid()).standard_normal((200, 200))
    end = time.time() + seconds
    while time.time() < end:
        a = a @ a.T
        a /= abs(a).max()


def joblib_task(_):
    numpy_work(1.0)
    return report("joblib")


def main():
    mode = sys.argv[1]
    if mode == "joblib":
        from joblib import Parallel, delayed
        for line in sorted(set(Parallel(n_jobs=-1)(delayed(joblib_task)(i) for i in range(4)))):
            print(line, flush=True)
    elif mode == "subprocess":
        subprocess.run([sys.executable, __file__, "alone"], check=True)
    elif mode == "alone":
        numpy_work(0.2)
        print(report("subprocess"), flush=True)
    elif mode == "dataloader":
        import torch
        from torch.utils.data import DataLoader, Dataset

        class Items(Dataset):
            def __len__(self):
                return 8

            def __getitem__(self, index):
                numpy_work(0.2)
                return report("dataloader", torch.get_num_threads())

        seen = set()
        for batch in DataLoader(Items(), batch_size=1, num_workers=2):
            seen.update(batch)
        for line in sorted(seen):
            print(line, flush=True)
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
