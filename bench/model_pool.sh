#!/bin/bash
# The cost of pooling: a run's device model pools the runs recorded like it,
# and analysing a run fits its pool-mates' models again, so analysing N runs
# of one pool fits N + N(N-1)/2 models over growing pools; each fit reads the
# members' stored inputs (model_facts, model_samples), not their windows,
# so the whole stays close to N times one run's analysis. Measured on N
# imports of one trace (tests/fixtures/seq128.dat, one pool): ra-analyze of
# all N runs against N times the analysis of one run (the reference, measured
# in the same script), and the model pass's share.
#
#   bench/model_pool.sh [N...]     (default 1 4 16 32)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/ratrace-pool.XXXXXX)
trap 'rm -rf "$work"' EXIT
trace=$top/tests/fixtures/seq128.dat

secs() {	# CMD... -> elapsed seconds
	/usr/bin/time -f "%e" "$@" 2>&1 >/dev/null | tail -n 1
}

"$top/build/ra-import" -q --no-analyze -o "$work/one.db" "$trace"
one=$(secs "$top/build/ra-analyze" -q "$work/one.db")
echo "one run: ra-analyze $one s"
for n in "${@:-1 4 16 32}"; do
	for n1 in $n; do
		rm -f "$work"/pool.db*
		for ((i = 0; i < n1; i++)); do
			"$top/build/ra-import" -q --no-analyze -o "$work/pool.db" "$trace"
		done
		t=$(secs "$top/build/ra-analyze" -q "$work/pool.db")
		models=$(sqlite3 "$work/pool.db" "SELECT MAX(runs) FROM device_models")
		awk -v n="$n1" -v t="$t" -v one="$one" -v m="$models" 'BEGIN {
			printf "%3d runs (pool of %d): ra-analyze %.2f s, %.3f s per run;", n, m, t, t / n
			printf " against %d x one run: %.2f\n", n, t / (n * one) }'
	done
done
