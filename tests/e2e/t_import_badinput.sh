# Bad input to ra-import: a clear one-line error naming the file (and for
# blktrace the offset), exit 2, and the database exactly as it was.
# test: budget=17
. "$(dirname "$0")/lib.sh"
make_tmp
cd "$TMP" || fail "cd"
DB=$TMP/keep.db
ra-import -q -o "$DB" --label base "$RA_FIXTURES/nvme-readahead.blktrace.0" || fail "base import"
before=$(q "$DB" .dump | sha256sum)

# expect_fail REGEX FILE...: exit 2, one line naming the problem, DB unchanged, no new DB
expect_fail() {
	local re=$1; shift
	ra-import -o "$DB" "$@" >out 2>err
	rc=$?
	[ $rc -eq 2 ] || fail "exit status $rc for: $*: $(cat err)"
	[ "$(wc -l < err)" -eq 1 ] || fail "not one line for: $*: $(cat err)"
	grep -qE -- "^ra-import: $re" err || fail "message for $*: $(cat err), expected /$re/"
	[ "$(q "$DB" .dump | sha256sum)" = "$before" ] || fail "database changed by: $*"
	ra-import -o "$TMP/new.db" "$@" 2>/dev/null && fail "succeeded into a new database: $*"
	[ -e "$TMP/new.db" ] && fail "a new database was left behind by: $*"
	echo "ok: $(cat err)"
}

expect_fail "'.*sched-only.trace.dat' holds none of the events ratrace uses" "$RA_FIXTURES/sched-only.trace.dat"
: > empty
expect_fail "'empty': empty file" empty
mkdir adir
expect_fail "'adir' is a directory" adir
expect_fail "cannot open 'missing.dat': No such file or directory" missing.dat
echo "just some text, nothing else" > text
expect_fail "'text': neither a trace.dat nor a blktrace file" text
# Damaged compressed metadata that still decompresses and passes the
# structural check: libtraceevent parses garbage formats and crashes (found by
# flipping bytes of seq128.dat). The import runs in a child process: its
# crash becomes the file's error, and the database stays as it was. (A
# sanitizer build would report the library's crash itself: it leaves the
# segmentation fault to the kernel here.)
damage_seq128() {
	python3 - "$RA_FIXTURES/seq128.dat" crash.dat "$1" <<'EOF' || fail "make crash.dat"
import sys
d = bytearray(open(sys.argv[1], "rb").read())
off, vals = sys.argv[3].split(":")
for i, v in enumerate(vals.split(",")):
    d[int(off) + i] = int(v)
open(sys.argv[2], "wb").write(d)
EOF
}
for c in "4079:34,106" "39369:52"; do
	damage_seq128 "$c"
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0 \
		expect_fail "'crash.dat': the import crashed reading it \(Segmentation fault\): corrupt input" crash.dat
done
# A database whose schema is damaged: SQLite quotes the damaged SQL, newlines
# and all; the message stays one line.
cp "$DB" damaged.db
rm -f damaged.db-wal damaged.db-shm
sqlite3 damaged.db "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql,
	'seq_last INTEGER', char(10) || '  seq_last INTEGER' || char(39)) WHERE name = 'blk_chunks'" ||
	fail "damage the schema"
ra-import -o damaged.db "$RA_FIXTURES/seq128.dat" >out 2>err
check_eq "$? $(wc -l < err)" "2 1" "damaged schema: exit status 2, one line"
check_grep "^ra-import: .*'damaged.db'.*malformed database schema \(blk_chunks\)" err \
	"damaged schema: the message"
# This one gave libtracecmd a format size that runs past the decompressed
# section: the check decompresses the section and says so.
damage_seq128 "32657:215,41,131,116,217,189"
expect_fail "'crash.dat': offset 2063: event formats section, decompressed, at 854541: event format of 3189764876423808069 bytes runs past the end of its event formats section$" crash.dat
# A version 6 latency trace (text, made by fuzzing a slice of a fixture):
# libtracecmd dereferences NULL when its events are iterated.
expect_fail "'.*crash-latency-v6.dat' holds a latency trace \(text\), not event records$" \
	"$RA_TOP/tests/fuzz/corpus/tracedat/crash-latency-v6.dat"
