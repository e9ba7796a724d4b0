"""gomp_spawn.py: a Python program that loads GNU OpenMP the way torch does
(dlopen, after the placement library's constructor), which binds its main
thread to the first of the places it inherited, then starts itself again as a
child with subprocess (fork and exec, as torch.multiprocessing's spawn does).
The child prints "child before LIST" and "child after LIST": its
Cpus_allowed_list before and after loading the runtime itself.
Used by tests/e2e/launch/openmp_inherited_binding.sh."""
import ctypes
import ctypes.util
import os
import subprocess
import sys

from where import allowed


def load_gomp():
    gomp = ctypes.CDLL(ctypes.util.find_library("gomp") or "libgomp.so.1")
    gomp.omp_get_max_threads()


if len(sys.argv) > 1 and sys.argv[1] == "child":
    print("child before", allowed(), flush=True)
    load_gomp()
    print("child after", allowed(), flush=True)
else:
    load_gomp()
    print("parent after", allowed(), flush=True)
    sys.exit(subprocess.run([sys.executable, __file__, "child"]).returncode)
