# One workload, a cold dd bs=4k of a 64 MiB file with -d LOOP
# --read-ahead-kb LOOP=128, on ext4, xfs and btrfs. btrfs tags its page-cache
# events with an anonymous s_dev and reads ahead through a bdi of its own
# (btrfs-N): the recording must follow the file system to its device and set
# that bdi too. On every file system: one initial window then subsequent
# ones, all of ra_pages 32 (128 KB), hit ratio 1.0, the file's pages added
# once, block totals equal to the /sys/block stat deltas, the file system
# and its bdi stored, every setting put back to the value it had.
# test: needs=root,tracefs alone budget=5
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp

# record_fs FSTYPE: the cold read on a fresh file system of FSTYPE
record_fs() {
	local fs=$1 DB=$TMP/$1.db ino kdev queue_before ra_before sel nset
	make_loop_fs 320 "$fs"
	make_file "$MNT/seq" 64
	ino=$(stat -c %i "$MNT/seq")
	kdev=$(loop_kdev)
	echo 2048 > "/sys/block/$LOOP_NAME/queue/read_ahead_kb"	# values the run must override
	queue_before=2048
	ra_before=$(cat "$RA_FILE")
	note "$fs: s_dev $FS_DEV on $LOOP_NAME ($LOOP_DEV), bdi $BDI ($RA_FILE = $ra_before)"
	rec -o "$DB" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" \
		-- dd if="$MNT/seq" of=/dev/null bs=4k 2>"$TMP/err"
	check_eq "$?" 0 "$fs: ra-record exit status"
	check_eq "$(instance_left $REC_PID)" 0 "$fs: tracefs instance left"
	check_eq "$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" "$queue_before" "$fs: queue/read_ahead_kb restored"
	check_eq "$(cat "$RA_FILE")" "$ra_before" "$fs: read_ahead_kb of bdi $BDI restored"
	check_eq "$(q "$DB" 'SELECT lost_events FROM v_runs')" 0 "$fs: lost events"

	# windows and fates of the file, as on ext4
	sel="FROM windows WHERE dev = $FS_KDEV AND ino = $ino"
	check_eq "$(q "$DB" "SELECT COUNT(*) $sel AND pattern = 'initial'")" 1 "$fs: one initial window"
	check_cmp "$(q "$DB" "SELECT COUNT(*) $sel AND pattern = 'subsequent'")" -ge 100 "$fs: subsequent windows"
	check_eq "$(q "$DB" "SELECT COUNT(*) $sel AND pattern NOT IN ('initial', 'subsequent')")" 0 "$fs: no other window"
	check_eq "$(q "$DB" "SELECT MIN(ra_pages) || '|' || MAX(ra_pages) || '|' || MAX(size_pages) $sel")" "32|32|32" \
		"$fs: ra_pages 32 (128 KB) and windows of 32 pages at most"
	check_eq "$(q "$DB" "SELECT SUM(pages_added) $sel")" 16384 "$fs: the windows added the file's 16384 pages"
	check_eq "$(q "$DB" "SELECT hit_ratio FROM v_file_fates WHERE dev = '$FS_DEV' AND ino = $ino")" 1.0 "$fs: hit ratio"
	check_eq "$(q "$DB" "SELECT SUM(1 << folio_order) FROM page_events WHERE event_id = 10 AND dev = $FS_KDEV AND ino = $ino")" \
		16384 "$fs: every page of the file added to the page cache once"
	check_eq "$(q "$DB" "SELECT path FROM files WHERE dev = $FS_KDEV AND ino = $ino")" "$MNT/seq" "$fs: file name"

	# block I/O of the device against its /sys/block stat delta
	blk=$(q "$DB" "SELECT COUNT(*) || '|' || SUM(nr_sector) FROM blk_events WHERE event_id = 30 AND dev = $kdev AND rwbs LIKE '%R%'")
	stat=$(q "$DB" "SELECT stat_reads_delta || '|' || stat_sectors_delta FROM v_devices WHERE dev = '$LOOP_DEV'")
	note "$fs: read completions|sectors: trace $blk, stat $stat"
	check_eq "$blk" "$stat" "$fs: block read completions and sectors equal the stat delta"
	check_cmp "${blk#*|}" -ge 131072 "$fs: at least the file's 131072 sectors read"
	check_eq "$(q "$DB" "SELECT stat_match FROM v_device_io WHERE dev = '$LOOP_DEV'")" 1 "$fs: block analysis agrees with the stat"
	# what the block pass gives each window: its pages at least (btrfs reads its
	# metadata in the reader's windows too), never more than the device read
	wio="FROM windows w LEFT JOIN window_io i USING (run_id, window_id) WHERE w.dev = $FS_KDEV AND w.ino = $ino AND w.pages_added > 0"
	check_eq "$(q "$DB" "SELECT COUNT(*) $wio AND (COALESCE(i.requests, 0) = 0 OR i.bytes < w.pages_added * 4096)")" 0 \
		"$fs: every window that added pages has requests of its pages' bytes at least"
	wbytes=$(q "$DB" "SELECT SUM(i.bytes) $wio")
	note "$fs: the windows' I/O: $wbytes bytes; the device read $(( ${stat#*|} * 512 ))"
	check_cmp "$wbytes" -le $(( ${stat#*|} * 512 )) "$fs: the windows' I/O is part of what the device read"

	# the file system, its bdi, the settings written
	check_eq "$(q "$DB" "SELECT fs_dev, dev, fstype, mount_point, bdi, read_ahead_kb FROM v_filesystems WHERE fs_dev = '$FS_DEV'")" \
		"$FS_DEV|$LOOP_DEV|$fs|$MNT|$BDI|128" "$fs: filesystems row"
	nset=1
	[ "$fs" = btrfs ] && nset=2
	check_eq "$(q "$DB" "SELECT COUNT(*) FROM settings")" $nset "$fs: settings written"
	check_eq "$(q "$DB" "SELECT old_value, new_value, restored FROM settings WHERE path = '/sys/class/block/$LOOP_NAME/queue/read_ahead_kb'")" \
		"$queue_before|128|1" "$fs: queue/read_ahead_kb setting"
	if [ "$fs" = btrfs ]; then
		check_eq "$(q "$DB" "SELECT dev, old_value, new_value, restored FROM settings WHERE path = '$RA_FILE'")" \
			"$FS_KDEV|$ra_before|128|1" "$fs: the bdi's setting, dev = the file system's s_dev"
	fi
	ra-report --json "$DB" > "$TMP/$fs.json" || fail "$fs: ra-report --json"
	check_eq "$(python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["runs"][0]["filesystems"]:
	if f["fs_dev"] == sys.argv[2]:
		print(f["devices"], f["bdi"], f["read_ahead_kb"], f["ra_pages"])' "$TMP/$fs.json" "$FS_DEV")" \
		"$LOOP_NAME $BDI 128 32" "$fs: the report names the file system's device, bdi, setting and ra_pages"
	ra-report "$DB" > "$TMP/$fs.txt"
	grep -q "is governed by bdi" "$TMP/$fs.txt" && fail "$fs: a bdi warning where the bdi had the device's setting"
	echo "ok: $fs: no bdi warning"
}

record_fs ext4

# A device that read while no page-cache event was recorded (direct I/O) is
# said so, not shown as a silent "none". From a cold cache: a direct read of
# a file with cached pages drops them (page-cache events of the file).
rec -q -o "$TMP/direct.db" -d "$LOOP_NAME" "${COLD[@]}" -- dd if="$MNT/seq" of=/dev/null bs=1M \
	iflag=direct 2>/dev/null
check_eq "$?" 0 "direct I/O: exit status"
sectors=$(q "$TMP/direct.db" "SELECT stat_sectors_delta FROM v_devices WHERE dev = '$LOOP_DEV'")
check_cmp "$sectors" -ge 131072 "direct I/O: the device read the file"
ra-report "$TMP/direct.db" > "$TMP/direct.txt"
check_grep "! no page-cache or readahead event of $LOOP_NAME was recorded although it read $sectors sectors" \
	"$TMP/direct.txt" "direct I/O: the report says no page-cache event was recorded"
record_fs xfs
record_fs btrfs
BTRFS_LOOP=$LOOP_NAME

# A sweep on btrfs reaches its bdi: windows of 16 and 128 pages.
ra_before=$(cat "$RA_FILE")
ra-record -q -o "$TMP/sweep.db" -d "$LOOP_NAME" --sweep read_ahead_kb=64,512 "${COLD[@]}" \
	-- dd if="$MNT/seq" of=/dev/null bs=4k
check_eq "$?" 0 "sweep exit status"
ino=$(stat -c %i "$MNT/seq")
for kb in 64 512; do
	check_eq "$(q "$TMP/sweep.db" "SELECT MAX(w.ra_pages) || '|' || MAX(w.size_pages) FROM windows w JOIN runs r USING (run_id)
		WHERE r.label = 'read_ahead_kb=$kb' AND w.dev = $FS_KDEV AND w.ino = $ino")" "$((kb / 4))|$((kb / 4))" \
		"sweep: read_ahead_kb=$kb gives windows of $((kb / 4)) pages"
done
check_eq "$(cat "$RA_FILE")" "$ra_before" "sweep: the bdi's read_ahead_kb restored"

# SIGKILL on btrfs: the journal holds both files, the next recorder puts both back.
queue_before=$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")
marker="sleep 9$RANDOM.5"
ra-record -q -o "$TMP/kill.db" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=64" -- sh -c "exec $marker" &
krec=$!
on_exit "kill -KILL $krec"
for _ in $(seq 100); do pgrep -f "^$marker" >/dev/null && break; sleep 0.1; done
kpid=$(pgrep -f "^$marker") || fail "SIGKILL: the workload did not start"
on_exit "kill -KILL $kpid"
check_eq "$(cat "$RA_FILE") $(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" "64 64" "SIGKILL: both set while recording"
check_eq "$(cat "/run/ratrace/read_ahead_kb.$BDI")" "read_ahead_kb $BDI $FS_DEV $RA_FILE $ra_before $krec" \
	"SIGKILL: the journal holds the bdi's file and old value"
check_eq "$(cat "/run/ratrace/read_ahead_kb.$LOOP_DEV")" \
	"read_ahead_kb $LOOP_NAME $LOOP_DEV /sys/class/block/$LOOP_NAME/queue/read_ahead_kb $queue_before $krec" \
	"SIGKILL: the journal holds the queue's file and old value"
kill -KILL $krec
wait $krec 2>/dev/null
kill -KILL "$kpid"
ra-record -o "$TMP/next.db" -d "$LOOP_NAME" -- true 2> "$TMP/next.err"
check_eq "$?" 0 "SIGKILL: the next recorder"
check_grep "restored read_ahead_kb of '$BDI' to $ra_before, left by recorder $krec" "$TMP/next.err" \
	"SIGKILL: the next recorder says it restored the bdi"
check_eq "$(cat "$RA_FILE") $(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" "$ra_before $queue_before" \
	"SIGKILL: both put back"
[ -e "/run/ratrace/read_ahead_kb.$BDI" ] && fail "SIGKILL: journal entry left"
echo "ok: SIGKILL: no journal entry left"

# Without --read-ahead-kb the btrfs bdi keeps its own value: the windows
# follow it, not the device's, and the report says so.
echo 128 > "/sys/block/$LOOP_NAME/queue/read_ahead_kb"
echo 1024 > "$RA_FILE"
ra-record -q -o "$TMP/own.db" -d "$LOOP_NAME" "${COLD[@]}" -- dd if="$MNT/seq" of=/dev/null bs=4k
check_eq "$?" 0 "own bdi: exit status"
check_eq "$(q "$TMP/own.db" "SELECT MAX(ra_pages) FROM windows WHERE dev = $FS_KDEV AND ino = $ino")" 256 \
	"own bdi: ra_pages from the bdi's read_ahead_kb 1024"
check_eq "$(q "$TMP/own.db" "SELECT COUNT(*) FROM settings")" 0 "own bdi: nothing set"
ra-report "$TMP/own.db" > "$TMP/own.txt"
check_grep "the readahead of btrfs $FS_DEV at $MNT is governed by bdi $BDI \(read_ahead_kb 1024\), not by $LOOP_NAME \(read_ahead_kb 128\)" \
	"$TMP/own.txt" "own bdi: the report warns that the bdi, not the device, sets the readahead"
echo "$ra_before" > "$RA_FILE"

# -d with the anonymous s_dev of btrfs names its devices.
ra-record -q -o "$TMP/sdev.db" -d "$FS_DEV" --read-ahead-kb "$FS_DEV=256" "${COLD[@]}" \
	-- dd if="$MNT/seq" of=/dev/null bs=4k
check_eq "$?" 0 "-d $FS_DEV: exit status"
check_eq "$(q "$TMP/sdev.db" "SELECT name, role FROM devices")" "$LOOP_NAME|filter" "-d $FS_DEV: its device is traced"
check_eq "$(q "$TMP/sdev.db" "SELECT MAX(ra_pages) FROM windows WHERE dev = $FS_KDEV AND ino = $ino")" 64 \
	"-d $FS_DEV: read_ahead_kb 256 set on its bdi"
check_eq "$(q "$TMP/sdev.db" "SELECT stat_match FROM v_device_io WHERE dev = '$LOOP_DEV'")" 1 "-d $FS_DEV: block totals"
check_eq "$(cat "$RA_FILE")" "$ra_before" "-d $FS_DEV: the bdi's read_ahead_kb restored"

# -d with the s_dev of a file system without a block device: refused, saying what it is.
mkdir "$TMP/tmpfs"
mount -t tmpfs -o size=1m tmpfs "$TMP/tmpfs" || fail "mount tmpfs"
on_exit umount "$TMP/tmpfs"
tdev=$(findmnt -no MAJ:MIN --mountpoint "$TMP/tmpfs" | tr -d ' ')
ra-record -o "$TMP/tmpfs.db" -d "$tdev" -- true 2> "$TMP/err"
check_eq "$?" 2 "-d $tdev (tmpfs): exit status"
check_eq "$(cat "$TMP/err")" "ra-record: cannot trace '$tdev': it is the s_dev of the tmpfs file system at '$TMP/tmpfs', which has no block device ratrace can map" \
	"-d $tdev (tmpfs): message"
[ -e "$TMP/tmpfs.db" ] && fail "-d $tdev left a database"
echo "ok: no database left"

# erofs mounted on an image file that lies on the btrfs: a file system with no
# block device ratrace can map. With -d, its events are left out, counted, and
# said so at record time and in the report; the count is what a recording
# without -d stores of that s_dev for the same cold read.
if command -v mkfs.erofs >/dev/null; then
	mkdir -p "$TMP/erofs.src" "$TMP/erofs"
	make_file "$TMP/erofs.src/f" 8
	mkfs.erofs --quiet "$MNT/erofs.img" "$TMP/erofs.src" >/dev/null || fail "mkfs.erofs"
	# mount(2) itself: mount(8) would put a loop device under the image
	perl -e 'my ($s, $t, $f) = ($ARGV[0], $ARGV[1], "erofs");
		exit(syscall(165, $s, $t, $f, 1, 0) == 0 ? 0 : 1)' "$MNT/erofs.img" "$TMP/erofs" ||
		fail "cannot mount erofs on the file $MNT/erofs.img"
	on_exit umount_retry "$TMP/erofs"
	COLD+=(--evict "$TMP/erofs")
	edev=$(findmnt -no MAJ:MIN --mountpoint "$TMP/erofs" | tr -d ' ')
	ekdev=$(( (${edev%:*} << 20) | ${edev#*:} ))
	note "erofs on a file: s_dev $edev"
	ra-record -o "$TMP/erofs.db" -d "$BTRFS_LOOP" "${COLD[@]}" \
		-- dd if="$TMP/erofs/f" of=/dev/null bs=4k 2> "$TMP/err"
	check_eq "$?" 0 "erofs: exit status"
	check_grep "^ra-record: warning: the erofs file system $edev at '$TMP/erofs' has no block device ratrace can map to the --device devices: its page-cache and readahead events are not recorded$" \
		"$TMP/err" "erofs: the warning at record time"
	check_eq "$(q "$TMP/erofs.db" "SELECT (SELECT COUNT(*) FROM ra_events WHERE dev = $ekdev) + (SELECT COUNT(*) FROM page_events WHERE dev = $ekdev)")" 0 \
		"erofs: none of its events stored"
	n=$(q "$TMP/erofs.db" "SELECT unrecorded_events FROM filesystems WHERE fs_dev = $ekdev AND dev = 0 AND fstype = 'erofs'")
	ra-record -q -o "$TMP/erofs-all.db" "${COLD[@]}" -- dd if="$TMP/erofs/f" of=/dev/null bs=4k 2>/dev/null
	check_eq "$?" 0 "erofs, no --device: exit status"
	all=$(q "$TMP/erofs-all.db" "SELECT (SELECT COUNT(*) FROM ra_events WHERE dev = $ekdev) + (SELECT COUNT(*) FROM page_events WHERE dev = $ekdev)")
	check_cmp "$all" -gt 0 "erofs, no --device: its events"
	check_eq "$n" "$all" "erofs: the events left out are those a recording without --device stores"
	ra-report "$TMP/erofs.db" > "$TMP/erofs.txt"
	check_grep "! the erofs file system $edev at $TMP/erofs has no block device ratrace can map: $n of its page-cache and readahead events were not recorded with --device" \
		"$TMP/erofs.txt" "erofs: the report's warning"
	check_eq "$(q "$TMP/erofs-all.db" "SELECT dev FROM v_filesystems WHERE fs_dev = '$edev'")" 0:0 \
		"erofs, no --device: a file system without a device"
	ra-report "$TMP/erofs-all.db" > "$TMP/erofs-all.txt"
	check_grep "! the erofs file system $edev at $TMP/erofs has no block device ratrace can map: its readahead is not tied to a device or a setting" \
		"$TMP/erofs-all.txt" "erofs, no --device: the report's warning"
else
	note "no mkfs.erofs: the erofs-on-a-file case is not run"
fi
