# ra-record on a real loop device: a cold sequential dd bs=4k of a 64 MiB file
# with read_ahead_kb=128. Checks the readahead events, the page-cache adds,
# block completions against /sys/block stat, lost events and the clean-up.
# test: needs=root,tracefs alone budget=2
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 128
make_file "$MNT/seq" 64
ino=$(stat -c %i "$MNT/seq")
kdev=$(( (${LOOP_DEV%:*} << 20) | ${LOOP_DEV#*:} ))
ra_before=$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")
echo 4096 > "/sys/block/$LOOP_NAME/queue/read_ahead_kb"   # a value the run must override
DB=$TMP/run.db

rec -o "$DB" --label seq -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" \
	-- dd if="$MNT/seq" of=/dev/null bs=4k 2>"$TMP/err"
rc=$?
cat "$TMP/err"
check_eq "$rc" 0 "ra-record exit status"
check_eq "$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" 4096 "read_ahead_kb restored"
check_eq "$(instance_left $REC_PID)" 0 "tracefs instance left"
check_eq "$(q "$DB" 'PRAGMA integrity_check')" ok "integrity"
check_eq "$(q "$DB" 'PRAGMA user_version')" "$RA_SCHEMA" "schema version"

run=$(q "$DB" "SELECT run_id FROM v_runs WHERE label = 'seq'")
check_eq "$run" 1 "run id"
check_eq "$(q "$DB" "SELECT exit_status, lost_events FROM v_runs")" "0|0" "exit status and lost events"
check_eq "$(q "$DB" "SELECT kernel FROM v_runs")" "$(uname -r)" "kernel"
check_eq "$(q "$DB" "SELECT workload FROM v_runs")" "dd if=$MNT/seq of=/dev/null bs=4k" "workload"
check_cmp "$(q "$DB" "SELECT wall_ns FROM v_runs")" -gt 0 "wall time"
check_grep 'records out' <(q "$DB" "SELECT workload_output FROM runs") "workload output stored"

sel="FROM ra_events r JOIN event_types t USING (event_id) WHERE r.run_id = $run AND r.ino = $ino AND r.dev = $kdev"
check_eq "$(q "$DB" "SELECT COUNT(*) $sel AND t.name = 'page_cache_sync_ra'")" 1 "one sync readahead"
nasync=$(q "$DB" "SELECT COUNT(*) $sel AND t.name = 'page_cache_async_ra'")
check_cmp "$nasync" -ge 100 "many async readahead triggers"
check_eq "$(q "$DB" "SELECT DISTINCT ra_pages $sel AND t.name LIKE 'page_cache_%_ra'")" 32 "ra_pages in the triggers"
check_eq "$(q "$DB" "SELECT MAX(size_pages) $sel AND t.name = 'page_cache_ra_order'")" 32 "windows capped at 32 pages"

# Page-cache adds of the file: every page of the 64 MiB file exactly once.
adds="FROM page_events p JOIN event_types t USING (event_id) WHERE p.run_id = $run AND p.ino = $ino AND t.name = 'mm_filemap_add_to_page_cache'"
check_eq "$(q "$DB" "SELECT SUM(1 << folio_order), MIN(page_index), MAX(page_index + (1 << folio_order)) $adds")" "16384|0|16384" "adds cover the file"
check_eq "$(q "$DB" "SELECT COUNT(*) = COUNT(DISTINCT page_index) $adds")" 1 "no page added twice"

# Block read completions on the device against the /sys/block/DEV/stat delta.
blk=$(q "$DB" "SELECT COUNT(*) || '|' || SUM(b.nr_sector) FROM blk_events b JOIN event_types t USING (event_id)
	WHERE b.run_id = $run AND t.name = 'block_rq_complete' AND b.dev = $kdev AND b.rwbs LIKE '%R%'")
stat=$(q "$DB" "SELECT stat_reads_delta || '|' || stat_sectors_delta FROM v_devices WHERE run_id = $run AND dev = '$LOOP_DEV'")
note "completions|sectors: trace $blk, stat $stat"
check_eq "$blk" "$stat" "read completions and sectors equal the stat delta"
check_cmp "${blk%|*}" -gt 0 "read completions"
check_eq "$(q "$DB" "SELECT read_ahead_kb_before, read_ahead_kb_after FROM v_devices WHERE dev = '$LOOP_DEV'")" "128|128" "read_ahead_kb during the run"
check_eq "$(q "$DB" "SELECT old_value, new_value, restored FROM settings")" "4096|128|1" "setting recorded"

# Only the named device, and the recorder never traced itself.
check_eq "$(q "$DB" "SELECT COUNT(*) FROM ra_events WHERE dev != $kdev") $(q "$DB" "SELECT COUNT(*) FROM page_events WHERE dev != $kdev")" "0 0" "file-system events of other devices"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM blk_events WHERE dev IS NOT NULL AND dev != $kdev")" 0 "block events of other devices"
check_eq "$(q "$DB" "SELECT comm FROM tasks WHERE pid = (SELECT pid FROM ra_events WHERE event_id = 1)")" dd "task name of the reader"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM tracepoints WHERE system = 'readahead' AND available = 1 AND enabled = 1")" 4 "readahead tracepoints enabled"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM vmstat WHERE name = 'pgpgin'")" 2 "vmstat before and after"
echo "$ra_before" > "/sys/block/$LOOP_NAME/queue/read_ahead_kb"
check_eq "$(q "$DB" "SELECT path FROM files WHERE run_id = $run AND dev = $kdev AND ino = $ino")" "$MNT/seq" "file name resolved"

# Block analysis of the live run: completions against the stat delta, and the
# I/O of each window.
check_eq "$(q "$DB" "SELECT stat_match, reads_completed FROM v_device_io WHERE run_id = $run AND dev = '$LOOP_DEV'")" "1|${blk%|*}" "block analysis agrees with the stat delta"
wsel="FROM windows w LEFT JOIN window_io i USING (run_id, window_id) WHERE w.run_id = $run AND w.ino = $ino AND w.dev = $kdev AND w.pages_added > 0"
check_eq "$(q "$DB" "SELECT COUNT(*) $wsel AND COALESCE(i.requests, 0) = 0")" 0 "every window with pages added has requests"
check_eq "$(q "$DB" "SELECT COUNT(*) $wsel AND i.bytes != w.pages_added * 4096")" 0 "window bytes = pages added"
check_eq "$(q "$DB" "SELECT SUM(i.bytes) $wsel")" 67108864 "the windows' I/O covers the file"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM window_io i JOIN windows w USING (run_id, window_id) WHERE w.run_id = $run AND w.trigger = 'sync' AND w.ino = $ino AND i.sync_wait_ns > 0")" 1 "the initial window's reader waited"

# --evict instead of --drop-caches: the file's pages (cached by the run
# above and a read now) are dropped before the run, the rest of the page
# cache is not; the run reads the whole file from the device again.
cat "$MNT/seq" > /dev/null
mkfifo "$MNT/fifo" || fail "mkfifo"	# not a file to evict: never opened (it would block or fail)
ra-record -q -o "$TMP/evict.db" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" --evict "$MNT" \
	-- dd if="$MNT/seq" of=/dev/null bs=4k 2>/dev/null
check_eq "$?" 0 "ra-record --evict"
check_eq "$(q "$TMP/evict.db" "SELECT SUM(pages_added) FROM windows WHERE ino = $ino AND dev = $kdev")" 16384 \
	"--evict DIR: the file is read from the device again"
check_eq "$(q "$TMP/evict.db" "SELECT stat_sectors_delta FROM v_devices WHERE dev = '$LOOP_DEV'")" 131072 \
	"--evict DIR: 64 MiB read from the device"
ra-record -q -o "$TMP/evict2.db" --evict "$MNT/nosuchfile" -- true 2> "$TMP/err"
check_eq "$?" 2 "--evict of a missing path: exit status"
check_grep "^ra-record: cannot evict '$MNT/nosuchfile': No such file or directory$" "$TMP/err" \
	"--evict of a missing path: message"
[ -e "$TMP/evict2.db" ] && fail "--evict of a missing path left a database"
echo "ok: no database left"

# Someone drops the page cache during the run (another program's
# drop_caches): the pages it took look evicted unused; the report says why.
ra-record -q -o "$TMP/dropped.db" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" \
	-- sh -c "dd if='$MNT/seq' of=/dev/null bs=4k count=4096 status=none; echo 1 > /proc/sys/vm/drop_caches;
		dd if='$MNT/seq' of=/dev/null bs=4k status=none"
check_eq "$?" 0 "a run during which the page cache is dropped"
ra-report "$TMP/dropped.db" > "$TMP/out" || fail "ra-report"
check_grep "the page cache was dropped 1 time\(s\) during the run \(drop_caches, by another program\)" \
	"$TMP/out" "the report says the page cache was dropped"
ra-report "$TMP/evict.db" > "$TMP/out" || fail "ra-report"
grep -q "page cache was dropped" "$TMP/out" && fail "a run that dropped nothing says it did"
echo "ok: not said of a run during which nothing was dropped"
