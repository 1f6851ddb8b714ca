#!/bin/bash
# Analysis cost: ra-analyze time and peak memory on large traces, against the
# import time of the same file (ratio), for two trace sizes over the same
# page-cache state (a 1 GiB file read cold, then 1 or 4 times cached): the
# memory must stay flat while the events grow.
#
#   bench/analyze_speed.sh        (root: records the traces with make_big_trace.sh)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/ratrace-analyze.XXXXXX)
trap 'rm -rf "$work"' EXIT

measure() {	# CMD... -> "seconds peak_kb"
	/usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -n 1
}

for passes in 1 4; do
	"$top/bench/make_big_trace.sh" "$work/t$passes.dat" 1024 $passes >/dev/null 2>&1
	rm -f "$work"/x.db*
	read -r it im < <(measure "$top/build/ra-import" -q --no-analyze -o "$work/x.db" "$work/t$passes.dat")
	read -r at am < <(measure "$top/build/ra-analyze" -q "$work/x.db")
	ev=$(sqlite3 "$work/x.db" "SELECT SUM(n) FROM v_event_counts")
	win=$(sqlite3 "$work/x.db" "SELECT COUNT(*) FROM windows")
	awk -v p="$passes" -v ev="$ev" -v w="$win" -v it="$it" -v im="$im" -v at="$at" -v am="$am" 'BEGIN {
		printf "1 GiB, %d cached pass(es): %d events, %d windows\n", p, ev, w
		printf "  import  %.2f s, peak %d MiB\n", it, im / 1024
		printf "  analyze %.2f s, peak %d MiB, %.0f events/s; analyze/import time %.2f\n",
			at, am / 1024, ev / at, at / it }'
done
