# Memory that does not grow with the files a run reads: tar reads 40,000
# small files once, cold, under ra-record; the recorder and ra-analyze of the
# run stay under the bound of the events' (docs/performance.md), and
# ra-analyze under a resident target of 32 MiB within it, the records of
# files and tasks beyond it in a temporary file (lib/bigmem.c). Every file
# has its windows and its replay row, and the rows recorded are those of
# ra-analyze of a copy, with every such record in memory, or with every one
# in the file and its pages dropped from memory at every check. The peak
# resident set is the kernel's count (getrusage of the children), not a time.
# Every temporary file of the recorder is in its --tmpdir, none in $TMPDIR.
# test: needs=root,tracefs budget=36
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
need_root
need_tracefs
make_tmp
NFILES=40000
BOUND_MB=64
TARGET_MB=32	# ra-analyze's resident target; its own memory is about 24 MiB
if [[ $RA_BIN == *-san* ]]; then	# AddressSanitizer's quarantine and shadow (t_scale_memory)
	BOUND_MB=128
	TARGET_MB=
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0
fi
make_loop 1024	# 65,536 inodes
"$RA_TOP/bench/make_files.sh" "$MNT/d" "$NFILES" 4096 || fail "make the files"
sync

# peak_kb CMD...: the exit status and largest resident set (KiB) of CMD and its children
peak_kb() {
	python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
DB=$TMP/run.db
# every temporary file of the recorder in --tmpdir, none in $TMPDIR: the
# workload's last act lists what the recorder (its parent) has open and mapped
mkdir "$TMP/spill" "$TMP/env"
read -r rc kb < <(TMPDIR=$TMP/env peak_kb ra-record -q -o "$DB" -d "$LOOP_NAME" "${COLD[@]}" \
	--tmpdir "$TMP/spill" -- sh -c "tar cf - -C '$MNT' d | cat > /dev/null &&
		cat /proc/\$PPID/maps > '$TMP/maps' && { ls -l /proc/\$PPID/fd > '$TMP/fds' 2> /dev/null; true; }")
check_eq "$rc" 0 "ra-record"
check_grep "$TMP/spill/.* \(deleted\)" "$TMP/maps" "records of files and tasks mapped from a file in --tmpdir"
check_eq "$(grep -h "$TMP/env/" "$TMP/maps" "$TMP/fds")" "" "files open or mapped in \$TMPDIR"
check_eq "$(q "$DB" "SELECT lost_events FROM v_runs")" 0 "lost events"
note "ra-record of $NFILES files: peak $((kb / 1024)) MiB (the workload's tar and cat included)"
check_cmp "$kb" -le $((BOUND_MB * 1024)) "ra-record's peak resident set (KiB) within $BOUND_MB MiB"
# each file read once from its start: a window, and a row of the replay's check
check_eq "$(q "$DB" "SELECT COUNT(DISTINCT ino) FROM windows")" "$NFILES" "files with windows"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM replay_files")" "$NFILES" "files the replay compared"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM streams")" "$NFILES" "streams"

q "$DB" ".backup '$TMP/again.db'"
# under the sanitizers, the bound's; else a resident target of TARGET_MB
read -r rc kb < <(RATRACE_RSS_KB=$((${TARGET_MB:-$BOUND_MB} * 1024)) peak_kb ra-analyze -q "$TMP/again.db")
check_eq "$rc" 0 "ra-analyze of a copy"
note "ra-analyze, a resident target of ${TARGET_MB:-$BOUND_MB} MiB: peak $((kb / 1024)) MiB"
check_cmp "$kb" -le $((BOUND_MB * 1024)) "ra-analyze's peak resident set (KiB) within $BOUND_MB MiB"
# the target, and what a check lets come in between
[ -z "$TARGET_MB" ] ||
	check_cmp "$kb" -le $(((TARGET_MB + 4) * 1024)) "ra-analyze's peak resident set (KiB) near its target"
# every record of files and tasks in memory; every one in the file, dropped at every check
q "$DB" ".backup '$TMP/mem.db'"
RATRACE_BIG_ANON_KB=16777216 ra-analyze -q "$TMP/mem.db" || fail "ra-analyze, all in memory"
q "$DB" ".backup '$TMP/file.db'"
RATRACE_BIG_ANON_KB=0 RATRACE_RSS_KB=1 RATRACE_BIG_FLOOR_KB=0 ra-analyze -v "$TMP/file.db" \
	2> "$TMP/file.err" || fail "ra-analyze, all in the file: $(tail -3 "$TMP/file.err")"
check_grep "records of files and tasks: [0-9.]+ MiB at most in a temporary file, its pages dropped from memory [0-9]+ times" \
	"$TMP/file.err" "the records were in the file, and left memory"
for t in windows streams replay_files replay_checks files window_io requests device_latency \
	latency_hist model_facts model_samples; do
	need_table "$DB" "$t"
	check_cmp "$(q "$DB" "SELECT COUNT(*) FROM $t")" -gt 0 "rows of $t"
	want=$(q "$DB" "SELECT * FROM $t" | sort | md5sum)
	for db in again mem file; do
		check_eq "$(q "$TMP/$db.db" "SELECT * FROM $t" | sort | md5sum)" "$want" \
			"$t as recorded against ra-analyze again ($db)"
	done
done
