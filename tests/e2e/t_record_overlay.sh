# overlayfs has no page cache of its own: reading a file through it reads the
# layer's file, whose events carry the layer's s_dev. An overlay with a layer
# on the -d device is listed in filesystems with the layer's device, and
# without -d when the events of a layer's file system are stored. Its layers
# are the directories its mount options name, as they were when it was
# mounted: through a symbolic link, under the overlay itself (mounted on its
# own lower directory), or relative to the directory of the process that
# mounted it (which nothing records: said, not guessed).
# test: needs=root,tracefs budget=16
. "$(dirname "$0")/lib.sh"
need_tracefs
grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null
grep -qw overlay /proc/filesystems || skip "no overlayfs in this kernel"
make_tmp
make_loop 160
mkdir -p "$MNT/lower" "$MNT/upper" "$MNT/work" "$TMP/ov"
make_file "$MNT/lower/f" 16
ino=$(stat -c %i "$MNT/lower/f")
note "ext4 $FS_DEV on $LOOP_NAME ($LOOP_DEV)"

# ovl_dev DIR: the s_dev of the overlay mounted at DIR
ovl_dev() {
	findmnt -no MAJ:MIN --mountpoint "$1" | tr -d ' '
}

# record NAME FILE ARGS...: a cold read of FILE through an overlay
record() {
	local db=$TMP/$1.db file=$2; shift 2
	rec -o "$db" "$@" "${COLD[@]}" -- sh -c "exec 3< '$file'; sleep 0.5; dd if='$file' of=/dev/null bs=4k status=none" \
		2>"$TMP/err"
	check_eq "$?" 0 "$(basename "$db"): ra-record exit status"
}

# listed NAME OVL_DEV WHAT: the overlay's row names the loop device
listed() {
	check_eq "$(q "$TMP/$1.db" "SELECT fstype, dev, device FROM v_filesystems WHERE fs_dev = '$2'")" \
		"overlay|$LOOP_DEV|$LOOP_NAME" "$1: the overlay ($3) is listed on $LOOP_NAME"
}

# absolute paths, with and without -d; the file's windows are the layer's
mount -t overlay overlay -o "lowerdir=$MNT/lower,upperdir=$MNT/upper,workdir=$MNT/work" "$TMP/ov" ||
	fail "mount the overlay"
on_exit umount "$TMP/ov"
od=$(ovl_dev "$TMP/ov")
record abs "$TMP/ov/f" -d "$LOOP_NAME"
listed abs "$od" "absolute paths"
check_eq "$(q "$TMP/abs.db" "SELECT SUM(pages_added) FROM windows WHERE dev = $FS_KDEV AND ino = $ino")" 4096 \
	"abs: the read through the overlay has the layer's windows"
record all "$TMP/ov/f"
listed all "$od" "absolute paths, no --device"
umount "$TMP/ov"

# through a symbolic link to the layers' file system
ln -s "$MNT" "$TMP/link"
mount -t overlay overlay -o "lowerdir=$TMP/link/lower,upperdir=$TMP/link/upper,workdir=$TMP/link/work" \
	"$TMP/ov" || fail "mount the overlay through a link"
od=$(ovl_dev "$TMP/ov")
record link "$TMP/ov/f" -d "$LOOP_NAME"
listed link "$od" "layers through a symbolic link"
umount "$TMP/ov"

# mounted on its own lower directory, the upper one on tmpfs
mkdir "$TMP/t"
mount -t tmpfs -o size=8m tmpfs "$TMP/t" || fail "mount tmpfs"
on_exit umount "$TMP/t"
mkdir "$TMP/t/upper" "$TMP/t/work"
mount -t overlay overlay -o "lowerdir=$MNT/lower,upperdir=$TMP/t/upper,workdir=$TMP/t/work" "$MNT/lower" ||
	fail "mount the overlay on its lower directory"
od=$(ovl_dev "$MNT/lower")
record self "$MNT/lower/f" -d "$LOOP_NAME"
listed self "$od" "mounted on its own lower directory"
umount "$MNT/lower"

# relative paths: no file system can be told; with a file of it open, said
(cd "$MNT" && mount -t overlay overlay -o lowerdir=lower,upperdir=upper,workdir=work "$TMP/ov") ||
	fail "mount the overlay with relative paths"
od=$(ovl_dev "$TMP/ov")
record rel "$TMP/ov/f" -d "$LOOP_NAME"
cat "$TMP/err"
check_grep "^ra-record: warning: the overlay file system $od at '$TMP/ov' gives its layer 'lower' by a relative path: ratrace cannot tell which file system holds it; the events of its files are recorded when their layer's file system is on the --device devices$" \
	"$TMP/err" "rel: the warning at record time"
check_eq "$(q "$TMP/rel.db" "SELECT fstype, dev FROM v_filesystems WHERE fs_dev = '$od'")" "overlay|0:0" \
	"rel: the overlay is listed without a device"
check_eq "$(q "$TMP/rel.db" "SELECT SUM(pages_added) FROM windows WHERE dev = $FS_KDEV AND ino = $ino")" 4096 \
	"rel: the read through it is recorded: its layer is on $LOOP_NAME"
ra-report "$TMP/rel.db" > "$TMP/rel.txt" || fail "ra-report"
check_grep "! the overlay file system $od at $TMP/ov has no block device ratrace can map: the file systems of its layers are not known \(a layer given by a relative path\); the events of its files carry their layers' own devices$" \
	"$TMP/rel.txt" "rel: the report's warning"
umount "$TMP/ov"
