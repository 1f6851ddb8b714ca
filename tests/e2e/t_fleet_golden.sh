#!/bin/bash
# The databases of t_golden pushed to a PostgreSQL server of the test's own
# (docs/fleet.md), and every output form of ra-report, the experiment and
# ra-compare read from the server: byte for byte what they print from the
# SQLite files (tests/golden, which t_golden holds the files to), the
# server's URL written where the outputs name the database. Then the
# selection options on both (a device's model and bus among them), what-if
# runs beside recorded ones, the tables and views of the schema on both with
# the same columns, and the events' views over the chunks a push with
# --events stores.
# Ground truth: the SQLite files' outputs.
# test: needs=postgres cpu=1 budget=14
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/golden_cases.sh"
command -v xz >/dev/null || skip "xz is not installed"
make_tmp
start_pg socket
GOLDEN=$(cd "$(dirname "$0")/.." && pwd)/golden
OUT=$TMP/out
mkdir -p "$OUT"

(cd "$RA_FIXTURES" && ra-import -q -o "$TMP/imp.db" seq128.dat mmapread.dat par4thrash.dat \
	nvme-readahead.blktrace.0) 2> "$TMP/err" || fail "import the fixtures: $(cat "$TMP/err")"
xz -dc "$RA_FIXTURES/sweep.db.xz" > "$TMP/sweep.db" || fail "unpack the sweep"
ra-analyze -q "$TMP/sweep.db" 2> "$TMP/err" || fail "analyse the sweep: $(cat "$TMP/err")"

IMP=$(pg_url imp) SWEEP=$(pg_url sweep)
for d in imp sweep; do
	pg_createdb "$d"
	ra-push -q "$TMP/$d.db" "$(pg_url "$d")" 2> "$TMP/err" || fail "push $d: $(cat "$TMP/err")"
done
check_eq "$(pg_sql imp -c 'SELECT COUNT(*) FROM ratrace.runs')" 4 "runs pushed of the fixtures"
check_eq "$(pg_sql sweep -c 'SELECT COUNT(*) FROM ratrace.runs')" 4 "runs pushed of the sweep"

n=0
out() {
	local name=$1; shift
	mkdir "$OUT/$name" || fail "two cases named $name"
	(cd "$OUT/$name" && { "$@" > stdout 2> stderr; echo $? > status; })
	n=$((n + 1))
}
golden_cases "$IMP" "$SWEEP"
# the outputs name the database they read: the URL, where the files' name the file
find "$OUT" -type f -exec sed -i "s#$IMP#../../imp.db#g; s#$SWEEP#../../sweep.db#g" {} +
diff -r "$GOLDEN" "$OUT" > "$TMP/diff" ||
	fail "outputs from the server differ from the files' ($(grep -c '^[<>]' "$TMP/diff") lines):
$(head -c 3000 "$TMP/diff")"
echo "ok: $n outputs from PostgreSQL byte-identical to SQLite's ($(find "$OUT" -type f | wc -l) files)"

# what-if runs (ra-whatif) beside the recorded ones: the experiment and a run's section
cp "$TMP/sweep.db" "$TMP/whatif.db"
# as if recorded on two kinds of disk (a loop device has no model): a what-if
# run has its source's devices; LIKE's own % and _ are a model's letters
sqlite3 "$TMP/whatif.db" "UPDATE devices SET transport = 'nvme', model = 'Samsung SSD 980 PRO 1TB',
	firmware = '5B2QGXA7' WHERE run_id IN (1, 3);
	UPDATE devices SET transport = 'scsi', vendor = 'ATA', model = 'WDC_WD40 100%' WHERE run_id = 2" ||
	fail "give the runs' devices models"
ra-whatif -q --store -r 1 -k 64,128,512 "$TMP/whatif.db" > /dev/null || fail "ra-whatif run 1"
ra-whatif -q --store -r 3 -k 64,128 -p kernel,fixed:256 "$TMP/whatif.db" > /dev/null ||
	fail "ra-whatif run 3"
