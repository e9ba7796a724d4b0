#!/usr/bin/env bash
# The doctor's diagnosis bar (SPEC "Performance bar"): every corpus case and
# variant (tests/corpus/cases) run REPS times, interleaved (rep 1 of every
# case, then rep 2, ...), then in Markdown: right out of REPS per case, the
# confusion matrix, the false-alarm and miss rates, and the idle_capacity
# findings: found where a case expects them, and in no other case; and,
# for the cases whose workloads report their throughput (lib.bash,
# job_throughput), the throughput naive and fixed, the loss measured
# (1 − naive ÷ fixed) and, beside it, the doctor's estimate for the naive
# run (estimated_throughput_loss, the job's; mean over the reps, with the
# smallest and largest), whether it lies within 15 points of the measured
# loss, the processes' own estimated loss (what the verdict follows when
# larger), and the share of the naive job's working threads that queued
# (queued_threads_avg ÷ working_threads_avg). A case whose naive variant is
# expected healthy (idle_openmp_pool: a pool below the plan) loses its
# throughput to CPUs left idle, not to queueing: the estimate, which is
# oversubscription's cost, is not compared there. Then the leave-one-class-
# out table (each case a class): the loss measured beside the job's point
# estimate and its range (estimated_throughput_loss_range, THE RANGE in
# mptrain-doctor(1)), whether the measured loss lies inside the range or
# within 15 points of the point (the doctor's rule), and the point that the
# one constant a point inside the range would need (alpha: low + alpha ×
# (high − low)) gives when fitted by least squares on every other class.
#   MPTRAIN=build/mptrain bench/doctor_corpus.sh [--reps 20] [--cases a,b] [--outside-load] [--save DIR]
#   bench/doctor_corpus.sh --report FILE...   (the report of saved runs: the results.txt of --save DIRs, joined)
# --save DIR keeps each run's doctor JSON (DIR/CASE.VARIANT.REP.json) and
# its result line (DIR/results.txt): the data to calibrate a loss estimate on.
# --outside-load keeps one CPU about half busy for the whole benchmark with a
# duty-cycled burner the doctor does not watch: it may turn healthy into
# warning (counted right when the warning names the outside load), but must
# never make a healthy case exit 3.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
source bench/corpus_cases.bash
source tests/corpus/lib.bash
reps=20 cases= outside=no save= saved=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --report) shift; saved=("$@"); break ;;
    --reps) reps=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --outside-load) outside=yes; shift ;;
    --save) save=$2; shift 2 ;;
    *) echo "usage: doctor_corpus.sh [--reps N] [--cases a,b] [--outside-load] [--save DIR] | --report FILE..." >&2; exit 2 ;;
  esac
