# The readers (ra-report in every format, ra-compare) only read: on a
# database at rest, on one another program left in WAL mode, on one whose
# committed transactions are still in its -wal (a writer holding it open,
# then killed), and on that -wal without its -shm; in a writable directory,
# through a read-only bind mount, and as a user who cannot write the
# directory or the file. Each time no file appears beside the database, its
# bytes (and its -wal's) are unchanged, and every output equals the one read
# from a writable copy with the -wal checkpointed into it. Files that cannot
# be read are refused with the reason.
# test: needs=root budget=16
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "python3 is not installed"
make_tmp
OUT=$TMP/out
RW=$TMP/rw		# the files, writable
RO=$TMP/ro		# the same directory, mounted read-only
mkdir -p "$OUT" "$RW/rest" "$RW/legacy" "$RW/live" "$RW/walonly" "$RO"

header_mode() {	# DB: 1 rollback journal, 2 WAL (bytes 18 and 19 of the header)
	od -An -tu1 -j18 -N2 "$1" | tr -s ' ' | sed 's/^ //'
}

# run 1 "a" from par4thrash, at rest: a writer leaves rollback-journal mode
ra-import -q -o "$RW/rest/r.db" --label a "$RA_FIXTURES/par4thrash.dat" || fail "import"
check_eq "$(header_mode "$RW/rest/r.db")" "1 1" "a writer leaves the file in rollback-journal mode"
check_eq "$(ls -A "$RW/rest")" "r.db" "nothing beside it after the writer"
# the same file left in WAL mode by another program, with no -wal
cp "$RW/rest/r.db" "$RW/legacy/r.db"
sqlite3 "$RW/legacy/r.db" 'PRAGMA journal_mode = WAL' > /dev/null
check_eq "$(header_mode "$RW/legacy/r.db")" "2 2" "the other program left WAL mode"
check_eq "$(ls -A "$RW/legacy")" "r.db" "and no -wal"

# run 2 "b" committed into the -wal of a file that a reader holds open (a
# snapshot from before it, so nothing can be checkpointed or switched back)
cp "$RW/rest/r.db" "$RW/live/r.db"
python3 - "$RW/live/r.db" > "$TMP/holder" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA journal_mode = WAL")
c.execute("BEGIN")
c.execute("SELECT COUNT(*) FROM runs").fetchone()
print("holding", flush=True)
time.sleep(600)
PY
holder=$!
on_exit "kill -9 $holder"
for i in $(seq 100); do grep -q holding "$TMP/holder" && break; sleep 0.1; done
check_grep holding "$TMP/holder" "a program holds the database open"
ra-import -q -o "$RW/live/r.db" --label b "$RA_FIXTURES/seq128.dat" || fail "import into the held file"
check_eq "$(find "$RW/live" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tr '\n' ' ')" "r.db r.db-shm r.db-wal " "the held file keeps its -wal and -shm"
check_eq "$(python3 -c 'import sqlite3, sys; print(sqlite3.connect("file:" + sys.argv[1] + "?immutable=1", uri=True).execute("SELECT COUNT(*) FROM runs").fetchone()[0])' "$RW/live/r.db")" 1 \
	"run 2 is in the -wal only (the main file alone has one run)"

# the reference: a writable copy with the -wal checkpointed into it
mkdir -p "$TMP/ref"
cp "$RW/live/r.db" "$RW/live/r.db-wal" "$TMP/ref/"
check_eq "$(sqlite3 "$TMP/ref/r.db" 'PRAGMA journal_mode = DELETE; SELECT COUNT(*) FROM runs;' | tail -1)" 2 \
	"the reference holds both runs"

# Every output of the readers for DB into $OUT/NAME.*
read_all() {	# DB NAME
	local db=$1 n=$2 f
	ra-report "$db" > "$OUT/$n.list" 2> "$OUT/$n.list.err" || fail "$n: ra-report: $(cat "$OUT/$n.list.err")"
	for r in 1 2; do
		ra-report --run $r "$db" > "$OUT/$n.text$r" 2> "$OUT/$n.err" || fail "$n: ra-report --run $r: $(cat "$OUT/$n.err")"
		ra-report --run $r --json "$db" > "$OUT/$n.json$r" 2> "$OUT/$n.err" || fail "$n: --json: $(cat "$OUT/$n.err")"
		ra-report --run $r --html "$OUT/$n.html$r" "$db" 2> "$OUT/$n.err" || fail "$n: --html: $(cat "$OUT/$n.err")"
	done
	ra-report --label b --json "$db" > "$OUT/$n.label" 2> "$OUT/$n.err" || fail "$n: --label: $(cat "$OUT/$n.err")"
	for f in text json csv markdown; do
		ra-compare --inconclusive pass -f $f "$db:a" "$db:b" > "$OUT/$n.cmp.$f" 2> "$OUT/$n.err" ||
			fail "$n: ra-compare -f $f: $(cat "$OUT/$n.err")"
	done
}