pg_createdb whatif
WHATIF=$(pg_url whatif)
ra-push -q "$TMP/whatif.db" "$WHATIF" 2> "$TMP/err" || fail "push the what-if runs: $(cat "$TMP/err")"
for args in "" "--json" "--markdown" "--run 1 --json" "--run 3" "--param whatif=predicted --json"; do
	# shellcheck disable=SC2086 # the arguments split on purpose
	ra-report $args "$TMP/whatif.db" > "$TMP/w.sqlite" 2>&1
	# shellcheck disable=SC2086 # likewise
	ra-report $args "$WHATIF" 2>&1 | sed "s#$WHATIF#$TMP/whatif.db#g" > "$TMP/w.pg"
	cmp -s "$TMP/w.sqlite" "$TMP/w.pg" ||
		fail "ra-report $args with what-if runs differs: $(diff "$TMP/w.sqlite" "$TMP/w.pg" | head)"
done
check_eq "$(pg_sql whatif -c "SELECT COUNT(*) FROM ratrace.whatif w JOIN ratrace.pushes p
	USING (run_id)")" "$(sqlite3 "$TMP/whatif.db" "SELECT COUNT(*) FROM whatif")" \
	"the what-if runs are on the server, each its own"
echo "ok: with what-if runs, the experiment and the runs' reports are the same from the server"

# the selection, on both
sel() {
	local name=$1 db=$2 url=$3; shift 3
	ra-report "$@" "$db" > "$TMP/$name.sqlite" 2>&1
	echo "status $?" >> "$TMP/$name.sqlite"
	ra-report "$@" "$url" 2>&1 | sed "s#$url#$db#g" > "$TMP/$name.pg"
	echo "status ${PIPESTATUS[0]}" >> "$TMP/$name.pg"
	cmp -s "$TMP/$name.sqlite" "$TMP/$name.pg" ||
		fail "ra-report $* differs on the server: $(diff "$TMP/$name.sqlite" "$TMP/$name.pg" | head -20)"
}
started=$(sqlite3 "$TMP/sweep.db" "SELECT started_at FROM runs WHERE run_id = 3")
sel param "$TMP/sweep.db" "$SWEEP" --experiment --param read_ahead_kb=512
sel since "$TMP/sweep.db" "$SWEEP" --json --since "$started"
sel until "$TMP/sweep.db" "$SWEEP" --until "$started"
sel host "$TMP/imp.db" "$IMP" --host vm --experiment --markdown
sel kernel "$TMP/sweep.db" "$SWEEP" --kernel no-such-kernel
sel device "$TMP/sweep.db" "$SWEEP" --device 7:0 --param read_ahead_kb=64 --param read_ahead_kb=512
check_grep "read_ahead_kb=512" "$TMP/param.pg" "--param: the experiment of one setting"
check_grep '"runs": \[3, 4\]' "$TMP/since.pg" "--since: runs 3 and 4"
check_grep "^status 2" "$TMP/kernel.pg" "--kernel of no run: exit status 2"
check_grep "among the runs selected" "$TMP/kernel.pg" "--kernel of no run: said"
ra-compare --db "$SWEEP" --param read_ahead_kb=512 read_ahead_kb=64 read_ahead_kb=512 \
	> "$TMP/cmp" 2>&1
check_grep "no runs labelled read_ahead_kb=64 in" "$TMP/cmp" "ra-compare: a side the selection empties"
second=$(sqlite3 "$TMP/sweep.db" "SELECT started_at FROM runs WHERE run_id = 2")
ra-compare -f json --db "$TMP/sweep.db" --since "$second" read_ahead_kb=64 read_ahead_kb=512 \
	> "$TMP/cmp2.sqlite" 2>&1
echo "status $?" >> "$TMP/cmp2.sqlite"
ra-compare -f json --db "$SWEEP" --since "$second" read_ahead_kb=64 read_ahead_kb=512 2>&1 |
	sed "s#$SWEEP#$TMP/sweep.db#g" > "$TMP/cmp2.pg"
echo "status ${PIPESTATUS[0]}" >> "$TMP/cmp2.pg"
cmp -s "$TMP/cmp2.sqlite" "$TMP/cmp2.pg" ||
	fail "ra-compare --since differs on the server: $(diff "$TMP/cmp2.sqlite" "$TMP/cmp2.pg" | head)"
check_grep '"n": 1,' "$TMP/cmp2.pg" "ra-compare --since: the 64 side has one run from run 2 on"
# the runs of a JSON report (sel's file: its last line the status): several
# are an experiment of run sets, one its own report
runs_of() {
	python3 - "$1" 2>/dev/null <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read().rsplit("status", 1)[0])
