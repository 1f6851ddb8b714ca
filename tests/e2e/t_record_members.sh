# A file system on several devices: btrfs with data in raid0 and metadata in
# raid1 on loop A and loop B. -d A must record the file system's I/O on B too
# (B is a member: its block events, stat snapshots and self-check), so that
# the windows' I/O is whole: a cold dd bs=4k of a 64 MiB file at
# read_ahead_kb 512 reads half of it from each device. The truth is each
# device's /sys/block stat, read by this test around the recording and
# stored by ra-record; -d 0:N of the file system (both devices named) gives
# the same devices and as much I/O.
# test: needs=root,tracefs budget=6
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v mkfs.btrfs >/dev/null || skip "no mkfs.btrfs"
grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null
grep -qw btrfs /proc/filesystems || skip "no btrfs in this kernel"
make_tmp
make_loop_raw 400
A=$RAW_NAME A_DEV=$RAW_DEV
make_loop_raw 400
B=$RAW_NAME B_DEV=$RAW_DEV
MNT=$TMP/mnt
make_btrfs_two "$A" "$B" "$MNT"
FS_DEV=$(findmnt -no MAJ:MIN --mountpoint "$MNT" | tr -d ' ')
BDI=$BTRFS_BDI RA_FILE=$BTRFS_RA_FILE ra_old=$BTRFS_RA_OLD
make_file "$MNT/f" 64
ino=$(stat -c %i "$MNT/f")
note "btrfs $FS_DEV on $A ($A_DEV) and $B ($B_DEV), bdi $BDI"
queue_b=$(cat "/sys/block/$B/queue/read_ahead_kb")

# record NAME ARGS...: the cold read with ARGS; OUT_A, OUT_B the stat deltas around it
record() {
	local db=$TMP/$1.db a0 b0; shift
	a0=$(stat_rs "$A") b0=$(stat_rs "$B")
	rec -o "$db" "$@" "${COLD[@]}" -- dd if="$MNT/f" of=/dev/null bs=4k status=none 2>"$TMP/err"
	check_eq "$?" 0 "$(basename "$db"): ra-record exit status"
	# shellcheck disable=SC2034 # OUT_A is record's result beside OUT_B, as said above
	OUT_A=$(delta_rs "$a0" "$(stat_rs "$A")") OUT_B=$(delta_rs "$b0" "$(stat_rs "$B")")
	check_eq "$(q "$db" "SELECT lost_events FROM v_runs")" 0 "$(basename "$db"): lost events"
}

