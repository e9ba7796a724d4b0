# Helpers for the torchrun end-to-end scripts (sourced after ../lib.sh).

# Scripts run under Debian's /usr/bin/python3 (the default python3 may be
# another interpreter, without torch).
export MPTRAIN_PYTHON=/usr/bin/python3
TORCHRUN_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# need_torch: skips (saying why) where /usr/bin/python3 cannot import torch;
# the test setup (scripts/setup.sh --test) installs python3-torch.
need_torch() {
  /usr/bin/python3 -c 'import torch' 2>/dev/null ||
    skip "/usr/bin/python3 cannot import torch (scripts/setup.sh --test installs python3-torch)"
}

# need_cpus M: skips unless M workers fit on the usable CPUs.
need_cpus() {
  "$MPTRAIN" plan -n "$1" >/dev/null 2>&1 || skip "fewer than $1 usable CPUs for -n $1"
}
