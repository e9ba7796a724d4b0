# --version names the kernel build training runs; MPTRAIN_ISA forces one,
# and a build this CPU cannot run, or a name that is no build, is a usage
# error (exit 2) from --version and from run, never a SIGILL.
source "$(dirname "$0")/../lib.sh"

run_mptrain --version
expect_code 0
grep -Eq '^kernels: [a-z0-9]+ \(this CPU runs [a-z0-9, ]+\)$' "$WORK/out" || { cat "$WORK/out"; fail "--version names no kernels"; }
runnable=$(sed -n 's/^kernels: [a-z0-9]* (this CPU runs \(.*\))$/\1/p' "$WORK/out")
best=${runnable%%,*}
grep -q "^kernels: $best " "$WORK/out" || fail "the kernels are not the best this CPU runs ($runnable)"

# The baseline build, forced. On x86-64 that is sse2.
baseline=${runnable##*, }
MPTRAIN_ISA=$baseline run_mptrain --version
expect_code 0
grep -q "^kernels: $baseline (this CPU runs $runnable; forced by MPTRAIN_ISA)$" "$WORK/out" || { cat "$WORK/out"; fail "MPTRAIN_ISA=$baseline is not what --version names"; }
if [[ "$runnable" == *sse2* ]]; then
  MPTRAIN_ISA=sse2 run_mptrain --version
  expect_code 0
  grep -q '^kernels: sse2 ' "$WORK/out" || fail "MPTRAIN_ISA=sse2 --version does not name sse2"
fi

# A name that is no build: exit 2 from --version and from run, before anything is loaded.
MPTRAIN_ISA=avx1024 run_mptrain --version
expect_usage_error 'MPTRAIN_ISA=avx1024 names no kernel build of this binary; set it to '
MPTRAIN_ISA=avx1024 run_mptrain run -n 1 --data "$WORK/no-such-data"
expect_usage_error 'MPTRAIN_ISA=avx1024 names no kernel build'

# A build this CPU cannot run, where there is one (an x86-64 CPU without AVX-512 or AVX2).
[[ "$runnable" == *sse2* ]] || exit 0  # one build only: MPTRAIN_NATIVE or not x86-64
for isa in avx512 avx2; do
  [[ ", $runnable," == *", $isa,"* ]] && continue
  MPTRAIN_ISA=$isa run_mptrain --version
  expect_usage_error "MPTRAIN_ISA=$isa: this CPU cannot run the $isa kernels"
done
exit 0