# check_whole NAME ROLES: both devices recorded with their roles, each row
# checked against its own stat; the windows' I/O is the file at least and
# part of what the two devices read
check_whole() {
	local db=$TMP/$1.db dev r wbytes total
	check_eq "$(q "$db" "SELECT group_concat(name || ':' || role, ' ') FROM (SELECT * FROM devices ORDER BY dev)")" \
		"$2" "$1: devices"
	for dev in "$A_DEV" "$B_DEV"; do
		r=$(q "$db" "SELECT name, reads_completed, sectors_read, stat_reads_delta, stat_sectors_delta,
			stat_match FROM v_device_io WHERE dev = '$dev'")
		note "$1: $r"
		check_eq "${r##*|}" 1 "$1: the block row of $dev agrees with its stat"
		check_cmp "$(echo "$r" | cut -d'|' -f3)" -ge 32768 "$1: $dev read its half of the file at least"
	done
	total=$(q "$db" "SELECT SUM(stat_sectors_delta) * 512 FROM v_devices")
	wbytes=$(q "$db" "SELECT SUM(i.bytes) FROM window_io i JOIN windows w USING (run_id, window_id)
		WHERE w.ino = $ino")
	note "$1: the windows carried $wbytes bytes; the devices read $total"
	check_cmp "$wbytes" -ge 67108864 "$1: the windows' I/O is the whole file at least"
	check_cmp "$wbytes" -le "$total" "$1: the windows' I/O is part of what the devices read"
	check_eq "$(q "$db" "SELECT COUNT(*) FROM windows w LEFT JOIN window_io i USING (run_id, window_id)
		WHERE w.ino = $ino AND w.pages_added > 0 AND (COALESCE(i.bytes, 0) < w.pages_added * 4096)")" 0 \
		"$1: every window that added pages carried their bytes at least"
	check_eq "$(q "$db" "SELECT group_concat(device, ' ') FROM (SELECT * FROM v_filesystems
		WHERE fs_dev = '$FS_DEV' ORDER BY dev)")" "$A $B" "$1: the file system's devices, named"
}

record member -d "$A" --read-ahead-kb "$A=512" -v
grep -q "^ra-record: recording $B too: a file system on '$A' holds data on it$" "$TMP/err" ||
	fail "member: -v does not say that $B is recorded too: $(cat "$TMP/err")"
echo "ok: member: -v says $B is recorded too"
check_whole member "$A:filter $B:member"
stored=$(q "$TMP/member.db" "SELECT stat_reads_delta || '|' || stat_sectors_delta FROM v_devices WHERE dev = '$B_DEV'")
note "member: $B read $stored in the recording, $OUT_B around it"
check_cmp "${stored#*|}" -le "${OUT_B#*|}" "member: $B's stored delta lies within what it read around the run"
check_eq "$(q "$TMP/member.db" "SELECT MAX(ra_pages) FROM windows WHERE ino = $ino")" 128 "member: windows of 512 KB"
check_eq "$(q "$TMP/member.db" "SELECT group_concat(path, ' ') FROM (SELECT path FROM settings ORDER BY path)")" \
	"/sys/class/bdi/$BDI/read_ahead_kb /sys/class/block/$A/queue/read_ahead_kb" \
	"member: the named device's queue and the file system's bdi set, not the member's queue"
check_eq "$(cat "/sys/block/$B/queue/read_ahead_kb") $(cat "$RA_FILE")" "$queue_b $ra_old" "member: settings put back"
ra-report "$TMP/member.db" > "$TMP/member.txt" || fail "ra-report"
for d in "$A" "$B"; do
	check_grep "^$d +[0-9]+ +[0-9]+ " "$TMP/member.txt" "member: the report's block table has $d"
done
check_grep "^$FS_DEV +btrfs +$MNT +$A $B " "$TMP/member.txt" "member: the report names both devices of the file system"
grep -qE "disagree with /sys/block stat|is governed by bdi" "$TMP/member.txt" && fail "member: a warning"
echo "ok: member: no stat or bdi warning"

record sdev -d "$FS_DEV" --read-ahead-kb "$FS_DEV=512"
check_whole sdev "$A:filter $B:filter"

# A member that is a partition: btrfs on p2 of a partitioned disk and on a
# whole device C, ext4 on p1. -d C records p2 as a member by its sectors of
# the disk, checked against p2's own stat; p1's I/O, read at the same time,
# is not recorded.
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
make_loop_parts 600 250
make_loop_raw 400
C=$RAW_NAME C_DEV=$RAW_DEV
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$P1" || fail "mkfs.ext4 /dev/$P1"
mkdir "$TMP/m1"
mount -o "$EXT4_QUIET" "/dev/$P1" "$TMP/m1" || fail "mount /dev/$P1"
on_exit umount_retry "$TMP/m1"
COLD+=(--evict "$TMP/m1")
make_btrfs_two "$P2" "$C" "$TMP/m2"
make_file "$TMP/m1/f" 32
make_file "$TMP/m2/f" 64
start2=$(cat "/sys/class/block/$P2/start") size2=$(cat "/sys/class/block/$P2/size")
DB=$TMP/part.db
p1_0=$(stat_rs "$P1")
rec -q -o "$DB" -d "$C" "${COLD[@]}" -- sh -c "dd if=$TMP/m1/f of=/dev/null bs=4k status=none &
	dd if=$TMP/m2/f of=/dev/null bs=4k status=none; wait"
check_eq "$?" 0 "partition member: ra-record exit status"
p1_out=$(delta_rs "$p1_0" "$(stat_rs "$P1")")
check_cmp "${p1_out#*|}" -ge 65536 "partition member: $P1 read its file meanwhile"
check_eq "$(q "$DB" "SELECT group_concat(name || ':' || role, ' ') FROM (SELECT * FROM devices ORDER BY role)")" \
	"$C:filter $P2:member" "partition member: devices"
for dev in "$C_DEV" "$P2_DEV"; do
	r=$(q "$DB" "SELECT name, reads_completed, sectors_read, stat_reads_delta, stat_sectors_delta,
		stat_match FROM v_device_io WHERE dev = '$dev'")
	note "partition member: $r"
	check_eq "${r##*|}" 1 "partition member: the block row of $dev agrees with its stat"
	check_cmp "$(echo "$r" | cut -d'|' -f3)" -ge 32768 "partition member: $dev read its half of the file"
done
check_eq "$(q "$DB" "SELECT COUNT(*) FROM v_device_io")" 2 "partition member: two block rows"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM blk_events WHERE dev = $(kdev_of "$PLOOP_DEV")
	AND (sector < $start2 OR sector >= $start2 + $size2)")" 0 "partition member: no event outside $P2's sectors"
