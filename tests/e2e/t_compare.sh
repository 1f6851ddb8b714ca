# ra-compare as a CI gate on run sets recorded by ra-record on a loop device:
# read_ahead_kb 16 (new) against 512 (base) on a throttled device is a
# bandwidth regression (exit 1), reversed an improvement (exit 0); two run
# sets of the same setting: exit 0 and no significant change in the
# readahead figures; too few runs: exit 3.
# test: needs=root,tracefs,chromium cpu=1 budget=25
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
make_tmp
make_loop 64
make_file "$MNT/f" 8
DB=$TMP/sweep.db
rec -q -o "$DB" -d "$LOOP_NAME" --sweep read_ahead_kb=16,512 --repeat 4 "${COLD[@]}" \
	--throttle "$LOOP_NAME=iops:200,bps:52428800" -- dd if="$MNT/f" of=/dev/null bs=4k 2>/dev/null
check_eq "$?" 0 "sweep recorded"
check_eq "$(q "$DB" "SELECT label || ':' || COUNT(*) FROM runs GROUP BY label ORDER BY label" | tr '\n' ' ')" \
	"read_ahead_kb=16:4 read_ahead_kb=512:4 " "two run sets of four"
check_eq "$(find /sys/fs/cgroup/blkio -mindepth 1 -maxdepth 1 -name "ra-record.$REC_PID" | wc -l)" 0 "throttle cgroup removed"
check_eq "$(q "$DB" "SELECT DISTINCT read_ahead_kb_before FROM v_devices d JOIN runs r USING (run_id) WHERE r.label = 'read_ahead_kb=16' AND d.role = 'filter'")" 16 "the sweep's setting applied"

# Throttled bios are queued later by a kernel worker, not by the reader: they
# still belong to the windows that read the pages (the oldest window owed bios
# takes them). Every window's bytes are its pages, and every completion is in
# the trace (the stat deltas match).
ino=$(stat -c %i "$MNT/f")
check_cmp "$(q "$DB" "SELECT COUNT(DISTINCT b.pid) FROM blk_events b WHERE b.event_id = 20 AND b.rwbs LIKE 'R%'")" -ge 2 \
	"throttled bios were queued by more than the reader"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM windows w LEFT JOIN window_io i USING (run_id, window_id)
	WHERE w.ino = $ino AND w.pages_added > 0 AND COALESCE(i.bytes, 0) != w.pages_added * 4096")" 0 \
	"throttled: every window's bytes = its pages added"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM v_device_io WHERE dev = '$LOOP_DEV' AND stat_match = 1")" 8 \
	"every run's completions match the stat delta"

ra-compare "$DB:read_ahead_kb=512" "$DB:read_ahead_kb=16" > "$TMP/regress.txt"
rc=$?
cat "$TMP/regress.txt"
check_eq "$rc" 1 "16 against 512: exit status"
# the throttle's truth is about -94% (200 IOPS x 16 KiB against 50 MB/s); a
# reader short of CPU (the sanitizers' build) keeps 512 KiB below the throttle
check_grep "^device_read_bw_bytes .* -[89][0-9]\.[0-9]% R" "$TMP/regress.txt" "bandwidth regression flagged"
# both sides pool into one device model (same device, settings but read_ahead_kb): said once,
# with the number of runs that gave it samples as the database has it (a run
# whose steady windows are too few of its samples gives none: most give)
q "$DB" "SELECT member || ' ' || read_ahead_kb || ' ' || windows || ' ' || state || ' ' || COALESCE(reason, '') FROM model_runs
	WHERE run_id = (SELECT MAX(run_id) FROM runs)" | sed "s/^/# the last run's pool: /"
