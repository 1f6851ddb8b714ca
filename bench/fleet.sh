#!/bin/bash
# The shared database on a PostgreSQL server (docs/fleet.md), on a server of
# its own (tests/e2e/lib.sh's start_pg):
# - 1000 runs from 20 hosts (the recorded sweep of tests/fixtures, its runs
#   copied with their derived tables, each copy with a host of its own, a
#   start a minute later, one of four kernels), pushed without their events:
#   the push's time, the server's size; then the experiment's overview
#   (ra-report --experiment) and a comparison of two run sets (ra-compare),
#   from the server and from the SQLite file, their outputs compared;
# - a run of some 10 M events (bench/make_big_trace.sh, or TRACE) imported
#   without its analyses (ra-import's own store) and pushed with its events
#   (ra-push --events, its analyses too, the schema made before): events
#   per second of both, the server's bytes per event.
#
#   bench/fleet.sh [TRACE.dat] [RUNS] [HOSTS]     (root for the trace; 1000, 20)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
trace=${1:-}
runs=${2:-1000}
hosts=${3:-20}
RA_BIN=$top/build
# shellcheck source=../tests/e2e/lib.sh
. "$top/tests/e2e/lib.sh"
skip() { echo "fleet.sh: $*" >&2; exit 2; }
fail() { echo "fleet.sh: $*" >&2; exit 1; }
make_tmp
start_pg socket

secs() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -n 1; }

# runs copies of the sweep's runs: every table with a run_id but the events'
xz -dc "$top/tests/fixtures/sweep.db.xz" > "$TMP/sweep.db"
ra-analyze -q "$TMP/sweep.db"
db=$TMP/fleet.db
cp "$TMP/sweep.db" "$db"
n=$(sqlite3 "$db" "SELECT MAX(run_id) FROM runs")
copies=$((runs / n))
{
	echo "BEGIN;"
	echo "CREATE TEMP TABLE k (i INTEGER PRIMARY KEY);"
	echo "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $((copies - 1)))"
	echo "  INSERT INTO k SELECT i FROM s;"
	for t in $(sqlite3 "$db" "SELECT name FROM sqlite_master WHERE type = 'table'
		AND name NOT LIKE '%chunks' AND sql LIKE '%run_id%' ORDER BY name = 'runs' DESC, name"); do
		cols=$(sqlite3 "$db" "SELECT group_concat(name, ', ') FROM pragma_table_info('$t')")
		sel=$(sqlite3 "$db" "SELECT group_concat(CASE name
			WHEN 'run_id' THEN 'run_id + k.i * $n'
			WHEN 'member' THEN 'member + k.i * $n'
			WHEN 'hostname' THEN 'printf(''host%02d'', (run_id + k.i * $n) % $hosts)'
			WHEN 'start_unix_ns' THEN 'start_unix_ns + k.i * 60000000000'
			WHEN 'started_at' THEN 'strftime(''%Y-%m-%dT%H:%M:%SZ'',
				(start_unix_ns + k.i * 60000000000) / 1000000000, ''unixepoch'')'
			WHEN 'kernel' THEN 'kernel || ''-'' || (k.i % 4)'
			ELSE name END, ', ') FROM pragma_table_info('$t')")
		echo "INSERT INTO $t ($cols) SELECT $sel FROM $t, k WHERE $t.run_id <= $n;"
	done
	echo "UPDATE runs SET hostname = printf('host%02d', run_id % $hosts), kernel = kernel || '-0'"
	echo "  WHERE run_id <= $n;"
	echo "COMMIT;"
} > "$TMP/copies.sql"
sqlite3 "$db" < "$TMP/copies.sql"
echo "database: $(sqlite3 "$db" "SELECT COUNT(*) || ' runs, ' || COUNT(DISTINCT hostname) || ' hosts, '
	|| COUNT(DISTINCT kernel) || ' kernels' FROM runs")," \
	"$(sqlite3 "$db" "SELECT COUNT(*) FROM windows") windows," \
	"$(sqlite3 "$db" "SELECT COUNT(*) FROM requests") requests, $(stat -c %s "$db") bytes"

pg_createdb fleet
url=$(pg_url fleet)
push_s=$(secs ra-push -q "$db" "$url")
size=$(pg_sql fleet -c "SELECT pg_database_size('fleet')")
echo "push of $runs runs (derived tables, no events): $push_s s; server database $size bytes"

for side in sqlite server; do
	[ $side = sqlite ] && src=$db || src=$url
	x=$(secs ra-report --experiment "$src")
	ra-report --experiment "$src" > "$TMP/x.$side" 2>/dev/null
	c=$(secs ra-compare --inconclusive pass --db "$src" read_ahead_kb=64 read_ahead_kb=512)
	ra-compare --inconclusive pass --db "$src" read_ahead_kb=64 read_ahead_kb=512 \
		2>/dev/null | sed "s#$url#$db#g" > "$TMP/c.$side"
	s=$(secs ra-compare --inconclusive pass --db "$src" --host host03 --host host07 \
		"read_ahead_kb=64 kernel=6.18.44-fc-v1098-1" "read_ahead_kb=512 kernel=6.18.44-fc-v1098-1")
	echo "$side: experiment overview $x s, comparison of two run sets $c s" \
		"(of two hosts' run sets named by the experiment: $s s)"
done
cmp -s "$TMP/x.sqlite" "$TMP/x.server" && cmp -s "$TMP/c.sqlite" "$TMP/c.server" &&
	echo "the server's overview and comparison are the file's, byte for byte" ||
	echo "the server's outputs DIFFER from the file's"

# a run of some 10 M events
if [ -z "$trace" ]; then
	trace=$TMP/big.dat
	"$top/bench/make_big_trace.sh" "$trace" 1024 30 > /dev/null
fi
imp=""
for i in 1 2 3; do
	rm -f "$TMP"/na.db*
	imp+="$(secs ra-import -q --no-analyze -o "$TMP/na.db" "$trace") "
done
ra-import -q -o "$TMP/big.db" "$trace"
events=$(sqlite3 "$TMP/big.db" "SELECT SUM(n) FROM event_counts")
pushes=""
for i in 1 2 3; do
	pg_sql postgres -c "DROP DATABASE IF EXISTS big" >/dev/null 2>&1
	pg_createdb big
	ra-push -q -r 1 "$TMP/sweep.db" "$(pg_url big)"	# the schema, made before
	pushes+="$(secs ra-push -q --events "$TMP/big.db" "$(pg_url big)") "
done
chunks=$(pg_sql big -c "SELECT SUM(pg_total_relation_size(oid)) FROM pg_class
	WHERE relname ~ '^(ra|page|blk)_chunks_r[0-9]+$'")
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mi=$(echo "$imp" | median)
mp=$(echo "$pushes" | median)
echo "run of $events events: ra-import --no-analyze $imp(median $mi s), ra-push --events $pushes(median $mp s)"
awk -v e="$events" -v i="$mi" -v p="$mp" -v b="$chunks" -v f="$(stat -c %s "$TMP/big.db")" 'BEGIN {
	printf "ra-import stores %.2f M events/s, ra-push %.2f M events/s (%.2fx);", e / i / 1e6,
		e / p / 1e6, i / p
	printf " the events take %.1f bytes each on the server (%d bytes), the file %.1f\n", b / e, b,
		f / e }'
