# Memory that does not grow with the events: ra-import (with its analyses)
# and ra-analyze of a trace of a few million records stay under a bound that
# does not depend on the trace's size (docs/performance.md). The trace is
# made here, in a tracefs instance of the test's own: a cold read of a file
# (readahead windows, page-cache and block events), then cached reads of 64
# bytes each (one mm_filemap_get_pages per read) for the volume; trace-cmd
# extracts it (compressed, as trace-cmd writes it). The peak resident set is
# the kernel's count (getrusage of the children: the largest of ra-import's
# two processes), not a time.
# test: needs=root,tracefs budget=36
. "$(dirname "$0")/lib.sh"
command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
need_root
need_tracefs
make_tmp
BOUND_MB=64
# Under the sanitizers, AddressSanitizer keeps freed memory in a quarantine
# (256 MiB by default: 531 MiB of ra-import) and adds its shadow: without the
# quarantine ra-import takes 85 MiB there at 0.6 M and at 9.8 M records alike.
if [[ $RA_BIN == *-san* ]]; then
	BOUND_MB=128
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0
fi
T=/sys/kernel/tracing
I=$T/instances/ratrace-scale.$$
on_exit "rmdir '$I' 2>/dev/null"
mkdir "$I" || fail "make the tracefs instance"
echo 0 > "$I/tracing_on"
echo 131072 > "$I/buffer_size_kb"	# per CPU: room for every record
for s in readahead filemap block; do
	echo 1 > "$I/events/$s/enable" || fail "enable the $s events"
done
head -c 64M /dev/urandom > "$TMP/f" && sync "$TMP/f"
evict_files "$TMP/f"
echo 1 > "$I/tracing_on"
dd if="$TMP/f" of=/dev/null bs=1M status=none
dd if="$TMP/f" of=/dev/null bs=64 status=none
dd if="$TMP/f" of=/dev/null bs=64 status=none
echo 0 > "$I/tracing_on"
lost=$(cat "$I"/per_cpu/cpu*/stats | awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }')
"$RA_TOP/bench/tc_extract.sh" "$TMP/big.dat" "$(basename "$I")" > "$TMP/out" 2>&1 ||
	fail "trace-cmd extract: $(tail -3 "$TMP/out")"
rmdir "$I" 2>/dev/null
[ ! -d "$I" ] || fail "remove the tracefs instance"
check_eq "$lost" 0 "records the ring buffer lost"
note "trace: $(du -k "$TMP/big.dat" | cut -f1) KiB"

# peak_kb CMD...: the largest resident set of CMD and its children, in KiB
peak_kb() {
	python3 -c 'import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
read -r rc kb < <(peak_kb ra-import -q -o "$TMP/big.db" "$TMP/big.dat")
check_eq "$rc" 0 "ra-import"
n=$(q "$TMP/big.db" "SELECT COUNT(*) FROM page_events")
check_cmp "$n" -ge 2000000 "records stored"
note "ra-import of $n records with its analyses: peak $((kb / 1024)) MiB"
check_cmp "$kb" -le $((BOUND_MB * 1024)) "ra-import's peak resident set (KiB) within $BOUND_MB MiB"
read -r rc kb < <(peak_kb ra-analyze -q "$TMP/big.db")
check_eq "$rc" 0 "ra-analyze"
note "ra-analyze: peak $((kb / 1024)) MiB"
check_cmp "$kb" -le $((BOUND_MB * 1024)) "ra-analyze's peak resident set (KiB) within $BOUND_MB MiB"
check_eq "$(q "$TMP/big.db" "SELECT group_concat(pass || ':' || state, ' ') FROM
	(SELECT * FROM analyses WHERE pass IN ('readahead', 'block') ORDER BY pass)")" \
	"block:ok readahead:ok" "the passes over the events ran"
check_cmp "$(q "$TMP/big.db" "SELECT COUNT(*) FROM windows")" -ge 10 "readahead windows of the cold read"

# The store thread (the import decodes while it packs and stores the events
# before) gives what storing in one thread gives, and the readahead pass
# following the events as they are stored what a read of the stored events
# gives (ra-analyze, the windows' device time computed at the end rather
# than as they completed): every row of every table, the packed events' and
# the analyses', on this trace and on the fixtures. (big.db's rows are
# ra-analyze's, above.)
# tables_sum DB: a checksum of each table's rows, in their order
tables_sum() {
	q "$1" "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name" | while read -r t; do
		n=$(q "$1" "SELECT COUNT(*) FROM pragma_table_info('$t')")
		printf '%s %s\n' "$t" "$(sqlite3 -cmd '.mode quote' "$1" \
			"SELECT * FROM \"$t\" ORDER BY $(seq -s, 1 "$n")" | sha256sum | cut -c1-16)"
	done
}
RATRACE_PIPELINE=0 RATRACE_DEVICE_TIME=end ra-import -q -o "$TMP/one.db" "$TMP/big.dat" ||
	fail "ra-import in one thread"
