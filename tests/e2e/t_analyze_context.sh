# Windows of two interleaved sequential streams of one task on one file (rawl
# interleave: the first half and the second half in turn, 4 KiB reads),
# read_ahead_kb=128, read through two descriptors and then through one.
#
# The kernel keeps readahead state per open file. Its async path continues a
# stream (subsequent) when the trigger is at the mark of the state's own
# window: the new window then starts at ra->start + ra->size of that state;
# otherwise it rebuilds the state from the page cache (context). With two
# descriptors the state of a half is the previous window of that half; with
# one, the task's previous window whatever its half. The analysis, which does
# not know how many descriptors there were, must find the kernel's count of
# subsequent and context windows in both cases.
# test: needs=root,tracefs budget=2
. "$(dirname "$0")/lib.sh"
setup_rawl 16
half=$(( $(stat -c %s "$MNT/f") / 2 / 4096 ))

# The kernel's own verdict from the raw events: a window after an async
# trigger that starts where its state's window ended. A window belongs to the
# half its trigger was in (each descriptor reads its own half; its windows may
# run past it). $1: 1 when the state is per half (two descriptors), 0 when one
# state serves both.
# (the run's events copied out of the view first: unpacked once, then indexed)
kernel_sql() {
	echo "CREATE TEMP TABLE re AS SELECT * FROM ra_events WHERE run_id = $run;
	CREATE INDEX temp.re_seq ON re (seq); CREATE INDEX temp.re_pid ON re (pid, seq);
	WITH o AS (SELECT e.seq, e.page_index AS start, e.size_pages AS size, t.event_id AS before,
		t.page_index >= $half AS hi FROM re e JOIN re t ON t.seq = (SELECT MAX(x.seq)
		FROM re x WHERE x.pid = e.pid AND x.seq < e.seq
		AND x.event_id IN (1, 2, 3, 4)) WHERE e.dev = $kdev AND e.ino = $ino
		AND e.event_id = 3),
	p AS (SELECT o.*, (SELECT q.start + q.size FROM o q WHERE q.seq < o.seq
		AND ($1 = 0 OR q.hi = o.hi) ORDER BY q.seq DESC LIMIT 1) AS state_end FROM o)
	SELECT SUM(before = 2 AND start = state_end) || '|' || SUM(before = 2 AND start IS NOT state_end) FROM p"
}
analysed() {
	q "$DB" "SELECT SUM(pattern = 'subsequent') || '|' || SUM(pattern = 'context')
		FROM v_windows WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
}

for fds in 2 1; do
	record_rawl interleave "$MNT/f" --fds "$fds"
	check_grep "^interleave: $((half * 4096)) \+ $((half * 4096)) bytes .* $fds descriptor" \
		<(q "$DB" "SELECT workload_output FROM runs") "rawl read both halves through $fds descriptor(s)"
	ra="FROM ra_events WHERE run_id = $run AND dev = $kdev AND ino = $ino"
	check_eq "$(q "$DB" "SELECT COUNT(DISTINCT pid) $ra")" 1 "$fds fd: one task"
	switches=$(q "$DB" "WITH o AS (SELECT page_index >= $half AS hi, LAG(page_index >= $half)
		OVER (ORDER BY seq) AS prev_hi $ra AND event_id = 3) SELECT COUNT(*) FROM o WHERE hi != prev_hi")
	check_cmp "$switches" -ge 10 "$fds fd: windows of the two halves interleave"
	kernel=$(q "$DB" "$(kernel_sql $((fds == 2)))")
	note "$fds fd: kernel subsequent|context = $kernel; analysis: $(analysed)"
	check_eq "$(analysed)" "$kernel" "$fds fd: subsequent and context windows as the kernel decided"
	w="FROM v_windows WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
	check_eq "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'context' AND trigger != 'async'")" 0 \
		"$fds fd: context windows are async-triggered"
	# one stream per half, each in one half only
	streams=$(q "$DB" "SELECT COUNT(DISTINCT stream_id) $w AND pattern != 'random'")
	mixed=$(q "$DB" "SELECT COUNT(*) FROM (SELECT stream_id FROM windows WHERE run_id = $run
		AND ino = $ino AND trigger_index IS NOT NULL GROUP BY stream_id
		HAVING MIN(trigger_index >= $half) != MAX(trigger_index >= $half))")
	note "$fds fd: $streams streams: $(q "$DB" "SELECT group_concat(sizes, ' / ') FROM streams WHERE run_id = $run AND ino = $ino")"
	check_eq "$mixed" 0 "$fds fd: no stream has triggers in both halves"
	if [ "$fds" = 2 ]; then
		c=$(echo "$kernel" | cut -d'|' -f2)
		check_eq "$c" 0 "2 fd: the kernel continued both streams (no context readahead)"
		check_eq "$streams" 2 "2 fd: two streams"
		check_eq "$(q "$DB" "SELECT SUM(collapses) FROM streams WHERE run_id = $run AND ino = $ino")" 0 \
			"2 fd: no collapse: each stream ramps up to ra_pages and stays"
	else
		c=$(echo "$kernel" | cut -d'|' -f2)
		check_cmp "$c" -ge 10 "1 fd: the kernel rebuilt the state from the page cache"
		check_cmp "$(q "$DB" "SELECT SUM(collapses) FROM streams WHERE run_id = $run AND ino = $ino")" -ge 1 \
			"1 fd: context windows restart small: collapses"
	fi
	rm -f "$DB" "$DB-wal" "$DB-shm"
done

# Two threads of one process reading one descriptor in turn: one readahead
# state for both. Each thread's async trigger carries the state the other's
# window left, and the kernel continues it: the windows are subsequent, in
# one stream, though two tasks opened them (the run stores each task's
# process, from the kernel's saved tgids).
record_rawl threads "$MNT/f"
check_grep "^threads: $size bytes in [0-9]+ \+ [0-9]+ reads of one descriptor" \
	<(q "$DB" "SELECT workload_output FROM runs") "rawl's two threads read the file"
ra="FROM ra_events WHERE run_id = $run AND dev = $kdev AND ino = $ino"
check_eq "$(q "$DB" "SELECT COUNT(DISTINCT pid) $ra AND event_id = 3")" 2 "threads: windows of both threads"
check_eq "$(q "$DB" "SELECT COUNT(DISTINCT t.tgid) || '|' || COUNT(*) FROM tasks t WHERE t.run_id = $run
	AND t.pid IN (SELECT pid $ra)")" "1|2" "threads: two tasks of one process"
kernel=$(q "$DB" "$(kernel_sql 0)")
note "threads: kernel subsequent|context = $kernel; analysis: $(analysed)"
check_eq "$(echo "$kernel" | cut -d'|' -f2)" 0 "threads: the kernel continued the shared state"
check_eq "$(analysed)" "$kernel" "threads: subsequent and context windows as the kernel decided"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM streams WHERE run_id = $run AND ino = $ino")" 1 "threads: one stream"
