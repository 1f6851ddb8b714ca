#!/bin/bash
# ra-push to a PostgreSQL server of the test's own (docs/fleet.md):
# - pushing twice, or twice at once, stores each run once: every table's
#   rows and checksum, and the run ids, are what one push left;
# - where each run came from (host, file, its id there) is recorded;
# - a push killed (SIGKILL) while its run's events are being stored leaves
#   no part of that run, and the next push stores it whole;
# - a database whose labels, paths, task names, kernel, host and parameters
#   hold quotes, SQL, control characters and bytes that are not UTF-8 is
#   stored as data: the same bytes on the server, its tables intact, and its
#   report the same from both;
# - the schema is upgraded from an older version by a push, a newer one and
#   a database that is not SQL_ASCII with collation C are refused;
# - a role granted with --grant reads and reports, and can write nothing;
# - the connection comes from the URL, the PG* environment and a password
#   file, sslmode is honoured, and no message shows a password.
# Ground truth: the SQLite files, the strings the test wrote into them.
# test: needs=postgres cpu=1 budget=16
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
make_tmp
start_pg tcp

(cd "$RA_FIXTURES" && ra-import -q -o "$TMP/imp.db" seq128.dat mmapread.dat par4thrash.dat \
	nvme-readahead.blktrace.0) 2> "$TMP/err" || fail "import the fixtures: $(cat "$TMP/err")"
pg_createdb fleet
URL=$(pg_url fleet)

# every table of the schema: its rows and a checksum of them, and the run ids given
state() {
	pg_sql fleet -c "SELECT 'runs_seq ' || last_value FROM ratrace.runs_run_id_seq"
	pg_sql fleet -c "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'ratrace' AND c.relkind IN ('r', 'p') AND c.relname != 'pushes'
		ORDER BY 1" | while read -r t; do
		pg_sql fleet -c "SELECT '$t ' || COUNT(*) || ' ' || COALESCE(md5(string_agg(x::text,
			E'\n' ORDER BY x::text)), '-') FROM ratrace.\"$t\" x"
	done
}

ra-push "$TMP/imp.db" "$URL" 2> "$TMP/push1" || fail "push: $(cat "$TMP/push1")"
check_grep "4 run\(s\) pushed" "$TMP/push1" "the first push stores the 4 runs"
state > "$TMP/state1"
ra-push "$TMP/imp.db" "$URL" 2> "$TMP/push2" || fail "push again: $(cat "$TMP/push2")"
check_grep "0 run\(s\) pushed .* 4 there already" "$TMP/push2" "the second push stores none"
state > "$TMP/state2"
cmp -s "$TMP/state1" "$TMP/state2" || fail "a second push changed the server: $(diff "$TMP/state1" "$TMP/state2" | head)"
echo "ok: pushing twice changes nothing ($(wc -l < "$TMP/state1") tables: rows and checksums)"
# twice at once: each run is stored by one of them
cp "$TMP/imp.db" "$TMP/imp2.db"
pg_createdb twice
ra-push -q "$TMP/imp.db" "$(pg_url twice)" 2> "$TMP/a" & a=$!
ra-push -q "$TMP/imp2.db" "$(pg_url twice)" 2> "$TMP/b" & b=$!
wait $a || fail "a push beside another: $(cat "$TMP/a")"
wait $b || fail "a push beside another: $(cat "$TMP/b")"
check_eq "$(pg_sql twice -c 'SELECT COUNT(*) FROM ratrace.runs')" 4 "two pushes at once store each run once"
check_eq "$(pg_sql fleet -c "SELECT COUNT(DISTINCT source_host) || ' ' || MIN(source_file) || ' '
	|| string_agg(source_run_id::text, ',' ORDER BY run_id) FROM ratrace.pushes")" \
	"1 $TMP/imp.db 1,2,3,4" "pushes: the host, the file and the run's id there"