done
runs=$(corpus_runs "$cases")
results=$(mktemp)
if ((${#saved[@]})); then
  cat "${saved[@]}" >"$results" || exit 2
  reps=$(awk '{ n[$1 " " $2]++ } END { for (k in n) if (n[k] > m) m = n[k]; print m + 0 }' "$results")
  outside=saved
fi
skipped=$(mktemp)
reports=$(mktemp -d)
[[ -z $save ]] || mkdir -p "$save" || { echo "doctor_corpus.sh: cannot make $save" >&2; exit 2; }
trap 'stop_duty; rm -rf "$results" "$skipped" "$reports"' EXIT

if [[ $outside == saved ]]; then
  mode="the saved runs of ${saved[*]}"
elif [[ $outside == yes ]]; then
  mode="outside load: CPU $(last_cpu) kept ~50% busy by a burner not under the doctor"
  start_duty 50 "$(last_cpu)"
  export CORPUS_OUTSIDE_LOAD=1
else
  mode="no outside load started by the benchmark"
fi
echo "mode: $mode; $reps repetitions; $N usable CPUs; $("${MPTRAIN:-build/mptrain}" --version 2>/dev/null | head -1)" >&2

# Run: one line per run in $results,
# "NAME VARIANT expected=X got=Y exit=Z idle=E/G ok|WRONG throughput=T SECONDS queued=Q estimate=E processes=P
# low=L high=H decides=D dlow=DL dhigh=DH" (L and H: the ends of the job's estimated range, THE RANGE in
# mptrain-doctor(1); D, DL, DH: the point and range the verdict reads, throughput_loss_detail.decides{,_range}, which
# take in each process's own slowdown and so may lie far above the job's throughput loss, as for a build).
for ((rep = 1; rep <= reps && ${#saved[@]} == 0; rep++)); do
  while read -r name variant; do
    start=$(date +%s.%N)
    report=${save:-$reports}/$name.$variant.$rep.json
    out=$(tests/corpus/run.sh "$name" "$variant" --json-out "$report" </dev/null) || true  # mpirun reads stdin
    echo "$out" | sed "s/^/rep $rep: /" >&2
    line=${out%%$'\n'*}
    if [[ $line == *" SKIP: "* ]]; then
      echo "$line" >>"$skipped"
      continue
    fi
    queued=$(jq -r 'if .working_threads_avg > 0 then .queued_threads_avg / .working_threads_avg else 0 end' \
      "$report" 2>/dev/null || echo -)
    estimate=$(jq -r '.throughput_loss_detail.job // "-"' "$report" 2>/dev/null || echo -)
    processes=$(jq -r '.throughput_loss_detail.processes // "-"' "$report" 2>/dev/null || echo -)
    range=$(jq -r '(.throughput_loss_detail.job_range // ["-", "-"]) | "low=\(.[0]) high=\(.[1])"' "$report" 2>/dev/null ||
      echo "low=- high=-")
    deciding=$(jq -r '.throughput_loss_detail | "decides=\(.decides // "-") dlow=\(.decides_range[0] // "-") dhigh=\(.decides_range[1] // "-")"' \
      "$report" 2>/dev/null || echo "decides=- dlow=- dhigh=-")
    seconds=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
    echo "$line $seconds queued=$queued estimate=$estimate processes=$processes $range $deciding" >>"$results"
  done <<<"$runs"
done

# Report, in Markdown.
echo "**Mode:** $mode. $reps repetitions, $N usable CPUs."
echo
awk '
  { split($3, e, "="); split($4, g, "="); split($5, x, "="); split($6, idle, "[=/]")
    key = $1 " | " $2; if (!(key in seen)) { order[++n] = key; seen[key] = 1 }
    expected[key] = e[2]; runs[key]++; right[key] += ($7 == "ok"); secs[key] += $9
    split($8, t, "="); split($10, q, "="); split($11, est, "="); split($12, pr, "="); split($13, lo, "="); split($14, hi, "=")
    if (lo[2] != "-" && hi[2] != "-") { range_low[$1, $2] += lo[2]; range_high[$1, $2] += hi[2]; ranges[$1, $2]++ }
    # The range the verdict follows (the larger of the job and its processes at each end); absent from a saved
    # run from before it was recorded.
    split($16, dl, "="); split($17, dh, "=")
    if (dl[2] != "" && dl[2] != "-" && dh[2] != "-") { dec_low[$1, $2] += dl[2]; dec_high[$1, $2] += dh[2]; decs[$1, $2]++ }
    if (t[2] != "-") { work[$1, $2] += t[2]; worked[$1, $2]++; queued[$1, $2] += q[2]; if (!($1 in measured)) { measured[$1] = 1; cases[++m] = $1 } }
    if (est[2] != "-") {
      estimated[$1, $2] += est[2]; estimates[$1, $2]++; processes[$1, $2] += pr[2]
      if (!(($1, $2) in low) || est[2] < low[$1, $2]) low[$1, $2] = est[2]
      if (!(($1, $2) in high) || est[2] > high[$1, $2]) high[$1, $2] = est[2] }
    if (idle[2] == "yes") { idle_expected++; idle_found += (idle[3] == "yes") }
    else { idle_other++; idle_unexpected += (idle[3] == "yes") }
    got[key, g[2]]++; matrix[e[2], g[2]]++; rows[e[2]]++
    if (e[2] == "healthy") { healthy++; alarm += (g[2] == "oversubscribed"); exit3 += (x[2] == 3) }
    if (e[2] == "oversubscribed") { over++; miss += (g[2] != "oversubscribed") } }
  END {
    print "| case | variant | expected | right | inconclusive / healthy / warning / oversubscribed | estimated loss: job / processes (mean) | s per run |"
    print "|---|---|---|---|---|---|---|"
    for (i = 1; i <= n; i++) { k = order[i]; split(k, kk, " [|] ")
      ne = estimates[kk[1], kk[2]]
      printf "| %s | %s | %d / %d | %d / %d / %d / %d | %s | %.1f |\n", k, expected[k], right[k], runs[k],
        got[k, "inconclusive"], got[k, "healthy"], got[k, "warning"], got[k, "oversubscribed"],
        (ne ? sprintf("%.2f / %.2f", estimated[kk[1], kk[2]] / ne, processes[kk[1], kk[2]] / ne) : "-"), secs[k] / runs[k] }
    print ""
    print "| expected \\ got | inconclusive | healthy | warning | oversubscribed | no verdict |"
    print "|---|---|---|---|---|---|"
    split("inconclusive healthy warning oversubscribed", v, " ")
    for (r = 1; r <= 4; r++) if (rows[v[r]])
      printf "| %s | %d | %d | %d | %d | %d |\n", v[r], matrix[v[r], "inconclusive"], matrix[v[r], "healthy"],
        matrix[v[r], "warning"], matrix[v[r], "oversubscribed"], matrix[v[r], "none"]
    print ""
    if (healthy) printf "False alarms: %d of %d expected-healthy runs got oversubscribed (%.1f%%); %d exited 3 (%.1f%%).\n",
      alarm, healthy, 100 * alarm / healthy, exit3, 100 * exit3 / healthy
    if (over) printf "Misses: %d of %d expected-oversubscribed runs got another verdict (%.1f%%).\n",
      miss, over, 100 * miss / over
    if (idle_expected) printf "Idle capacity: found in %d of %d runs that expect it; ", idle_found, idle_expected
    printf "%d of %d other runs got an idle_capacity finding (must be 0).\n", idle_unexpected, idle_other
    if (m) {
      # The loss table: per class (case), the loss measured naive against fixed beside the
      # point estimate of the doctor and its range (means over the reps), and a leave-one-class-out fit of the one
      # constant a point inside the range would need (alpha: where in the range the loss lies, fitted by
      # least squares on the other classes and used to predict this one).
      for (i = 1; i <= m; i++) { c = cases[i]
        if (!worked[c, "naive"] || !worked[c, "fixed"] || expected[c " | naive"] == "healthy" || !ranges[c, "naive"]) continue
        tn = work[c, "naive"] / worked[c, "naive"]; tf = work[c, "fixed"] / worked[c, "fixed"]
        k++; cls[k] = c; meas[k] = (tf > 0 ? 1 - tn / tf : 0); tput_n[k] = tn; tput_f[k] = tf
        pt[k] = estimated[c, "naive"] / estimates[c, "naive"]
        lw[k] = range_low[c, "naive"] / ranges[c, "naive"]; hg[k] = range_high[c, "naive"] / ranges[c, "naive"]
        nd = decs[c, "naive"]
        dec[k] = (nd ? sprintf("%.0f–%.0f%%", 100 * dec_low[c, "naive"] / nd, 100 * dec_high[c, "naive"] / nd) : "-")
        qs[k] = queued[c, "naive"] / worked[c, "naive"] }
      print ""
      print "| class | throughput naive | throughput fixed | loss measured | point estimate (job) | range (job, low–high) | outside the range by | range within 15 | point within 15 | alpha (others) | predicted (alpha) | error | queued share | range the verdict reads |"
      print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
      for (i = 1; i <= k; i++) {
        sxy = 0; sxx = 0
        for (j = 1; j <= k; j++) if (j != i) { w = hg[j] - lw[j]; sxy += (meas[j] - lw[j]) * w; sxx += w * w }
        alpha = (sxx > 0 ? sxy / sxx : 0); alpha = (alpha < 0 ? 0 : (alpha > 1 ? 1 : alpha))
        pred = lw[i] + alpha * (hg[i] - lw[i]); err = pred - meas[i]
        dp = pt[i] - meas[i]; near_point = ((dp < 0 ? -dp : dp) <= 0.15)
        off = (meas[i] < lw[i] ? lw[i] - meas[i] : (meas[i] > hg[i] ? meas[i] - hg[i] : 0))
        near_range = (off <= 0.15)
        near_pred = ((err < 0 ? -err : err) <= 0.15)
        held += near_range; by_point += near_point; by_pred += near_pred
        printf "| %s | %.4g | %.4g | %.0f%% | %.0f%% | %.0f–%.0f%% | %.0f | %s | %s | %.2f | %.0f%% | %+.0f | %.0f%% | %s |\n", cls[i], tput_n[i], tput_f[i],
          100 * meas[i], 100 * pt[i], 100 * lw[i], 100 * hg[i], 100 * off, (near_range ? "yes" : "NO"),
          (near_point ? "yes" : "NO"), alpha, 100 * pred, 100 * err, 100 * qs[i], dec[i] }
      if (k) printf "\nThe job\x27s throughput loss measured within 15 points of its estimated range: %d of %d classes; its point estimate within 15 points: %d of %d; the point one constant fitted on the other classes places in the range within 15 points: %d of %d.\n", held, k, by_point, k, by_pred, k
    }
  }' "$results"
[[ -z $save ]] || cp "$results" "$save/results.txt"
# Cases that could not run, with the reason and how often.
[[ ! -s $skipped ]] || sed -E "s/[0-9]+% busy/busy/" "$skipped" | sort | uniq -c | awk '{ n = $1; $1 = ""; printf "Skipped %d×:%s\n", n, $0 }'
