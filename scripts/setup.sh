#!/usr/bin/env bash
# Installs what mptrain needs to build, test and train, from Debian's
# packages; does nothing when everything is already there (idempotent).
# Runs as root, or through sudo when not root.
#
# Usage: scripts/setup.sh [--test]
#   --test  also what only the test suite needs: PyTorch (python3-torch, for
#           the torchrun and torch.distributed tests) and scikit-learn (the
#           placement library under numpy, torch and sklearn together), Go,
#           numba and numexpr (runtimes sized by GOMAXPROCS,
#           NUMBA_NUM_THREADS and NUMEXPR_NUM_THREADS, which read no CPU
#           quota), Rust's rayon (cargo and librust-rayon-dev: a client
#           built offline from Debian's crate registry) and BLIS
#           (libblis4-pthread), so `make run` stays lean.
set -euo pipefail

packages=(
  g++ cmake make pkg-config          # toolchain
  libcli11-dev libhwloc-dev hwloc libfmt-dev libnuma-dev libtbb-dev
  catch2 zlib1g-dev nlohmann-json3-dev
  libre2-dev                         # mptrain tune: reading numbers out of a program's output (linear-time regexes)
  dataset-fashion-mnist              # the default training data
  jq mandoc procps util-linux strace # end-to-end tests: JSON, man lint, ps, taskset, strace -f under the library
  clang libclang-rt-14-dev           # fuzz targets (libFuzzer) in .ci/run
  gcc python3 python3-numpy libopenblas0-pthread stress-ng  # the doctor's corpus (tests/corpus)
  openmpi-bin libopenmpi-dev         # beyond one machine: the MPI plugin and mpirun
  numactl libomp-dev gfortran        # launcher tests: dry-run lines with numactl, LLVM's OpenMP runtime, Fortran OpenMP
)

case "${1:-}" in
  --test)
    packages+=(python3-torch python3-tqdm python3-sklearn golang-go python3-numba python3-numexpr)
    packages+=(cargo librust-rayon-dev libblis4-pthread)
    ;;
  "") ;;
  *) echo "setup: error: unknown argument '$1'; usage: scripts/setup.sh [--test]" >&2; exit 2 ;;
esac

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "setup: error: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive

# Installing libopenblas0-pthread makes it the machine's BLAS (Debian's
# libblas.so.3/liblapack.so.3 alternatives pick the highest priority). The
# corpus selects it per process with LD_LIBRARY_PATH instead, so the choice
# the machine had is put back afterwards.
blas_links=(libblas.so.3-x86_64-linux-gnu liblapack.so.3-x86_64-linux-gnu)
declare -A blas_before=()
for link in "${blas_links[@]}"; do
  value=$(update-alternatives --query "$link" 2>/dev/null | sed -n 's/^Value: //p' || true)
  [[ -n $value ]] && blas_before[$link]=$value
done

"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"

for link in "${!blas_before[@]}"; do
  value=$(update-alternatives --query "$link" 2>/dev/null | sed -n 's/^Value: //p' || true)
  if [[ $value != "${blas_before[$link]}" ]]; then
    echo "setup: keeping ${blas_before[$link]} as the machine's $link" >&2
    "${sudo[@]}" update-alternatives --quiet --set "$link" "${blas_before[$link]}"
  fi
done
