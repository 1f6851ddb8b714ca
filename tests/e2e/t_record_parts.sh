# Partitions. Block events carry the whole disk and the sector on it, never
# the partition: -d PART must take its disk's events in the partition's
# sectors only, analyse them as the partition's and check them against the
# partition's own /sys/class/block/PART/stat; -d DISK takes the whole disk,
# checked against the disk's stat. ext4 on p1, xfs on p2, a cold dd bs=4k of
# a 64 MiB file on each. The truth is the stat of each device, partitions
# included, read by this test around each recording and stored by ra-record.
# test: needs=root,tracefs budget=6
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v mkfs.xfs >/dev/null || skip "no mkfs.xfs"
make_tmp
make_loop_parts 600 250
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$P1" || fail "mkfs.ext4 /dev/$P1"
mkfs.xfs -q -f "/dev/$P2" || fail "mkfs.xfs /dev/$P2"
mkdir "$TMP/m1" "$TMP/m2"
mount -o "$EXT4_QUIET" "/dev/$P1" "$TMP/m1" || fail "mount /dev/$P1"
on_exit umount_retry "$TMP/m1"
COLD+=(--evict "$TMP/m1")
mount "/dev/$P2" "$TMP/m2" || fail "mount /dev/$P2"
on_exit umount_retry "$TMP/m2"
COLD+=(--evict "$TMP/m2")
make_file "$TMP/m1/f" 64
make_file "$TMP/m2/f" 64
disk_k=$(kdev_of "$PLOOP_DEV")
start1=$(cat "/sys/class/block/$P1/start") size1=$(cat "/sys/class/block/$P1/size")
note "$PLOOP_NAME ($PLOOP_DEV): $P1 ($P1_DEV) sectors $start1+$size1, $P2 ($P2_DEV)"
read1="dd if=$TMP/m1/f of=/dev/null bs=4k status=none"
read2="dd if=$TMP/m2/f of=/dev/null bs=4k status=none"

# record NAME ARGS... -- CMD: ra-record -o $TMP/NAME.db ARGS, with the stat of
# the disk and both partitions around it in OUT_DISK, OUT_P1, OUT_P2
record() {
	local db=$TMP/$1.db d0 a0 b0; shift
	d0=$(stat_rs "$PLOOP_NAME") a0=$(stat_rs "$P1") b0=$(stat_rs "$P2")
	rec -q -o "$db" "$@" 2>"$TMP/err"
	check_eq "$?" 0 "$(basename "$db"): ra-record exit status"
	OUT_DISK=$(delta_rs "$d0" "$(stat_rs "$PLOOP_NAME")")
	OUT_P1=$(delta_rs "$a0" "$(stat_rs "$P1")") OUT_P2=$(delta_rs "$b0" "$(stat_rs "$P2")")
	check_eq "$(q "$db" "SELECT lost_events FROM v_runs")" 0 "$(basename "$db"): lost events"
}

# row DB DEV: "name|role|reads|sectors|stat reads|stat sectors|stat_match" of the block row of DEV
row() {
	q "$1" "SELECT name, role, reads_completed, sectors_read, stat_reads_delta,
		stat_sectors_delta, stat_match FROM v_device_io WHERE dev = '$2'"
}

# -d P1, reading p1 only: the partition's row, checked against its own stat
record one -d "$P1" "${COLD[@]}" -- sh -c "$read1"
DB=$TMP/one.db
r=$(row "$DB" "$P1_DEV")
note "-d $P1, p1 read: row $r; outside, $P1 read $OUT_P1"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM v_device_io")" 1 "-d $P1: one block row"
check_eq "$(echo "$r" | cut -d'|' -f1,2,7)" "$P1|filter|1" "-d $P1: the row is $P1's and agrees with its stat"
check_cmp "$(echo "$r" | cut -d'|' -f4)" -ge 131072 "-d $P1: at least the file's sectors"
stored=$(q "$DB" "SELECT stat_reads_delta || '|' || stat_sectors_delta FROM v_devices WHERE dev = '$P1_DEV'")
check_cmp "${stored#*|}" -le "${OUT_P1#*|}" "-d $P1: the stored stat delta lies within what $P1 read around the run"
check_eq "$(q "$DB" "SELECT disk, start_sector, nr_sectors FROM v_devices WHERE dev = '$P1_DEV'")" \
	"$PLOOP_DEV|$start1|$size1" "-d $P1: where it lies on its disk"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM blk_events WHERE dev != 0 AND (dev != $disk_k
	OR sector < $start1 OR sector >= $start1 + $size1)")" 0 "-d $P1: no block event outside its sectors"