# DIR NAME WHAT: read DIR/r.db; nothing new in DIR, no byte of the database
# or its -wal changed (the -shm is SQLite's shared memory, where every reader
# of a WAL file marks what it reads), outputs equal to the reference's
data_sums() {	# DIR
	(cd "$1" && if [ -e r.db-wal ]; then sha256sum r.db r.db-wal; else sha256sum r.db; fi)
}
read=read_all ref=ref
outputs="list text1 text2 json1 json2 html1 html2 label cmp.text cmp.json cmp.csv cmp.markdown"
check_reader() {
	local dir=$1 n=$2 what=$3 before sums f
	before=$(ls -A "$dir")
	sums=$(data_sums "$dir")
	$read "$dir/r.db" "$n"
	check_eq "$(find "$dir" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tr '\n' ' ')" "$(echo "$before" | tr '\n' ' ')" "$what: no file made beside it"
	check_eq "$(data_sums "$dir")" "$sums" "$what: its bytes unchanged"
	for f in $outputs; do
		cmp -s "$OUT/$ref.$f" "$OUT/$n.$f" ||
			fail "$what: $f differs from the reference: $(diff "$OUT/ref.$f" "$OUT/$n.$f" | head -5)"
	done
	echo "ok: $what: every output equals the reference"
}

read_all "$TMP/ref/r.db" ref
check_eq "$(grep -c '^ *[12]  [ab] ' "$OUT/ref.list")" 2 "the reference lists both runs"
check_grep '"label": "b"' "$OUT/ref.json2" "the reference's run 2 is the one from the -wal"

# the held file, through the writable path and through a read-only mount of it
mount --bind "$RW" "$RO" || fail "bind mount"
on_exit umount "$RO"
mount -o remount,bind,ro "$RO" || fail "remount read-only"
touch "$RO/x" 2> /dev/null && fail "the bind mount is writable"
check_reader "$RW/live" live "held open by a program, writable directory"
check_reader "$RO/live" live-ro "held open by a program, read-only mount"

# the program killed before any checkpoint: its -wal and a stale -shm stay
kill -9 $holder
wait $holder 2> /dev/null
check_eq "$(find "$RW/live" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tr '\n' ' ')" "r.db r.db-shm r.db-wal " "the killed program left -wal and -shm"
check_reader "$RO/live" killed-ro "killed before a checkpoint, read-only mount"
check_reader "$RW/live" killed "killed before a checkpoint, writable directory"

# the -wal without its -shm
cp "$RW/live/r.db" "$RW/live/r.db-wal" "$RW/walonly/"
check_reader "$RO/walonly" walonly-ro "a -wal without -shm, read-only mount"
check_reader "$RW/walonly" walonly "a -wal without -shm, writable directory"

# the files of one run, at rest and left in WAL mode, against a writable
# copy of the one at rest
read_one() {	# DB NAME
	local db=$1 n=$2 f
	ra-report "$db" > "$OUT/$n.text1" 2> "$OUT/$n.err" || fail "$n: ra-report: $(cat "$OUT/$n.err")"
	ra-report --json "$db" > "$OUT/$n.json1" 2> "$OUT/$n.err" || fail "$n: --json: $(cat "$OUT/$n.err")"
	ra-report --html "$OUT/$n.html1" "$db" 2> "$OUT/$n.err" || fail "$n: --html: $(cat "$OUT/$n.err")"
	for f in text json csv markdown; do
		ra-compare --inconclusive pass -f $f "$db:a" "$db:a" > "$OUT/$n.cmp.$f" 2> "$OUT/$n.err" ||
			fail "$n: ra-compare -f $f: $(cat "$OUT/$n.err")"
	done
}
mkdir -p "$TMP/ref1"
cp "$RW/rest/r.db" "$TMP/ref1/"
read_one "$TMP/ref1/r.db" ref1
read=read_one ref=ref1 outputs="text1 json1 html1 cmp.text cmp.json cmp.csv cmp.markdown"
check_reader "$RW/rest" rest "at rest, writable directory"
check_reader "$RO/rest" rest-ro "at rest, read-only mount"
check_reader "$RW/legacy" legacy "left in WAL mode, writable directory"
check_reader "$RO/legacy" legacy-ro "left in WAL mode, read-only mount"

