# ra-compare and runs under software emulation (runs.execution vm-tcg): a
# bandwidth regression between two run sets is a regression (exit 1) when the
# runs ran on the machine, and shown but not judged when one side was
# emulated (marked E, said on stderr, exit 0); the behavioural figures are
# judged either way. The run sets are fixture imports with benchmark figures
# of their own.
# test: budget=4
. "$(dirname "$0")/lib.sh"
make_tmp
DB=$TMP/c.db
for side in base new; do
	for i in 1 2 3 4; do
		ra-import -q -o "$DB" --label "$side" "$RA_FIXTURES/seq128.dat" || fail "import"
	done
done
# base reads at 100 MB/s, new at half that: a regression on the machine
q "$DB" "INSERT INTO bench_results (run_id, job, metric, value)
	SELECT run_id, '(group 0)', 'read_bw_bytes', CASE label WHEN 'base' THEN 1e8 ELSE 5e7 END
	+ run_id FROM runs"
q "$DB" "UPDATE runs SET execution = 'host'"
ra-compare --db "$DB" base new > "$TMP/host.txt" 2> "$TMP/host.err"
check_eq "$?" 1 "on the machine: a regression"
cat "$TMP/host.txt"
check_grep "^read_bw_bytes .* -50\.0% R" "$TMP/host.txt" "the bandwidth regression"
check_eq "$(grep -c 'emulation' "$TMP/host.err" "$TMP/host.txt" | awk -F: '{ s += $2 } END { print s }')" 0 \
	"nothing said about emulation"

q "$DB" "UPDATE runs SET execution = 'vm-tcg' WHERE label = 'new'"
ra-compare --db "$DB" base new > "$TMP/tcg.txt" 2> "$TMP/tcg.err"
check_eq "$?" 0 "one side emulated: no regression"
cat "$TMP/tcg.txt" "$TMP/tcg.err"
check_grep "^read_bw_bytes .* -50\.0% E" "$TMP/tcg.txt" "the bandwidth shown, marked E"
check_grep "^E: emulated timing, not judged" "$TMP/tcg.txt" "the legend"
check_eq "$(cat "$TMP/tcg.err")" "ra-compare: 'new': 4 of 4 run(s) ran under software emulation (vm-tcg): their times, bandwidths and latencies are shown, not judged" \
	"stderr names the side"
check_grep "^hit_ratio " "$TMP/tcg.txt" "behavioural figures still compared"
if grep -E "^hit_ratio .* E" "$TMP/tcg.txt"; then fail "hit_ratio marked emulated"; fi
ra-compare -f json --db "$DB" base new > "$TMP/tcg.json" 2>/dev/null
python3 - "$TMP/tcg.json" <<'PY' || fail "JSON of an emulated side"
import json, sys
m = {x["metric"]: x for x in json.load(open(sys.argv[1]))["metrics"]}
bw = m["read_bw_bytes"]["sides"][1]
assert bw["emulated"] and not bw["regression"] and not bw["significant"], bw
hr = m["hit_ratio"]["sides"][1]
assert not hr["emulated"], hr
print("ok: JSON says emulated for the bandwidth, not for the hit ratio")
PY
# KVM guests are judged as the machine's runs are
q "$DB" "UPDATE runs SET execution = 'vm-kvm' WHERE label = 'new'"
ra-compare --db "$DB" base new > /dev/null 2>&1
check_eq "$?" 1 "a KVM side: judged"
