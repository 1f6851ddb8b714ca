# device_read_bw_bytes counts each read once. A recording of a cold dd read
# (ground truth: the loop device's stat delta over the wall time, and the
# bytes dd read), then the same database as a device-mapper stack would
# leave it: the named device dm-0 above the loop device, which becomes its
# member, both with the same stat delta (every read of dm-0 is a read of
# the device under it). The metric must not double; a btrfs-like pair of
# members (two devices, neither above the other) sums.
# test: needs=root,tracefs budget=2
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 64
make_file "$MNT/f" 16
DB=$TMP/r.db
rec -q -o "$DB" -d "$LOOP_NAME" "${COLD[@]}" -- dd if="$MNT/f" of=/dev/null bs=64k status=none ||
	fail "record"
bw() { q "$1" "SELECT CAST(value AS INTEGER) FROM v_run_metrics WHERE run_id = 1 AND metric = 'device_read_bw_bytes'"; }
truth=$(q "$DB" "SELECT CAST(d.stat_sectors_delta * 512.0 / (r.wall_ns / 1e9) AS INTEGER)
	FROM v_devices d JOIN runs r USING (run_id) WHERE d.name = '$LOOP_NAME'")
check_eq "$(q "$DB" "SELECT stat_sectors_delta * 512 >= 16777216 FROM v_devices WHERE name = '$LOOP_NAME'")" 1 \
	"the stat delta covers the file dd read"
check_eq "$(bw "$DB")" "$truth" "one device: its stat delta over the wall time"

# dm-0 (253:0) named, the loop device under it a member
cp "$DB" "$TMP/dm.db"
q "$TMP/dm.db" "UPDATE devices SET role = 'member' WHERE name = '$LOOP_NAME';
	INSERT INTO devices (run_id, dev, major, minor, name, role, disk, start_sector, nr_sectors)
		VALUES (1, $(( 253 << 20 )), 253, 0, 'dm-0', 'filter', $(( 253 << 20 )), 0, 131072);
	CREATE TEMP TABLE s AS SELECT * FROM device_snapshots WHERE run_id = 1;
	UPDATE s SET dev = $(( 253 << 20 ));
	INSERT INTO device_snapshots SELECT * FROM s;" || fail "make the stack"
check_eq "$(q "$TMP/dm.db" "SELECT COUNT(*) FROM v_devices WHERE stat_sectors_delta > 0")" 2 \
	"both devices of the stack read"
check_eq "$(bw "$TMP/dm.db")" "$truth" "a device-mapper stack: its reads counted once"

# two members side by side (a file system on two devices): they sum
cp "$DB" "$TMP/two.db"
q "$TMP/two.db" "INSERT INTO devices (run_id, dev, major, minor, name, role, disk, start_sector, nr_sectors)
		VALUES (1, $(( (7 << 20) | 250 )), 7, 250, 'loop250', 'member', $(( (7 << 20) | 250 )), 0, 131072);
	CREATE TEMP TABLE s AS SELECT * FROM device_snapshots WHERE run_id = 1;
	UPDATE s SET dev = $(( (7 << 20) | 250 ));
	INSERT INTO device_snapshots SELECT * FROM s;" || fail "add a member"
truth2=$(q "$DB" "SELECT CAST(2 * d.stat_sectors_delta * 512.0 / (r.wall_ns / 1e9) AS INTEGER)
	FROM v_devices d JOIN runs r USING (run_id) WHERE d.name = '$LOOP_NAME'")
check_eq "$(bw "$TMP/two.db")" "$truth2" "two members side by side: summed"
