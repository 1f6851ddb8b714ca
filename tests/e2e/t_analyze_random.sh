# Windows of random 4 KiB reads (rawl random: 2000 page-aligned reads, never
# page 0, never next to the previous read or to a cached page) of a 32 MiB file
# with read_ahead_kb=128: every cache miss is a sync trigger with a one-page
# window, so every window is random and reads nothing ahead.
# test: needs=root,tracefs budget=2
. "$(dirname "$0")/lib.sh"
setup_rawl 32
record_rawl random "$MNT/f" --count 2000 --seed 7
check_grep "^random: 2000 reads" <(q "$DB" "SELECT workload_output FROM runs") "rawl read the file"

# The raw recording: each miss is a sync trigger for one page followed by its
# one-page page_cache_ra_unbounded (do_page_cache_ra of a small random read).
ra="FROM ra_events WHERE run_id = $run AND dev = $kdev AND ino = $ino"
nsync=$(q "$DB" "SELECT COUNT(*) $ra AND event_id = 1")
nasync=$(q "$DB" "SELECT COUNT(*) $ra AND event_id = 2")
norder=$(q "$DB" "SELECT COUNT(*) $ra AND event_id = 3")
nunb=$(q "$DB" "SELECT COUNT(*) $ra AND event_id = 4")
nadd=$(q "$DB" "SELECT COALESCE(SUM(1 << folio_order), 0) FROM page_events WHERE run_id = $run AND dev = $kdev AND ino = $ino AND event_id = 10")
note "raw: $nsync sync, $nasync async triggers, $norder ra_order, $nunb ra_unbounded, $nadd pages added"
check_cmp "$nsync" -ge 1000 "sync triggers (cache misses)"
check_eq "$nasync|$norder" "0|0" "no async trigger, no ra_order"
check_eq "$(q "$DB" "SELECT COUNT(*) $ra AND event_id = 1 AND (page_index = 0 OR req_count_pages != 1)")" 0 "every miss is one page, never page 0"
pairs=$(q "$DB" "WITH e AS (SELECT event_id, page_index, size_pages, async_size_pages,
		LAG(event_id) OVER (PARTITION BY pid ORDER BY seq) AS prev_ev,
		LAG(page_index) OVER (PARTITION BY pid ORDER BY seq) AS prev_index $ra)
	SELECT COUNT(*) FROM e WHERE event_id = 4 AND prev_ev = 1 AND page_index = prev_index
		AND size_pages = 1 AND async_size_pages = 0")
check_eq "$pairs" "$nsync" "each trigger followed by a one-page ra_unbounded, no lookahead"
check_eq "$nadd" "$nsync" "one page added per miss (nothing read ahead)"

# The analysis.
w="FROM v_windows WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
note "v_windows patterns: $(q "$DB" "SELECT GROUP_CONCAT(pattern || '=' || n, ' ') FROM (SELECT pattern, COUNT(*) AS n $w GROUP BY pattern)")"
check_eq "$(q "$DB" "SELECT COUNT(*) $w")" "$nsync" "one window per miss"
check_eq "$(q "$DB" "SELECT COUNT(*) $w AND pattern != 'random'")" 0 "only random windows"
check_eq "$(q "$DB" "SELECT COUNT(*) $w AND trigger = 'sync' AND size = 1")" "$nsync" "sync-triggered one-page windows"
check_eq "$(q "$DB" "SELECT COALESCE(SUM(readahead_pages), -1) $w")" 0 "readahead pages"
