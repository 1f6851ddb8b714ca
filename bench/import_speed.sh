#!/bin/bash
# Import speed: ra-import of a large trace.dat into a fresh database against
# `trace-cmd report > /dev/null` on the same file, in one run, as a ratio;
# runs interleaved, medians compared. The import alone (--no-analyze) is the
# figure of merit; the import with its analyses is shown beside it.
#
#   bench/import_speed.sh [TRACE.dat] [N]
#
# Without a trace, one is recorded with bench/make_big_trace.sh (root).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
trace=${1:-}
N=${2:-5}
work=$(mktemp -d /tmp/ratrace-import.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ -z "$trace" ]; then
	trace=$work/big.dat
	"$top/bench/make_big_trace.sh" "$trace" 1024 >/dev/null
fi
command -v trace-cmd >/dev/null || { echo "needs trace-cmd" >&2; exit 2; }

secs() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -n 1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

imp="" full="" rep=""
for ((i = 0; i < N; i++)); do
	rm -f "$work"/x.db*
	imp+="$(secs "$top/build/ra-import" -q --no-analyze -o "$work/x.db" "$trace") "
	rep+="$(secs trace-cmd report "$trace") "
	rm -f "$work"/x.db*
	full+="$(secs "$top/build/ra-import" -q -o "$work/x.db" "$trace") "
done
events=$(sqlite3 "$work/x.db" "SELECT SUM(n) FROM v_event_counts")
lines=$(trace-cmd report "$trace" 2>/dev/null | wc -l)
# shellcheck disable=SC2086 # split on purpose: echo drops the trailing space
mi=$(echo $imp | tr ' ' '\n' | median)
# shellcheck disable=SC2086 # likewise
mf=$(echo $full | tr ' ' '\n' | median)
# shellcheck disable=SC2086 # likewise
mr=$(echo $rep | tr ' ' '\n' | median)
echo "trace: $trace ($(stat -c %s "$trace") bytes, $lines lines of trace-cmd report, $events events stored)"
echo "ra-import --no-analyze: $imp(median $mi s)"
echo "ra-import (+analysis):   $full(median $mf s)"
echo "trace-cmd report:        $rep(median $mr s)"
awk -v i="$mi" -v f="$mf" -v r="$mr" -v e="$events" 'BEGIN {
	printf "ra-import %.0f events/s; trace-cmd report / ra-import = %.2f", e / i, r / i
	printf " (with the analyses: %.2f)\n", r / f }'
