# The experiment overview of ra-report on a recorded sweep: read_ahead_kb 64
# and 512 x fio numjobs 1 and 2 (through --sweep-env), 2 repeats each, on a
# loop device throttled to 25 MB/s: slow enough that the device sets the
# pace of every run on a loaded machine too (the device model pools the
# device-paced runs of a pool, and must pool all 8). The run sets come from
# what the runs varied (v_run_params, not the labels): four sets of two
# runs, the dimensions read_ahead_kb and numjobs (NJ, which set numjobs in
# lockstep, is merged into it). Ground truth: v_run_metrics aggregated by
# hand here (harmonic mean, min and max of read_bw_bytes, the largest
# read_clat_max_ns, the mean hit ratio and windows), which the JSON, the
# text rows and the matrix must equal. A set's label too long for the 100
# columns wraps, never cut.
# test: needs=root,tracefs,fio budget=12
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v fio >/dev/null || skip "no fio"
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
make_tmp
make_loop 128
mkdir -p "$MNT/fio"
DB=$TMP/x.db
# shellcheck disable=SC2016 # $NJ and $0 are the inner sh's
rec -q -o "$DB" -d "$LOOP_NAME" --sweep read_ahead_kb=64,512 --sweep-env NJ=1,2 --repeat 2 "${COLD[@]}" \
	--throttle "$LOOP_NAME=iops:2000,bps:25000000" \
	-- sh -c 'exec fio --name=r --rw=read --bs=4k --size=4M --numjobs=$NJ --directory="$0" --output-format=json' \
	"$MNT/fio" > /dev/null 2> "$TMP/err" || fail "record the sweep: $(cat "$TMP/err")"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM runs")" 8 "runs recorded"
check_eq "$(q "$DB" "SELECT group_concat(DISTINCT name || ':' || scope) FROM (SELECT * FROM v_run_params ORDER BY name, scope)")" \
	"bs:fio,env:NJ,kernel:,numjobs:fio,read_ahead_kb:$LOOP_NAME,repeat:,rw:fio,throttle_bps:$LOOP_NAME,throttle_iops:$LOOP_NAME" \
	"the parameters stored and derived"

ra-report --json "$DB" > "$TMP/x.json" 2>/dev/null || fail "ra-report --json"
ra-report "$DB" > "$TMP/x.txt" 2>/dev/null || fail "ra-report"
cat "$TMP/x.txt"
# the truth, per (read_ahead_kb, numjobs), from v_run_metrics
q "$DB" "WITH p AS (SELECT run_id,
		MAX(CASE WHEN name = 'read_ahead_kb' THEN value END) AS kb,
		MAX(CASE WHEN name = 'numjobs' THEN value END) AS nj FROM v_run_params GROUP BY run_id),
	m AS (SELECT p.kb, p.nj, v.metric, v.value FROM p JOIN v_run_metrics v USING (run_id))
	SELECT kb, nj,
		(SELECT COUNT(*) FROM p p2 WHERE p2.kb = g.kb AND p2.nj = g.nj),
		(SELECT COUNT(*) / SUM(1.0 / value) FROM m WHERE m.kb = g.kb AND m.nj = g.nj AND metric = 'read_bw_bytes'),
		(SELECT MIN(value) FROM m WHERE m.kb = g.kb AND m.nj = g.nj AND metric = 'read_bw_bytes'),
		(SELECT MAX(value) FROM m WHERE m.kb = g.kb AND m.nj = g.nj AND metric = 'read_bw_bytes'),
		(SELECT MAX(value) FROM m WHERE m.kb = g.kb AND m.nj = g.nj AND metric = 'read_clat_max_ns'),
		(SELECT AVG(value) FROM m WHERE m.kb = g.kb AND m.nj = g.nj AND metric = 'hit_ratio'),
		(SELECT AVG(value) FROM m WHERE m.kb = g.kb AND m.nj = g.nj AND metric = 'windows')
	FROM (SELECT DISTINCT kb, nj FROM p) g ORDER BY kb + 0, nj + 0" | tr '|' ' ' > "$TMP/truth"
