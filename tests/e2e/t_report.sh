# ra-report on an imported fixture and on a live loop-device recording: the
# text report holds the readahead table and the block summary with the values
# the views hold; the JSON parses and matches the views; several runs give a
# list and a hint.
# test: needs=root,tracefs budget=4
. "$(dirname "$0")/lib.sh"
make_tmp

check_report() {	# DB: a database with one run
	local DB=$1
	ra-report "$DB" > "$TMP/out.txt" 2>"$TMP/err" || fail "ra-report: $(cat "$TMP/err")"
	cat "$TMP/out.txt"
	long=$(awk 'length($0) > 100' "$TMP/out.txt" | wc -l)
	check_eq "$long" 0 "lines longer than 100 columns"
	for s in "Readahead windows by pattern" "Files by readahead volume" "Streams" "Block I/O per device" "Block latencies"; do
		check_grep "^$s" "$TMP/out.txt" "section '$s'"
	done
	# every pattern row of the view, as the text prints it
	q "$DB" "SELECT pattern, readahead, io, used, evicted_unused, thrashed FROM v_readahead_stats" |
	while IFS='|' read -r pat ra io used ev thr; do
		grep -qE "^$pat +$ra +$io .* $used( +[0-9]+)? +$ev +[0-9]+ +$thr " "$TMP/out.txt" ||
			fail "pattern $pat: '$ra $io ... $used $ev ... $thr' not in the text"
		echo "ok: text row of $pat"
	done || exit 1
	q "$DB" "SELECT COALESCE(name, dev), reads_completed, sectors_read FROM v_device_io" |
	while IFS='|' read -r dev reads sectors; do
		grep -qE "^$dev +$reads +$sectors " "$TMP/out.txt" || fail "device $dev not in the text"
		echo "ok: text row of device $dev"
	done || exit 1

	# JSON: parses, and its tables are the views' rows
	ra-report --json "$DB" > "$TMP/out.json" || fail "ra-report --json"
	python3 - "$TMP/out.json" "$DB" <<'PY' || fail "JSON does not match the views"
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
run = doc["runs"][0]
assert doc["ratrace_report_version"] == 1
assert run["run"]["run_id"] == 1 and run["run"]["label"] == "thrash"
def rows(sql):
    cur = db.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]
stats = {r["pattern"]: r for r in rows("SELECT * FROM v_readahead_stats WHERE run_id = 1")}
assert len(run["readahead_stats"]) == len(stats)
for r in run["readahead_stats"]:
    v = stats[r["pattern"]]
    for k in r:
        assert r[k] == v[k], (r["pattern"], k, r[k], v[k])
dev = {r["dev"]: r for r in rows("SELECT * FROM v_device_io WHERE run_id = 1")}
for r in run["block"]:
    for k in r:
        assert r[k] == dev[r["dev"]][k], (k, r[k])
files = {(r["dev"], r["ino"]): r for r in rows("SELECT * FROM v_file_fates WHERE run_id = 1")}
for f in run["files"]:
    v = files[(f["dev"], f["ino"])]
    assert (f["readahead_pages"], f["used"], f["thrashed"]) == (v["ra_pages"], v["used"], v["thrashed"])
print("ok: JSON matches v_readahead_stats, v_device_io and v_file_fates")
PY
}

DB=$TMP/r.db
ra-import -q -o "$DB" --label thrash "$RA_FIXTURES/par4thrash.dat" || fail "import"
check_report "$DB"
check_eq "$(ra-report --json "$DB" | python3 -c 'import json,sys; print(sum(f["thrashed"] for f in json.load(sys.stdin)["runs"][0]["files"]))')" 6224 "thrashed pages in the JSON"

if [ "$(id -u)" -eq 0 ]; then
	need_tracefs
	make_loop 64
	make_file "$MNT/f" 16
	ra-record -q -o "$TMP/live.db" --label thrash -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" \
		"${COLD[@]}" -- dd if="$MNT/f" of=/dev/null bs=4k || fail "record"
	check_report "$TMP/live.db"
	check_grep "^  workload +dd if=" "$TMP/out.txt" "live run: the workload in the header"
	check_grep "^$LOOP_NAME +$LOOP_DEV +filter +128 " "$TMP/out.txt" "live run: the device and its readahead setting"
elif [ "${CI:-}" = true ]; then
	fail "the live half of this test needs root"
fi

# several runs: a list, a hint, exit 0; an unknown run: exit 2
ra-import -q -o "$DB" "$RA_FIXTURES/seq128.dat" || fail "second import"
ra-report "$DB" > "$TMP/list" 2> "$TMP/err"
check_eq "$?" 0 "exit status of the run list"
check_eq "$(grep -c 'par4thrash.dat\|seq128.dat' "$TMP/list")" 2 "one line per run"
check_grep "pick one with --run ID" "$TMP/err" "hint"
ra-report --label thrash "$DB" | grep -q "^ratrace report: run 1$" || fail "--label"
echo "ok: --label picks the run"
ra-report --run 7 "$DB" 2> "$TMP/err"
check_eq "$?" 2 "exit status for an unknown run"
check_grep "^ra-report: no run 7 in" "$TMP/err" "message for an unknown run"
