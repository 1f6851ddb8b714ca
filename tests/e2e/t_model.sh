# The device model on a loop device throttled to 200 IOPS and 50 MiB/s, from
# a sweep of read_ahead_kb 32..2048 (dd bs=4k of a 64 MiB file):
# - the four runs pool into one model per run (the first run refitted once
#   the others exist); the window model's bandwidth is within 20% of the
#   throttle's, and the max form wins: blk-throttle charges an I/O
#   max(1/IOPS, bytes/bps), which a sum of the two fits worse;
# - D2C sees the loop device under the throttle: far faster;
# - the advice is 256..1024 KiB; a higher --fraction never advises less;
# - predicted and measured throughput agree within 25% per read_ahead_kb;
# - text, JSON and HTML show the model, the 2010 table over the measured
#   sizes (no extrapolation) and the advice.
# test: needs=root,tracefs cpu=1 budget=22
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
make_tmp
make_loop 160
make_file "$MNT/f" 64
DB=$TMP/model.db
BPS=52428800
rec -q -o "$DB" -d "$LOOP_NAME" --sweep read_ahead_kb=32,128,512,2048 "${COLD[@]}" \
	--throttle "$LOOP_NAME=iops:200,bps:$BPS" -- dd if="$MNT/f" of=/dev/null bs=4k 2>/dev/null
check_eq "$?" 0 "sweep recorded"
check_eq "$(find /sys/fs/cgroup/blkio -mindepth 1 -maxdepth 1 -name "ra-record.$REC_PID" | wc -l)" 0 "throttle cgroup removed"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM settings WHERE name = 'blkio.throttle.read_bps_device' AND new_value = '$BPS'")" 4 \
	"the throttle is a setting of each run"
kdev=$(loop_kdev)

q "$DB" "SELECT * FROM v_device_models" | sed 's/^/# /'
check_eq "$(q "$DB" "SELECT group_concat(runs || form || status) FROM device_models WHERE dev = $kdev AND timing = 'window' AND chosen")" \
	"4maxok,4maxok,4maxok,4maxok" "every run: the pooled window model, max form"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM device_models WHERE dev = $kdev AND timing = 'window' AND chosen
	AND ABS(bandwidth_bps - $BPS) <= 0.2 * $BPS")" 4 "fitted bandwidth within 20% of 50 MiB/s"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM device_models m JOIN device_models s USING (run_id, dev, timing)
	WHERE m.dev = $kdev AND m.timing = 'window' AND m.form = 'max' AND s.form = 'sum'
	AND s.rms_rel_err > 2 * m.rms_rel_err")" 4 "the sum form's error shows the throttle's max"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM device_models d JOIN device_models w USING (run_id, dev)
	WHERE d.timing = 'd2c' AND d.chosen AND w.timing = 'window' AND w.chosen AND d.dev = $kdev
	AND d.bandwidth_bps > 2 * w.bandwidth_bps")" 4 "D2C: the loop device below the throttle is faster"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM model_points WHERE run_id = 1 AND timing = 'window' AND used
	AND size_class IN (32768, 131072, 524288, 2097152)")" 4 "one fitted point per read_ahead_kb"

