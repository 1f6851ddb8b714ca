# madvise(MADV_WILLNEED) and readahead(2) of a whole 32 MiB file on a loop
# device (read_ahead_kb 128), recorded live:
# - the madvise entry is recorded (filtered in the kernel to MADV_WILLNEED)
#   with the address range rawl printed, in pages;
# - advice_calls pairs it with the forced windows that follow: asked 8192
#   pages, read what those windows read (counted here from the raw events:
#   the task's untriggered page_cache_ra_unbounded after the call and before
#   its next readahead event), which force_page_cache_ra caps at
#   max(io_pages, ra_pages);
# - the report warns of the call cut short, naming it madvise(MADV_WILLNEED),
#   and readahead(2) as readahead(2);
# - a MADV_RANDOM reader, whose faults open no window, read around readahead.
# test: needs=root,tracefs budget=5
. "$(dirname "$0")/lib.sh"
setup_rawl 32
io_pages=$(( $(cat "/sys/block/$LOOP_NAME/queue/max_sectors_kb") / 4 ))
cap=$(( io_pages > 32 ? io_pages : 32 ))
note "max(io_pages, ra_pages) = max($io_pages, 32) = $cap pages"

# rawl madvise gives the mapping MADV_NORMAL, then MADV_WILLNEED: only the
# WILLNEED is recorded
record_rawl madvise "$MNT/f"
out=$(q "$DB" "SELECT workload_output FROM runs")
echo "$out"
addr=$(echo "$out" | sed -n 's/^madvise: WILLNEED 33554432 bytes at 0x\([0-9a-f]*\),.*/\1/p')
[ -n "$addr" ] || fail "rawl did not print the address"
check_eq "$(q "$DB" "SELECT COUNT(*) || '|' || MIN(page_index) || '|' || MIN(req_count_pages) || '|' || MIN(dev) || '|' || MIN(ino)
	FROM ra_events WHERE run_id = $run AND event_id = 7 AND pid IN ($(own_pids))")" "1|$(( 0x$addr / 4096 ))|8192|0|0" \
	"one sys_enter_madvise: address and length in pages, no file"

# the raw recording: the task's forced windows after the call and before its
# next trigger, window of another kind or call
call="SELECT seq, pid FROM ra_events WHERE run_id = $run AND event_id = 7 AND pid IN ($(own_pids))"
raw=$(q "$DB" "WITH c AS ($call),
	n AS (SELECT MIN(e.seq) AS next FROM ra_events e, c WHERE e.run_id = $run AND e.pid = c.pid
	      AND e.seq > c.seq AND e.event_id IN (1, 2, 3, 5, 6, 7)),
	u AS (SELECT e.* FROM ra_events e, c, n WHERE e.run_id = $run AND e.pid = c.pid
	      AND e.event_id = 4 AND e.seq > c.seq AND e.seq < COALESCE(n.next, 1 << 62))
	SELECT COUNT(*) || '|' || COALESCE(SUM(size_pages), 0) || '|' || MIN(page_index) || '|'
	       || COUNT(DISTINCT ino) || '|' || MIN(ino) FROM u")
note "raw: forced windows|pages|first page|files|ino = $raw"
check_cmp "${raw%%|*}" -ge 1 "untriggered page_cache_ra_unbounded after the madvise"
check_eq "$(q "$DB" "SELECT call, dev, ino, offset_pages, asked_pages FROM advice_calls WHERE run_id = $run")" \
	"madvise|$kdev|$ino|0|8192" "advice_calls: the madvise of the file from page 0, asked 8192 pages"
check_eq "$(q "$DB" "SELECT windows || '|' || read_pages || '|0|1|' || ino FROM advice_calls WHERE run_id = $run")" \
	"$raw" "its windows and pages read = the raw forced windows"
check_eq "$(q "$DB" "SELECT read_pages FROM advice_calls WHERE run_id = $run")" "$cap" \
	"the kernel read max(io_pages, ra_pages) of it"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM windows WHERE run_id = $run AND dev = 0")" 0 \
	"the call itself opens no window"
ra-report "$DB" | sed -n '/^Warnings/,/^$/p' > "$TMP/w"
cat "$TMP/w"
check_grep "! madvise\(MADV_WILLNEED\) of $MNT/f: 1 call\(s\) asked 32768 KB and the kernel read $((cap * 4)) KB .*max\(io_pages, ra_pages\)" \
	"$TMP/w" "the warning names madvise(MADV_WILLNEED)"

# readahead(2) of the whole file
mv "$DB" "$TMP/madvise.db"
record_rawl readahead "$MNT/f"
check_eq "$(q "$DB" "SELECT call, ino, offset_pages, asked_pages, read_pages FROM advice_calls WHERE run_id = $run")" \
	"readahead|$ino|0|8192|$cap" "advice_calls: readahead(2) asked 8192 pages, read $cap"
ra-report "$DB" | sed -n '/^Warnings/,/^$/p' > "$TMP/w2"
cat "$TMP/w2"
check_grep "! readahead\(2\) of $MNT/f: 1 call\(s\) asked 32768 KB and the kernel read $((cap * 4)) KB" \
	"$TMP/w2" "the warning names readahead(2)"
grep -q "readahead(WILLNEED)" "$TMP/w2" && fail "readahead(2) called readahead(WILLNEED)"
echo "ok: not readahead(WILLNEED)"

# MADV_RANDOM: the faults read single pages from the device and open no
# window. The device model's run is one that read around readahead, not one
# whose reads hit the page cache (the device read the whole file: its stat
# delta), and the advice says read_ahead_kb does not change such I/O.
mv "$DB" "$TMP/readahead.db"
record_rawl mmap "$MNT/f" --advice random
check_eq "$(q "$DB" "SELECT COUNT(*) FROM windows WHERE run_id = $run")" 0 "MADV_RANDOM: no window"
mib=$(q "$DB" "SELECT printf('%.1f', stat_sectors_delta * 512.0 / 1048576) FROM v_device_io
	WHERE run_id = $run AND dev = '$LOOP_DEV'")
check_cmp "${mib%.*}" -ge 32 "MADV_RANDOM: the device read the file"
check_eq "$(q "$DB" "SELECT state || ': ' || reason FROM model_runs WHERE run_id = $run")" \
	"no_readahead: no window, though the device read $mib MiB: reads around readahead (MADV_RANDOM, POSIX_FADV_RANDOM, O_DIRECT)" \
	"MADV_RANDOM: the pool's run read around readahead"
ra-report "$DB" > "$TMP/r3"
check_grep "No run of the pool read ahead, though the device was read" "$TMP/r3" \
	"MADV_RANDOM: the advice says why there is none"
grep -q "cold page cache" "$TMP/r3" && fail "MADV_RANDOM: told to record from a cold page cache"
echo "ok: not told to record from a cold page cache"
