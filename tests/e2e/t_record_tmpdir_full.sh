# ra-record whose --tmpdir fills up while it saves the ring buffers: one line
# naming the cause, exit 2, and nothing left behind: its tracefs instance (16
# MiB of kernel memory per CPU), the setting it changed, a new database.
# The ring buffers' data goes to --tmpdir once the memory for it is full:
# one sub-buffer here.
# test: needs=root,tracefs budget=2
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 160
make_file "$MNT/f" 64
mkdir "$TMP/tiny"
mount -t tmpfs -o size=256k tmpfs "$TMP/tiny" || skip "cannot mount a tmpfs"
on_exit umount "$TMP/tiny"
before=$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")
# the workload leaves a child behind when it is stopped: a process that holds
# a file of the instance would keep it from being removed
marker="sleep 7$RANDOM.5"
RATRACE_LIVE_MEMORY_KB=0 rec -o "$TMP/full.db" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=64" "${COLD[@]}" --tmpdir "$TMP/tiny" \
	-- sh -c "$marker & dd if='$MNT/f' of=/dev/null bs=4k status=none; wait" 2> "$TMP/err"
check_eq "$?" 2 "exit status when --tmpdir fills up"
for pid in $(pgrep -f "^$marker"); do on_exit "kill $pid"; done
check_eq "$(wc -l < "$TMP/err")" 1 "one line: $(cat "$TMP/err")"
check_grep "No space left on device" "$TMP/err" "the line names the cause"
check_eq "$(instance_left $REC_PID)" 0 "its tracefs instance removed"
check_eq "$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" "$before" "read_ahead_kb restored"
[ -e "$TMP/full.db" ] && fail "a database was left"
check_eq "$(find "$TMP" -mindepth 1 -maxdepth 1 -name '*full.db*' | wc -l)" 0 "no database or temporary of it left"
check_eq "$(find "$TMP/tiny" -mindepth 1 -maxdepth 1 | wc -l)" 0 "nothing left in --tmpdir"
