# Files the workload deletes keep their names: one it creates (in two parts,
# open meanwhile), drops from the page cache, reads (throttled, so that it is open for about a second) and
# deletes; one that existed before the run, which it reads and deletes at
# once; and one it creates, reads, closes and renames at once, which is
# named from its inode number after the run (its name at the end) with no
# walk of the file system. One more that existed before is read and deleted
# last (no later file takes its inode number): only the walk before the run
# names it (from the recorder's temporary file of that walk). Those two are
# done by a process outside the workload's tree (setsid -f, once its parent
# is gone), which no look of the recorder at the tree's open files sees,
# however the looks fall. On ext4, and on
# btrfs, whose stat st_dev is not the s_dev of its events. The names and
# sizes are those the files had; their windows read each file once.
# test: needs=root,tracefs budget=10
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp

deleted_on() {
	local fs=$1 DB=$TMP/$1.db old_ino new
	make_loop_fs 320 "$fs"
	make_file "$MNT/old" 4
	old_ino=$(stat -c %i "$MNT/old")
	make_file "$MNT/gone" 1
	gone_ino=$(stat -c %i "$MNT/gone")
	new=$MNT/dir/new
	mkdir "$MNT/dir"
	# 8 MiB read at 4 MiB/s: open for two seconds, seen by the recorder's looks
	# it is written in two parts, open meanwhile: a look sees it at 2 MiB, and
	# its size is the largest seen
	rec -v -o "$DB" -d "$LOOP_NAME" "${COLD[@]}" --throttle "$LOOP_NAME=bps:4194304" -- sh -c "
		setsid -f sh -c 'sleep 0.1 && head -c 64k /dev/urandom > $MNT/quick &&
			cat $MNT/quick > /dev/null && mv $MNT/quick $MNT/dir/moved' &&
		while [ ! -e $MNT/dir/moved ]; do sleep 0.05; done &&
		{ head -c 2M /dev/urandom && sleep 0.5 && head -c 6M /dev/urandom; } > $new && sync $new &&
		stat -c %i $new > $TMP/new.ino &&
		dd if=$new iflag=nocache count=0 status=none &&
		dd if=$new of=/dev/null bs=4k status=none && rm $new &&
		dd if=$MNT/old of=/dev/null bs=4k status=none && rm $MNT/old &&
		setsid -f sh -c 'sleep 0.1 && cat $MNT/gone > /dev/null && rm $MNT/gone' &&
		while [ -e $MNT/gone ]; do sleep 0.05; done" 2> "$TMP/rec.err"
	check_eq "$?" 0 "$fs: ra-record exit status"
	check_eq "$(instance_left $REC_PID)" 0 "$fs: tracefs instance left"
	[ -e "$new" ] || [ -e "$MNT/old" ] && fail "$fs: the workload did not delete its files"
	ino=$(cat "$TMP/new.ino")
	check_eq "$(q "$DB" "SELECT path, size_bytes FROM files WHERE dev = $FS_KDEV AND ino = $ino")" \
		"$new|8388608" "$fs: the file created and deleted during the run: name and size"
	check_eq "$(q "$DB" "SELECT path, size_bytes FROM files WHERE dev = $FS_KDEV AND ino = $old_ino")" \
		"$MNT/old|4194304" "$fs: the file deleted during the run: name and size"
	check_eq "$(q "$DB" "SELECT SUM(pages_added) FROM windows WHERE dev = $FS_KDEV AND ino = $ino")" 2048 \
		"$fs: the created file read from the device once"
	check_eq "$(q "$DB" "SELECT SUM(pages_added) FROM windows WHERE dev = $FS_KDEV AND ino = $old_ino")" 1024 \
		"$fs: the old file read from the device once"
	check_eq "$(q "$DB" "SELECT path, size_bytes FROM files WHERE dev = $FS_KDEV AND ino = $gone_ino")" \
		"$MNT/gone|1048576" "$fs: the file deleted outside the workload's tree: its name before the run"
	check_grep "file names: .*, [1-9][0-9]* from before the run" "$TMP/rec.err" \
		"$fs: a name from the walk before the run"
	check_eq "$(q "$DB" "SELECT COUNT(*) FROM files WHERE path LIKE '% (deleted)'")" 0 "$fs: no ' (deleted)' in names"
	check_eq "$(q "$DB" "SELECT path, size_bytes FROM files WHERE dev = $FS_KDEV AND ino = $(stat -c %i "$MNT/dir/moved")")" \
		"$MNT/dir/moved|65536" "$fs: the file renamed at once: its name at the end"
	check_grep "file names: .*, 0 by a walk" "$TMP/rec.err" "$fs: named without a walk"
}

deleted_on ext4
deleted_on btrfs
