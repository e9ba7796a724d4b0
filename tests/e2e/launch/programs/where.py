"""where.allowed(): this process's Cpus_allowed_list ("0-1"), the CPUs the
test programs here report they ran on; where.blas_threads(): the thread
count of the OpenBLAS this process loaded (-1 when none is)."""
import ctypes


def allowed():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("Cpus_allowed_list:"):
                return line.split()[1]
    return "?"


def blas_threads():
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "openblas" in line.split()[-1] and ".so" in line.split()[-1]}
    for path in sorted(paths):
        try:
            return ctypes.CDLL(path).openblas_get_num_threads()
        except (OSError, AttributeError):
            continue
    return -1
