# Window I/O under blk-throttle, where a kernel worker, not the reader,
# queues the throttled bios: the block pass gives each such bio to the oldest
# open window of its file system still owed pages. The window's events carry
# the file system's s_dev, the bios a block device: on btrfs (an anonymous
# 0:N) they match only through the run's file systems; ext4 on a partition
# (s_dev the partition's) must match too. A cold read of a 16 MiB file
# through a throttle: the windows' bios carry every page they added, exactly
# (ground truth: the windows' pages_added, whose sum is the file), and the
# metadata the file system read meanwhile (rwbs M) is no window's.
# test: needs=root,tracefs budget=3
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
make_tmp

# check_owed DB WHAT: the windows' bios carry exactly the pages they added
check_owed() {
	local db=$1 what=$2 added io
	added=$(q "$db" "SELECT SUM(pages_added) * 4096 FROM windows")
	check_eq "$added" 16777216 "$what: the windows added the file's pages"
	io=$(q "$db" "SELECT SUM(io.bytes) FROM window_io io")
	check_eq "$io" "$added" "$what: bytes of the windows' bios"
	check_eq "$(q "$db" "SELECT COUNT(*) FROM windows w LEFT JOIN window_io io USING (run_id, window_id)
		WHERE COALESCE(io.bytes, 0) != w.pages_added * 4096")" 0 "$what: windows whose bios miss pages"
}

make_loop_fs 256 btrfs
make_file "$MNT/f" 16
rec -v -o "$TMP/b.db" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" \
	--throttle "$LOOP_NAME=iops:2000,bps:100000000" -- dd if="$MNT/f" of=/dev/null bs=4k status=none \
	2> "$TMP/b.err" || fail "record btrfs: $(cat "$TMP/b.err")"
check_owed "$TMP/b.db" btrfs
# followed_again DB ERR WHAT: the block pass followed the recording (told
# by the recorder the btrfs's devices, the partition traced without its
# disk): its rows are those of a read of the stored events
followed_again() {
	local t
	check_grep "^block: followed as the events were stored" "$2" "$3: the block pass followed"
	rm -f "$TMP/again.db"
	cp "$1" "$TMP/again.db"
	ra-analyze -q "$TMP/again.db" || fail "$3: ra-analyze again"
	for t in requests stalls window_io device_latency; do
		need_table "$1" "$t"
		check_eq "$(q "$1" "SELECT * FROM $t" | sort | md5sum)" \
			"$(q "$TMP/again.db" "SELECT * FROM $t" | sort | md5sum)" "$3: $t as recorded and again"
	done
}
followed_again "$TMP/b.db" "$TMP/b.err" btrfs

make_loop_parts 300 200
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$P1" || fail "mkfs $P1"
PM=$TMP/p1
mkdir -p "$PM"
mount -o "$EXT4_QUIET" "/dev/$P1" "$PM" || fail "mount $P1"
on_exit umount_retry "$PM"
COLD+=(--evict "$PM")
make_file "$PM/f" 16
rec -v -o "$TMP/p.db" -d "$P1" --read-ahead-kb "$PLOOP_NAME=128" "${COLD[@]}" \
	--throttle "$PLOOP_NAME=iops:2000,bps:100000000" -- dd if="$PM/f" of=/dev/null bs=4k status=none \
	2> "$TMP/p.err" || fail "record ext4 on $P1: $(cat "$TMP/p.err")"
check_owed "$TMP/p.db" "ext4 on a partition"
followed_again "$TMP/p.db" "$TMP/p.err" "ext4 on a partition"