# killed while its events are stored: a run of 20 times the page events of run 3
cp "$TMP/imp.db" "$TMP/big.db"
cols=$(sqlite3 "$TMP/big.db" "SELECT group_concat(CASE name WHEN 'seq_first' THEN 'seq_first + k * 1000000'
	WHEN 'seq_last' THEN 'seq_last + k * 1000000' ELSE name END, ', ')
	FROM pragma_table_info('page_chunks')")
sqlite3 "$TMP/big.db" "WITH RECURSIVE s(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM s WHERE k < 19)
	INSERT INTO page_chunks SELECT $cols FROM page_chunks, s WHERE run_id = 3;
	UPDATE runs SET seq_last = (SELECT MAX(seq_last) FROM page_chunks) WHERE run_id = 3" ||
	fail "make the big run"
events=$(sqlite3 "$TMP/big.db" "SELECT SUM(n) FROM page_chunks WHERE run_id = 3")
pg_createdb kill
KURL=$(pg_url kill)
ra-push -q -r 1 "$TMP/big.db" "$KURL" || fail "push run 1 (the schema)"
# another session holds the block events' table: the push waits there, its
# ra and page events stored in its transaction
mkfifo "$TMP/locker"
psql -X -q -At -h "$PG_DIR" -p "$PG_PORT" -U ratrace -d kill < "$TMP/locker" > /dev/null 2>&1 &
locker=$!
exec 7> "$TMP/locker"
on_exit "kill $locker"
echo "BEGIN; LOCK TABLE ratrace.blk_chunks IN ACCESS EXCLUSIVE MODE;" >&7
for i in $(seq 100); do
	[ "$(pg_sql kill -c "SELECT COUNT(*) FROM pg_locks WHERE relation = 'ratrace.blk_chunks'::regclass
		AND granted AND mode = 'AccessExclusiveLock'")" = 1 ] && break
	sleep 0.1
done
ra-push -q --events -r 3 "$TMP/big.db" "$KURL" 2> "$TMP/killed" & pusher=$!
for i in $(seq 200); do
	waiting=$(pg_sql kill -c "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'ratrace'
		AND wait_event_type = 'Lock' AND query LIKE '%ratrace.\"blk_chunks\"%'")
	[ "$waiting" = 1 ] && break
	sleep 0.1
done
check_eq "$waiting" 1 "the push waits at its block events, its other events stored"
kill -KILL $pusher
wait $pusher 2>/dev/null
echo "ROLLBACK;" >&7
exec 7>&-
wait $locker
for i in $(seq 100); do
	[ "$(pg_sql kill -c "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'ratrace'")" = 0 ] &&
		break
	sleep 0.1
done
check_eq "$(pg_sql kill -c "SELECT COUNT(*) FROM ratrace.runs")" 1 "the killed push left no run"
check_eq "$(pg_sql kill -c "SELECT COUNT(*) FROM pg_class WHERE relname ~ '_chunks_r'")" 0 \
	"the killed push left no table of events"
check_eq "$(pg_sql kill -c "SELECT COUNT(*) FROM ratrace.windows WHERE run_id <> 1")" 0 \
	"the killed push left no row of its run"
ra-push -q --events -r 3 "$TMP/big.db" "$KURL" 2> "$TMP/again" || fail "push again: $(cat "$TMP/again")"
check_eq "$(pg_sql kill -c "SELECT SUM(n) FROM ratrace.page_chunks WHERE run_id =
	(SELECT run_id FROM ratrace.pushes WHERE source_run_id = 3)")" "$events" \
	"the next push stores the run whole ($events page events)"

# a hostile database: strings that are SQL, quotes, control characters, bytes
hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }
cp "$TMP/imp.db" "$TMP/hostile.db"
L=$'x\'); DROP TABLE ratrace.runs; --\n\t\e[31m\xff\xfe'
P=$'\'; DELETE FROM ratrace.pushes; SELECT \'|,"\\'
F=$'$(rm -rf /)\n\xe2\x80\xaeevil\x01'
C=$'"; TRUNCATE ratrace.windows CASCADE; --'
K=$'6.1\'; DROP SCHEMA ratrace CASCADE; --'
H=$'h\'ost\x7f'
V=$'\' OR 1=1 --'
sqlite3 "$TMP/hostile.db" "UPDATE runs SET label = CAST(X'$(hex "$L")' AS TEXT),
	origin_path = CAST(X'$(hex "$P")' AS TEXT), kernel = CAST(X'$(hex "$K")' AS TEXT),
	hostname = CAST(X'$(hex "$H")' AS TEXT) WHERE run_id = 2;
	UPDATE files SET path = CAST(X'$(hex "$F")' AS TEXT) WHERE run_id = 2;
	UPDATE tasks SET comm = CAST(X'$(hex "$C")' AS TEXT) WHERE run_id = 2;
	INSERT INTO run_params VALUES (2, CAST(X'$(hex "$V")' AS TEXT), '', CAST(X'$(hex "$L")' AS TEXT))" ||
	fail "make the hostile database"
