# Split bios. At read_ahead_kb 2048 on a queue of max_sectors_kb 1280 a 2 MiB
# readahead bio is split (block_split) into a 1280 KiB and a 768 KiB piece,
# each a request of its own. The bio is one bio queued: it counts once in
# bios_queued and in plugged_bios (which is at most bios_queued), and its Q2C
# ends at its last piece's completion. The truth is the raw events: the Q
# events of the device, and for each the last completion of the sectors it
# asked (a cold read reads each sector once); and the device's stat.
# test: needs=root,tracefs budget=2
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 160
make_file "$MNT/f" 64
# no atime update or inode table initialisation writing while the file is read
mount -o remount,noatime,noinit_itable "$MNT" || fail "remount $MNT"
sync
max_old=$(cat "/sys/block/$LOOP_NAME/queue/max_sectors_kb")
on_exit "echo $max_old > /sys/block/$LOOP_NAME/queue/max_sectors_kb"
echo 1280 > "/sys/block/$LOOP_NAME/queue/max_sectors_kb" 2>/dev/null
[ "$(cat "/sys/block/$LOOP_NAME/queue/max_sectors_kb")" = 1280 ] || skip "cannot set max_sectors_kb 1280 on $LOOP_NAME"
DB=$TMP/split.db
rec -q -o "$DB" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=2048" "${COLD[@]}" \
	-- dd if="$MNT/f" of=/dev/null bs=4k status=none
check_eq "$?" 0 "ra-record exit status"
check_eq "$(q "$DB" "SELECT lost_events FROM v_runs")" 0 "lost events"
k=$(loop_kdev)
raw="FROM blk_events WHERE dev = $k"
splits=$(q "$DB" "SELECT COUNT(*) $raw AND event_id = 36")
qs=$(q "$DB" "SELECT COUNT(*) $raw AND event_id = 20")
io=$(q "$DB" "SELECT bios_queued || '|' || splits || '|' || getrq FROM device_io WHERE dev = $k")
plugged=$(q "$DB" "SELECT plugged_bios FROM plugs WHERE dev = $k")
note "raw: $qs bios queued, $splits splits; device_io bios|splits|getrq $io; plugged_bios $plugged"
check_cmp "$splits" -gt 0 "bios were split"
check_eq "${io%%|*}" "$qs" "bios_queued: every bio once, split or not"
check_eq "$(echo "$io" | cut -d'|' -f2)" "$splits" "splits: the split events"
check_cmp "$plugged" -le "$qs" "plugged_bios: at most the bios queued"
check_eq "$(q "$DB" "SELECT stat_match FROM v_device_io WHERE dev = '$LOOP_DEV'")" 1 "block totals agree with the stat"

# Q2C from the raw events: each bio's Q to the last completion of its sectors
check_eq "$(q "$DB" "SELECT COUNT(*) $raw AND event_id = 20 AND nr_sector = 0")" 0 "no bio without sectors (a flush)"
truth=$(q "$DB" "WITH q AS (SELECT ts_ns, sector, nr_sector $raw AND event_id = 20 AND nr_sector > 0),
	c AS (SELECT ts_ns, sector, nr_sector $raw AND event_id = 30),
	d AS (SELECT q.ts_ns AS q_ts, (SELECT MAX(c.ts_ns) FROM c WHERE c.ts_ns > q.ts_ns
		AND c.sector < q.sector + q.nr_sector AND c.sector + c.nr_sector > q.sector) AS c_ts FROM q)
	SELECT COUNT(*) || '|' || MAX(c_ts - q_ts) || '|' || CAST(ROUND(AVG(c_ts - q_ts)) AS INTEGER)
	FROM d WHERE c_ts IS NOT NULL")
got=$(q "$DB" "SELECT n || '|' || max_ns || '|' || CAST(ROUND(avg_ns) AS INTEGER) FROM device_latency
	WHERE dev = $k AND interval = 'Q2C'")
note "Q2C n|max|avg: raw $truth, analysis $got"
check_eq "${got%|*}" "${truth%|*}" "Q2C: one sample per bio, the largest as in the raw events"
check_cmp "$(( ${got##*|} - ${truth##*|} ))" -le 1 "Q2C average within 1 ns of the raw events'"
check_cmp "$(( ${truth##*|} - ${got##*|} ))" -le 1 "Q2C average within 1 ns of the raw events' (below)"
check_eq "$(q "$DB" "SELECT SUM(bios) FROM window_io")" \
	"$(q "$DB" "SELECT COUNT(*) $raw AND event_id = 20 AND rwbs LIKE '%A%'")" \
	"the windows' bios: each readahead bio once"
