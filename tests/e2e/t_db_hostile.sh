# Databases from someone else: whatever SQL, values and types a file holds,
# every command gives a correct report or one clean line (exit 2), in bounded
# time, runs none of the file's SQL (views, triggers), and the read-only ones
# change nothing in the file.
# test: budget=13
. "$(dirname "$0")/lib.sh"
make_tmp
command -v timeout >/dev/null || skip "no timeout"
BASE=$TMP/base.db
ra-import -q -o "$BASE" --label base "$RA_FIXTURES/mmapread.dat" || fail "import the fixture"
ra-import -q -o "$BASE" --label other "$RA_FIXTURES/seq128.dat" || fail "import the fixture"

# variant NAME SQL: a copy of the base database changed by SQL
variant() {
	cp "$BASE" "$TMP/$1.db"
	sqlite3 "$TMP/$1.db" "$2" || fail "make the variant $1"
}
variant view_loop "DROP VIEW v_runs; CREATE VIEW v_runs AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL
	SELECT x + 1 FROM r) SELECT x AS run_id, 'l' AS label, 'k' AS kernel, '' AS started_at, 0 AS wall_ns,
	'' AS workload, 0 AS exit_status, 0 AS lost_events FROM r;"
variant view_blob "DROP VIEW v_readahead_stats; CREATE VIEW v_readahead_stats AS SELECT 1 AS run_id,
	'all' AS pattern, randomblob(1000000000) AS readahead FROM runs;"
variant trigger_label "CREATE TRIGGER pwn AFTER INSERT ON analyses BEGIN UPDATE runs SET label = 'pwned'; END;"
variant trigger_loop "CREATE TRIGGER spin AFTER INSERT ON windows BEGIN
	SELECT COUNT(*) FROM (WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r); END;"
variant default_blob "CREATE TABLE t AS SELECT * FROM tasks; DROP TABLE tasks;
	CREATE TABLE tasks (run_id INTEGER NOT NULL, pid INTEGER NOT NULL,
	comm TEXT NOT NULL DEFAULT (randomblob(1000000000)), tgid INTEGER, PRIMARY KEY (run_id, pid));
	INSERT INTO tasks SELECT * FROM t; DROP TABLE t;"
variant huge_values "UPDATE runs SET page_size = 1 << 62, seq_last = 1 << 62;
	UPDATE page_chunks SET last_index_base = 1 << 60 WHERE rowid IN (SELECT rowid FROM page_chunks LIMIT 5);
	UPDATE ra_chunks SET size_pages_base = 4294967295, req_count_pages_base = 1 << 62
		WHERE rowid IN (SELECT rowid FROM ra_chunks LIMIT 5);
	UPDATE page_chunks SET folio_order_base = 255 WHERE rowid IN (SELECT rowid FROM page_chunks LIMIT 3);"
variant wrong_types "UPDATE runs SET wall_ns = 'abc', kernel = x'ff00fe1b5b324a', page_size = 'x', label = x'1b5d303b70776e6564';
	UPDATE ra_chunks SET size_pages_base = 'big', page_index_bits = x'00' WHERE rowid IN (SELECT rowid FROM ra_chunks LIMIT 9);
	UPDATE files SET path = x'2f746d702f1b5b324aff' WHERE rowid IN (SELECT rowid FROM files LIMIT 2);"
variant no_table "DROP TABLE streams;"
variant not_ratrace "PRAGMA application_id = 0;"
variant huge_sizes "UPDATE files SET size_bytes = 9223372036854775807;
	UPDATE files SET size_bytes = -5 WHERE rowid IN (SELECT rowid FROM files LIMIT 1);
	UPDATE blk_chunks SET ts_ns_base = 4611686018427387904 WHERE rowid IN (SELECT rowid FROM blk_chunks LIMIT 3);"
# packed events that do not hold together: the chunk is named, nothing is read past its data
variant chunk_short "UPDATE page_chunks SET data = substr(data, 1, 10) WHERE rowid IN (SELECT rowid FROM page_chunks LIMIT 2);"
variant chunk_bits "UPDATE blk_chunks SET sector_bits = 63, sector_at = -8 WHERE rowid IN (SELECT rowid FROM blk_chunks LIMIT 2);
	UPDATE ra_chunks SET n = 100000 WHERE rowid IN (SELECT rowid FROM ra_chunks LIMIT 1);"
variant chunk_empty "UPDATE page_chunks SET n = 0, data = x'' WHERE rowid IN (SELECT rowid FROM page_chunks LIMIT 1);
	UPDATE blk_chunks SET dev_base = NULL, cpu_base = NULL WHERE rowid IN (SELECT rowid FROM blk_chunks LIMIT 1);"

status_ok() {	# WHAT STATUS ERRFILE
	case $1 in	# a file that is not a ratrace database is refused by every command
	not_ratrace:*) [ "$2" = 2 ] || fail "$1: exit $2, not 2: $(head -c 300 "$3")" ;;
	esac
	case $2 in
	0) echo "ok: $1: exit 0" ;;
	2) check_eq "$(wc -l < "$3")" 1 "$1: one line of error ($(head -c 120 "$3"))" ;;
	124) fail "$1: still running after 60 s" ;;
	*) fail "$1: exit $2: $(head -c 300 "$3")" ;;
	esac
}

for v in view_loop view_blob trigger_label trigger_loop default_blob huge_values huge_sizes wrong_types \
	chunk_short chunk_bits chunk_empty no_table not_ratrace; do
	db=$TMP/$v.db
	sum=$(sha256sum "$db" | cut -d' ' -f1)
	for fmt in text json html; do
		case $fmt in
		text) set -- ;; json) set -- --json ;; html) set -- --html "$TMP/$v.html" ;;
		esac
		timeout 60 ra-report --run 1 "$@" "$db" > "$TMP/out" 2> "$TMP/err"
		status_ok "$v: ra-report $fmt" $? "$TMP/err"
	done
	timeout 60 ra-compare "$db:base" "$db:other" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	[ $rc -eq 1 ] || [ $rc -eq 3 ] && rc=0	# a verdict
	status_ok "$v: ra-compare" $rc "$TMP/err"
	check_eq "$(sha256sum "$db" | cut -d' ' -f1)" "$sum" "$v: the readers changed nothing"
	timeout 120 ra-analyze "$db" > "$TMP/out" 2> "$TMP/err"
	status_ok "$v: ra-analyze" $? "$TMP/err"
	timeout 120 ra-import -q -o "$db" --label more "$RA_FIXTURES/seq128.dat" > "$TMP/out" 2> "$TMP/err"
	status_ok "$v: ra-import into it" $? "$TMP/err"
done
check_eq "$(q "$TMP/trigger_label.db" "SELECT COUNT(*) FROM runs WHERE label = 'pwned'")" 0 \
	"the file's trigger did not run"
check_eq "$(q "$TMP/trigger_label.db" "SELECT group_concat(label) FROM runs")" "base,other,more" \
	"the labels are the ones given"
check_eq "$(q "$TMP/huge_values.db" "SELECT COUNT(*) FROM analyses WHERE run_id = 1 AND state = 'ok'")" 4 \
	"huge values: the run is analysed"
