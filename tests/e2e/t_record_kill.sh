# SIGKILL of ra-record, which no process can handle, into a new database:
# while the workload runs and while the recorded events are being stored (the
# first load of a new database runs without a journal). The database appears
# whole or not at all: no file is left that looks like a ratrace database;
# the next recorder into it removes the temporary the killed one left.
# test: needs=root,tracefs excl=instances budget=6
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 64
make_file "$MNT/f" 32
set -m	# the recorder and its workload in a process group of their own

# record_killed DB WHEN: ra-record of a cold read of $MNT/f into DB, its process
# group SIGKILLed while the workload runs (WHEN=workload) or WHEN ms after it
# ended (the store), then the killed recorder's tracefs instance removed by
# the next recorder
record_killed() {
	local db=$1 when=$2 rec
	rm -f "$TMP/ended"
	evict_cold
	if [ "$when" = workload ]; then
		ra-record -q -o "$db" -d "$LOOP_NAME" -- sh -c "dd if=$MNT/f of=/dev/null bs=4k 2>/dev/null; touch $TMP/ended; exec sleep 30" &
	else
		ra-record -q -o "$db" -d "$LOOP_NAME" -- sh -c "dd if=$MNT/f of=/dev/null bs=4k 2>/dev/null; touch $TMP/ended" &
	fi
	rec=$!
	on_exit "kill -KILL -- -$rec"
	for _ in $(seq 200); do [ -e "$TMP/ended" ] && break; sleep 0.01; done
	[ -e "$TMP/ended" ] || fail "the workload did not run"
	[ "$when" = workload ] || sleep "$(awk -v d="$when" 'BEGIN { print d / 1000 }')"
	kill -KILL -- -"$rec" 2>/dev/null || note "ra-record ended before the kill"
	wait "$rec" 2>/dev/null
	ra-record -q -o "$TMP/cleanup.db" -d "$LOOP_NAME" -- true || fail "the next recorder"
	rm -f "$TMP"/cleanup.db*
}

# how long the store takes, measured: from the workload's end to ra-record's
evict_cold
rm -f "$TMP/ended"
ra-record -q -o "$TMP/cal.db" -d "$LOOP_NAME" -- sh -c "dd if=$MNT/f of=/dev/null bs=4k 2>/dev/null; touch $TMP/ended" &
rec=$!
for _ in $(seq 200); do [ -e "$TMP/ended" ] && break; sleep 0.01; done
t0=$EPOCHREALTIME
wait "$rec" || fail "calibration recording"
store=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
note "the store took ${store} ms"

for when in workload $((store / 4)) $((store / 2)) $((store * 3 / 4)); do
	record_killed "$TMP/new.db" "$when"
	if [ -e "$TMP/new.db" ]; then
		check_eq "$(q "$TMP/new.db" 'PRAGMA integrity_check')" ok "killed at $when: the database is whole"
		check_eq "$(q "$TMP/new.db" 'SELECT COUNT(*) FROM runs WHERE complete = 1')" 1 \
			"killed at $when: the database holds the run"
		rm -f "$TMP"/new.db*
	else
		echo "ok: killed at $when: no database"
	fi
done
ra-record -q -o "$TMP/new.db" -d "$LOOP_NAME" -- true || fail "a recording into new.db"
check_eq "$(find "$TMP" -mindepth 1 -maxdepth 1 -name '.new.db.ratrace-new-*' | wc -l)" 0 "the temporaries of the killed recorders removed"
check_eq "$(q "$TMP/new.db" 'SELECT COUNT(*) FROM runs')" 1 "the new database holds its run"
