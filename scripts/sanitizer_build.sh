#!/usr/bin/env bash
# The sanitizer build CI tests and fuzzes in: clang at -O1 with assertions,
# AddressSanitizer + UndefinedBehaviorSanitizer, and libFuzzer's coverage on
# every library, so one tree serves both the test suite and the fuzz targets.
# Line tables only: the sanitizers' reports name files and lines, and full
# debug information would cost a tenth of the build.
#
# Usage: scripts/sanitizer_build.sh BUILD_DIR [TARGET...]   (default: every target)
# Needs clang and libFuzzer (Debian: clang, libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/sanitizer_build.sh BUILD_DIR [TARGET...]}
shift
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" -DMPTRAIN_WERROR=ON -DMPTRAIN_FUZZ=ON \
  -DMPTRAIN_SANITIZE=address,undefined >/dev/null
if (($#)); then
  cmake --build "$build" -j "$(nproc)" --target "$@"
else
  cmake --build "$build" -j "$(nproc)"
fi
