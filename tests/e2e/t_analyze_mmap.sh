# Windows of a read-only mapping of a 16 MiB file touched page by page (rawl
# mmap, no madvise), read_ahead_kb=128: the first fault reads around the
# faulting page with a page_cache_ra_order that no trigger precedes, an around
# window flagged mmap.
. "$(dirname "$0")/lib.sh"
setup_rawl 16
record_rawl mmap "$MNT/f"
check_grep "^mmap: $pages pages, sum" <(q "$DB" "SELECT workload_output FROM runs") "rawl touched the file"

# The raw recording: faults of the file, and ra_order events that no trigger
# of the task precedes (read-around).
ra="FROM ra_events WHERE run_id = $run AND dev = $kdev AND ino = $ino"
pe="FROM page_events WHERE run_id = $run AND dev = $kdev AND ino = $ino"
nfault=$(q "$DB" "SELECT COUNT(*) $pe AND event_id = 13")
nmap=$(q "$DB" "SELECT COUNT(*) $pe AND event_id = 14")
around="WITH e AS (SELECT seq, event_id, page_index, size_pages, async_size_pages,
		LAG(event_id) OVER (PARTITION BY pid ORDER BY seq) AS prev_ev $ra)
	SELECT COUNT(*) || '|' || COALESCE(GROUP_CONCAT(page_index || '+' || size_pages, ' '), '')
	  FROM e WHERE event_id = 3 AND (prev_ev IS NULL OR prev_ev NOT IN (1, 2))"
IFS='|' read -r naround around_list <<<"$(q "$DB" "$around")"
note "raw: $nfault mm_filemap_fault, $nmap mm_filemap_map_pages; $(q "$DB" "SELECT GROUP_CONCAT(n || ' ' || e, ', ') FROM (SELECT CASE event_id WHEN 1 THEN 'sync' WHEN 2 THEN 'async' WHEN 3 THEN 'ra_order' ELSE 'ra_unbounded' END AS e, COUNT(*) AS n $ra GROUP BY event_id)")"
note "raw: $naround ra_order without a trigger (start+size: $around_list)"
check_cmp "$nfault" -ge 1 "mm_filemap_fault of the file"
check_eq "$(q "$DB" "SELECT MIN(page_index) $pe AND event_id = 13")" 0 "the first fault is page 0"
check_cmp "$naround" -ge 1 "ra_order without a trigger"
check_eq "$(q "$DB" "SELECT COUNT(*) $pe AND event_id = 12")" 0 "no read(2) of the file"

# The analysis.
w="FROM v_windows WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
note "v_windows patterns: $(q "$DB" "SELECT GROUP_CONCAT(pattern || '=' || n, ' ') FROM (SELECT pattern, COUNT(*) AS n $w GROUP BY pattern)")"
note "around windows (start|size|mmap|readahead_pages): $(q "$DB" "SELECT GROUP_CONCAT(start || '|' || size || '|' || mmap || '|' || readahead_pages, ' ') $w AND pattern = 'around'")"
check_cmp "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'around'")" -ge 1 "around windows"
check_cmp "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'around' AND mmap = 1")" -ge 1 "around windows with mmap = 1"
check_eq "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'around' AND (mmap != 1 OR trigger != 'none')")" 0 "every around window: mmap = 1, no trigger"
check_eq "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'around'")" "$naround" "around windows = raw untriggered ra_order"
