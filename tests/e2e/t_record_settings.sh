# Settings and other recorders. A second recorder that would change the
# read_ahead_kb another live recorder holds is refused (exit 2, its line names
# the device, the setting and the holder's pid) and changes nothing; with
# --wait-settings it runs after the first one. A read_ahead_kb changed under a
# run, by the workload itself, is stored with the time it was seen, warned
# about, and put back to the value of before the run; a run that changes
# nothing also sees it.
# test: needs=root,tracefs budget=7
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 64
make_file "$MNT/f" 16
QUEUE=/sys/block/$LOOP_NAME/queue/read_ahead_kb
echo 2048 > "$QUEUE"
orig=2048

# wait_for FILE: until FILE exists (10 s at most)
wait_for() {
	for _ in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.05; done
	fail "$1 did not appear"
}

# A holds loop's read_ahead_kb at 128 until told to end.
start_a() {
	rm -f "$TMP/a.go" "$TMP/a.end"
	ra-record -q -o "$TMP/a.db" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" \
		-- sh -c "touch $TMP/a.go; while [ ! -e $TMP/a.end ]; do sleep 0.05; done" &
	A=$!
	on_exit "kill -KILL $A"
	wait_for "$TMP/a.go"
}

start_a
check_eq "$(cat "$QUEUE")" 128 "A set read_ahead_kb"
check_grep "^read_ahead_kb $LOOP_NAME $LOOP_DEV /sys/class/block/$LOOP_NAME/queue/read_ahead_kb $orig $A$" \
	"/run/ratrace/read_ahead_kb.$LOOP_DEV" "A's journal entry names the file and the old value"
rec -o "$TMP/b.db" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=512" -- true 2> "$TMP/b.err"
check_eq "$?" 2 "B refused: exit status"
check_eq "$(cat "$TMP/b.err")" \
	"ra-record: cannot set read_ahead_kb of '$LOOP_NAME': recorder $A holds it (/sys/class/block/$LOOP_NAME/queue/read_ahead_kb); --wait-settings waits" \
	"B refused: the line names the device, the setting and A's pid"
check_eq "$(cat "$QUEUE")" 128 "B changed nothing"
[ -e "$TMP/b.db" ] && fail "B left a database"
echo "ok: B left no database"

# --wait-settings=1 gives up after a second, with the same line
start=$(date +%s%N)
rec -o "$TMP/b.db" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=512" --wait-settings=1 -- true 2> "$TMP/b.err"
check_eq "$?" 2 "B waiting 1 s: exit status"
check_cmp $(( ($(date +%s%N) - start) / 1000000 )) -ge 1000 "B waited a second"
check_grep "^ra-record: cannot set read_ahead_kb of '$LOOP_NAME': recorder $A holds it .*, waited for it$" \
	"$TMP/b.err" "B waiting 1 s: message"

# --wait-settings: B runs once A has put the value back
rec -q -o "$TMP/b.db" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=512" --wait-settings \
	-- cat "$QUEUE" > "$TMP/b.out" &
bwait=$!
sleep 1
check_eq "$(cat "$QUEUE")" 128 "A's setting holds while B waits"
touch "$TMP/a.end"
wait $A
check_eq "$?" 0 "A exit status"
wait $bwait
check_eq "$?" 0 "B waited: exit status"
check_eq "$(cat "$TMP/b.out")" 512 "B's workload ran at B's setting"
check_eq "$(q "$TMP/b.db" "SELECT old_value, new_value, restored FROM settings")" "$orig|512|1" \
	"B found the value of before A"
a_end=$(q "$TMP/a.db" "SELECT trace_end_ns FROM runs")
b_start=$(q "$TMP/b.db" "SELECT trace_start_ns FROM runs")
check_cmp "$b_start" -gt "$a_end" "B's run started after A's ended"
check_eq "$(q "$TMP/a.db" "SELECT COUNT(*) FROM setting_changes") $(q "$TMP/b.db" "SELECT COUNT(*) FROM setting_changes")" \
	"0 0" "neither run saw its setting change"
check_eq "$(cat "$QUEUE")" "$orig" "the original value after both"
[ -e "/run/ratrace/read_ahead_kb.$LOOP_DEV" ] && fail "journal entry left"
echo "ok: no journal entry left"

# The workload changes the setting in the middle of its run: the change is
# stored, warned about, and the original value put back. Files opened after
# the change read ahead with the new value.
evict_cold
rec -o "$TMP/c.db" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" -- sh -c "
	dd if=$MNT/f of=/dev/null bs=4k count=1024 status=none; echo 512 > $QUEUE; sleep 0.5;
	dd if=$MNT/f of=/dev/null bs=4k skip=1024 status=none" 2> "$TMP/c.err"
check_eq "$?" 0 "changed under the run: exit status"
check_eq "$(cat "$QUEUE")" "$orig" "changed under the run: the original value put back"
check_eq "$(q "$TMP/c.db" "SELECT dev, name, path, expected, observed FROM setting_changes")" \
	"$(loop_kdev)|read_ahead_kb|/sys/class/block/$LOOP_NAME/queue/read_ahead_kb|128|512" "the change stored"
check_eq "$(q "$TMP/c.db" "SELECT c.ts_ns > r.trace_start_ns AND c.ts_ns <= r.trace_end_ns FROM setting_changes c, runs r")" 1 \
	"the change was seen during the run"
check_grep "^ra-record: read_ahead_kb of '$LOOP_NAME' is 512, not the 128 set for the run: it changed during the run; putting back $orig$" \
	"$TMP/c.err" "the restore says the value had changed"
ra-report "$TMP/c.db" > "$TMP/c.txt"
check_grep "! read_ahead_kb of /sys/class/block/$LOOP_NAME/queue/read_ahead_kb changed during the run: 128 expected, 512 found at [0-9.]+ s; the run was partly recorded at another setting" \
	"$TMP/c.txt" "the report warns of the change"
check_eq "$(q "$TMP/c.db" "SELECT GROUP_CONCAT(ra_pages) FROM (SELECT pid, MAX(ra_pages) AS ra_pages FROM windows
	WHERE pattern != 'around' GROUP BY pid ORDER BY MIN(ts_ns))")" "32,128" "windows of the second reader follow the new value"

# A run that changes nothing still sees a change, against the value it found.
echo 256 > "$QUEUE"
rec -q -o "$TMP/d.db" -d "$LOOP_NAME" -- sh -c "sleep 0.3; echo 1024 > $QUEUE; sleep 0.5"
check_eq "$?" 0 "watched only: exit status"
check_eq "$(q "$TMP/d.db" "SELECT expected, observed FROM setting_changes")" "256|1024" "watched only: the change stored"
check_eq "$(q "$TMP/d.db" "SELECT COUNT(*) FROM settings")" 0 "watched only: nothing set"
check_eq "$(cat "$QUEUE")" 1024 "watched only: the value it did not set is left as it is"
echo "$orig" > "$QUEUE"
