# Sourced by the worker scripts of descendants_end_with_run.sh and
# descendants_sigkill.sh (through $DESCENDANTS): starts what a worker may
# leave behind that is not its plain child — a `set -m` job (a process group
# of its own), a double-forked daemon (re-parented) and a setsid process —,
# writes their pids to $OUT/pid.jobcontrol, $OUT/pid.daemon and
# $OUT/pid.setsid, and returns once they are written.
set -m
sleep 62 &
echo $! >"$OUT/pid.jobcontrol"
set +m
# A daemon: the middle process exits at once, its child is re-parented.
sh -c 'sh -c "echo \$\$ >\"$OUT/pid.daemon\"; exec sleep 63" &'
setsid sh -c 'echo $$ >"$OUT/pid.setsid"; exec sleep 64' &
until [[ -s $OUT/pid.daemon && -s $OUT/pid.setsid ]]; do sleep 0.05; done
