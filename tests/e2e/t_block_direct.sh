# Direct I/O is no window's. A buffered reader and an O_DIRECT reader read
# two files of one throttled device at once: blk-throttle queues both
# readers' bios later from its worker, so no queueing task tells them apart;
# the readahead flag does. Ground truths: every window's bytes are the pages
# it added (4 KiB each), and the bytes the windows carried plus the direct
# reader's file are what the device read (the /sys/block stat delta).
# test: needs=root,tracefs budget=8
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
make_tmp
make_loop 64
make_file "$MNT/f" 8
make_file "$MNT/g" 4
ino=$(stat -c %i "$MNT/f")
DB=$TMP/d.db
before=$(stat_rs "$LOOP_NAME")
rec -q -o "$DB" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" \
	--throttle "$LOOP_NAME=iops:400,bps:40000000" -- sh -c "dd if='$MNT/f' of=/dev/null bs=4k status=none &
	dd if='$MNT/g' of=/dev/null bs=64k iflag=direct status=none; wait" || fail "record"
out=$(delta_rs "$before" "$(stat_rs "$LOOP_NAME")")
run=$(q "$DB" "SELECT MAX(run_id) FROM runs")
check_eq "$(q "$DB" "SELECT COUNT(*) FROM v_device_io WHERE run_id = $run AND stat_match = 1")" 1 \
	"the block totals equal the stat deltas"
direct=$(q "$DB" "SELECT COUNT(*) || ' ' || SUM(nr_sector) FROM blk_events WHERE run_id = $run AND event_id = 20
	AND rwbs LIKE 'R%' AND rwbs NOT LIKE '%A%'")
note "direct bios (count, sectors): $direct; device reads|sectors $out"
check_cmp "${direct#* }" -ge 8192 "the direct reader's 4 MiB were queued without the readahead flag"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM windows w LEFT JOIN window_io i USING (run_id, window_id)
	WHERE w.run_id = $run AND w.ino = $ino AND w.pages_added > 0
	AND COALESCE(i.bytes, 0) != w.pages_added * 4096")" 0 "every window's bytes are the pages it added"
check_eq "$(q "$DB" "SELECT COALESCE(SUM(i.bytes), 0) FROM window_io i JOIN windows w USING (run_id, window_id)
	WHERE i.run_id = $run AND w.ino != $ino")" 0 "no window of another file carried bytes"
ws=$(q "$DB" "SELECT SUM(i.bytes) / 512 FROM window_io i JOIN windows w USING (run_id, window_id)
	WHERE i.run_id = $run AND w.ino = $ino")
check_eq "$ws" 16384 "the windows carried the buffered file, 8 MiB"
check_cmp $((ws + ${direct#* })) -le "${out#*|}" "windows and direct reads within what the device read"
