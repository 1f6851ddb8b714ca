# Block analysis on the fixtures: btt's averages and blkparse's plugs on the
# blktrace file, and the /sys/block stat deltas of the trace-cmd fixtures'
# .meta files.
# test: budget=3
. "$(dirname "$0")/lib.sh"
# shellcheck disable=SC2015 # skip when either is missing
command -v btt >/dev/null && command -v blkparse >/dev/null || skip "btt or blkparse is not installed"
make_tmp

# btt on the blktrace fixture (blkparse reads it under the CPU its records say)
cp "$RA_FIXTURES/nvme-readahead.blktrace.0" "$TMP/x.blktrace.1"
: > "$TMP/x.blktrace.0"
(cd "$TMP" && blkparse -q -i x -d x.bin >/dev/null 2>&1) || fail "blkparse -d"
(cd "$TMP" && btt -i x.bin > btt.txt 2>/dev/null) || fail "btt"   # btt writes files to its cwd
DB=$TMP/bt.db
ra-import -q -o "$DB" "$RA_FIXTURES/nvme-readahead.blktrace.0" || fail "import"
for iv in Q2G D2C Q2C; do
	btt_avg=$(awk -v iv=$iv '$1 == iv { print $3; exit }' "$TMP/btt.txt")
	btt_n=$(awk -v iv=$iv '$1 == iv { print $5; exit }' "$TMP/btt.txt")
	ours=$(q "$DB" "SELECT avg_ns || ' ' || n FROM device_latency WHERE interval = '$iv'")
	[ -n "$btt_avg" ] || fail "btt printed no $iv"
	# within 0.1%, or within btt's own rounding (it prints whole nanoseconds)
	awk -v b="$btt_avg" -v o="${ours% *}" 'BEGIN { d = o - b * 1e9; if (d < 0) d = -d;
		exit !(d <= 0.001 * b * 1e9 || d <= 0.5) }' ||
		fail "$iv: ratrace ${ours% *} ns, btt $btt_avg s"
	check_eq "${ours#* }" "$btt_n" "$iv samples"
	echo "ok: $iv average ${ours% *} ns, btt $btt_avg s (within 0.1%)"
done
check_eq "$(q "$DB" "SELECT reads_completed, ra_requests, ra_avg_bytes, merges FROM v_device_io")" "963|963|4096.0|0" "device summary"
# plugs: blkparse's P, U and UT lines of 259:0 (the request count ends a U
# line) and its summary's IO and timer unplugs
(cd "$TMP" && blkparse -i x > bp.txt 2>/dev/null) || fail "blkparse"
bp_plugs=$(awk '$1 == "259,0" && $6 == "P"' "$TMP/bp.txt" | wc -l)
bp_unplugs=$(awk '$1 == "259,0" && ($6 == "U" || $6 == "UT")' "$TMP/bp.txt" | wc -l)
bp_rqs=$(awk '$1 == "259,0" && ($6 == "U" || $6 == "UT") { s += $NF } END { print s + 0 }' "$TMP/bp.txt")
bp_io=$(sed -n 's/.*IO unplugs: *\([0-9]*\).*/\1/p' "$TMP/bp.txt" | awk '{ s += $1 } END { print s + 0 }')
bp_timer=$(sed -n 's/.*Timer unplugs: *\([0-9]*\).*/\1/p' "$TMP/bp.txt" | awk '{ s += $1 } END { print s + 0 }')
note "blkparse: $bp_plugs plugs, $bp_unplugs unplugs ($bp_io IO, $bp_timer timer), $bp_rqs requests"
check_cmp "$bp_plugs" -gt 0 "blkparse shows plugs"
check_eq "$(q "$DB" "SELECT (dev >> 20) || ',' || (dev & 1048575), plugs, unplugs, unplugs_explicit, unplugs_timer, unplug_requests FROM plugs")" \
	"259,0|$bp_plugs|$bp_unplugs|$bp_io|$bp_timer|$bp_rqs" "plugs per device = blkparse's"

# trace-cmd fixtures: read completions and sectors of 7:0 against the .meta stat delta
for f in seq128 mmapread par4thrash; do
	ra-import -q -o "$TMP/$f.db" "$RA_FIXTURES/$f.dat" || fail "import $f"
	meta=$RA_FIXTURES/$f.meta
	read -r -a b <<<"$(grep '^blkstat_before=' "$meta" | cut -d= -f2)"
	read -r -a a <<<"$(grep '^blkstat_after=' "$meta" | cut -d= -f2)"
	want="$((a[0] - b[0]))|$((a[2] - b[2]))"
	check_eq "$(q "$TMP/$f.db" "SELECT reads_completed || '|' || sectors_read FROM v_device_io WHERE dev = '7:0'")" "$want" "$f: 7:0 reads and sectors = stat delta"
done
check_eq "$(q "$TMP/seq128.db" "SELECT COUNT(*) FROM windows w JOIN window_io i USING (run_id, window_id) WHERE w.ino = 12 AND w.dev = 7340032 AND w.pages_added > 0 AND i.requests > 0")" \
	"$(q "$TMP/seq128.db" "SELECT COUNT(*) FROM windows WHERE ino = 12 AND dev = 7340032 AND pages_added > 0")" "seq128: every window with pages added has requests"

# The windows' device time, given as they complete, on real recordings: the
# sweep (dd at 64 and 512 KiB, some bios queued by a worker 0.1 s after
# their window opened) and the imports take that way, and give what all the
# windows' records at the end give (RATRACE_DEVICE_TIME=end).
xz -dc "$RA_FIXTURES/sweep.db.xz" > "$TMP/sweep.db" || fail "unpack sweep.db"
cp "$TMP/sweep.db" "$TMP/sweep-end.db"
ra-analyze -v "$TMP/sweep.db" 2> "$TMP/v.txt" || fail "ra-analyze of the sweep"
check_eq "$(grep -c "^block: the device time of [0-9]* windows as they completed" "$TMP/v.txt")" \
	"$(q "$TMP/sweep.db" "SELECT COUNT(*) FROM runs")" "the sweep: every run's device time as its windows completed"
RATRACE_DEVICE_TIME=end ra-analyze -v "$TMP/sweep-end.db" 2> "$TMP/v.txt" || fail "ra-analyze of the sweep, the time at the end"
check_grep "^block: the windows' device time computed at the end: asked for" "$TMP/v.txt" "and at the end when asked"
cp "$TMP/seq128.db" "$TMP/seq128-end.db"
RATRACE_DEVICE_TIME=end ra-analyze -q "$TMP/seq128-end.db" || fail "ra-analyze of seq128, the time at the end"
for f in sweep seq128; do
	check_eq "$(q "$TMP/$f.db" "SELECT COUNT(*), SUM(service_ns), SUM(idle_ns), SUM(held_ns) FROM window_io")" \
		"$(q "$TMP/$f-end.db" "SELECT COUNT(*), SUM(service_ns), SUM(idle_ns), SUM(held_ns) FROM window_io")" "$f: window_io's times"
	check_eq "$(q "$TMP/$f.db" "SELECT * FROM window_io ORDER BY run_id, window_id" | md5sum)" \
		"$(q "$TMP/$f-end.db" "SELECT * FROM window_io ORDER BY run_id, window_id" | md5sum)" "$f: every window_io row"
done