# the first runs got the fits of the last (their pool's), which are what
# analysing them again gives: the same rows, whatever the order
models() { q "$DB" "SELECT dev, timing, form, status, runs, samples, sizes, access_ns, bandwidth_bps,
	rms_rel_err, chosen FROM device_models WHERE run_id = $1 ORDER BY dev, timing, form"; }
check_eq "$(models 1)" "$(models 4)" "run 1 shares the pool's fits"
dump() { q "$DB" "SELECT * FROM model_points ORDER BY 1, 2, 3, 4; SELECT * FROM device_models
	ORDER BY 1, 2, 3, 4; SELECT * FROM device_advice ORDER BY 1, 2" | sha256sum; }
before=$(dump)
ra-analyze -q "$DB" || fail "ra-analyze"
check_eq "$(dump)" "$before" "analysing again gives the same model tables"

q "$DB" "SELECT run_id, recommended_kb, reasoning FROM device_advice" | sed 's/^/# /'
check_eq "$(q "$DB" "SELECT COUNT(*) FROM device_advice WHERE dev = $kdev AND recommended_kb BETWEEN 256 AND 1024")" 4 \
	"recommended read_ahead_kb between 256 and 1024"

q "$DB" "SELECT * FROM v_model_predictions" | sed 's/^/# /'
check_eq "$(q "$DB" "SELECT COUNT(*) FROM v_model_predictions WHERE dev = '$LOOP_DEV'
	AND ABS(predicted_bps - measured_bps) <= 0.25 * measured_bps")" 4 \
	"predicted throughput within 25% of measured for each read_ahead_kb"

ra-report --run 1 "$DB" > "$TMP/r.txt" || fail "ra-report"
sed -n '/^Device service model/,/^Readahead I\/O/p' "$TMP/r.txt"
check_grep "^  $LOOP_DEV: read_ahead_kb (256|512|1024) \(recorded with 32; aiming at 80% of the bandwidth\)" \
	"$TMP/r.txt" "text: the advice"
check_grep "like a throttle" "$TMP/r.txt" "text: the reasoning names the max form"
check_eq "$(sed -n '/^I\/O size against throughput/,/^$/p' "$TMP/r.txt" | grep -E "^$LOOP_DEV +max +[0-9]+ " |
	awk '{ print $3 }' | tr '\n' ' ')" "32 64 128 256 512 1024 2048 " \
	"text: the 2010 table over the measured sizes, 32 KiB to 2 MiB"
check_eq "$(awk 'length > 100' "$TMP/r.txt" | wc -l)" 0 "text within 100 columns"
ra-report --run 1 --fraction 95% "$DB" > "$TMP/r95.txt" || fail "ra-report --fraction"
r80=$(sed -n "s/^  $LOOP_DEV: read_ahead_kb \([0-9]*\) .*/\1/p" "$TMP/r.txt")
r95=$(sed -n "s/^  $LOOP_DEV: read_ahead_kb \([0-9]*\) .*/\1/p" "$TMP/r95.txt")
check_cmp "$r95" -ge "$r80" "a higher fraction never advises less ($r80 -> $r95)"
check_grep "aiming at 95% of the bandwidth" "$TMP/r95.txt" "--fraction 95%"
# a share up to 1, or a percentage: 1, 1.0, 100 and 100% all mean the best
for f in 1 1.0 100 100%; do
	ra-report --run 1 --fraction "$f" "$DB" > "$TMP/r100.txt" || fail "ra-report --fraction $f"
	check_grep "aiming at 100% of the bandwidth" "$TMP/r100.txt" "--fraction $f is 100%"
done
for f in 0 0% 101 150% -5 x 80x; do
	ra-report --fraction "$f" "$DB" > /dev/null 2> "$TMP/err"
	check_eq "$?" 2 "bad --fraction $f: exit status"
done

ra-report --run 1 --json "$DB" > "$TMP/r.json" || fail "ra-report --json"
python3 - "$TMP/r.json" "$LOOP_DEV" <<'EOF' || fail "JSON"
import json, sys
doc = json.load(open(sys.argv[1]))
run = doc["runs"][0] if "runs" in doc else doc
t = run["tables"] if "tables" in run else run
adv = [r for r in t["advice"] if r["dev"] == sys.argv[2]]
assert adv and 256 <= adv[0]["recommended_kb"] <= 1024, adv
assert [r["io_kb"] for r in t["model_table"] if r["dev"] == sys.argv[2]] == [32 << i for i in range(7)]
assert {r["read_ahead_kb"] for r in t["predictions"]} == {32, 128, 512, 2048}
assert any(r["chosen"] == 1 and r["form"] == "max" for r in t["model"])
print("ok: JSON advice", adv[0]["recommended_kb"], "KiB")
EOF
ra-report --run 1 --html "$TMP/r.html" "$DB" || fail "ra-report --html"
check_grep 'id="c-model"' "$TMP/r.html" "HTML: the model chart"
check_grep '<h3 id="advice">' "$TMP/r.html" "HTML: the advice table"
# the page says it as the text does: the number, then the reasoning as a paragraph
check_grep "<p><b>$LOOP_DEV</b>: read_ahead_kb <b>(256|512|1024)</b> \(recorded with 32; aiming at 80% of the bandwidth\)</p>" \
	"$TMP/r.html" "HTML: the advice's number"
check_grep '<p class="why">[^<]*like a throttle' "$TMP/r.html" "HTML: the reasoning, a paragraph"
