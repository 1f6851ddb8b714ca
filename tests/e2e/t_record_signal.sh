# SIGINT and SIGTERM during a recording: the workload gets the signal, the
# database keeps what was recorded and passes integrity_check, the tracefs
# instance is removed and read_ahead_kb restored. SIGKILL, which no process
# can handle: the next ra-record restores read_ahead_kb, removes the
# throttle's cgroup and the instance the killed one left, from its journal.
# test: needs=root,tracefs alone budget=2
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 64
make_file "$MNT/f" 16
ra_before=$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")

for sig in INT TERM; do
	DB=$TMP/$sig.db
	marker="sleep 6$RANDOM.5"
	evict_cold
	ra-record -o "$DB" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=64" \
		-- sh -c "dd if=$MNT/f of=/dev/null bs=4k; exec $marker" &
	rec=$!
	on_exit "kill -KILL $rec"
	for _ in $(seq 100); do pgrep -f "^$marker" >/dev/null && break; sleep 0.1; done
	pgrep -f "^$marker" >/dev/null || fail "the workload did not start"
	check_eq "$(instance_left $rec)" 1 "instance while recording ($sig)"
	check_eq "$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" 64 "read_ahead_kb while recording ($sig)"
	kill -$sig $rec
	wait $rec
	rc=$?
	sig_no=$(kill -l $sig)
	check_eq "$rc" $((128 + sig_no)) "ra-record exit status after SIG$sig"
	pgrep -f "^$marker" >/dev/null && fail "the workload survived SIG$sig"
	check_eq "$(instance_left $rec)" 0 "instance left after SIG$sig"
	check_eq "$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" "$ra_before" "read_ahead_kb restored after SIG$sig"
	check_eq "$(q "$DB" 'PRAGMA integrity_check')" ok "integrity after SIG$sig"
	check_eq "$(q "$DB" 'SELECT interrupted, exit_signal, complete FROM runs')" "1|$sig_no|1" "run marked interrupted by SIG$sig"
	n=$(q "$DB" "SELECT n FROM v_event_counts WHERE event = 'mm_filemap_add_to_page_cache'")
	check_cmp "${n:-0}" -gt 0 "page-cache adds kept after SIG$sig"
done

# SIGKILL while throttled at read_ahead_kb 64: the killed recorder leaves
# the setting, its cgroup and its instance; the next recorder puts them back
DB=$TMP/KILL.db
marker="sleep 7$RANDOM.5"
ra-record -o "$DB" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=64" \
	--throttle "$LOOP_NAME=iops:1000" -- sh -c "exec $marker" &
rec=$!
for _ in $(seq 100); do pgrep -f "^$marker" >/dev/null && break; sleep 0.1; done
pgrep -f "^$marker" >/dev/null || fail "the workload did not start"
check_eq "$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" 64 "read_ahead_kb while recording (KILL)"
check_eq "$(cat "/run/ratrace/read_ahead_kb.$LOOP_DEV")" \
	"read_ahead_kb $LOOP_NAME $LOOP_DEV /sys/class/block/$LOOP_NAME/queue/read_ahead_kb $ra_before $rec" \
	"the journal lists the setting, its file and its old value"
check_eq "$(cat "/run/ratrace/cgroup.ra-record.$rec")" "cgroup /sys/fs/cgroup/blkio/ra-record.$rec $rec" \
	"the journal lists the cgroup"
kill -KILL $rec
wait $rec 2>/dev/null
pkill -KILL -f "^$marker"
for _ in $(seq 50); do pgrep -f "^$marker" >/dev/null || break; sleep 0.1; done
check_eq "$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" 64 "SIGKILL: read_ahead_kb left at 64"
ra-record -v -o "$TMP/next.db" -d "$LOOP_NAME" -- true 2> "$TMP/next.err"
check_eq "$?" 0 "the next recorder"
cat "$TMP/next.err"
check_grep "restored read_ahead_kb of '$LOOP_NAME' to $ra_before, left by recorder $rec" "$TMP/next.err" \
	"the next recorder says what it restored"
