# The bench/*.sh scripts' shared preamble. Source it first:
#   source "$(dirname "$0")/lib.sh"
# It sets, each one overridable from the environment:
#   ROOT     the repository (this folder's parent)
#   MPTRAIN  the mptrain binary (build/mptrain)
#   BENCH    the folder of the benchmark programs (build/bench)
#   PYTHON   the interpreter of the Python workloads (/usr/bin/python3)
#   DATA     the Fashion-MNIST folder (/usr/share/datasets/fashion-mnist)
#   PEER     the seeds' PyTorch Hogwild program: bench/torch_hogwild.py where a
#            copy is there (a machine that gets only this tree), else
#            ../shared/bench/torch_hogwild.py
# and defines the functions below. The shell's options (set -euo pipefail)
# stay each script's own.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MPTRAIN=${MPTRAIN:-$ROOT/build/mptrain}
BENCH=${BENCH:-$ROOT/build/bench}
PYTHON=${PYTHON:-/usr/bin/python3}
DATA=${DATA:-/usr/share/datasets/fashion-mnist}
if [[ -z ${PEER:-} ]]; then
  PEER=$ROOT/../shared/bench/torch_hogwild.py
  [[ -e $ROOT/bench/torch_hogwild.py ]] && PEER=$ROOT/bench/torch_hogwild.py
fi

# bench_fail MESSAGE: prints "bench/SCRIPT: MESSAGE" on stderr and exits 1.
bench_fail() {
  echo "bench/${0##*/}: $*" >&2
  exit 1
}

# require_mptrain: fails unless $MPTRAIN is an executable.
require_mptrain() { [[ -x $MPTRAIN ]] || bench_fail "no mptrain at $MPTRAIN (build first, or set MPTRAIN)"; }

# require_command NAME [PACKAGE]: fails unless NAME is on PATH, naming the Debian package.
require_command() { command -v "$1" >/dev/null || bench_fail "$1 is needed (apt-get install ${2:-$1})"; }

# require_torch: fails unless $PYTHON imports torch.
require_torch() {
  "$PYTHON" -c 'import torch' 2>/dev/null || bench_fail "$PYTHON cannot import torch (apt-get install python3-torch)"
}

# bench_tmpdir NAME: a new temporary folder in $OUT, removed when the script exits.
bench_tmpdir() {
  OUT=$(mktemp -d "${TMPDIR:-/tmp}/mptrain-$1.XXXXXX")
  trap 'rm -rf "$OUT"' EXIT
}

# cpu_model: the CPU's model name, as lscpu gives it.
cpu_model() { lscpu | sed -n 's/^Model name: *//p'; }

# machine_summary: "N CPUs (MODEL, T thread(s) per core)", for a result's heading.
machine_summary() {
  echo "$(nproc) CPUs ($(cpu_model), $(lscpu | sed -n 's/^Thread(s) per core: *//p') thread(s) per core)"
}

# machine_details: lscpu's lines on the CPU model, the CPU count, threads per
# core, cores per socket, sockets and NUMA nodes.
machine_details() {
  lscpu | grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|NUMA node\(s\))'
}
