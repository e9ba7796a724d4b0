# The placement library inside python3 importing numpy, torch and sklearn
# together (three BLAS/OpenMP users, threadpoolctl's dlsym lookups) computes
# what bare python3 does: the same matrix products, Ridge coefficients and
# KMeans centres, the same pools named; preloaded by hand and under
# `mptrain run -n 1` (every usable CPU, as bare).
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
/usr/bin/python3 -c 'import numpy, torch, sklearn, threadpoolctl' 2>"$WORK/import" ||
  fail "python3 cannot import numpy, torch and sklearn (scripts/setup.sh --test installs them): $(tail -1 "$WORK/import")"
cat >"$WORK/stack.py" <<'PY'
import numpy, torch, sklearn
from sklearn.cluster import KMeans
from sklearn.linear_model import Ridge
from threadpoolctl import threadpool_info, threadpool_limits
rng = numpy.random.default_rng(7)
a = rng.standard_normal((300, 300))
x = rng.standard_normal((400, 8))
y = x @ numpy.arange(8.0) + 0.01 * rng.standard_normal(400)
centres = KMeans(n_clusters=3, n_init=3, random_state=0).fit(x).cluster_centers_
with threadpool_limits(limits=1):  # one thread: the sums do not depend on the pool's size
    print("numpy", round(float((a @ a).sum()), 6))
    print("torch", round(float((torch.from_numpy(a) @ torch.from_numpy(a)).sum()), 6))
print("ridge", [round(c, 4) for c in Ridge(alpha=1.0).fit(x, y).coef_])
print("kmeans", sorted(round(float(c), 4) for c in centres.sum(axis=1)))
print("pools", sorted({pool["internal_api"] for pool in threadpool_info()}))
PY
/usr/bin/python3 "$WORK/stack.py" >"$WORK/bare" 2>&1 || { cat "$WORK/bare" >&2; fail "bare python3 failed"; }
LD_PRELOAD="$(dirname "$MPTRAIN")/libmptrain_place.so" /usr/bin/python3 "$WORK/stack.py" >"$WORK/preloaded" 2>&1
diff "$WORK/bare" "$WORK/preloaded" >&2 || fail "preloaded, python3 computed something else"
run_mptrain run -n 1 -- /usr/bin/python3 "$WORK/stack.py"
expect_code 0
sed -n 's/^\[0\] //p' "$WORK/out" >"$WORK/placed"
diff "$WORK/bare" "$WORK/placed" >&2 || fail "under mptrain run, python3 computed something else"
exit 0
