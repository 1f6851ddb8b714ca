# Windows of posix_fadvise(POSIX_FADV_WILLNEED) over a 16 MiB file, then a
# sequential read of it (rawl fadvise), read_ahead_kb=128: the fadvise is a
# page_cache_ra_unbounded with no trigger, a forced window that reads ahead.
# test: needs=root,tracefs budget=3
. "$(dirname "$0")/lib.sh"
setup_rawl 16
record_rawl fadvise "$MNT/f"
check_grep "^fadvise: WILLNEED $size bytes, read $size" <(q "$DB" "SELECT workload_output FROM runs") "rawl read the file"

# The raw recording: page_cache_ra_unbounded events of the file that no
# trigger (and no ra_order: a fallback) of the task precedes, and the pages added inside them before the
# task's next readahead event.
ra="FROM ra_events WHERE run_id = $run AND dev = $kdev AND ino = $ino"
forced="WITH e AS (SELECT seq, pid, event_id, page_index, size_pages,
		LAG(event_id) OVER (PARTITION BY pid ORDER BY seq) AS prev_ev,
		LEAD(seq) OVER (PARTITION BY pid ORDER BY seq) AS next_seq $ra),
	f AS (SELECT * FROM e WHERE event_id = 4 AND (prev_ev IS NULL OR prev_ev NOT IN (1, 2, 3)))"
nforced=$(q "$DB" "$forced SELECT COUNT(*) FROM f")
added=$(q "$DB" "$forced SELECT COALESCE(SUM(1 << p.folio_order), 0) FROM f JOIN page_events p
	ON p.run_id = $run AND p.dev = $kdev AND p.ino = $ino AND p.event_id = 10 AND p.pid = f.pid
	AND p.seq > f.seq AND p.seq < COALESCE(f.next_seq, 1 << 62)
	AND p.page_index >= f.page_index AND p.page_index < f.page_index + f.size_pages")
note "raw: $nforced untriggered ra_unbounded ($(q "$DB" "$forced SELECT GROUP_CONCAT('index ' || page_index || ' nr_to_read ' || size_pages, ', ') FROM f")), $added pages added inside them"
note "raw: $(q "$DB" "SELECT GROUP_CONCAT(n || ' ' || e, ', ') FROM (SELECT CASE event_id WHEN 1 THEN 'sync' WHEN 2 THEN 'async' WHEN 3 THEN 'ra_order' ELSE 'ra_unbounded' END AS e, COUNT(*) AS n $ra GROUP BY event_id)")"
check_cmp "$nforced" -ge 1 "page_cache_ra_unbounded without a trigger"
check_eq "$(q "$DB" "$forced SELECT MIN(page_index) FROM f")" 0 "the fadvise starts at page 0"
check_cmp "$added" -gt 0 "pages added by the fadvise"

# The analysis.
w="FROM v_windows WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
note "v_windows patterns: $(q "$DB" "SELECT GROUP_CONCAT(pattern || '=' || n, ' ') FROM (SELECT pattern, COUNT(*) AS n $w GROUP BY pattern)")"
note "forced windows (start|size|readahead_pages): $(q "$DB" "SELECT GROUP_CONCAT(start || '|' || size || '|' || readahead_pages, ' ') $w AND pattern = 'forced'")"
check_cmp "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'forced'")" -ge 1 "forced windows"
check_eq "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'forced' AND trigger != 'none'")" 0 "forced windows have no trigger"
check_cmp "$(q "$DB" "SELECT COALESCE(MAX(readahead_pages), 0) $w AND pattern = 'forced'")" -gt 0 "a forced window read ahead"
check_eq "$(q "$DB" "SELECT COALESCE(SUM(readahead_pages), 0) $w AND pattern = 'forced'")" "$added" "forced readahead pages = raw pages added"

# A WILLNEED right after a read: the forced window starts inside the read's
# window, but it is the call's own window, not the read's fallback (the
# system call event comes between them).
rm -f "$DB" "$DB-wal" "$DB-shm"
record_rawl fadvise "$MNT/f" --first 4096 --len 1048576
check_grep "^fadvise: WILLNEED 1048576 bytes, read 1048576 in 256 reads, 4096 first" \
	<(q "$DB" "SELECT workload_output FROM runs") "rawl read a page, then asked for 1 MiB"
w="FROM v_windows WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
call=$(q "$DB" "SELECT MIN(seq) FROM ra_events WHERE run_id = $run AND event_id = 5
	AND pid IN ($(own_pids))")
next=$(q "$DB" "SELECT COALESCE(MIN(seq), 1 << 62) FROM ra_events WHERE run_id = $run AND ino = $ino
	AND seq > (SELECT MIN(seq) FROM ra_events WHERE run_id = $run AND ino = $ino AND event_id = 4 AND seq > $call)
	AND event_id IN (1, 2, 3, 4)")
added=$(q "$DB" "SELECT COALESCE(SUM(1 << folio_order), 0) FROM page_events WHERE run_id = $run AND ino = $ino
	AND event_id = 10 AND seq > $call AND seq < $next")
note "after the call: $added pages added; windows: $(q "$DB" "SELECT GROUP_CONCAT(pattern || ' ' || start || '+' || size || ' fallback ' || fallback || ' added ' || pages_added, ', ') $w")"
check_eq "$(q "$DB" "SELECT fallback $w AND pattern = 'initial'")" 0 "the read's window has no fallback"
check_eq "$(q "$DB" "SELECT COUNT(*) || '|' || SUM(pages_added) $w AND pattern = 'forced'")" "1|$added" \
	"the call's forced window holds the pages it added"
check_eq "$(q "$DB" "SELECT windows || '|' || pages_added FROM advice_calls WHERE run_id = $run")" "1|$added" \
	"advice_calls pairs the call with its window"

# A WILLNEED call on a file of another device, meanwhile: the system call
# events are not filtered by device, but the call is not the recorded
# device's (its task has no page of it): advice_calls holds the one call on
# the loop device's file.
head -c $((1 << 20)) /dev/urandom > "$TMP/other" || fail "a file off the loop device"
rm -f "$DB" "$DB-wal" "$DB-shm"
record_loop 128 sh -c "'$RAWL' fadvise '$TMP/other' > /dev/null; '$RAWL' fadvise '$MNT/f' --len 1048576"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM ra_events WHERE run_id = $run AND event_id = 5
	AND pid IN ($(own_pids))")" 2 "both WILLNEED calls are in the trace"
check_eq "$(q "$DB" "SELECT COUNT(*) || ' ' || MIN(ino) FROM advice_calls WHERE run_id = $run")" "1 $ino" \
	"advice_calls: the call on the recorded device's file only"
