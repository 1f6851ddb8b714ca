# A recording whose ring buffers overflow (4 KiB per CPU under a real-time
# reader) stores what it got and counts the lost events per CPU; every report
# of it says its numbers are incomplete, and ra-compare refuses to judge such
# runs unless told to (--incomplete=skip or judge). And a recording whose
# data waits in a small memory and in the files stores every event once.
# test: needs=root,tracefs budget=3
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 160
make_file "$MNT/f" 64
DB=$TMP/lost.db
for label in ok ok; do
	ra-record -q -o "$DB" -l $label -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" \
		-- dd if="$MNT/f" of=/dev/null bs=4k status=none 2> "$TMP/err"
	check_eq "$?" 0 "ra-record with 16 MiB per CPU"
done
check_eq "$(q "$DB" "SELECT COUNT(*) FROM v_runs WHERE label = 'ok' AND lost_events = 0")" 2 \
	"16 MiB per CPU: nothing lost"
# Stored while the workload runs, the ring buffers' data waits in memory
# until it is stored, and goes to --tmpdir when that is full: with 16 KiB
# for it, most of it passes through the files, in turns with the memory.
# Either way every event is there, once: a cached read of 64 MiB in 4 KiB
# reads is 16384 mm_filemap_get_pages events (one per read), twice.
cat "$MNT/f" > /dev/null
ino=$(stat -c %i "$MNT/f")
for kb in 16 8192; do
	rm -f "$TMP/live.db"
	RATRACE_LIVE_MEMORY_KB=$kb ra-record -q -o "$TMP/live.db" -d "$LOOP_NAME" -- \
		sh -c "dd if='$MNT/f' of=/dev/null bs=4k status=none && dd if='$MNT/f' of=/dev/null bs=4k status=none"
	check_eq "$?" 0 "ra-record with $kb KiB for the data not yet stored"
	check_eq "$(q "$TMP/live.db" "SELECT lost_events FROM v_runs")" 0 "$kb KiB: lost events"
	check_eq "$(q "$TMP/live.db" "SELECT COUNT(*) FROM page_events WHERE event_id = 12 AND ino = $ino")" \
		32768 "$kb KiB: one mm_filemap_get_pages per read"
	check_eq "$(q "$TMP/live.db" "SELECT COUNT(*) FROM (SELECT ts_ns, LAG(ts_ns) OVER (ORDER BY seq) AS p
		FROM page_events) WHERE ts_ns < p")" 0 "$kb KiB: events in time order"
done
# A real-time reader of a cached file on the recorder's CPU: the recorder
# cannot run to empty its 4 KiB buffer while the reader fills it.
# shellcheck disable=SC2015 # skip when either is missing
command -v chrt >/dev/null && command -v taskset >/dev/null || skip "no chrt or taskset"
cat "$MNT/f" > /dev/null
for try in 1 2; do
	taskset -c 0 ra-record -q -o "$DB" -l lossy -b 4 -d "$LOOP_NAME" \
		-- chrt -f 50 dd if="$MNT/f" of=/dev/null bs=4k status=none 2> "$TMP/err"
	check_eq "$?" 0 "ra-record -b 4, run $try"
done
lossy=lossy
run=$(q "$DB" "SELECT MAX(run_id) FROM runs")
check_eq "$(q "$DB" "SELECT COUNT(*) FROM v_runs WHERE label = 'lossy' AND lost_events > 0")" 2 \
	"4 KiB per CPU: both runs lost events"
note "4 KiB per CPU ($lossy): $(q "$DB" "SELECT lost_events FROM v_runs WHERE run_id = $run") events lost; per CPU (overrun+dropped/marks): $(q "$DB" "SELECT GROUP_CONCAT(cpu || ':' || COALESCE(overrun, 0) || '+' || COALESCE(dropped, 0) || '/' || missed, ' ') FROM lost_events WHERE run_id = $run")"
check_cmp "$(q "$DB" "SELECT COUNT(*) FROM lost_events WHERE run_id = $run AND COALESCE(overrun, 0) + COALESCE(dropped, 0) + missed > 0")" \
	-ge 1 "the losses are stored per CPU"
check_cmp "$(q "$DB" "SELECT SUM(n) FROM v_event_counts WHERE run_id = $run")" -gt 0 "what was recorded is stored"

ra-report --run "$run" "$DB" > "$TMP/out" || fail "ra-report"
check_grep "lost events: [0-9]+ events were lost; every count is a lower bound" "$TMP/out" "the text report says so"
ra-report --run "$run" --json "$DB" | python3 -c "import json, sys
w = json.load(sys.stdin)['runs'][0]['warnings']
assert any('lost' in x for x in w), w" || fail "the JSON report says so"
echo "ok: the JSON report says so"

ra-compare --db "$DB" ok "$lossy" > "$TMP/out" 2> "$TMP/err"
check_eq "$?" 2 "ra-compare refuses incomplete runs"
check_grep "^ra-compare: '$lossy': 2 run\(s\) lost [0-9]+ events or were interrupted \(0\): their numbers are incomplete" "$TMP/err" \
	"and says why"
check_eq "$(wc -l < "$TMP/out")" 0 "and prints no verdict"
ra-compare --db "$DB" --incomplete=judge ok "$lossy" > "$TMP/out" 2> "$TMP/err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || [ $rc -eq 3 ] || fail "--incomplete=judge: exit $rc: $(cat "$TMP/err")"
check_grep "$lossy.*judged, though incomplete" "$TMP/err" "--incomplete=judge compares them, and says so"
check_cmp "$(wc -l < "$TMP/out")" -gt 0 "and prints its table"
ra-compare --db "$DB" --incomplete=skip ok "$lossy" > "$TMP/out" 2> "$TMP/err"
check_eq "$?" 2 "--incomplete=skip: nothing left of the lossy side"
check_grep "no runs labelled $lossy" "$TMP/err" "--incomplete=skip left them out"