check_eq "$(wc -l < "$TMP/truth")" 4 "four run sets in the truth"
/usr/bin/python3 - "$TMP/x.json" "$TMP/truth" "$TMP/x.txt" <<'PY' || fail "the overview differs from v_run_metrics"
import json, sys
x = json.load(open(sys.argv[1]))["experiment"]
assert x["dimensions"] == ["read_ahead_kb", "numjobs"], x["dimensions"]
assert x["throughput_metric"] == "read_bw_bytes"
sets = {(s["values"]["read_ahead_kb"], s["values"]["numjobs"]): s for s in x["sets"]}
assert len(sets) == 4, sets.keys()
text = open(sys.argv[3]).read().splitlines()
close = lambda a, b: abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1)
for line in open(sys.argv[2]):
    kb, nj, n, hm, lo, hi, lat, hit, win = line.split()
    s = sets[(kb, nj)]
    assert s["n"] == int(n) == 2, (kb, nj, s["n"], n)
    for key, want in (("throughput_hmean_bps", hm), ("throughput_min_bps", lo),
                      ("throughput_max_bps", hi), ("max_latency_ns", lat),
                      ("hit_ratio", hit), ("windows", win)):
        assert close(s[key], float(want)), (kb, nj, key, s[key], want)
    # the text row: read_ahead_kb numjobs n MB/s min max ...
    row = [l.split() for l in text if l.split()[:3] == [kb, nj, n]]
    assert row and row[0][3] == "%.1f" % (float(hm) / 1e6), (kb, nj, row)
    # the matrix: the row of read_ahead_kb holds "MB/s (n)" under numjobs
    mrow = [l for l in text if l.startswith(kb + " ") and "(2)" in l]
    assert mrow and ("%.1f (2)" % (float(hm) / 1e6)) in mrow[0], (kb, mrow)
mx = x["matrix"]
assert mx["rows"] == "read_ahead_kb" and mx["columns"] == "numjobs", mx
assert mx["row_values"] == ["64", "512"] and mx["column_values"] == ["1", "2"], mx
for i, kb in enumerate(mx["row_values"]):
    for j, nj in enumerate(mx["column_values"]):
        assert close(mx["throughput_hmean_bps"][i][j], sets[(kb, nj)]["throughput_hmean_bps"]), (kb, nj)
print("ok: the overview and the matrix (text and JSON) equal v_run_metrics aggregated by hand")
PY
# what every set has alike, for the table to be read elsewhere: not what varied
common=$(sed -n '/^Common to every set: /,/^$/p' "$TMP/x.txt" | tr -s ' \n' '  ')
note "common: $common"
for want in "bs=4k" "rw=read" "kernel=$(q "$DB" "SELECT kernel FROM runs LIMIT 1")" "throttle_iops=2000"; do
	case "$common" in *"$want"*) ;; *) fail "the common parameters lack $want: $common" ;; esac
done
case "$common" in *read_ahead_kb*|*numjobs*|*repeat*|*NJ=*) fail "a varied parameter is called common: $common" ;; esac
/usr/bin/python3 - "$TMP/x.json" "$common" <<'PY' || fail "the JSON's common parameters"
import json, sys
c = json.load(open(sys.argv[1]))["experiment"]["common"]
assert c["bs"] == "4k" and c["rw"] == "read", c
assert [v for k, v in c.items() if k.startswith("throttle_iops")] == ["2000"], c
assert not {"read_ahead_kb", "numjobs", "NJ", "repeat"} & set(c), c
assert sys.argv[2].strip() == "Common to every set: " + ", ".join("%s=%s" % kv for kv in c.items()), (c, sys.argv[2])
print("ok: the JSON's common parameters are the text's:", c)
PY
echo "ok: the parameters common to every set, and only those"
check_grep "^Throughput, MB/s \(harmonic mean of n runs\): rows read_ahead_kb, columns numjobs" "$TMP/x.txt" \
	"the matrix is titled with its dimensions"
ra-report --markdown "$DB" 2>/dev/null | grep -q '^| read\\_ahead\\_kb=64 numjobs=1 | 2 |' || fail "markdown rows"
echo "ok: markdown rows"

# the device model and advice after the experiment: the last run's, as its own report has them
last=$(q "$DB" "SELECT MAX(run_id) FROM runs")
ra-report --run "$last" --json "$DB" > "$TMP/last.json" || fail "ra-report --run $last --json"
/usr/bin/python3 - "$TMP/x.json" "$TMP/last.json" "$last" <<'PY' || fail "the experiment's device model"
import json, sys
m = json.load(open(sys.argv[1]))["experiment"]["device_model"]
r = json.load(open(sys.argv[2]))["runs"][0]
assert m["run"] == int(sys.argv[3]), m["run"]
for k in ("model", "predictions", "advice"):
    assert m[k] == r[k], (k, m[k], r[k])
    assert m["unavailable"].get(k) == r["unavailable"].get(k), (k, m["unavailable"], r["unavailable"])
assert m["model"] and m["advice"], m
print("ok: the experiment's device model and advice are run %s's" % sys.argv[3])
PY
check_grep "^Device model and advice \(run $last, all runs of its pool\)" "$TMP/x.txt" "the text names the run"
check_grep "^Recommended read_ahead_kb" "$TMP/x.txt" "and prints its advice"

# the model's run sets are those of the run's workload (numjobs 2 for the last
# run), from the pool whose every run gives the device model its samples
kdev=$(loop_kdev)
check_eq "$(q "$DB" "SELECT group_concat(read_ahead_kb || ':' || runs, ' ') FROM (SELECT * FROM model_sets
	WHERE run_id = $last AND dev = $kdev ORDER BY read_ahead_kb)")" "64:2 512:2" \
	"the last run's model sets: its workload's runs"
