# A prefetch is not its reader's stream. readahead(2) of a 32 MiB file, then
# reads of 256 KiB (rawl readahead --bs), read_ahead_kb 128:
# force_page_cache_ra() reads max(io_pages, ra_pages) pages with no readahead
# state, and the reads that follow run the kernel's own windows past them.
# Ground truth: the windows the kernel reported (ra_events). The forced
# windows are streams of their own, the reader's stream does not collapse
# from the prefetch's size, and the device model's steady window is the size
# most of the reader's windows had.
# test: needs=root,tracefs budget=4
. "$(dirname "$0")/lib.sh"
setup_rawl 32
record_rawl readahead "$MNT/f" --bs 262144
w="FROM windows WHERE run_id = $run AND ino = $ino"
note "streams (id: patterns): $(q "$DB" "SELECT group_concat(s, '; ') FROM (SELECT stream_id || ': ' ||
	group_concat(DISTINCT pattern) AS s $w GROUP BY stream_id)")"
check_cmp "$(q "$DB" "SELECT COUNT(*) $w AND pattern = 'forced'")" -ge 1 "the prefetch's forced windows"
check_cmp "$(q "$DB" "SELECT COUNT(*) $w AND pattern != 'forced'")" -ge 10 "the reader's windows"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM (SELECT stream_id $w GROUP BY stream_id
	HAVING SUM(pattern = 'forced') > 0 AND SUM(pattern != 'forced') > 0)")" 0 \
	"no stream holds both forced windows and the reader's"
check_eq "$(q "$DB" "SELECT COALESCE(SUM(s.collapses), 0) FROM streams s WHERE s.run_id = $run
	AND s.stream_id IN (SELECT stream_id $w AND pattern != 'forced')")" 0 "the reader's stream does not collapse"
modal=$(q "$DB" "SELECT size_pages * 4096 $w AND pattern != 'forced' GROUP BY size_pages
	ORDER BY COUNT(*) DESC, size_pages DESC LIMIT 1")
note "the reader's most common window: $modal bytes; model_runs: $(q "$DB" "SELECT window_bytes || ' ' || state
	FROM model_runs WHERE run_id = $run")"
check_eq "$(q "$DB" "SELECT CAST(window_bytes AS INTEGER) FROM model_runs WHERE run_id = $run AND dev = $kdev")" \
	"$modal" "the model's steady window is the reader's"
