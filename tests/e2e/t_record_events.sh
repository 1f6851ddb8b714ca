# ra-record mounts tracefs when it is not mounted and unmounts it after; a
# recording without the readahead:* events (as on kernels before 6.18, or when
# not selected) stores the rest and says which tracepoints it lacked.
# test: needs=root alone budget=2
. "$(dirname "$0")/lib.sh"
need_root
make_tmp
make_loop 64
make_file "$MNT/f" 8
if mountpoint -q /sys/kernel/tracing; then
	umount /sys/kernel/tracing || skip "tracefs is in use, cannot test mounting it"
	on_exit mount -t tracefs nodev /sys/kernel/tracing
fi
evict_cold
ra-record -o "$TMP/r.db" -d "$LOOP_NAME" -e filemap,block -- dd if="$MNT/f" of=/dev/null bs=4k
check_eq "$?" 0 "exit status"
mountpoint -q /sys/kernel/tracing && fail "tracefs left mounted"
echo "ok: tracefs unmounted again"
DB=$TMP/r.db
check_eq "$(q "$DB" "SELECT COUNT(*) FROM tracepoints WHERE system = 'readahead' AND available = 1 AND enabled = 0")" 4 "readahead tracepoints not recorded"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM ra_events")" 0 "no readahead events"
check_cmp "$(q "$DB" "SELECT SUM(1 << folio_order) FROM page_events WHERE event_id = 10")" -ge 2048 "pages added of the 8 MiB file"
check_cmp "$(q "$DB" "SELECT n FROM v_event_counts WHERE event = 'block_rq_complete'")" -gt 0 "block completions"

ra-record -o "$TMP/bad.db" -e nosuchsystem -- true 2>"$TMP/err"
check_eq "$?" 2 "exit status of an unknown event selection"
check_grep "^ra-record: no tracepoint of 'nosuchsystem' is recorded by ratrace" "$TMP/err" "message of an unknown event selection"