check_eq "$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" "$ra_before" "read_ahead_kb restored after SIGKILL"
check_eq "$(find /sys/fs/cgroup/blkio -mindepth 1 -maxdepth 1 -name "ra-record.$rec" | wc -l)" 0 "the killed recorder's cgroup removed"
check_eq "$(instance_left $rec)" 0 "the killed recorder's instance removed"
[ -e "/run/ratrace/read_ahead_kb.$LOOP_DEV" ] || [ -e "/run/ratrace/cgroup.ra-record.$rec" ] &&
	fail "journal left"
[ -d /run/ratrace ] && [ -z "$(pgrep -x ra-record)" ] && fail "/run/ratrace left"
echo "ok: the journal is gone"

# A workload that outlives its SIGKILLed recorder holds none of the
# recorder's tracefs files: the next recorder removes the instance while the
# workload still runs.
marker="sleep 8$RANDOM.5"
ra-record -q -o "$TMP/orphan.db" -d "$LOOP_NAME" -- sh -c "exec $marker" &
rec=$!
for _ in $(seq 100); do pgrep -f "^$marker" >/dev/null && break; sleep 0.1; done
orphan=$(pgrep -f "^$marker") || fail "the workload did not start"
on_exit "kill -KILL $orphan"
check_eq "$(find "/proc/$orphan/fd" -mindepth 1 -maxdepth 1 -lname '*/sys/kernel/tracing*' | wc -l)" 0 "the workload holds no tracefs file"
kill -KILL $rec
wait $rec 2>/dev/null
ra-record -q -o "$TMP/after-orphan.db" -d "$LOOP_NAME" -- true
check_eq "$?" 0 "the recorder after the killed one"
kill -0 "$orphan" || fail "the workload ended before the check"
check_eq "$(instance_left $rec)" 0 "the killed recorder's instance removed while its workload runs"
kill -KILL "$orphan"

# A journal an older ratrace (0.1) left, one file per recorder named after its
# pid, without a lock: put back once that recorder is gone.
sh -c 'exit 0' & dead=$!
wait $dead
kill -0 "$dead" 2>/dev/null && skip "pid $dead was reused at once"
echo 48 > "/sys/block/$LOOP_NAME/queue/read_ahead_kb"
mkdir -p /run/ratrace
on_exit "rm -f /run/ratrace/ra-record.$dead.restore; rmdir /run/ratrace"
printf 'read_ahead_kb %s %s %s\n' "$LOOP_DEV" "$LOOP_NAME" "$ra_before" > "/run/ratrace/ra-record.$dead.restore"
ra-record -o "$TMP/legacy.db" -d "$LOOP_NAME" -- true 2> "$TMP/legacy.err"
check_eq "$?" 0 "the recorder after a 0.1 journal"
check_grep "restored read_ahead_kb of '$LOOP_NAME' to $ra_before, left by recorder $dead" "$TMP/legacy.err" \
	"it says what it restored from the 0.1 journal"
check_eq "$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" "$ra_before" "read_ahead_kb restored from the 0.1 journal"
[ -e "/run/ratrace/ra-record.$dead.restore" ] && fail "the 0.1 journal left"
echo "ok: the 0.1 journal is gone"

# A signal while a run is stored, between two runs of --repeat: the run is
# stored whole and no further run starts (its workload would be killed at
# once and stored as an interrupted run of nothing).
ra-record -q -o "$TMP/between.db" -d "$LOOP_NAME" --repeat 3 "${COLD[@]}" \
	-- sh -c "dd if='$MNT/f' of=/dev/null bs=4k status=none; (sleep 0.05; kill -TERM \$PPID) &" \
	2> "$TMP/between.err"
check_eq "$?" 143 "SIGTERM between runs: exit status"
check_eq "$(q "$TMP/between.db" "SELECT COUNT(*) || '|' || SUM(interrupted) || '|' || SUM(complete) FROM runs")" \
	"1|0|1" "SIGTERM while run 1 was stored: run 1 whole, no run 2"
# an interrupted run is incomplete: ra-compare does not judge it unless told
ra-compare "$TMP/between.db" "$TMP/TERM.db" > /dev/null 2> "$TMP/cmp.err"
check_eq "$?" 2 "ra-compare refuses a side with an interrupted run"
check_grep "'$TMP/TERM.db': 1 run\(s\) lost [0-9]+ events or were interrupted \(1\)" "$TMP/cmp.err" \
	"and says why"