# -d P1, reading p1 then p2: p2's I/O is left out, p1's still checks
record both -d "$P1" "${COLD[@]}" -- sh -c "$read1; $read2"
DB=$TMP/both.db
r=$(row "$DB" "$P1_DEV")
note "-d $P1, p1 then p2 read: row $r; outside: $P1 $OUT_P1, $P2 $OUT_P2, $PLOOP_NAME $OUT_DISK"
check_cmp "${OUT_P2#*|}" -ge 131072 "-d $P1: $P2 did read its file meanwhile"
check_eq "$(q "$DB" "SELECT group_concat(dev) FROM v_device_io")" "$P1_DEV" "-d $P1: only $P1 has a block row"
check_eq "$(echo "$r" | cut -d'|' -f1,7)" "$P1|1" "-d $P1: its row agrees with its stat, $P2's reads left out"
check_eq "$(echo "$r" | cut -d'|' -f3,4)" "$(echo "$r" | cut -d'|' -f5,6)" "-d $P1: trace reads and sectors = its stat delta"
check_cmp "$(echo "$r" | cut -d'|' -f4)" -lt "${OUT_DISK#*|}" "-d $P1: fewer sectors than the disk read"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM blk_events WHERE dev != 0 AND (sector < $start1 OR sector >= $start1 + $size1)")" 0 \
	"-d $P1: no block event of $P2's sectors"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM requests WHERE dev != $(kdev_of "$P1_DEV")")" 0 "-d $P1: every request is $P1's"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM device_models WHERE timing = 'd2c' AND dev != $(kdev_of "$P1_DEV")")" 0 \
	"-d $P1: the d2c model is $P1's only"
ra-report "$DB" > "$TMP/both.txt" || fail "ra-report"
check_grep "^$P1 +$(echo "$r" | cut -d'|' -f3) +$(echo "$r" | cut -d'|' -f4) " "$TMP/both.txt" \
	"-d $P1: the report's block row names $P1"
grep -q "disagree with /sys/block stat" "$TMP/both.txt" && fail "-d $P1: a stat warning"
echo "ok: -d $P1: no stat warning"

# -d P1 -d P2: a row each, each checked against its own stat
record two -d "$P1" -d "$P2" "${COLD[@]}" -- sh -c "$read1; $read2"
DB=$TMP/two.db
for p in "$P1|$P1_DEV" "$P2|$P2_DEV"; do
	r=$(row "$DB" "${p#*|}")
	note "-d $P1 -d $P2: ${p%|*}: $r"
	check_eq "$(echo "$r" | cut -d'|' -f1,2,7)" "${p%|*}|filter|1" "-d both: ${p%|*}'s row agrees with its stat"
	check_cmp "$(echo "$r" | cut -d'|' -f4)" -ge 131072 "-d both: ${p%|*} read its file"
done

# -d DISK: the whole disk in its own row, against the disk's stat; the file
# systems of its partitions named
record disk -d "$PLOOP_NAME" "${COLD[@]}" -- sh -c "$read1; $read2"
DB=$TMP/disk.db
r=$(row "$DB" "$PLOOP_DEV")
note "-d $PLOOP_NAME: $r; outside: $OUT_DISK"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM v_device_io")" 1 "-d $PLOOP_NAME: one block row"
check_eq "$(echo "$r" | cut -d'|' -f1,2,7)" "$PLOOP_NAME|filter|1" "-d $PLOOP_NAME: the disk's row agrees with the disk's stat"
check_cmp "$(echo "$r" | cut -d'|' -f4)" -ge 262144 "-d $PLOOP_NAME: both files' sectors"
check_eq "$(q "$DB" "SELECT fstype || ':' || dev || ':' || device FROM v_filesystems ORDER BY fstype")" \
	"$(printf 'ext4:%s:%s\nxfs:%s:%s' "$P1_DEV" "$P1" "$P2_DEV" "$P2")" \
	"-d $PLOOP_NAME: the file systems on its partitions, named"
