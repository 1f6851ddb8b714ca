# Windows of a cold sequential read(2) (rawl seq) of a 16 MiB file with
# read_ahead_kb=128 (ra_pages 32): one initial window, then subsequent windows
# that ramp up to 32 pages and stay there; every read-ahead page is used.
# test: needs=root,tracefs budget=2
. "$(dirname "$0")/lib.sh"
setup_rawl 16
record_rawl seq "$MNT/f"
check_grep "^seq: $size bytes" <(q "$DB" "SELECT workload_output FROM runs") "rawl read the file"

# The raw recording.
ra="FROM ra_events WHERE run_id = $run AND dev = $kdev AND ino = $ino"
nsync=$(q "$DB" "SELECT COUNT(*) $ra AND event_id = 1")
nasync=$(q "$DB" "SELECT COUNT(*) $ra AND event_id = 2")
norder=$(q "$DB" "SELECT COUNT(*) $ra AND event_id = 3")
nunb=$(q "$DB" "SELECT COUNT(*) $ra AND event_id = 4")
sizes=$(q "$DB" "SELECT GROUP_CONCAT(size_pages, ',') FROM (SELECT size_pages $ra AND event_id = 3 ORDER BY seq)")
note "raw: $nsync sync, $nasync async triggers, $norder ra_order, $nunb ra_unbounded; sizes ${sizes:0:80}..."
check_eq "$nsync" 1 "one sync trigger"
check_eq "$(q "$DB" "SELECT page_index || '|' || req_count_pages $ra AND event_id = 1")" "0|1" "the sync trigger is page 0, one page"
check_cmp "$nasync" -ge 100 "async triggers"
check_eq "$nunb" 0 "no ra_unbounded (no fallback, no forced readahead)"
check_eq "$norder" $((nsync + nasync)) "one ra_order per trigger"
check_eq "$(q "$DB" "SELECT MAX(size_pages) || '|' || MIN(ra_pages) || '|' || MAX(ra_pages) $ra AND event_id = 3")" "32|32|32" "raw window sizes capped at ra_pages 32"
# Ramp-up: a window is no smaller than the one before until the size reaches
# 32, then stays at 32. One exception is the kernel's own: page_cache_async_ra
# (6.18, large folios) trims the end of a window to a folio boundary, so a
# window may be smaller than the one before when it ends on a boundary of twice
# its size (4,8,4,8,8,16,16,32 on ext4).
ramp_sql() { # $1: SELECT of (ord, start, size) in window order
	echo "WITH w AS (SELECT ord, start, size, LAG(size) OVER (ORDER BY ord) AS prev,
		MIN(CASE WHEN size = 32 THEN ord END) OVER () AS top FROM ($1))
	SELECT COALESCE(SUM(prev IS NOT NULL AND size < prev AND ord <= top
			AND (start + size) % (2 * size) != 0), -1) || '|' ||
	       COALESCE(SUM(prev IS NOT NULL AND size < prev AND ord <= top), -1) || '|' ||
	       COALESCE(SUM(ord > top AND size != 32), -1) || '|' || COALESCE(MAX(top IS NOT NULL), 0) FROM w"
}
IFS='|' read -r bad trimmed after top <<<"$(q "$DB" "$(ramp_sql "SELECT seq AS ord, page_index AS start, size_pages AS size $ra AND event_id = 3")")"
note "raw ramp: $trimmed window(s) trimmed by the kernel's end alignment"
check_eq "$bad|$after" "0|0" "raw sizes ramp up to 32 and stay there"
check_eq "$top" 1 "raw sizes reach 32"
adds="FROM page_events WHERE run_id = $run AND dev = $kdev AND ino = $ino AND event_id = 10"
check_eq "$(q "$DB" "SELECT SUM(1 << folio_order) || '|' || (COUNT(*) - COUNT(DISTINCT page_index)) || '|' ||
	MIN(page_index) || '|' || MAX(page_index + (1 << folio_order)) $adds")" "$pages|0|0|$pages" "adds cover the file once"
fates=$(raw_page_fates "$DB" "$run" "$kdev" "$ino")
note "raw page fates (added|used|evicted_unused|thrashed): $fates"
check_eq "$fates" "$pages|$pages|0|0" "raw: every page added once and used"

# The analysis (windows, v_windows, v_file_fates).
w="FROM v_windows WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
note "v_windows patterns: $(q "$DB" "SELECT GROUP_CONCAT(pattern || '=' || n, ' ') FROM (SELECT pattern, COUNT(*) AS n $w GROUP BY pattern)")"
check_eq "$(q "$DB" "SELECT COUNT(*) $w")" "$norder" "one window per ra_order"
check_eq "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'initial'")" 1 "one initial window"
check_eq "$(q "$DB" "SELECT COUNT(*) $w AND pattern NOT IN ('initial', 'subsequent')")" 0 "only initial and subsequent windows"
check_eq "$(q "$DB" "SELECT start || '|' || size || '|' || trigger $w AND pattern = 'initial'")" "0|4|sync" "initial window: page 0, 4 pages, sync"
check_eq "$(q "$DB" "SELECT MAX(size) || '|' || COUNT(*) FILTER (WHERE size > 32) $w")" "32|0" "largest window 32, none larger"
vsizes=$(q "$DB" "SELECT GROUP_CONCAT(size, ',') FROM (SELECT size $w ORDER BY ts_ns, window_id)")
[ "$vsizes" = "$sizes" ] || note "window sizes: ${vsizes:0:200}"
check_eq "$([ "$vsizes" = "$sizes" ] && echo same)" same "window sizes in order = raw ra_order sizes"
IFS='|' read -r bad trimmed after top <<<"$(q "$DB" "$(ramp_sql "SELECT window_id AS ord, start, size $w")")"
check_eq "$bad|$after|$top" "0|0|1" "window sizes ramp up to 32 and stay there"
f="FROM v_file_fates WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino = $ino"
note "v_file_fates: $(q "$DB" "SELECT windows, ra_pages, used, evicted_unused, pending, thrashed, hit_ratio $f")"
check_eq "$(q "$DB" "SELECT ra_pages $f")" $((pages - 1)) "readahead pages = file pages - 1 (the initial demand page)"
check_eq "$(q "$DB" "SELECT evicted_unused || '|' || thrashed $f")" "0|0" "nothing evicted unused"
check_eq "$(q "$DB" "SELECT hit_ratio = 1 $f")" 1 "hit ratio 1"
# One stream, and no collapse: the windows the kernel trimmed to a folio
# boundary continue the stream exactly (subsequent), they did not lose it.
s="FROM streams WHERE run_id = $run AND dev = $kdev AND ino = $ino"
note "stream: $(q "$DB" "SELECT sizes || ' (ramp ' || ramp_windows || ', collapses ' || collapses || ')' $s")"
check_eq "$(q "$DB" "SELECT COUNT(*) $s")" 1 "one stream"
check_eq "$(q "$DB" "SELECT collapses $s")" 0 "no collapse in a healthy sequential stream"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM (SELECT size_pages AS size, LAG(size_pages) OVER (ORDER BY window_id) AS prev,
	start_page, LAG(start_page + size_pages) OVER (ORDER BY window_id) AS prev_end
	FROM windows WHERE run_id = $run AND ino = $ino) WHERE prev IS NOT NULL AND start_page != prev_end")" 0 \
	"every window starts where the one before ended"
