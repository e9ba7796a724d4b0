# --allocator jemalloc|tcmalloc preloads that allocator into every worker:
# the worker's own /proc/self/maps holds the library and LD_PRELOAD names it
# first, before a user's own preload. The test installs Debian's package
# when it can (root with apt-get); where the library is still missing it
# checks the error instead (exit 1, naming the package), and says so.
# ctest: timeout 600
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

# installed FILE PACKAGE: true when the library FILE is present, installing PACKAGE first if possible.
installed() {
  local file=$1 package=$2
  ldconfig -p | grep "$file" >/dev/null && return 0  # not grep -q: ldconfig must not die of SIGPIPE
  if [[ $EUID == 0 ]] && command -v apt-get >/dev/null; then
    echo "NOTE: installing $package for this test" >&2
    timeout 300 apt-get install -y -q "$package" >"$WORK/apt.log" 2>&1 || tail -3 "$WORK/apt.log" >&2
  fi
  ldconfig -p | grep "$file" >/dev/null
}

check_allocator() {
  local allocator=$1 file=$2 package=$3
  if ! installed "$file" "$package"; then
    echo "NOTE: $package is not installed and cannot be installed here: checking the error instead" >&2
    run_mptrain run -n 2 --allocator "$allocator" -- true
    expect_code 1
    expect_stderr "^mptrain: error: --allocator $allocator: $file is not installed .*apt-get install $package"
    return
  fi
  # A preload of the user's own stays after the allocator; a sanitizer build of
  # mptrain cannot run with one (its runtime must be loaded first), so there
  # only the allocator is checked.
  local user=(env LD_PRELOAD=libm.so.6) after=":libm.so.6"
  if sanitizer_build; then
    echo "NOTE: a sanitizer build: the user's own LD_PRELOAD is not checked" >&2
    user=(env -u LD_PRELOAD) after=""
  fi
  "${user[@]}" "$MPTRAIN" run -n 2 --allocator "$allocator" -- \
    sh -c 'echo "preload=$LD_PRELOAD"; exec cat /proc/self/maps' >"$WORK/out" 2>"$WORK/err"
  code=$?
  expect_code 0
  for rank in 0 1; do
    # The allocator, mptrain's placement library (the workers are pinned), the user's.
    grep -Eq "^\[$rank\] preload=/[^:]*/$file:/[^:]*/libmptrain_place\.so$after\$" "$WORK/out" ||
      { grep preload "$WORK/out" >&2; fail "rank $rank: LD_PRELOAD does not start with $file, then the user's"; }
    grep -Eq "^\[$rank\] .*/$file(\.[0-9]+)*\$" "$WORK/out" || fail "rank $rank does not map $file"
  done
  # The default allocator preloads nothing.
  run_mptrain run -n 1 --allocator default -- sh -c 'exec cat /proc/self/maps'
  expect_code 0
  ! grep -q "$file" "$WORK/out" || fail "--allocator default still maps $file"
}

check_allocator jemalloc libjemalloc.so.2 libjemalloc2
check_allocator tcmalloc libtcmalloc_minimal.so.4 libtcmalloc-minimal4
