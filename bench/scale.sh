#!/bin/bash
# Scale: traces of 1, 10 and 100 million records (by default; the sizes in
# millions are the arguments), each imported with and without its analyses
# and analysed again, against `trace-cmd report > /dev/null` of the same
# file in the same run; then a live recording of the largest workload. One
# table: seconds, records per second, the ratio to trace-cmd report, the
# peak resident set (the kernel's count for the command and its children),
# the database's bytes per stored event, and those of the packed events'
# tables alone; then ra-report (text and HTML) and ra-compare of the
# imported run, which read its derived tables only.
#
#   bench/scale.sh [MILLIONS...]      (root; 1 10 100)
#
# The workload, in a tracefs instance of its own (the events of
# bench/make_big_trace.sh: readahead, filemap, block): a cold read of a
# 64 MiB file with 1 MiB reads, then cached reads of 64 bytes each (one
# mm_filemap_get_pages per read, 45 bytes in the ring buffer) until the
# size is reached, on CPUs 0 and 1 at once; trace-cmd extracts it
# (compressed, as trace-cmd writes it). trace-cmd 3.1.6 writes a broken file
# past 2 GiB of one CPU's data ("did not match size of 2241458176 to
# -2053509120"; from one ring buffer of 5.5 GiB it kept 4.2 M records), so a
# trace holds at most 42 passes (44 M records) per CPU: on two CPUs the
# "100 M" trace holds 89 M, and the bench says so. The live recording, which
# trace-cmd does not write, has the size asked for. The live recording runs
# the same reads under ra-record; "after" is how long ra-record took past
# the workload's own end: from the time its last command printed (stored
# with the run as its output; a file written would be one more to name) to
# ra-record's exit, with how long the recorder's threads ran ahead of the
# workload's to keep up (ra-record -v).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build
sizes=${*:-1 10 100}
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 2; }
for c in trace-cmd python3; do
	command -v $c >/dev/null || { echo "needs $c" >&2; exit 2; }
done
[ -x "$bin/ra-import" ] || { echo "run make first" >&2; exit 2; }
work=$(mktemp -d /tmp/ratrace-scale.XXXXXX)
T=/sys/kernel/tracing
I=$T/instances/ratrace-scale-bench.$$
mounted=0
cleanup() {
	set +e
	[ -d "$I" ] && { echo 0 > "$I/tracing_on"; rmdir "$I"; }
	[ $mounted = 1 ] && umount $T
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if ! mountpoint -q $T; then mount -t tracefs nodev $T; mounted=1; fi

head -c 64M /dev/urandom > "$work/f"
sync "$work/f"
evict() { dd if="$work/f" iflag=nocache count=0 status=none; }
# the workload for N million records: a cold read, then 64-byte cached reads
passes_for() { echo $((($1 * 1000000 + 1048575) / 1048576)); }
cpus=$(($(nproc) > 1 ? 2 : 1))
reads() {	# PASSES CPU
	for ((p = 0; p < $1; p++)); do
		taskset -c "$2" dd if="$work/f" of=/dev/null bs=64 status=none
	done
}
workload() {	# PASSES: on CPUs 0 and 1, whose ring buffers hold them
	evict
	taskset -c 0 dd if="$work/f" of=/dev/null bs=1M status=none
	if [ "$cpus" = 2 ]; then
		reads $((($1 + 1) / 2)) 0 &
		reads $(($1 / 2)) 1
		wait
	else
		reads "$1" 0
	fi
}

# run CMD...: "seconds peak_kib end" of CMD and its children (end: the time
# of day it ended)
run() {
	python3 -c 'import resource, subprocess, sys, time
t = time.monotonic()
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
e = time.monotonic() - t
if rc: sys.exit("%s: exit %d" % (sys.argv[1], rc))
print("%.2f %d %.6f" % (e, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.time()))' "$@"
}
events_of() {
	sqlite3 "$1" "SELECT SUM(n) FROM event_counts"
}
# the bytes of the packed events' pages (SQLite's dbstat)
event_bytes() {
	sqlite3 "$1" "SELECT SUM(pgsize) FROM dbstat WHERE name LIKE '%_chunks'"
}
row() {	# STEP SIZE SECONDS EVENTS REF_SECONDS PEAK_KIB DB
	local bpe=- epe=-
	if [ -n "$7" ]; then
		bpe=$(awk -v b="$(stat -c %s "$7")" -v n="$4" 'BEGIN { printf "%.1f", b / n }')
		epe=$(awk -v b="$(event_bytes "$7")" -v n="$4" 'BEGIN { printf "%.1f", b / n }')
	fi
	awk -v s="$1" -v m="$2" -v t="$3" -v n="$4" -v r="$5" -v k="$6" -v b="$bpe" -v e="$epe" 'BEGIN {
		printf "%-24s %5.1f M %8.2f %10.2f M/s %8s %7.1f MiB %8s %8s\n", s, n / 1e6, t, n / t / 1e6,
			(r > 0 ? sprintf("%.2fx", r / t) : r < 0 ? sprintf(">%.2fx", -r / t) : "-"),
			k / 1024, b, e }'
}

