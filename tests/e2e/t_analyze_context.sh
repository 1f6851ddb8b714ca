# Windows of two interleaved sequential streams of one task on one file (rawl
# interleave: two descriptors, the first half through one, the second half
# through the other, alternating 4 KiB reads), read_ahead_kb=128. The analysis
# keys streams by (dev, inode, task), so an async trigger whose window does not
# start where the task's previous window on the file ended is a context window.
. "$(dirname "$0")/lib.sh"
setup_rawl 16
record_rawl interleave "$MNT/f"
half=$(( size / 2 / 4096 ))
check_grep "^interleave: $((half * 4096)) \+ $((size - half * 4096)) bytes" <(q "$DB" "SELECT workload_output FROM runs") "rawl read both halves"

# The raw recording: ra_order windows in both halves from one task, alternating;
# async triggers whose window does not continue the task's previous window.
ra="FROM ra_events WHERE run_id = $run AND dev = $kdev AND ino = $ino"
note "raw: $(q "$DB" "SELECT GROUP_CONCAT(n || ' ' || e, ', ') FROM (SELECT CASE event_id WHEN 1 THEN 'sync' WHEN 2 THEN 'async' WHEN 3 THEN 'ra_order' ELSE 'ra_unbounded' END AS e, COUNT(*) AS n $ra GROUP BY event_id)")"
check_eq "$(q "$DB" "SELECT COUNT(DISTINCT pid) $ra")" 1 "one task"
nlow=$(q "$DB" "SELECT COUNT(*) $ra AND event_id = 3 AND page_index < $half")
nhigh=$(q "$DB" "SELECT COUNT(*) $ra AND event_id = 3 AND page_index >= $half")
switches=$(q "$DB" "WITH o AS (SELECT page_index >= $half AS hi, LAG(page_index >= $half) OVER (ORDER BY seq) AS prev_hi
	$ra AND event_id = 3) SELECT COUNT(*) FROM o WHERE hi != prev_hi")
note "raw: ra_order windows $nlow in the first half, $nhigh in the second, $switches switches between them"
check_cmp "$nlow" -ge 10 "windows in the first half"
check_cmp "$nhigh" -ge 10 "windows in the second half"
check_cmp "$switches" -ge 10 "windows of the two halves interleave"
# For each async trigger: the task's previous window (ra_order/ra_unbounded)
# and the ra_order that the trigger opens.
ctx_sql="WITH e AS (SELECT seq, pid, event_id, page_index, size_pages $ra),
	t AS (SELECT a.seq,
		(SELECT p.page_index + p.size_pages FROM e p WHERE p.pid = a.pid AND p.event_id IN (3, 4)
		  AND p.seq < a.seq ORDER BY p.seq DESC LIMIT 1) AS prev_end,
		(SELECT n.page_index FROM e n WHERE n.pid = a.pid AND n.event_id = 3 AND n.seq > a.seq
		  ORDER BY n.seq LIMIT 1) AS next_start
	  FROM e a WHERE a.event_id = 2)"
nasync=$(q "$DB" "$ctx_sql SELECT COUNT(*) FROM t WHERE next_start IS NOT NULL")
nctx=$(q "$DB" "$ctx_sql SELECT COUNT(*) FROM t WHERE next_start IS NOT NULL AND next_start IS NOT prev_end")
note "raw: $nasync async triggers opened a window, $nctx of them not where the task's previous window ended"
check_cmp "$nctx" -ge 1 "raw context candidates"

# The analysis.
w="FROM v_windows WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
note "v_windows patterns: $(q "$DB" "SELECT GROUP_CONCAT(pattern || '=' || n, ' ') FROM (SELECT pattern, COUNT(*) AS n $w GROUP BY pattern)")"
check_cmp "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'context'")" -ge 1 "context windows"
check_eq "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'context'")" "$nctx" "context windows = raw context candidates"
check_eq "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'context' AND trigger != 'async'")" 0 "context windows are async-triggered"
