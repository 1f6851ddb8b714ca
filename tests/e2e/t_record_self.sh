# ra-record follows a run whose tasks come and go and whose database is on
# the traced file system: twenty short processes one after the other, two
# threads of one process, and the recorder's own threads writing the
# database and the ring buffers' spill on that file system, whose pages the
# workload makes leave the page cache. Checks that the
# recorder leaves out the events of all its threads (not only the one its
# pid filter names), that each task's process is the one the kernel says,
# and that the readahead pass and the replay followed the events as they
# were stored (the processes they were told as they asked held at the end).
# test: needs=root,tracefs budget=4
. "$(dirname "$0")/lib.sh"
need_tracefs
need_rawl
make_tmp
make_loop 64
make_file "$MNT/f" 8
kdev=$(loop_kdev)
DB=$MNT/run.db
# shellcheck disable=SC2016 # the $ are the inner sh's
# the spill too: 64 KiB of memory for the ring buffers' data, the rest in a file
RATRACE_LIVE_MEMORY_KB=64 rec -vv -o "$DB" --tmpdir "$MNT" -d "$LOOP_NAME" \
	--read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" -- sh -c '
	for i in $(seq 0 19); do
		dd if="$1" of=/dev/null bs=4k skip=$((i * 100)) count=100 status=none
	done
	for f in "${1%/*}"/.run.db*; do	# the database (at its temporary name) leaves the cache
		sync "$f" && dd if="$f" iflag=nocache count=0 status=none
	done
	"$2" threads "$1" > /dev/null' sh "$MNT/f" "$RAWL" 2> "$TMP/err"
rc=$?
cat "$TMP/err"
check_eq "$rc" 0 "ra-record exit status"
check_eq "$(q "$DB" "SELECT lost_events FROM v_runs")" 0 "lost events"

# The recorder's threads: their own I/O (the database, the spill) is not in
# the run; only what fires in their context for other tasks' I/O (block
# completions, page-cache deletions) may name them.
# (other recorders' plugs, which name no device, may be in it: tests run side by side)
own="SELECT pid FROM tasks WHERE pid = $REC_PID OR tgid = $REC_PID"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM page_events WHERE pid IN ($own) AND event_id != 11")" 0 \
	"page-cache events of the recorder's threads"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM ra_events WHERE pid IN ($own)")" 0 \
	"readahead events of the recorder's threads"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM blk_events WHERE pid IN ($own)
	AND event_id NOT IN (23, 30, 31, 33)")" 0 "block events of the recorder's threads"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM files WHERE path LIKE '%run.db%'")" 0 \
	"the database among the run's files"
# nor the pages of its files (the database, its log, the spill, temporary
# files) leaving the page cache, whoever makes them leave (the workload
# above, for the database). (Other files with no name may be in the run:
# the file system's own metadata, which a kernel thread drops.)
dbino=$(stat -c %i "$DB")
check_eq "$(q "$DB" "SELECT COUNT(*) FROM page_events WHERE dev = $kdev AND ino = $dbino")" 0 \
	"page-cache events of the database's file"

# The processes: each dd its own, rawl's two threads one (of the tasks that
# read the device: other tests' may be in the run too, by their plugs, which
# name no device)
check_eq "$(q "$DB" "SELECT COUNT(*), SUM(tgid = pid) FROM tasks WHERE comm = 'dd'
	AND pid IN (SELECT pid FROM page_events WHERE dev = $kdev)")" "20|20" \
	"the short processes, each its own"
mine="comm = 'rawl' AND pid IN (SELECT pid FROM page_events WHERE dev = $kdev)"
note "rawl's tasks (pid|tgid): $(q "$DB" "SELECT pid || '|' || tgid FROM tasks WHERE $mine" | tr '\n' ' ')"
# (its first task, which reads nothing, is in the run only when an event named it)
check_eq "$(q "$DB" "SELECT COUNT(*) >= 2, COUNT(DISTINCT tgid), MAX(tgid) <= MIN(pid) FROM tasks
	WHERE $mine")" "1|1|1" "rawl's threads, one process"

# Both passes followed the events as they were stored
check_grep "^readahead: followed as the events were stored" "$TMP/err" "the readahead pass followed"
if [ "$(q "$DB" "SELECT COUNT(*) FROM ra_events WHERE event_id = 3")" -gt 0 ]; then
	check_grep "^replay: followed as the events were stored" "$TMP/err" "the replay followed"
fi
check_eq "$(grep -c "events again" "$TMP/err")" 0 "no pass read the stored events again"

# and their rows are those of a read of the stored events after the run
cp "$DB" "$TMP/again.db"
RATRACE_DEVICE_TIME=end ra-analyze -q "$TMP/again.db" || fail "ra-analyze again"
for t in windows streams replay_files replay_checks requests window_io; do
	need_table "$DB" "$t"
	check_eq "$(q "$DB" "SELECT * FROM $t" | sort | md5sum)" \
		"$(q "$TMP/again.db" "SELECT * FROM $t" | sort | md5sum)" "$t as recorded and again"
done