pooled=$(q "$DB" "SELECT runs FROM device_models WHERE run_id = (SELECT MAX(run_id) FROM runs) AND timing = 'window'
	AND chosen")
check_cmp "$pooled" -ge 6 "the model pools most of the 8 runs"
sed -n '/^device models/,/^$/p' "$TMP/regress.txt" | sed -z 's/\n    / /g' > "$TMP/models"
check_eq "$(grep -cE "^  every side: $LOOP_DEV (sum|max) form, access [0-9.]+ ms, bandwidth [0-9.]+ MiB/s, .* over 2 sizes of $pooled runs" "$TMP/models")" 1 \
	"the device model behind both sides, once"
check_eq "$(awk 'length > 100' "$TMP/regress.txt" | wc -l)" 0 "the comparison within 100 columns"
ra-compare --db "$DB" read_ahead_kb=16 read_ahead_kb=512 > "$TMP/improve.txt"
check_eq "$?" 0 "512 against 16: exit status"
check_grep "^device_read_bw_bytes .* \+[0-9]+\.[0-9]% \*" "$TMP/improve.txt" "bandwidth improvement, significant"
ra-compare -f json --db "$DB" read_ahead_kb=512 read_ahead_kb=16 > "$TMP/c.json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["metric"]: x for x in d["metrics"]}
new = m["device_read_bw_bytes"]["sides"][1]
assert new["regression"] and new["significant"] and new["change_pct"] < -50, new
assert abs(new["p_value"] - 2 / 70) < 1e-9, new["p_value"]   # complete separation, 4 vs 4
assert all(len(side) == 1 and " form, access " in side[0] for side in d["device_models"]), d["device_models"]
print("ok: JSON verdict, p =", new["p_value"])' "$TMP/c.json" || fail "JSON output"
ra-compare -f csv --db "$DB" read_ahead_kb=512 read_ahead_kb=16 | grep -q '^device_read_bw_bytes,read_ahead_kb=16,4,' || fail "CSV output"
ra-compare -f markdown --db "$DB" read_ahead_kb=512 read_ahead_kb=16 | grep -q '^| metric |' || fail "markdown output"
echo "ok: csv and markdown"

# the same setting twice: readahead behaves the same; timing noise is not a
# regression. Throttled, so that the device sets the pace: unthrottled, a read
# of 8 MiB takes 20 to 40 ms, whose noise is the CPUs' (other tests share them).
S=$TMP/same.db
for l in a b; do
	ra-record -q -o "$S" --label $l -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" --repeat 4 "${COLD[@]}" \
		--throttle "$LOOP_NAME=iops:500,bps:52428800" -- dd if="$MNT/f" of=/dev/null bs=4k 2>/dev/null || fail "record $l"
done
ra-compare --noise 50 --db "$S" a b > "$TMP/same.txt"
rc=$?
cat "$TMP/same.txt"
check_eq "$rc" 0 "same settings: exit status"
for m in hit_ratio windows ra_requests ra_avg_bytes; do
	grep -E "^$m " "$TMP/same.txt" | grep -qE '(\*|R|~)$' && fail "same settings: $m changed significantly"
done
echo "ok: same settings: no significant change in the readahead figures"

# too few runs
ra-record -q -o "$TMP/one.db" --label x -d "$LOOP_NAME" -- dd if="$MNT/f" of=/dev/null bs=4k 2>/dev/null
ra-record -q -o "$TMP/one.db" --label y -d "$LOOP_NAME" -- dd if="$MNT/f" of=/dev/null bs=4k 2>/dev/null
ra-compare --db "$TMP/one.db" x y > /dev/null
check_eq "$?" 3 "too few runs: exit status"
ra-compare --inconclusive pass --db "$TMP/one.db" x y > /dev/null
check_eq "$?" 0 "too few runs, --inconclusive pass"
ra-compare --db "$TMP/one.db" x nosuchlabel > /dev/null 2> "$TMP/err"
check_eq "$?" 2 "unknown label: exit status"
check_grep "^ra-compare: no runs labelled nosuchlabel in" "$TMP/err" "unknown label: message"

# JUnit XML, as CI systems read it (Debian's junitparser, a JUnit consumer;
# xmllint for well-formedness and the schema in tests/fixtures/junit.xsd):
# one test case per metric, failures exactly
# the regressions of the JSON verdict and of the exit status; a hostile label
# (markup, quotes, a control byte, a byte that is not UTF-8) stays text.
JP=/usr/bin/python3
$JP -c 'import junitparser' 2>/dev/null || skip "no python3-junitparser"
command -v xmllint >/dev/null || skip "no xmllint (libxml2-utils)"
junit_check() {	# JUNIT JSON EXIT: the consumer's view against the JSON's and the exit status
	xmllint --noout "$1" || fail "JUnit not well-formed"
	# the schema of what CI systems read (tests/fixtures/junit.xsd), which a case
	# without its classname breaks
	xmllint --noout --schema "$RA_FIXTURES/junit.xsd" "$1" 2> "$TMP/xsd.err" ||
		fail "JUnit does not validate: $(cat "$TMP/xsd.err")"
	sed 's/ classname="[^"]*"//' "$1" > "$TMP/bad.xml"
	xmllint --noout --schema "$RA_FIXTURES/junit.xsd" "$TMP/bad.xml" 2> /dev/null &&
		fail "the schema takes a case without its classname"
	$JP - "$1" "$2" "$3" <<'PY' || fail "JUnit output"
import json, sys
from junitparser import JUnitXml, Failure, Skipped
xml = JUnitXml.fromfile(sys.argv[1])
d = json.load(open(sys.argv[2]))
want = sorted((m["metric"], i) for m in d["metrics"] for i, s in enumerate(m["sides"]) if i and s["regression"])
got, cases = [], 0
suites = list(xml)
for si, suite in enumerate(suites, 1):
    for case in suite:
        cases += 1
        if any(isinstance(r, Failure) for r in case.result):
            got.append((case.name, si))
assert cases == len(d["metrics"]) * (len(d["sides"]) - 1), (cases, len(d["metrics"]))
assert sorted(got) == want, (got, want)
assert (int(sys.argv[3]) == 1) == bool(want), (sys.argv[3], want)
assert xml.failures == len(want) if hasattr(xml, "failures") else True
print("ok: JUnit: %d suites, %d cases, failures %s = the regressions" % (len(suites), cases, got))
PY
}
ra-compare -f junit --db "$DB" read_ahead_kb=512 read_ahead_kb=16 > "$TMP/r.xml"
rc=$?
ra-compare -f json --db "$DB" read_ahead_kb=512 read_ahead_kb=16 > "$TMP/r.json"
check_eq "$rc" 1 "JUnit of a regression: exit status"
junit_check "$TMP/r.xml" "$TMP/r.json" "$rc"
ra-compare -f junit --db "$DB" read_ahead_kb=16 read_ahead_kb=512 > "$TMP/i.xml"
rc=$?
ra-compare -f json --db "$DB" read_ahead_kb=16 read_ahead_kb=512 > "$TMP/i.json"
junit_check "$TMP/i.xml" "$TMP/i.json" "$rc"
H=$TMP/hostile.db
cp "$DB" "$H"
q "$H" "UPDATE runs SET label = CAST(X'3C2F74657374737569746573263E2722015C2DFF' AS TEXT) WHERE label = 'read_ahead_kb=16'"
ra-compare -f junit "$H:read_ahead_kb=512" "$H:$(printf '</testsuites&>'"'"'"\001\\-\377')" > "$TMP/h.xml"
check_eq "$?" 1 "JUnit of the hostile label: exit status"
xmllint --noout "$TMP/h.xml" || fail "JUnit of the hostile label is not well-formed"
xmllint --noout --schema "$RA_FIXTURES/junit.xsd" "$TMP/h.xml" 2> /dev/null ||
	fail "JUnit of the hostile label does not validate"
$JP - "$TMP/h.xml" <<'PY' || fail "hostile label"
import sys
from junitparser import JUnitXml
s = list(JUnitXml.fromfile(sys.argv[1]))[0]
assert s.name.startswith("</testsuites&>'\"\\x01\\\\-\\xff vs "), repr(s.name)
print("ok: the hostile label is text:", repr(s.name))
PY

# Every format renders the same two tables: the CSV's values are the JSON's,
# and the cells people read are the same in the text, the Markdown and the
# page (three sides, so that each side's column is checked).
for f in text markdown csv json; do
	ra-compare -f $f --db "$DB" --html "$TMP/f.html" read_ahead_kb=512 read_ahead_kb=16 \
		read_ahead_kb=512 > "$TMP/f.$f"
	check_eq "$?" 1 "-f $f: the verdict's exit status"
done
$JP - "$TMP" <<'PY' || fail "the formats disagree"
import csv, html, json, re, sys
t = sys.argv[1]
d = json.load(open(t + "/f.json"))
rows = list(csv.DictReader(open(t + "/f.csv", newline="")))
assert len(rows) == 3 * len(d["metrics"]) > 0, (len(rows), len(d["metrics"]))
for row, (m, i) in zip(rows, [(m, i) for m in d["metrics"] for i in range(3)]):
    side = m["sides"][i]
    assert row["metric"] == side["metric"] == m["metric"] and row["side"] == side["side"] == d["sides"][i]
    for k, v in side.items():
        if isinstance(v, bool):
            assert row[k] == str(int(v)), (m["metric"], i, k, row[k], v)
        elif v is None:
            assert row[k] == "", (m["metric"], i, k, row[k])
        elif isinstance(v, (int, float)):
            assert abs(float(row[k]) - v) <= 1e-8 * max(1, abs(v)), (m["metric"], i, k, row[k], v)
    assert side["n"] == 4 and (i == 0) == (side["change_pct"] is None), side
text = [l for l in open(t + "/f.text").read().split("\n")[1:] if l and not l.startswith(" ")]
grid = {}
for l in text[:len(d["metrics"])]:
    name, rest = l.split(" ", 1)
    grid[name] = re.split(r"  +", rest.strip())
md = {}
for l in open(t + "/f.markdown"):
    cells = [c.strip().replace("\\", "") for c in l.strip().strip("|").split("|")]
    if l.startswith("| ") and cells[0] in grid:
        md[cells[0]] = cells[1:]
page = {}
for name, cells in re.findall(r'<tr><td class="s">([a-z0-9_]+)</td>(.*?)</tr>', open(t + "/f.html").read()):
    page[name] = [html.unescape(c) for c in re.findall(r'<td[^>]*>(.*?)</td>', cells)]
assert list(grid) == [m["metric"] for m in d["metrics"]], (list(grid), d["metrics"])
assert grid == md == page, (grid, md, page)
for m in d["metrics"]:		# the mark of each cell is the JSON's verdict
    for i, side in enumerate(m["sides"][1:], 1):
        cell = grid[m["metric"]][i]
        assert cell.endswith(" R") == side["regression"], (m["metric"], cell, side)
        assert cell.endswith(" *") == (side["significant"] and not side["regression"]
                                       and m["polarity"] != 0), (m["metric"], cell, side)
        assert cell.endswith(" ~") == (side["significant"] and m["polarity"] == 0), (m["metric"], cell)
print("ok: CSV = JSON values (%d rows); text = Markdown = page cells (%d metrics x 3 sides)"
      % (len(rows), len(grid)))
PY

# The comparison page (--html): self-contained; in headless Chromium no
# console message and no request; the cells the JSON calls regressions are
# marked, exactly; the hostile label is text; the charts overlay the sides.
command -v chromium >/dev/null || skip "chromium is not installed"
ra-compare --html "$TMP/c.html" -f json "$H:read_ahead_kb=512" "$H:$(printf '</testsuites&>'"'"'"\001\\-\377')" > "$TMP/hc.json"
check_eq "$?" 1 "ra-compare --html: the exit status is the verdict's"
[ -e "$TMP/c.html.tmp" ] && fail "temporary page left"
grep -qiE '<(script|link|img|iframe)[ >]|src=|href="?https?:' "$TMP/c.html" && fail "the page loads or runs something"
/usr/bin/python3 - "$TMP/c.html" "$TMP/hc.json" <<'PY' || fail "the comparison page"
import json, re, sys
html = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
rows = re.findall(r'<tr><td class="s">([a-z0-9_]+)</td>(.*?)</tr>', html)
assert len(rows) == len(d["metrics"]), (len(rows), len(d["metrics"]))
for (name, cells), m in zip(rows, d["metrics"]):
    assert name == m["metric"], (name, m["metric"])
    classes = re.findall(r'<td(?: class="([a-z ]*)")?>', cells)
    assert len(classes) == len(d["sides"]), (name, classes)
    for side, cls in zip(m["sides"], classes):
        assert ("reg" in cls.split()) == side["regression"], (name, classes)
        plain = side["significant"] and not side["regression"] and not side["emulated"] \
            and not side["inconclusive"]
        assert ("sig" in cls.split()) == (plain and m["polarity"] != 0), (name, classes)
        assert ("chg" in cls.split()) == (plain and m["polarity"] == 0), (name, classes)
assert "&lt;/testsuites&amp;&gt;&apos;&quot;\\x01\\\\-\\xff" in html, "the hostile label escaped"
for fid in ("x-throughput", "x-hit", "x-thrash", "x-latency", "x-ramps"):
    assert 'id="%s"' % fid in html, fid
print("ok: comparison page: regressions marked as the JSON says, label escaped, charts there")
PY
mkdir -p "$TMP/cpage"
chromium_page "$TMP/cpage" "file://$TMP/c.html" || fail "chromium: $(tail -3 "$TMP/cpage/log")"
grep -E 'CONSOLE|Uncaught|Content Security Policy|Refused to' "$TMP/cpage/log" && fail "console messages"
page_requests "$TMP/cpage/net.json" > "$TMP/cpage/req" || fail "cannot read the net log"
[ -s "$TMP/cpage/req" ] && fail "the page made requests: $(head -3 "$TMP/cpage/req")"
mkdir -p "$RA_TOP/tests/artifacts"
cp "$TMP/cpage/shot.png" "$RA_TOP/tests/artifacts/compare.png"
echo "ok: comparison page: no console message, no request"
