# ra-import of the trace-cmd fixtures: for every event type ratrace stores, the
# count equals what `trace-cmd report` prints for the same file, and so does
# the count of each type it skips; metadata of the file goes to the run; the
# version 6 conversion of a fixture gives the same events (also in a sanitized
# build, whose leak suppressions must match the libraries' leaks).
# test: budget=7
. "$(dirname "$0")/lib.sh"
command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
make_tmp
DB=$TMP/imp.db

for f in seq128 mmapread par4thrash; do
	dat=$RA_FIXTURES/$f.dat
	ra-import -o "$DB" --label "$f" "$dat" || fail "import $f"
	run=$(q "$DB" "SELECT run_id FROM runs WHERE label = '$f'")
	# trace-cmd's view: the word after the timestamp is the event name
	trace-cmd report "$dat" 2>/dev/null | awk '{ for (i = 1; i < NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(/:$/, "", $(i + 1)); print $(i + 1); break } }' |
		sort | uniq -c | awk '{ print $2 "|" $1 }' > "$TMP/tc.$f"
	q "$DB" "SELECT name FROM event_types" | while read -r ev; do
		want=$(grep "^$ev|" "$TMP/tc.$f" | cut -d'|' -f2)
		got=$(q "$DB" "SELECT n FROM v_event_counts WHERE run_id = $run AND event = '$ev'")
		[ "${got:-0}" = "${want:-0}" ] || fail "$f: $ev: ra-import $got, trace-cmd report $want"
		if [ -n "$want" ]; then echo "ok: $f: $ev = $want"; fi
	done || exit 1
	# the types ratrace does not store (block_io_start, vmscan, ...): counted, not dropped
	want=$(q "$DB" "SELECT name FROM event_types" | grep -v -F -x -f - <(cut -d'|' -f1 "$TMP/tc.$f") |
		sed 's/$/|/' | grep -F -f - "$TMP/tc.$f" | sort)
	check_eq "$(q "$DB" "SELECT name || '|' || n FROM skipped_events WHERE run_id = $run" | sort)" \
		"$want" "$f: skipped events = trace-cmd report's counts of the other types"
	check_eq "$(q "$DB" "SELECT kernel, origin, trace_clock, page_size, cpus FROM runs WHERE run_id = $run")" \
		"$(grep '^kernel=' "$RA_FIXTURES/$f.meta" | cut -d= -f2)|trace.dat|local|4096|2" "$f: run metadata"
	check_eq "$(q "$DB" "SELECT lost_events FROM v_runs WHERE run_id = $run")" 0 "$f: lost events"
	check_eq "$(q "$DB" "SELECT COUNT(*) FROM tracepoints WHERE run_id = $run AND system = 'readahead' AND available = 1")" 4 "$f: readahead formats present"
	check_eq "$(q "$DB" "SELECT COUNT(*) FROM (SELECT ts_ns, LAG(ts_ns) OVER (ORDER BY seq) AS prev FROM
		(SELECT seq, ts_ns FROM ra_events WHERE run_id = $run UNION ALL SELECT seq, ts_ns FROM page_events WHERE run_id = $run
		 UNION ALL SELECT seq, ts_ns FROM blk_events WHERE run_id = $run)) WHERE ts_ns < prev")" 0 "$f: events in time order across tables"
done
check_eq "$(q "$DB" "SELECT comm FROM tasks t JOIN ra_events r ON r.run_id = t.run_id AND r.pid = t.pid WHERE r.run_id = 1 AND r.event_id = 1 AND r.ino = 12")" dd "task name from the file"
check_eq "$(q "$DB" 'PRAGMA integrity_check')" ok "integrity"

# The version 6 conversion of seq128 gives the same events. In a sanitized
# build this is also the check of tests/lsan.supp: libtracecmd leaks the trace
# clock of a version 6 file through sscanf, and the suppressions must match
# that leak with the fast unwinder (LeakSanitizer's default) and the slow one.
conv=()
[ "$(id -u)" -eq 0 ] && conv=(unshare -m)	# trace-cmd mounts tracefs if it can: not here
"${conv[@]}" trace-cmd convert --file-version 6 -i "$RA_FIXTURES/seq128.dat" -o "$TMP/v6.dat" \
	>/dev/null 2>&1 || fail "trace-cmd convert --file-version 6"
want=$(q "$DB" "SELECT event || '|' || n FROM v_event_counts WHERE run_id = 1 ORDER BY event")
for unwind in 1 0; do
	rm -f "$TMP"/v6.db*
	LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}fast_unwind_on_malloc=$unwind \
		ra-import -q -o "$TMP/v6.db" "$TMP/v6.dat" 2>"$TMP/err"
	rc=$?
	check_eq "$rc $(cat "$TMP/err")" "0 " "version 6 import (fast_unwind_on_malloc=$unwind)"
	check_eq "$(q "$TMP/v6.db" "SELECT event || '|' || n FROM v_event_counts ORDER BY event")" \
		"$want" "version 6: the events of the version 7 file"
done
