# The HTML of a large trace stays small: the charts summarize (a few hundred
# points each), whatever the number of events.
# test: needs=root,tracefs cpu=1 budget=11
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
make_tmp
"$RA_TOP/bench/make_big_trace.sh" "$TMP/big.dat" 512 2 > "$TMP/make.log" 2>&1 || fail "recording the trace: $(tail -3 "$TMP/make.log")"
ra-import -q -o "$TMP/big.db" "$TMP/big.dat" || fail "import"
events=$(q "$TMP/big.db" "SELECT SUM(n) FROM v_event_counts")
# the trace is the workload's whole (the script fails on a ring buffer that
# lost events): dd's three passes of 4 KiB reads over 512 MiB, one
# mm_filemap_get_pages each at least
reads=$(q "$TMP/big.db" "SELECT n FROM v_event_counts WHERE event = 'mm_filemap_get_pages'")
check_cmp "$reads" -ge $((3 * 512 * 256)) "reads in the large trace"
ra-report --html "$TMP/big.html" "$TMP/big.db" || fail "ra-report --html"
size=$(stat -c %s "$TMP/big.html")
note "$events events: HTML of $size bytes"
check_cmp "$size" -lt 3000000 "HTML size"
ra-report --json "$TMP/big.db" > "$TMP/big.json" || fail "ra-report --json"
python3 -c '
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
n = {k: len(v) for k, v in run.items() if k.startswith("chart_")}
print("chart points:", n)
assert n["chart_window_sizes"] <= 4 * 301 and n["chart_throughput"] <= 100, n
' "$TMP/big.json" || fail "chart series are not summarized"
