# The placement library keeps OpenMP's contract: with dyn-var false (the
# default) a region without a num_threads clause gets exactly
# omp_get_max_threads() threads, so a program may split its work by that
# answer. Two copies of such a program share a worker's CPUs, each with a
# busy sibling (the cap divides the room among busy processes): every
# region's team is the answer and every item is done once, with GNU OpenMP,
# LLVM's, gfortran's entry points (omp_get_max_threads_) and, under
# AddressSanitizer, a per-thread array sized by the answer. The library
# once capped the answer and the team apart and over time: 500 of 1,000
# items done, exit 0.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
# ASan behind the preloaded placement library (not instrumented, no allocator).
export ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0
for variant in gnu llvm fortran asan; do
  use_program partition "omp_partition_$variant"
  for launch in "-n 1" "-n 1 --children 2"; do
    # shellcheck disable=SC2086
    run_mptrain run $launch -- sh -c '"$0" 1000 1 & "$0" 1000 1; wait' "$WORK/partition"
    expect_code 0
    reports=$(grep -oE "partition threads [0-9]+ regions [0-9]+ wrong [0-9]+" "$WORK/err" "$WORK/out")
    [[ $(grep -c . <<<"$reports") == 2 ]] ||
      { cat "$WORK/out" "$WORK/err" >&2; fail "$variant, $launch: two reports expected"; }
    ! grep -qv " wrong 0$" <<<"$reports" ||
      { cat "$WORK/out" "$WORK/err" >&2; fail "$variant, $launch: a team was not omp_get_max_threads() threads: $reports"; }
    ! grep -q "AddressSanitizer" "$WORK/err" || { cat "$WORK/err" >&2; fail "$variant, $launch: ASan found an error"; }
  done
done
echo PASS
