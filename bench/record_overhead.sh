#!/bin/bash
# Recording cost of ra-record, as throughput ratios measured in one run.
#
# A dd bs=4k read of a 1 GiB file on an ext4 loop device (direct I/O, backed by
# a file in /dev/shm), in two cases: the file in the page cache (8 passes a
# run), and cold reads from the loop device (4 a run, each after the
# file is dropped from the page cache). Each case runs under three
# conditions, interleaved, N times each; MB/s from dd's own times:
#   none     no tracing
#   kernel   the events ra-record enables, with its filters (read from the
#            instance of a short recording first), enabled by hand in a
#            tracefs instance that nothing reads (the kernel's own cost)
#   record   under ra-record (its default buffer size)
# The figure of merit is record/kernel: what ra-record adds to the kernel's
# tracing cost. Lost events of every ra-record run are reported, and the cost
# of the recorder's look at settings and open files every 200 ms.
#
#   bench/record_overhead.sh [N]      (root; default N=5)

set -eu
N=${1:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
REC=$top/build/ra-record
[ -x "$REC" ] || { echo "build first: make" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 2; }

# The image lives in memory (/dev/shm) so that cold reads measure the I/O path,
# not the host's disk cache.
work=$(mktemp -d /dev/shm/ratrace-bench.XXXXXX)
T=/sys/kernel/tracing
mounted_tracefs=0
cleanup() {
	set +e
	[ -d $T/instances/ra-bench ] && { echo 0 > $T/instances/ra-bench/tracing_on; rmdir $T/instances/ra-bench; }
	mountpoint -q "$work/mnt" && umount "$work/mnt"
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	[ $mounted_tracefs = 1 ] && umount $T
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! mountpoint -q $T; then mount -t tracefs nodev $T; mounted_tracefs=1; fi
truncate -s 1300M "$work/img"
LOOP=$(losetup -f --show --direct-io=on "$work/img")
NAME=$(basename "$LOOP")
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP"
mkdir "$work/mnt"
mount "$LOOP" "$work/mnt"
dd if=/dev/urandom of="$work/mnt/big" bs=1M count=1024 status=none conv=fsync

# The events ra-record enables on this kernel, and each one's filter, read
# from the tracefs instance of a short recording (device filters, its own
# pid left out): the reference traces exactly what ra-record traces.
learn_events() {
	local d i e
	d=$(mktemp -d "$work/learn.XXXXXX")
	"$REC" -q --no-capture -o "$d/l.db" -d "$NAME" -- sleep 1.5 &
	for i in $(seq 50); do
		sleep 0.1
		e=$(find $T/instances -maxdepth 1 -name 'ra-record.*' | head -1)
		[ -n "$e" ] && grep -q . "$e/set_event" 2>/dev/null && break
	done
	sleep 0.2
	while read -r ev; do
		printf '%s\t%s\n' "$ev" "$(cat "$e/events/${ev%%:*}/${ev#*:}/filter")"
	done < "$e/set_event" > "$work/events.tsv"
	wait
	rm -rf "$d"
	[ -s "$work/events.tsv" ] || { echo "cannot learn ra-record's events" >&2; exit 2; }
}

kernel_tracing() {	# on|off: ra-record's events and filters, nobody reading
	local i=$T/instances/ra-bench ev filter
	if [ "$1" = on ]; then
		mkdir $i
		echo 0 > $i/tracing_on
		echo 16384 > $i/buffer_size_kb
		echo mono > $i/trace_clock
		while IFS=$'\t' read -r ev filter; do
			[ "$filter" = none ] || echo "$filter" > "$i/events/${ev%%:*}/${ev#*:}/filter"
			echo "$ev" >> $i/set_event
		done < "$work/events.tsv"
		echo 1 > $i/tracing_on
	else
		echo 0 > $i/tracing_on
		rmdir $i
	fi
}

# dd bs=4k of the file PASSES times (cached: 8; cold: 4, each after the
# file is dropped from the page cache): the MB/s of the workload's own
# reads, from dd's own times
passes() {
	local k
	for ((k = 0; k < $1; k++)); do
		[ "$kind" = cold ] && dd if="$work/mnt/big" iflag=nocache count=0 status=none
		dd if="$work/mnt/big" of=/dev/null bs=4k 2>&1
	done
}
export -f passes

# run_dd MODE PASSES: prints MB/s of the passes
run_dd() {
	local out
	case $1 in
	none)	out=$(passes "$2") ;;
	kernel)	kernel_tracing on
		out=$(passes "$2")
		kernel_tracing off ;;
	record)	out=$("$REC" -q -o "$work/rec.db" -d "$NAME" -- bash -c "passes $2") ;;
	esac
	# "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 0.51 s, 2.1 GB/s" per pass
	echo "$out" | awk '/bytes .* copied/ { b += $1; s += $(NF-3) } END { printf "%.1f\n", b / s / 1e6 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

learn_events
echo "ratrace recording cost: dd bs=4k of a 1 GiB file on $NAME (8 cached or 4 cold passes a run), $N runs per condition"
echo "the reference traces ra-record's $(wc -l < "$work/events.tsv") events with its filters"
echo "kernel $(uname -r), $(nproc) CPUs"
for kind in cached cold; do
	declare -A res=()
	npass=4
	export kind work
	[ $kind = cached ] && { cat "$work/mnt/big" > /dev/null; npass=8; }
	for ((r = 0; r < N; r++)); do
		for mode in none kernel record; do
			# after a drop, let reclaim settle so that no mode starts in its wake
			[ $kind = cold ] && { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; }
			res[$mode]+="$(run_dd $mode "$npass") "
		done
	done
	lost=$(sqlite3 "$work/rec.db" "SELECT SUM(lost_events) FROM v_runs")
	events=$(sqlite3 "$work/rec.db" "SELECT SUM(n) / COUNT(DISTINCT run_id) FROM v_event_counts")
	rm -f "$work/rec.db"*
	# shellcheck disable=SC2086 # split on purpose: echo drops the trailing space
	m_none=$(echo ${res[none]} | tr ' ' '\n' | median)
	# shellcheck disable=SC2086 # likewise
	m_kernel=$(echo ${res[kernel]} | tr ' ' '\n' | median)
	# shellcheck disable=SC2086 # likewise
	m_record=$(echo ${res[record]} | tr ' ' '\n' | median)
	echo
	echo "[$kind] median MB/s: none $m_none, kernel tracing $m_kernel, ra-record $m_record"
	echo "[$kind] runs: none ${res[none]}| kernel ${res[kernel]}| record ${res[record]}"
	awk -v n="$m_none" -v k="$m_kernel" -v r="$m_record" 'BEGIN {
		printf "[%s] kernel/none %.3f  record/none %.3f  record/kernel %.3f (ra-record adds %.1f%%)\n",
			"'$kind'", k / n, r / n, r / k, (k / r - 1) * 100 }'
	echo "[$kind] events per ra-record run: $events, lost events in all $N runs: $lost"
	unset res
done

# What the recorder does every 200 ms while the workload runs (read the
# read_ahead_kb settings again, look at the workload's open files), timed by
# ra-record itself on a cold read of the file; its share of one CPU.
sync; echo 3 > /proc/sys/vm/drop_caches
looks=$("$REC" -v --no-capture --no-analyze -o "$work/looks.db" -d "$NAME" -- \
	dd if="$work/mnt/big" of=/dev/null bs=4k 2>&1 | grep 'looks at settings')
rm -f "$work/looks.db"*
echo
echo "[looks] ${looks#ra-record: }"
us=$(echo "$looks" | sed -n 's/.*, \([0-9.]*\) us each/\1/p')
[ -n "$us" ] && awk -v us="$us" 'BEGIN { printf "[looks] %.3f%% of one CPU at one look per 200 ms\n", us / 2000 }'
