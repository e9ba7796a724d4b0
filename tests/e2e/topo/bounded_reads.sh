# Every file read from outside has a bound and a type check: --topology and
# the files of an MPTRAIN_FSROOT tree that are a character device, a FIFO
# without a writer, a sparse file of a gigabyte or a directory are refused
# at once with exit 1 and the file named, never read until memory runs
# out, never waited on.
source "$(dirname "$0")/../lib.sh"

mkfifo "$WORK/fifo"
truncate -s 1G "$WORK/sparse.xml"
mkdir "$WORK/dir.xml"

refused 1 "^--topology: /dev/zero is a character device, not a regular file" plan --topology /dev/zero
refused 1 "fifo is a FIFO, not a regular file" topo --topology "$WORK/fifo"
refused 1 "sparse.xml is 1073741824 bytes, more than the [0-9]+ bytes mptrain reads of such a file" \
  plan -n 1 --topology "$WORK/sparse.xml"
refused 1 "dir.xml is a directory, not a regular file" plan --topology "$WORK/dir.xml"

# A recorded tree whose CPU list is each of those in turn.
for kind in zero fifo sparse dir; do
  root="$WORK/root-$kind"
  cp -r "$MPTRAIN_TEST_DATA/cgroup-v2-quota" "$root"
  online="$root/sys/devices/system/cpu/online"
  rm "$online"
  case $kind in
    zero) ln -s /dev/zero "$online" ;;
    fifo) mkfifo "$online" ;;
    sparse) truncate -s 1G "$online" ;;
    dir) mkdir "$online" ;;
  esac
  MPTRAIN_FSROOT=$root refused 1 \
    "sys/devices/system/cpu/online (is a character device|is a FIFO|is [0-9]+ bytes, more than|is a directory)" topo --json
  MPTRAIN_FSROOT=$root refused 1 "" plan -n 1
done

# A cgroup file of the tree made a FIFO: not waited on; the quota it would
# hold is unknown, so none is counted (the cpuset still is).
root="$WORK/root-cgroup"
cp -r "$MPTRAIN_TEST_DATA/cgroup-v2-quota" "$root"
rm "$root/sys/fs/cgroup/system.slice/train.service/cpu.max"
mkfifo "$root/sys/fs/cgroup/system.slice/train.service/cpu.max"
timeout 20 env MPTRAIN_FSROOT="$root" "$MPTRAIN" topo --json >"$WORK/out" 2>"$WORK/err"
code=$?
[[ $code != 124 ]] || fail "topo hung on a FIFO as cpu.max"
expect_code 0
expect_json '.cgroup.quota_cpus == null and .cgroup.cpuset == "0-7"'
echo PASS
