#!/bin/bash
# Recording cost of the kprobes against the tracepoints, in one guest per
# kernel (ra-record --kernel): inside it, a cold cat of a 64 MiB file, N times
# each, interleaved (the workload times itself; the recorder's time adds the
# making and removing of the events and the store):
#   none        no recorder
#   tracepoint  ra-record --event-source tracepoint
#   kprobe      ra-record --event-source dynamic (the kprobes made from BTF)
# per condition: the medians of the workload's and the recorder's wall times,
# events stored, events per second of the workload, lost events; and the
# ratios kprobe/tracepoint, kprobe/none. On a kernel without the
# readahead tracepoints (6.1) the tracepoint condition records the others
# only. The guest runs under qemu (TCG here): the ratios are the figures, not
# the times.
#
#   bench/dynamic_cost.sh [N [KERNEL...]]     (root; default 5, 6.18 6.1)

set -eu
N=${1:-5}
shift || true
[ $# -gt 0 ] || set -- 6.18 6.1
top=$(cd "$(dirname "$0")/.." && pwd)
REC=$top/build/ra-record
[ -x "$REC" ] || { echo "build first: make" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 2; }
work=$(mktemp -d /tmp/ratrace-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
mkdir "$work/files"
head -c $((64 << 20)) /dev/urandom > "$work/files/f"
cat > "$work/files/cost.sh" <<'GUEST'
# in the guest: N rounds of the three conditions; one line per measurement:
# m CONDITION WORKLOAD_START WORKLOAD_END RECORDER_START RECORDER_END EVENTS LOST
d=${0%/*}
rounds=$1 i=0
w="t0=\$EPOCHREALTIME; cat '$d/f' > /dev/null; echo w \$t0 \$EPOCHREALTIME"
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	for c in none tracepoint kprobe; do
		sync; echo 3 > /proc/sys/vm/drop_caches
		r0=$EPOCHREALTIME
		case $c in
		none) bash -c "$w" > /tmp/out ;;
		tracepoint) ra-record -o /tmp/c.db --no-analyze --event-source tracepoint -- bash -c "$w" \
			> /tmp/out 2> /tmp/err ;;
		kprobe) ra-record -o /tmp/c.db --no-analyze --event-source dynamic -- bash -c "$w" \
			> /tmp/out 2> /tmp/err ;;
		esac
		r1=$EPOCHREALTIME
		read -r _ t0 t1 < /tmp/out
		ev=0 lost=0
		if [ $c != none ]; then
			line=$(while read -r l; do case $l in *" events in "*) echo "$l" ;; esac; done < /tmp/err)
			set -- $line	# ra-record: run 1: N events in 'DB', L lost
			ev=$4 lost=${8:-0}
		fi
		echo "m $c $t0 $t1 $r0 $r1 $ev $lost"
	done
done
GUEST
for k in "$@"; do
	db=$work/$k.db
	# the outer recorder records as little as it can: block completions
	"$REC" -q -o "$db" --kernel "$k" --kernel-files "$work/files" --event-source tracepoint \
		-e block:block_rq_complete --sweep-env "N=$N" -- bash "$work/files/cost.sh" "$N" >/dev/null
	sqlite3 "$db" "SELECT workload_output FROM runs" | awk -v k="$k" '
	$1 == "m" { t[$2] = t[$2] " " ($4 - $3); r[$2] = r[$2] " " ($6 - $5); e[$2] = e[$2] " " $7
		l[$2] += $8; n[$2]++ }
	function median(s,   a, m, i, j, x) {
		m = split(s, a, " ")
		for (i = 2; i <= m; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
	}
	END {
		printf "kernel %s, %d rounds (cold cat of 64 MiB)\n", k, n["none"]
		printf "  %-10s %10s %10s %10s %12s %6s\n", "condition", "workload_s", "recorder_s",
			"events", "events/s", "lost"
		for (c in n) {
			mw[c] = median(t[c]); mr[c] = median(r[c]); me[c] = median(e[c])
		}
		split("none tracepoint kprobe", order, " ")
		for (i = 1; i <= 3; i++) {
			c = order[i]
			printf "  %-10s %10.3f %10.3f %10d %12.0f %6d\n", c, mw[c], mr[c], me[c],
				mw[c] ? me[c] / mw[c] : 0, l[c]
		}
		printf "  workload: kprobe/tracepoint %.3f, kprobe/none %.3f, tracepoint/none %.3f\n",
			mw["kprobe"] / mw["tracepoint"], mw["kprobe"] / mw["none"], mw["tracepoint"] / mw["none"]
		printf "  recorder: kprobe/tracepoint %.3f\n", mr["kprobe"] / mr["tracepoint"]
	}'
done
