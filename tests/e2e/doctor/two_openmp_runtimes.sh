# One process, two OpenMP runtimes: a GNU OpenMP program (gcc -fopenmp)
# whose second thread calls a library built with clang -fopenmp (LLVM's
# libomp), both parallel loops at once. The doctor names both libraries and
# what sizes each pool, in JSON and text, and its fix runs them on one
# runtime; the sizing advice for "one pool of 4" points at it instead.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"
use_program two_runtimes two_runtimes

OMP_NUM_THREADS=2 run_mptrain doctor --json --fail-on never --interval 0.25 -- "$WORK/two_runtimes" 2
expect_code 0
expect_finding two_openmp_runtimes
expect_json '[.processes[] | select(.comm == "two_runtimes") | .runtimes[].name] | index("GNU OpenMP") != null and index("LLVM OpenMP") != null'
expect_json '.findings[] | select(.kind == "two_openmp_runtimes") | .message |
  test("GNU OpenMP \\(libgomp[^)]*\\) sizes its own from OMP_NUM_THREADS=2") and test("LLVM OpenMP \\(libomp[^)]*\\) sizes its own from OMP_NUM_THREADS=2")'
expect_json ".findings[] | select(.kind == \"two_openmp_runtimes\") | .fix | contains(\"OMP_WAIT_POLICY=passive $WORK/two_runtimes 2\")"
expect_json '.findings[] | select(.kind == "two_openmp_runtimes") | .fix | test("LD_PRELOAD=libomp")'
# Whatever the verdict, no advice that the program sizes one pool of 4 itself.
! grep -q 'omp_set_num_threads' "$WORK/out" || { cat "$WORK/out" >&2; fail "two pools were taken for one the program sized"; }

# The text report.
OMP_NUM_THREADS=2 run_mptrain doctor --fail-on never --interval 0.25 -- "$WORK/two_runtimes" 2
expect_code 0
grep -Eq '^  \[(info|warning|oversubscribed)\] two_openmp_runtimes: pid [0-9]+ \(two_runtimes\) maps 2 OpenMP runtimes' "$WORK/out" ||
  { cat "$WORK/out" >&2; fail "no two_openmp_runtimes line in the text"; }
echo PASS
