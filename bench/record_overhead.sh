#!/bin/bash
# Recording cost of ra-record, as throughput ratios measured in one run.
#
# A dd bs=4k read of a 1 GiB file on an ext4 loop device (direct I/O, backed by
# a file in /dev/shm), in two
# cases: the file in the page cache, and a cold read from the loop device.
# Each case runs under three conditions, interleaved, N times each:
#   none     no tracing
#   kernel   the same events and device filters enabled by hand in a tracefs
#            instance that nothing reads (the kernel's own tracing cost)
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
DEV=$(cat "/sys/block/$NAME/dev")
KDEV=$(( (${DEV%:*} << 20) | ${DEV#*:} ))

kernel_tracing() {	# on|off: the events of ra-record, same filters, nobody reading
	local i=$T/instances/ra-bench
	if [ "$1" = on ]; then
		mkdir $i
		echo 0 > $i/tracing_on
		echo 16384 > $i/buffer_size_kb
		echo mono > $i/trace_clock
		for e in "$i"/events/readahead/*/ "$i"/events/filemap/mm_filemap_*/ \
			$i/events/block/block_{bio_queue,bio_backmerge,bio_frontmerge,bio_complete}/ \
			$i/events/block/block_{bio_remap,bio_bounce,getrq,rq_insert,rq_issue}/ \
			$i/events/block/block_{rq_merge,rq_complete,rq_requeue,rq_remap,rq_error}/ \
			$i/events/block/block_{plug,unplug,split}/; do
			[ -f "$e/enable" ] || continue
			case $(basename "$e") in
			block_plug|block_unplug) ;;
			block_*) echo "dev == $KDEV" > "$e/filter" ;;
			*) echo "s_dev == $KDEV" > "$e/filter" ;;
			esac
			echo 1 > "$e/enable"
		done
		echo 1 > $i/tracing_on
	else
		echo 0 > $i/tracing_on
		rmdir $i
	fi
}

# run_dd MODE: prints MB/s of one dd of the file
run_dd() {
	local out
	case $1 in
	none)	out=$(dd if="$work/mnt/big" of=/dev/null bs=4k 2>&1) ;;
	kernel)	kernel_tracing on
		out=$(dd if="$work/mnt/big" of=/dev/null bs=4k 2>&1)
		kernel_tracing off ;;
	record)	out=$("$REC" -q --no-capture -o "$work/rec.db" -d "$NAME" -- \
			dd if="$work/mnt/big" of=/dev/null bs=4k 2>&1) ;;
	esac
	# "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 0.51 s, 2.1 GB/s"
	echo "$out" | awk '/bytes .* copied/ { printf "%.1f\n", $1 / $(NF-3) / 1e6 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "ratrace recording cost: dd bs=4k of a 1 GiB file on $NAME, $N runs per condition"
echo "kernel $(uname -r), $(nproc) CPUs"
for kind in cached cold; do
	declare -A res=()
	[ $kind = cached ] && cat "$work/mnt/big" > /dev/null
	for ((r = 0; r < N; r++)); do
		for mode in none kernel record; do
			# after a drop, let reclaim settle so that no mode starts in its wake
			[ $kind = cold ] && { sync; echo 3 > /proc/sys/vm/drop_caches; sleep 1; }
			res[$mode]+="$(run_dd $mode) "
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