printf "%-24s %7s %8s %14s %8s %11s %8s %8s\n" step size seconds rate "vs tc" "peak RSS" "B/event" \
	"events"
for m in $sizes; do
	passes=$(passes_for "$m")
	if [ "$passes" -gt $((cpus * 42)) ]; then
		passes=$((cpus * 42))
		echo "note: the $m M trace holds $passes passes: trace-cmd cannot write more" >&2
	fi
	mkdir "$I"
	echo 0 > "$I/tracing_on"
	# the ring buffers of CPUs 0 and 1 hold the whole trace; the others what else runs
	echo 65536 > "$I/buffer_size_kb"
	per=$(((passes + cpus - 1) / cpus))	# passes on one CPU, each 1 M records of 48 bytes at most
	for ((c = 0; c < cpus; c++)); do
		echo $((per * 49152 + 65536)) > "$I/per_cpu/cpu$c/buffer_size_kb"
	done
	for s in readahead filemap block; do echo 1 > "$I/events/$s/enable"; done
	echo 1 > "$I/tracing_on"
	workload "$passes"
	echo 0 > "$I/tracing_on"
	lost=$(cat "$I"/per_cpu/cpu*/stats | awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }')
	[ "$lost" -eq 0 ] || echo "note: the ring buffer lost $lost records of the $m M trace" >&2
	unshare -m sh -c "mount --bind /dev/null /proc/sys/kernel/ftrace_enabled &&
		trace-cmd extract -B '$(basename "$I")' -o '$work/t.dat'" > /dev/null 2>&1
	rmdir "$I" 2>/dev/null || true
	# trace-cmd report slows down faster than the trace grows: past
	# TC_LIMIT seconds (default 900) it is stopped, and the ratios are
	# lower bounds (">")
	lim=${TC_LIMIT:-900}
	if out=$(run timeout "$lim" trace-cmd report "$work/t.dat" 2>/dev/null); then
		tc=${out%% *}
	else
		tc=-$lim
	fi
	rm -f "$work"/x.db*
	read -r t k _ < <(run "$bin/ra-import" -q --no-analyze -o "$work/x.db" "$work/t.dat")
	n=$(events_of "$work/x.db")
	printf "%-24s %5.1f M %8.2f %27s\n" "trace-cmd report" "$(awk -v n="$n" 'BEGIN { print n / 1e6 }')" \
		"${tc#-}" "$([ "${tc#-}" = "$tc" ] && echo "(the reference)" || echo "(stopped there)")"
	row "ra-import --no-analyze" "$m" "$t" "$n" "$tc" "$k" "$work/x.db"
	read -r t k _ < <(run "$bin/ra-analyze" -q "$work/x.db")
	row "ra-analyze" "$m" "$t" "$n" "$tc" "$k" ""
	rm -f "$work"/x.db*
	read -r t k _ < <(run "$bin/ra-import" -q -o "$work/x.db" "$work/t.dat")
	row "ra-import" "$m" "$t" "$n" "$tc" "$k" "$work/x.db"
	# reading the run back: the reports read the derived tables, not the events
	read -r t k _ < <(run "$bin/ra-report" "$work/x.db")
	row "ra-report" "$m" "$t" "$n" 0 "$k" ""
	read -r t k _ < <(run "$bin/ra-report" --html "$work/x.html" "$work/x.db")
	row "ra-report --html" "$m" "$t" "$n" 0 "$k" ""
	read -r t k _ < <(run "$bin/ra-compare" --inconclusive pass "$work/x.db" "$work/x.db")
	row "ra-compare" "$m" "$t" "$n" 0 "$k" ""
	rm -f "$work"/x.db* "$work/x.html" "$work/t.dat"
done

# the largest workload recorded live: how long after the workload's end the
# database was complete, and what was lost
m=${sizes##* }
passes=$(passes_for "$m")
cat "$work/f" > /dev/null
rm -f "$work"/r.db*
export -f workload evict reads
export work cpus
# (-v: how long its threads ran ahead of the workload's, to its log)
read -r t k end < <(run bash -c 'exec "$@" 2> "$work/rec.log"' sh "$bin/ra-record" -v -b 65536 \
	-o "$work/r.db" -- bash -c "workload $passes && date +%s.%N")
n=$(events_of "$work/r.db")
wall=$(sqlite3 "$work/r.db" "SELECT wall_ns / 1e9 FROM runs")
lost=$(sqlite3 "$work/r.db" "SELECT lost_events FROM v_runs")
row "ra-record (live)" "$m" "$t" "$n" 0 "$k" "$work/r.db"
done_at=$(sqlite3 "$work/r.db" "SELECT workload_output FROM runs")
ahead=$(awk '/ran ahead of the workload/ { print $(NF - 4) }' "$work/rec.log")
awk -v w="$wall" -v e="$end" -v d="$done_at" -v l="$lost" -v a="${ahead:-0}" 'BEGIN {
	printf "ra-record: workload %.2f s, complete %.2f s after its end, %d events lost;", w, e - d, l
	printf " its threads ran ahead of the workload for %.2f s\n", a }'