check_eq "$(q "$DB" "SELECT runs FROM device_models WHERE run_id = $last AND dev = $kdev AND timing = 'window' AND chosen")" 8 \
	"its device model pools all 8 runs"
for kb in 64 512; do
	check_eq "$(q "$DB" "SELECT ABS(s.measured_bps - (SELECT AVG(m.value) FROM v_run_metrics m
		JOIN v_run_params a ON a.run_id = m.run_id AND a.name = 'read_ahead_kb'
		JOIN v_run_params j ON j.run_id = m.run_id AND j.name = 'numjobs'
		WHERE m.metric = 'read_bw_bytes' AND a.value = '$kb' AND j.value = '2')) < 1
		FROM model_sets s WHERE s.run_id = $last AND s.dev = $kdev AND s.read_ahead_kb = $kb")" 1 \
		"read_ahead_kb $kb: the measured throughput is the numjobs=2 runs' (median of 2)"
done

# a run set as the experiment names it is a side of ra-compare: its runs, its figures
ra-compare -f json --db "$DB" "read_ahead_kb=64 numjobs=2" "read_ahead_kb=512 numjobs=2" > "$TMP/sets.json"
rc=$?
[ "$rc" -le 1 ] || fail "ra-compare of two run sets: exit status $rc"
/usr/bin/python3 - "$TMP/x.json" "$TMP/sets.json" <<'PY' || fail "ra-compare of run sets"
import json, sys
x = {s["label"]: s for s in json.load(open(sys.argv[1]))["experiment"]["sets"]}
c = json.load(open(sys.argv[2]))
bw = next(m for m in c["metrics"] if m["metric"] == "read_bw_bytes")
for side, name in zip(bw["sides"], c["sides"]):
    s = x[name]
    assert side["n"] == s["n"] == 2, (name, side["n"], s["n"])
    assert abs(side["mean"] - s["throughput_hmean_bps"]) <= 1e-6 * s["throughput_hmean_bps"], (name, side, s)
print("ok: ra-compare of two run sets named as the experiment names them: their runs, their means")
PY

# the Markdown and the page render the same table as the text: a set's cells
ra-report --markdown "$DB" > "$TMP/x.md" 2>/dev/null || fail "ra-report --markdown"
mkdir -p "$TMP/page"
ra-report --html "$TMP/page/x.html" "$DB" 2>/dev/null || fail "ra-report --html"
/usr/bin/python3 - "$TMP/x.txt" "$TMP/x.md" "$TMP/page/x.html" <<'PY' || fail "the forms disagree"
import html, re, sys
lines = open(sys.argv[1]).read().split("\n")
i = next(k for k, l in enumerate(lines) if l.startswith("read_ahead_kb  numjobs"))
text = {}
for l in lines[i + 1:lines.index("", i)]:
    f = l.split()
    text["read_ahead_kb=%s numjobs=%s" % (f[0], f[1])] = f[2:]
md = {}
for l in open(sys.argv[2]):
    c = [x.strip().replace("\\", "") for x in l.strip().strip("|").split("|")]
    if c[0] in text:
        md[c[0]] = c[1:]
page = {}
body = open(sys.argv[3]).read()
for row in re.findall(r"<tr>(.*?)</tr>", body):
    c = [html.unescape(re.sub(r"<[^>]+>", "", x)) for x in re.findall(r"<td[^>]*>(.*?)</td>", row)]
    if len(c) == 2 + len(next(iter(text.values()))) + 1:	# dimensions, figures, runs
        page["read_ahead_kb=%s numjobs=%s" % (c[0], c[1])] = c[2:-1]
assert len(text) == 4 and text == md == page, (text, md, page)
mx = re.findall(r"<td>([0-9.]+ \(2\))</td>", body)
assert len(mx) == 4, ("the page's matrix", mx)
print("ok: text = Markdown = page for the 4 sets; the page has the matrix")
PY

# labels too wide for the table wrap whole
long=$(printf 'v%.0s' $(seq 70))
rec -q -o "$TMP/l.db" -d "$LOOP_NAME" --sweep-env "TAG=${long}a,${long}b" \
	-- dd if=/dev/zero of=/dev/null count=1 status=none 2> "$TMP/err" || fail "record long labels: $(cat "$TMP/err")"
ra-report "$TMP/l.db" > "$TMP/l.txt" 2>/dev/null || fail "ra-report of long labels"
for v in a b; do
	# a row's first line has its figures; the lines of the label alone go on with it
	sed -n '/^run set/,/^$/p' "$TMP/l.txt" | awk -v v="$v" '
		NR == 1 || NF == 0 { next }
		NF > 1 { if (cur != "") print cur; cur = $1; next }
		{ cur = cur $1 }
		END { print cur }' | grep -qx "TAG=${long}$v" || fail "label TAG=...$v cut: $(cat "$TMP/l.txt")"
done
echo "ok: long set labels wrap whole"