# a user who cannot write the directory or the file
nobody=65534
chmod 755 "$TMP" "$RW" "$RW"/*
chmod 644 "$RW"/*/*
for f in rest legacy walonly; do
	before=$(ls -A "$RW/$f")
	case $f in walonly) r=2 ref=ref.text2 ;; *) r=1 ref=ref1.text1 ;; esac
	setpriv --reuid=$nobody --regid=$nobody --clear-groups ra-report --run $r "$RW/$f/r.db" \
		> "$OUT/nobody.$f" 2> "$TMP/err" || fail "$f: as a user who cannot write it: $(cat "$TMP/err")"
	cmp -s "$OUT/$ref" "$OUT/nobody.$f" ||
		fail "$f: as a user who cannot write it: differs: $(diff "$OUT/$ref" "$OUT/nobody.$f" | head -5)"
	check_eq "$(ls -A "$RW/$f")" "$before" "$f: read as a user who cannot write it, nothing made beside it"
done

# files that cannot be read: the reason, not "not a ratrace database"
cp "$RW/rest/r.db" "$RW/rest/secret.db"
chmod 600 "$RW/rest/secret.db"
setpriv --reuid=$nobody --regid=$nobody --clear-groups ra-report "$RW/rest/secret.db" > /dev/null 2> "$TMP/err"
check_eq "$?" 2 "unreadable: exit status"
check_eq "$(cat "$TMP/err")" "ra-report: cannot open '$RW/rest/secret.db': Permission denied" "unreadable: the cause"
setpriv --reuid=$nobody --regid=$nobody --clear-groups ra-compare "$RW/rest/secret.db" "$RW/rest/r.db" > /dev/null 2> "$TMP/err"
check_eq "$?" 2 "ra-compare, unreadable: exit status"
check_eq "$(cat "$TMP/err")" "ra-compare: cannot open '$RW/rest/secret.db': Permission denied" "ra-compare, unreadable: the cause"
echo "not a database, but long enough to have a header of one" > "$RW/rest/text.db"
ra-report "$RW/rest/text.db" 2> "$TMP/err"
check_eq "$(cat "$TMP/err")" "ra-report: '$RW/rest/text.db' is not a ratrace database (file is not a database)" "a text file"
head -c 8192 "$RW/rest/r.db" > "$RW/rest/cut.db"
ra-report "$RW/rest/cut.db" 2> "$TMP/err"
check_eq "$?" 2 "a cut database: exit status"
check_grep "^ra-report: cannot read '$RW/rest/cut.db': database disk image is malformed$" "$TMP/err" "a cut database: the cause"

# a writer after all this switches the file back to rollback-journal mode
ra-import -q -o "$RW/legacy/r.db" --label c "$RA_FIXTURES/seq128.dat" || fail "import into the WAL file"
check_eq "$(header_mode "$RW/legacy/r.db")" "1 1" "the next writer leaves rollback-journal mode"
check_eq "$(ls -A "$RW/legacy")" "r.db" "and nothing beside the file"

# readers while a writer imports into the same file, left in WAL mode by
# another program before: every read succeeds and reads run 1 whole (a
# writer that begins waits for a reader without locks, as for any lock)
cp "$RW/rest/r.db" "$TMP/busy.db"
sqlite3 "$TMP/busy.db" 'PRAGMA journal_mode = WAL' > /dev/null
ra-report --run 1 --json "$TMP/busy.db" > "$OUT/busy.want" || fail "busy: first read"
(
	for i in $(seq 30); do
		ra-report --run 1 --json "$TMP/busy.db" > "$OUT/busy.got" 2> "$OUT/busy.err" ||
			{ echo "read $i: $(cat "$OUT/busy.err")"; exit 1; }
		python3 -c '
import json, sys
want, got = (json.load(open(f))["runs"][0] for f in sys.argv[1:3])
assert got["readahead_stats"] == want["readahead_stats"] and got["run"] == want["run"]
' "$OUT/busy.want" "$OUT/busy.got" || { echo "read $i: run 1 is not whole"; exit 1; }
	done
) > "$OUT/busy.readers" 2>&1 &
readers=$!
on_exit "kill $readers"
for l in w1 w2 w3; do
	ra-import -q -o "$TMP/busy.db" --label $l "$RA_FIXTURES/seq128.dat" || fail "import $l beside the readers"
done
wait $readers || fail "readers beside a writer: $(cat "$OUT/busy.readers")"
echo "ok: 30 reads beside the writer, each of run 1 whole"
check_eq "$(sqlite3 "$TMP/busy.db" 'SELECT COUNT(*) FROM runs')" 4 "the writer's runs are all there"