# A good file before a bad one: nothing of the good one stays either.
expect_fail "'empty': empty file" "$RA_FIXTURES/seq128.dat" empty

# trace.dat truncated at many offsets
dat=$RA_FIXTURES/seq128.dat
size=$(stat -c %s "$dat")
for off in 5 16 40 300 2000 60000 124466 600000 1136906 1139398 1139600 1200000 $((size - 100)) $((size - 1)); do
	head -c $off "$dat" > t.dat
	expect_fail "'t.dat'" t.dat
done

# blktrace truncated at many offsets: a cut between records leaves a shorter
# valid trace; any other cut is an error naming the offset
bt=$RA_FIXTURES/nvme-readahead.blktrace.0
bsize=$(stat -c %s "$bt")
for off in 1 20 47 48 49 100 1000 4817 50000 $((bsize / 2)) $((bsize - 1)); do
	head -c $off "$bt" > c.blktrace.0
	ra-import -o "$TMP/cut.db" c.blktrace.0 >out 2>err
	rc=$?
	case $rc in
	0)	n=$(q "$TMP/cut.db" "SELECT SUM(n) FROM v_event_counts")
		check_cmp "$n" -lt 6741 "cut at $off: a shorter trace" ;;
	2)	grep -qE "^ra-import: '(c.blktrace.0|c)'.*(offset [0-9]+|neither)" err ||
			fail "cut at $off: message lacks the file or offset: $(cat err)"
		[ -e "$TMP/cut.db" ] && fail "cut at $off: database left behind"
		echo "ok: cut at $off: $(cat err)" ;;
	*)	fail "cut at $off: exit status $rc: $(cat err)" ;;
	esac
	rm -f "$TMP"/cut.db*
done

# a corrupted magic in the second record, and a pdu_len running past the end
cp "$bt" m.blktrace.0
printf '\xff' | dd of=m.blktrace.0 bs=1 seek=$((48 + 4 * 0)) conv=notrunc status=none
first_pdu=$(od -An -tu2 -j 46 -N 2 "$bt" | tr -d ' ')
printf '\xff' | dd of=m.blktrace.0 bs=1 seek=$((48 + first_pdu)) conv=notrunc status=none
expect_fail "'m.blktrace.0': offset $((48 + first_pdu)): " m.blktrace.0
# the first record alone, its pdu_len made to run past the end of the file
head -c $((48 + first_pdu)) "$bt" > p.blktrace.0
printf '\xff\xff' | dd of=p.blktrace.0 bs=1 seek=46 conv=notrunc status=none
expect_fail "'p.blktrace.0': offset 0: .*pdu_len" p.blktrace.0

# Interrupted: SIGINT and SIGTERM to ra-import while it imports (the same
# trace 40 times): a database it created is removed, an existing one is as it
# was, and the exit status is 128 + the signal. (Job control: a background
# job of a script would ignore SIGINT, which ra-import respects.)
set -m
files=()
for i in $(seq 40); do files+=("$RA_FIXTURES/seq128.dat"); done
for sig in INT TERM; do
	rm -f new.db*
	ra-import -q --no-analyze -o new.db "${files[@]}" 2> err &
	pid=$!
	for _ in $(seq 50); do [ -e new.db ] && break; sleep 0.05; done
	sleep 0.3
	kill -$sig $pid
	wait $pid
	check_eq "$?" $((128 + $(kill -l $sig))) "SIG$sig: exit status"
	check_grep "^ra-import: interrupted; 'new.db' removed$" err "SIG$sig: message"
	[ -e new.db ] && fail "SIG$sig: new.db left"
	ra-import -q --no-analyze -o "$DB" "${files[@]}" 2> err &
	pid=$!
	sleep 0.5
	kill -$sig $pid
	wait $pid
	check_eq "$?" $((128 + $(kill -l $sig))) "SIG$sig, existing database: exit status"
	check_eq "$(q "$DB" .dump | sha256sum)" "$before" "SIG$sig: the existing database is as it was"
done