if ! diff <(tables_sum "$TMP/big.db") <(tables_sum "$TMP/one.db") > "$TMP/diff"; then
	# the rows that differ, of the first table that does
	t=$(awk '/^[<>] / { print $2; exit }' "$TMP/diff")
	rows() { sqlite3 -cmd '.mode quote' "$1" "SELECT * FROM \"$t\" ORDER BY 1, 2, 3"; }
	note "$t, stored in two threads (<) and in one (>): $(diff <(rows "$TMP/big.db") \
		<(rows "$TMP/one.db") | head -n 12)"
	fail "the store thread changed tables: $(head -c 400 "$TMP/diff")"
fi
echo "ok: $(tables_sum "$TMP/one.db" | wc -l) tables alike, stored in one thread or two"
for f in seq128 mmapread par4thrash; do
	ra-import -q -o "$TMP/$f.2.db" "$RA_FIXTURES/$f.dat" || fail "import $f"
	RATRACE_PIPELINE=0 ra-import -q -o "$TMP/$f.1.db" "$RA_FIXTURES/$f.dat" ||
		fail "import $f in one thread"
	RATRACE_DEVICE_TIME=end ra-analyze -q "$TMP/$f.1.db" || fail "ra-analyze $f"
	check_eq "$(tables_sum "$TMP/$f.2.db")" "$(tables_sum "$TMP/$f.1.db")" \
		"$f: the same tables in one thread or two, analysed as stored or after"
done

# Progress on a terminal (script(1) gives the command one): events, rate,
# share and time left, redrawn in place (from the start: work this short
# draws nothing unless RATRACE_PROGRESS_DELAY_MS says so); none with -q,
# none to a file.
command -v script >/dev/null || skip "script (bsdutils) is not installed"
rm -f "$TMP/tty.db"*
script -qec "RATRACE_PROGRESS_DELAY_MS=0 ra-import -o '$TMP/tty.db' '$TMP/big.dat'" "$TMP/tty.log" > /dev/null 2>&1 ||
	fail "ra-import on a terminal"
tr '\r' '\n' < "$TMP/tty.log" > "$TMP/tty.lines"
check_grep "^ra-import: .*big\.dat: [0-9.]+ [kM]? ?events, [0-9.]+ [kM]?/s, [0-9]+%, [0-9]+ s left" \
	"$TMP/tty.lines" "ra-import shows the file's progress on a terminal"
# the readahead pass followed the import; a pass that reads the stored events shows its own
script -qec "RATRACE_PROGRESS_DELAY_MS=0 ra-analyze '$TMP/tty.db'" "$TMP/tty.log" > /dev/null 2>&1 || fail "ra-analyze on a terminal"
tr '\r' '\n' < "$TMP/tty.log" > "$TMP/tty.lines"
check_grep "^ra-analyze: readahead: [0-9.]+ [kM]? ?events, .*%, [0-9]+ s left" "$TMP/tty.lines" \
	"and each pass's"
rm -f "$TMP/tty.db"*
script -qec "ra-import -q -o '$TMP/tty.db' '$TMP/big.dat'" "$TMP/tty.log" > /dev/null 2>&1 ||
	fail "ra-import -q on a terminal"
# (script's own lines, "Script started ...", aside)
check_eq "$(grep -v '^Script ' "$TMP/tty.log" | tr -d '\r\n' | wc -c)" 0 "ra-import -q prints nothing"
rm -f "$TMP/tty.db"*
ra-import -o "$TMP/tty.db" "$TMP/big.dat" 2> "$TMP/err" || fail "ra-import to a file"
check_eq "$(tr -cd '\r' < "$TMP/err" | wc -c)" 0 "no progress when standard error is a file"