print(*sorted([r for s in j["experiment"]["sets"] for r in s["runs"]] if "experiment" in j
              else [r["run"]["run_id"] for r in j["runs"]]))
PY
}
for m in "samsung ssd 9*" "*PRO?1TB" "WDC_WD40 100%" "wdc?wd40 1*" "WDCXWD40*" "*%" "*1T"; do
	sel model "$TMP/whatif.db" "$WHATIF" --json --model "$m"
	runs=$(runs_of "$TMP/model.pg")
	printf '%s: %s\n' "$m" "${runs:-none}" >> "$TMP/models"
done
sel transport "$TMP/whatif.db" "$WHATIF" --experiment --transport scsi --transport virtio
sel both "$TMP/whatif.db" "$WHATIF" --json --transport nvme --model 'samsung*' --model 'x' --param read_ahead_kb=512
w1=$(sqlite3 "$TMP/whatif.db" "SELECT group_concat(run_id, ' ') FROM (SELECT run_id FROM whatif WHERE source_run_id IN (1, 3) ORDER BY run_id)")
check_eq "$(cat "$TMP/models")" "samsung ssd 9*: 1 3 $w1
*PRO?1TB: 1 3 $w1
WDC_WD40 100%: 2
wdc?wd40 1*: 2
WDCXWD40*: none
*%: 2
*1T: none" "--model: the runs of each pattern, what-if runs with their source's"
# 3 and its fixed:256 what-if at its 512 KiB, and 1's what-if at 512 KiB
check_eq "$(runs_of "$TMP/both.pg")" "3 7 10" "--transport with --model and --param: all hold"
echo "ok: the selection options select the same runs on both"

# the schema: every table and view of the file, with its columns in order
for kind in table view; do
	sqlite3 "$TMP/sweep.db" "SELECT name FROM sqlite_master WHERE type = '$kind'
		AND name NOT LIKE 'sqlite_%' ORDER BY name" | while read -r t; do
		file=$(sqlite3 "$TMP/sweep.db" "SELECT group_concat(name, ',') FROM pragma_table_info('$t')")
		server=$(pg_sql sweep -c "SELECT string_agg(column_name, ',' ORDER BY ordinal_position)
			FROM information_schema.columns WHERE table_schema = 'ratrace' AND table_name = '$t'")
		[ "$file" = "$server" ] || echo "$kind $t: '$file' in the file, '$server' on the server"
	done
done > "$TMP/schema"
[ ! -s "$TMP/schema" ] || fail "the schemas differ: $(head -c 2000 "$TMP/schema")"
echo "ok: every table and view of the file is on the server with its columns"

# the events' views: a run pushed with its events unpacks on the server to
# the file's rows, every column (NULLs, texts, seq) of every event
pg_createdb events
rows=0
ra-push -q --events -r 1 -r 4 "$TMP/imp.db" "$(pg_url events)" 2> "$TMP/err" ||
	fail "push with the events: $(cat "$TMP/err")"
for v in ra_events page_events blk_events; do
	cols=$(sqlite3 "$TMP/imp.db" "SELECT group_concat(name, ', ') FROM pragma_table_info('$v')
		WHERE name != 'run_id'")
	for r in 1 4; do
		sqlite3 -batch -noheader "$TMP/imp.db" "SELECT $cols FROM $v WHERE run_id = $r
			ORDER BY seq" > "$TMP/ev.sqlite"
		pg_sql events -c "SELECT $cols FROM ratrace.$v WHERE run_id = (SELECT run_id
			FROM ratrace.pushes WHERE source_run_id = $r) ORDER BY seq" > "$TMP/ev.pg" ||
			fail "read ratrace.$v on the server"
		cmp -s "$TMP/ev.sqlite" "$TMP/ev.pg" ||
			fail "$v of run $r differs on the server: $(diff "$TMP/ev.sqlite" "$TMP/ev.pg" | head -5)"
		rows=$((rows + $(wc -l < "$TMP/ev.sqlite")))
	done
done
check_cmp "$rows" -gt 1000 "events compared"
echo "ok: the events' views give the file's rows on the server ($rows rows)"
