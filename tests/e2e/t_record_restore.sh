# What a recorder could not put back. A workload that unmounts its btrfs
# takes the file system's own bdi (btrfs-N) with it, so the read_ahead_kb
# the run set there cannot be restored: the run is stored with that setting
# marked not restored (the disk queue's, which could be, restored), the
# recorder says so in one line and exits 2, and the sweep's next value is
# never run. The throttle's cgroup, removed when the recorder ends, marks its
# settings restored then, in every run; before that they read not restored.
# test: needs=root,tracefs budget=2
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
make_tmp
make_loop_fs 256 btrfs
make_file "$MNT/f" 8
DB=$TMP/r.db

rec -o "$DB" -d "$LOOP_NAME" --sweep read_ahead_kb=64,256 --throttle "$LOOP_NAME=iops:5000" \
	-- sh -c "cat '$MNT/f' > /dev/null && umount '$MNT'" 2> "$TMP/err"
check_eq "$?" 2 "exit status when a setting cannot be restored"
check_grep "cannot restore read_ahead_kb of '$BDI' to [0-9]+" "$TMP/err" "the setting named"
check_grep "^ra-record: a setting could not be restored \(above\): stopping; the run is stored" \
	"$TMP/err" "the recorder stops"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM runs")" 1 "runs stored: the sweep's second value never ran"
check_eq "$(q "$DB" "SELECT restored FROM settings WHERE name = 'read_ahead_kb' AND path = '$RA_FILE'")" 0 \
	"the bdi's setting is marked not restored"
check_eq "$(q "$DB" "SELECT restored FROM settings WHERE name = 'read_ahead_kb' AND path LIKE '%/queue/read_ahead_kb'")" 1 \
	"the disk queue's setting is restored"
check_eq "$(q "$DB" "SELECT new_value FROM settings WHERE name = 'read_ahead_kb' AND path = '$RA_FILE'")" 64 \
	"the value the run set"
check_eq "$(q "$DB" "SELECT GROUP_CONCAT(restored) FROM settings WHERE name LIKE 'blkio.throttle.%'")" 1 \
	"the throttle's setting is restored once its cgroup is gone"
ls -d "/sys/fs/cgroup/blkio/ra-record.$REC_PID" 2>/dev/null && fail "a cgroup was left behind"
echo "ok: no cgroup left"
# nothing can put the bdi's setting back now, and the recorder has said so:
# its journal keeps no entry for a later recorder to say it again
grep -ls " $BDI " /run/ratrace/* 2>/dev/null && fail "a journal entry of the gone bdi was left"
echo "ok: no journal entry left for the gone bdi"

# A sweep whose settings all go back: every run's throttle rows restored.
umount "$MNT" 2>/dev/null
mount -t btrfs "$LOOP" "$MNT" || fail "mount again"
rec -o "$TMP/s.db" -d "$LOOP_NAME" --sweep read_ahead_kb=64,256 --throttle "$LOOP_NAME=iops:5000" \
	-- cat "$MNT/f" 2> "$TMP/err2" > /dev/null || fail "sweep: $(cat "$TMP/err2")"
check_eq "$(q "$TMP/s.db" "SELECT COUNT(*) || ' ' || SUM(restored) FROM settings WHERE name LIKE 'blkio.throttle.%'")" "2 2" \
	"throttle rows of both runs restored"
check_eq "$(q "$TMP/s.db" "SELECT COUNT(*) || ' ' || SUM(restored) FROM settings WHERE name = 'read_ahead_kb'")" "4 4" \
	"read_ahead_kb rows (queue and bdi of both runs) restored"
