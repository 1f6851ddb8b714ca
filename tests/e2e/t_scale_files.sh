# Memory that does not grow with the files a run reads more than a small
# record each: tar reads 10,000 small files once, cold, under ra-record; the
# recorder and ra-analyze of the run stay under the bound of the events'
# (docs/performance.md), every file has its windows and its replay row, and
# the rows recorded are those of ra-analyze of a copy. The peak resident set
# is the kernel's count (getrusage of the children), not a time.
# test: needs=root,tracefs budget=10
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
need_root
need_tracefs
make_tmp
NFILES=10000
BOUND_MB=64
if [[ $RA_BIN == *-san* ]]; then	# AddressSanitizer's quarantine and shadow (t_scale_memory)
	BOUND_MB=128
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0
fi
make_loop 512
"$RA_TOP/bench/make_files.sh" "$MNT/d" "$NFILES" 8192 || fail "make the files"
sync

# peak_kb CMD...: the exit status and largest resident set (KiB) of CMD and its children
peak_kb() {
	python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
DB=$TMP/run.db
read -r rc kb < <(peak_kb ra-record -q -o "$DB" -d "$LOOP_NAME" "${COLD[@]}" -- \
	sh -c "tar cf - -C '$MNT' d | cat > /dev/null")
check_eq "$rc" 0 "ra-record"
check_eq "$(q "$DB" "SELECT lost_events FROM v_runs")" 0 "lost events"
note "ra-record of $NFILES files: peak $((kb / 1024)) MiB (the workload's tar and cat included)"
check_cmp "$kb" -le $((BOUND_MB * 1024)) "ra-record's peak resident set (KiB) within $BOUND_MB MiB"
# each file read once from its start: a window, and a row of the replay's check
check_eq "$(q "$DB" "SELECT COUNT(DISTINCT ino) FROM windows")" "$NFILES" "files with windows"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM replay_files")" "$NFILES" "files the replay compared"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM streams")" "$NFILES" "streams"

q "$DB" ".backup '$TMP/again.db'"
read -r rc kb < <(peak_kb ra-analyze -q "$TMP/again.db")
check_eq "$rc" 0 "ra-analyze of a copy"
note "ra-analyze: peak $((kb / 1024)) MiB"
check_cmp "$kb" -le $((BOUND_MB * 1024)) "ra-analyze's peak resident set (KiB) within $BOUND_MB MiB"
for t in windows streams replay_files replay_checks; do
	check_eq "$(q "$DB" "SELECT * FROM $t" | sort | md5sum)" \
		"$(q "$TMP/again.db" "SELECT * FROM $t" | sort | md5sum)" "$t as recorded against ra-analyze again"
done