pg_createdb hostile
HURL=$(pg_url hostile)
ra-push -q "$TMP/hostile.db" "$HURL" 2> "$TMP/err" || fail "push the hostile database: $(cat "$TMP/err")"
for c in runs.label runs.origin_path runs.kernel runs.hostname files.path tasks.comm \
	run_params.name run_params.value; do
	t=${c%.*} col=${c#*.}
	file=$(sqlite3 "$TMP/hostile.db" "SELECT lower(group_concat(hex($col), ',')) FROM
		(SELECT $col FROM $t WHERE run_id = 2 ORDER BY 1)")
	server=$(pg_sql hostile -c "SELECT string_agg(encode(convert_to($col, 'SQL_ASCII'), 'hex'), ',' ORDER BY $col)
		FROM ratrace.$t WHERE run_id = 2")
	[ "$file" = "$server" ] || fail "$c is not the same bytes on the server: '$file' '$server'"
done
echo "ok: the hostile strings are on the server, byte for byte"
check_eq "$(pg_sql hostile -c "SELECT (SELECT COUNT(*) FROM ratrace.runs) || ' '
	|| (SELECT COUNT(*) FROM ratrace.pushes) || ' ' || (SELECT COUNT(*) FROM ratrace.windows)")" \
	"4 4 $(sqlite3 "$TMP/hostile.db" "SELECT COUNT(*) FROM windows")" "the tables are intact"
for form in "" --json --markdown; do
	ra-report --run 2 $form "$TMP/hostile.db" > "$TMP/h.sqlite" 2>&1
	ra-report --run 2 $form "$HURL" > "$TMP/h.pg" 2>&1
	cmp -s "$TMP/h.sqlite" "$TMP/h.pg" || fail "the hostile run's report $form differs on the server"
done
echo "ok: the hostile run's report is the same from the server"

# the schema: made by a push of this version, upgraded from an older, a newer refused
REV=$(sed -n 's/^#define RA_PG_REVISION \([0-9]*\).*/\1/p' "$(dirname "$0")/../../lib/pg_local.h")
pg_sql fleet -c "ALTER TABLE ratrace.self_checks DROP COLUMN message; DROP TABLE ratrace.setting_changes;
	UPDATE ratrace.schema_info SET value = '9' WHERE key = 'tables'"
ra-report --run 1 "$URL" > "$TMP/old" 2>&1 && fail "a report of an older schema"
check_grep "schema version 9\.$REV; a push of this ratrace upgrades it" "$TMP/old" "an older schema: refused, said"
ra-push -q "$TMP/imp.db" "$URL" 2> "$TMP/err" || fail "push to an older schema: $(cat "$TMP/err")"
check_eq "$(pg_sql fleet -c "SELECT (SELECT value FROM ratrace.schema_info WHERE key = 'tables') || ' '
	|| (SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = 'ratrace'
	AND table_name IN ('setting_changes', 'self_checks') AND column_name IN ('message', 'ts_ns'))")" \
	"$(sed -n 's/^#define RA_SCHEMA_VERSION \([0-9]*\)$/\1/p' "$(dirname "$0")/../../include/ra_db.h") 2" \
	"the push upgraded it: the table and the column are back"
ra-report --run 1 "$URL" > /dev/null || fail "a report after the upgrade"
pg_sql fleet -c "UPDATE ratrace.schema_info SET value = '99' WHERE key = 'revision'"
ra-report --run 1 "$URL" > "$TMP/new" 2>&1 && fail "a report of a newer schema"
ra-push -q "$TMP/imp.db" "$URL" >> "$TMP/new" 2>&1 && fail "a push to a newer schema"
check_eq "$(grep -c "newer than this ratrace" "$TMP/new")" 2 "a newer schema: refused by report and push"
# revision 1 had no events' views: a push of this one makes them
pg_sql fleet -c "UPDATE ratrace.schema_info SET value = '1' WHERE key = 'revision';
	DROP VIEW ratrace.page_events"
ra-push -q "$TMP/imp.db" "$URL" 2> "$TMP/err" || fail "push to revision 1: $(cat "$TMP/err")"
check_eq "$(pg_sql fleet -c "SELECT (SELECT value FROM ratrace.schema_info WHERE key = 'revision')
	|| ' ' || (SELECT COUNT(*) FROM information_schema.views WHERE table_schema = 'ratrace'
	AND table_name = 'page_events')")" "$REV 1" "a push upgraded revision 1: the events' views made"
pg_sql postgres -c "CREATE DATABASE utf ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0"
ra-push -q "$TMP/imp.db" "$(pg_url utf)" > "$TMP/utf" 2>&1
check_eq "$?" 2 "a UTF8 database: refused"
check_grep "ENCODING 'SQL_ASCII'" "$TMP/utf" "a UTF8 database: how to make one said"

# a role that reads
pg_sql fleet -c "CREATE ROLE reader LOGIN; CREATE ROLE pwuser LOGIN PASSWORD 's3cret-Pw'"
ra-push -q --grant reader --grant pwuser "$TMP/imp.db" "$URL" || fail "push --grant"
RURL=$(pg_url fleet reader)
ra-report --run 1 "$TMP/imp.db" > "$TMP/r.sqlite"
ra-report --run 1 "$RURL" > "$TMP/r.pg" || fail "the reader cannot report"
cmp -s "$TMP/r.sqlite" "$TMP/r.pg" || fail "the reader's report differs"
ra-compare -f json --incomplete judge "$TMP/imp.db" "$TMP/imp.db" > "$TMP/c.sqlite" 2>&1
ra-compare -f json --incomplete judge "$RURL" "$RURL" 2>&1 | sed "s#$RURL#$TMP/imp.db#g" > "$TMP/c.pg"
cmp -s "$TMP/c.sqlite" "$TMP/c.pg" || fail "the reader's comparison differs: $(head -3 "$TMP/c.pg")"
echo "ok: a role granted with --grant reports and compares"
for sql in "INSERT INTO ratrace.runs (origin) VALUES ('x')" "DELETE FROM ratrace.windows" \
	"UPDATE ratrace.runs SET label = 'x'" "CREATE TABLE ratrace.x (a int)" "DROP VIEW ratrace.v_runs"; do
	if psql -X -q -h "$PG_DIR" -p "$PG_PORT" -U reader -d fleet -c "$sql" > "$TMP/w" 2>&1; then
		fail "the reader may write: $sql"
	fi
done
echo "ok: the reader can write nothing (insert, delete, update, create, drop)"
state > "$TMP/state3"
if ra-push "$TMP/hostile.db" "$RURL" > "$TMP/w" 2>&1; then
	fail "the reader could push"
fi
state > "$TMP/state4"
cmp -s "$TMP/state3" "$TMP/state4" || fail "the reader's push changed the server"
echo "ok: a push as the reader fails and changes nothing"

# the connection: PG* environment, a password file, sslmode; never a password shown
PGHOST=$PG_DIR PGPORT=$PG_PORT PGUSER=reader ra-report --run 1 postgresql:///fleet > "$TMP/env" ||
	fail "the PG* environment"
cmp -s "$TMP/r.sqlite" "$TMP/env" || fail "the report by the PG* environment differs"
mkdir "$TMP/home"
printf '*:*:*:pwuser:s3cret-Pw\n' > "$TMP/home/.pgpass"
chmod 600 "$TMP/home/.pgpass"
HOME=$TMP/home ra-report --run 1 "$(pg_url fleet pwuser)" > "$TMP/pass" ||
	fail "a password from ~/.pgpass"
cmp -s "$TMP/r.sqlite" "$TMP/pass" || fail "the report with a password differs"
PGPASSFILE=$TMP/home/.pgpass ra-report --run 1 "$(pg_url fleet pwuser)" > "$TMP/pass" ||
	fail "a password from PGPASSFILE"
echo "ok: the password from ~/.pgpass or PGPASSFILE, the server from the PG* environment"
ra-report --run 1 "$(pg_url fleet pwuser)" > "$TMP/nopass" 2>&1 && fail "no password, yet connected"
ra-report --run 1 "$(pg_url fleet pwuser:s3cret-Pw)" > "$TMP/inurl" 2>&1 ||
	fail "the password of the URL: $(cat "$TMP/inurl")"
ra-report --run 1 "$(pg_url fleet pwuser:wrong-Pw)" > "$TMP/wrong" 2>&1 && fail "a wrong password"
check_grep "pwuser:\*\*\*@" "$TMP/wrong" "a wrong password: the URL shown without it"
# over TCP (a socket has no SSL to ask for): the same server, by sslmode's rule
ra-report --run 1 "postgresql://reader@127.0.0.1:$PG_PORT/fleet?sslmode=disable" > "$TMP/tcp" 2>&1 ||
	fail "over TCP: $(cat "$TMP/tcp")"
ra-report --run 1 "postgresql://reader:s3cret-Pw@127.0.0.1:$PG_PORT/fleet?sslmode=require" \
	> "$TMP/ssl" 2>&1 && fail "sslmode=require on a server without SSL"
check_grep "SSL" "$TMP/ssl" "sslmode=require: refused, as the server has no SSL"
PGSSLMODE=require ra-report --run 1 "postgresql://reader@127.0.0.1:$PG_PORT/fleet" > "$TMP/ssl2" 2>&1 &&
	fail "PGSSLMODE=require on a server without SSL"
{
	ra-compare --inconclusive pass --incomplete judge "$(pg_url fleet pwuser:s3cret-Pw):seq128" \
		"$(pg_url fleet pwuser:s3cret-Pw)"
	ra-compare -f json --incomplete judge "$(pg_url fleet pwuser:s3cret-Pw)" \
		"$(pg_url nodb pwuser:s3cret-Pw)"
	ra-push "$TMP/imp.db" "$(pg_url fleet pwuser:s3cret-Pw)"
	ra-push "$TMP/imp.db" "$(pg_url fleet pwuser:s3cret-Pw)?password=s3cret-Pw"
} > "$TMP/cmp" 2>&1
check_grep "pwuser:\*\*\*@" "$TMP/cmp" "ra-compare and ra-push name the URL without its password"
check_eq "$(cat "$TMP"/wrong "$TMP"/ssl "$TMP"/cmp "$TMP"/nopass | grep -c 's3cret\|wrong-Pw')" 0 \
	"no output shows a password"
