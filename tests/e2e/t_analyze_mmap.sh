# Windows of a read-only mapping of a 16 MiB file touched page by page (rawl
# mmap, no madvise), read_ahead_kb=128: the first fault reads around the
# faulting page with a page_cache_ra_order that no trigger precedes, an around
# window flagged mmap.
# test: needs=root,tracefs budget=4
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

# Mapping is not access. A mapped page touched raises no event, so the pages
# fault-around maps are "mapped" (access unknown): the hit ratio is a range.
# The whole file touched page by page: every read-ahead page was read, and
# used + mapped = all of them (hit_ratio_max 1.0).
f="FROM v_file_fates WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
note "sequential mmap: $(q "$DB" "SELECT 'readahead ' || ra_pages || ', used ' || used || ', mapped ' || mapped || ', pending ' || pending || ', hit ' || hit_ratio || '..' || hit_ratio_max $f")"
check_eq "$(q "$DB" "SELECT (used + mapped = ra_pages) || '|' || pending || '|' || evicted_unused || '|' || hit_ratio_max $f")" \
	"1|0|0|1.0" "sequential mmap: used + mapped = every read-ahead page"
faulted=$(q "$DB" "SELECT COUNT(DISTINCT p.page_index) FROM page_events p JOIN windows w ON w.run_id = p.run_id
	AND w.ino = p.ino AND p.page_index >= w.start_page AND p.page_index < w.start_page + w.size_pages
	AND p.seq > w.seq AND (w.demand_pages = 0 OR p.page_index NOT BETWEEN w.demand_start
	AND w.demand_start + w.demand_pages - 1)
	WHERE p.run_id = $run AND p.ino = $ino AND p.event_id = 13")
check_eq "$(q "$DB" "SELECT used $f")" "$faulted" "sequential mmap: used = read-ahead pages faulted on"
rm -f "$DB" "$DB-wal" "$DB-shm"

# MADV_SEQUENTIAL: each fault's sync trigger asks for ra_pages (the kernel's
# window), but the program demanded the faulting page: the first window is
# initial with one demand page, no window is random for it.
record_rawl mmap "$MNT/f" --advice sequential
check_grep "advice sequential" <(q "$DB" "SELECT workload_output FROM runs") "rawl used MADV_SEQUENTIAL"
w="FROM v_windows WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
f="FROM v_file_fates WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
note "MADV_SEQUENTIAL: $(q "$DB" "SELECT GROUP_CONCAT(pattern || '=' || n, ' ') FROM (SELECT pattern, COUNT(*) AS n $w GROUP BY pattern)"); first: $(q "$DB" "SELECT trigger || ' req ' || req_count || ' demand ' || demand_pages $w ORDER BY window_id LIMIT 1")"
check_eq "$(q "$DB" "SELECT pattern || '|' || trigger || '|' || (req_count > 1) || '|' || demand_pages $w ORDER BY window_id LIMIT 1")" \
	"initial|sync|1|1" "MADV_SEQUENTIAL: the first window: sync, req_count is ra_pages, one demand page"
check_eq "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'random'")" 0 "MADV_SEQUENTIAL: no random window"
check_eq "$(q "$DB" "SELECT ra_pages || '|' || (used + mapped) || '|' || hit_ratio_max $f")" \
	"$((pages - 1))|$((pages - 1))|1.0" "MADV_SEQUENTIAL: every page but the first read ahead, all of them used or mapped"
rm -f "$DB" "$DB-wal" "$DB-shm"

# One byte in each of 60 random places 64 pages apart: each fault's page is
# the demand of its read-around window, fault-around maps some of the window's
# other pages, and the program reads none of them: used 0.
record_rawl touch "$MNT/f" --count 60 --gap 64 --seed 5
check_grep "^touch: 60 places 64 pages apart" <(q "$DB" "SELECT workload_output FROM runs") "rawl touched 60 places"
w="FROM v_windows WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
f="FROM v_file_fates WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
note "random touches: $(q "$DB" "SELECT 'windows ' || windows || ', readahead ' || ra_pages || ', used ' || used || ', mapped ' || mapped || ', hit ' || hit_ratio || '..' || hit_ratio_max $f")"
check_eq "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'around' AND demand_pages = 1")" 60 "random touches: 60 read-around windows, one demand page each"
check_eq "$(q "$DB" "SELECT used $f")" 0 "random touches: no read-ahead page used"
check_cmp "$(q "$DB" "SELECT mapped $f")" -gt 0 "random touches: fault-around pages are mapped"
# mapped = the read-ahead pages inside the fault-around ranges (whole folios)
in_ranges=$(q "$DB" "WITH RECURSIVE m(i, last) AS (SELECT page_index, last_index $pe AND event_id = 14
		UNION ALL SELECT i + 1, last FROM m WHERE i < last)
	SELECT COUNT(DISTINCT m.i) FROM m JOIN windows w ON w.run_id = $run AND w.ino = $ino
	 AND m.i >= w.start_page AND m.i < w.start_page + w.size_pages AND m.i != w.demand_start")
note "random touches: read-ahead pages inside the map_pages ranges: $in_ranges"
check_cmp "$(q "$DB" "SELECT mapped $f")" -ge "$in_ranges" "random touches: mapped covers the fault-around ranges"
check_eq "$(q "$DB" "SELECT hit_ratio $f")" 0.0 "random touches: hit ratio lower bound 0"

# MADV_HUGEPAGE: the page cache reads in PMD-sized folios (order 9), which a
# fault maps whole (one PMD) and fault-around maps with no event at all
# (filemap_map_pmd() returns before mm_filemap_map_pages). Every page was
# touched: the upper bound must still reach 1.0.
rm -f "$DB" "$DB-wal" "$DB-shm"
record_rawl mmap "$MNT/f" --advice hugepage
check_grep "advice hugepage" <(q "$DB" "SELECT workload_output FROM runs") "rawl used MADV_HUGEPAGE"
pmd=$(q "$DB" "SELECT COUNT(*) FROM page_events WHERE run_id = $run AND ino = $ino AND event_id = 10 AND folio_order >= 9")
note "MADV_HUGEPAGE: $pmd folios of order 9 added; $(q "$DB" "SELECT 'used ' || used || ', mapped ' || mapped || ', pending ' || pending || ', hit ' || hit_ratio || '..' || hit_ratio_max FROM v_file_fates WHERE run_id = $run AND ino = $ino")"
check_cmp "$pmd" -ge 1 "MADV_HUGEPAGE: PMD-sized folios"
check_eq "$(q "$DB" "SELECT (used + mapped = ra_pages) || '|' || pending || '|' || hit_ratio_max FROM v_file_fates
	WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino")" "1|0|1.0" \
	"MADV_HUGEPAGE: used + mapped = every read-ahead page"
