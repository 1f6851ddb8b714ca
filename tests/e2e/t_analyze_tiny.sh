# read_ahead_kb 4: a sequential reader (rawl seq, 4 KiB reads) of a 4 MiB
# file misses on every page, and the kernel, which sees each miss next to the
# previous read (page_cache_sync_ra: index - prev_pos's page <= 1), reads
# all that ra_pages 1 allows: one page. Ground truth: that test on the raw
# trigger events. Such windows are sequential misses (sync), not random ones;
# a random reader at the same setting still reads random windows.
# test: needs=root,tracefs budget=6
. "$(dirname "$0")/lib.sh"
setup_rawl 4
record_loop 4 "$RAWL" seq "$MNT/f"
ino=$(stat -c %i "$MNT/f")
seqs=$(q "$DB" "SELECT COUNT(*) FROM ra_events WHERE run_id = $run AND ino = $ino AND event_id = 1
	AND page_index > 0 AND page_index - (prev_pos_bytes >> 12) <= 1")
note "sync triggers the kernel read as sequential: $seqs; patterns: $(q "$DB" "SELECT group_concat(p, ' ')
	FROM (SELECT pattern || '=' || COUNT(*) AS p FROM windows WHERE run_id = $run AND ino = $ino GROUP BY pattern)")"
check_cmp "$seqs" -ge 1000 "the kernel read the misses as sequential"
check_eq "$(q "$DB" "SELECT MAX(ra_pages) FROM windows WHERE run_id = $run AND ino = $ino")" 1 "ra_pages 1"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM windows WHERE run_id = $run AND ino = $ino AND pattern = 'random'")" 0 \
	"no window of the sequential reader is random"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM windows WHERE run_id = $run AND ino = $ino AND pattern = 'sync'")" \
	"$seqs" "its sequential misses are sync windows"
rm -f "$DB" "$DB-wal" "$DB-shm"
record_loop 4 "$RAWL" random "$MNT/f" --count 200
check_cmp "$(q "$DB" "SELECT COUNT(*) FROM windows WHERE run_id = $run AND ino = $ino AND pattern = 'random'")" \
	-ge 100 "a random reader at read_ahead_kb 4: random windows"
