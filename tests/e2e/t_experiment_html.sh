# The experiment page of a 24-run sweep (read_ahead_kb 16, 64, 256, 1024 x
# fio numjobs 1, 2, 4 x 2 repeats, on a throttled loop device), written by
# ra-report --html with the page of each run beside it: in headless Chromium
# no console message and no request; every chart there with its axes, its
# labels and its legend; each run's page linked and present; a hostile label
# is text; under 1 MB. Screenshots (desktop and phone width) are kept in
# tests/artifacts/.
# test: needs=root,tracefs,fio,chromium budget=37
. "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || skip "chromium is not installed"
command -v fio >/dev/null || skip "no fio"
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
need_tracefs
make_tmp
make_loop 128
mkdir -p "$MNT/fio"
DB=$TMP/x.db
hostile='<script>alert(1)</script>&"'
# shellcheck disable=SC2016 # $NJ and $0 are the inner sh's
rec -q -o "$DB" -d "$LOOP_NAME" --label "$hostile" --sweep read_ahead_kb=16,64,256,1024 \
	--sweep-env NJ=1,2,4 --repeat 2 "${COLD[@]}" --throttle "$LOOP_NAME=iops:2000,bps:200000000" \
	-- sh -c 'exec fio --name=r --rw=read --bs=4k --size=2M --numjobs=$NJ --directory="$0" --output-format=json' \
	"$MNT/fio" > /dev/null 2> "$TMP/err" || fail "record the sweep: $(cat "$TMP/err")"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM runs")" 24 "runs recorded"
P=$TMP/page/x.html
mkdir -p "$TMP/page"
ra-report --html "$P" "$DB" 2> "$TMP/err" || fail "ra-report --html: $(cat "$TMP/err")"
ls "$TMP/page"/*.tmp 2>/dev/null && fail "temporary pages left"
check_cmp "$(stat -c %s "$P")" -lt 1048576 "the experiment page is under 1 MB"
note "experiment page: $(stat -c %s "$P") bytes"
grep -qiE '<(script|link|img|iframe)[ >]|src=|href="?https?:' "$P" && fail "the page loads or runs something"
# every run linked, every linked page there
for id in $(q "$DB" "SELECT run_id FROM runs"); do
	grep -q "href=\"x.run-$id.html\"" "$P" || fail "run $id not linked"
	[ -s "$TMP/page/x.run-$id.html" ] || fail "the page of run $id is missing"
done
echo "ok: 24 runs linked, their pages written"
# the charts: each an SVG with both axes, axis labels and a legend
/usr/bin/python3 - "$P" <<'PY' || fail "charts"
import re, sys
html = open(sys.argv[1]).read()
want = ["x-throughput", "x-hit", "x-thrash", "x-latency", "x-ramps"]
for fid in want:
    m = re.search(r'<figure id="%s">(.*?)</figure>' % fid, html, re.S)
    assert m, "chart %s missing" % fid
    fig = m.group(1)
    assert fig.count('class="ax"') >= 2, (fid, "axes")
    assert 'class="xl"' in fig and 'class="yl"' in fig, (fid, "axis labels")
    assert 'class="xt"' in fig and 'class="yt"' in fig, (fid, "ticks")
    legend = fig.count('class="lg"') + fig.count("<li>")
    assert legend >= 3, (fid, "legend", legend)
    assert "<figcaption>" in fig, (fid, "caption")
assert 'id="c-model"' in html, "the device model chart"
assert "read_ahead_kb" in html and "numjobs" in html
print("ok: the five experiment charts and the device model, each with axes, labels and legend")
PY
# the hostile label: text on the page (in each run's page header), never markup
grep -qF "$hostile" "$TMP/page/x.run-1.html" && fail "the raw label is in a run's page"
check_grep '&lt;script&gt;alert\(1\)&lt;/script&gt;&amp;&quot;' "$TMP/page/x.run-1.html" "the label is escaped"
for view in desktop:1200,3400 phone:390,4200; do
	out=$TMP/chromium-${view%%:*}
	mkdir -p "$out"
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$out/profile" --enable-logging=stderr --v=0 \
		--log-net-log="$out/net.json" --window-size="${view#*:}" \
		--screenshot="$out/shot.png" "file://$P" > "$out/log" 2>&1 || fail "chromium: $(tail -3 "$out/log")"
	check_cmp "$(stat -c %s "$out/shot.png")" -gt 50000 "${view%%:*} screenshot"
	grep -E 'CONSOLE|Uncaught|Content Security Policy|Refused to' "$out/log" && fail "console messages"
	page_requests "$out/net.json" > "$out/req" || fail "cannot read the net log"
	[ -s "$out/req" ] && fail "the page made requests: $(head -3 "$out/req")"
	mkdir -p "$RA_TOP/tests/artifacts"
	cp "$out/shot.png" "$RA_TOP/tests/artifacts/experiment-${view%%:*}.png"
done
echo "ok: no console message, no request, screenshots kept"
timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-sync \
	--user-data-dir="$TMP/profile-dom" --dump-dom "file://$TMP/page/x.run-1.html" > "$TMP/dom.html" 2>/dev/null
grep -q '<script>alert' "$TMP/dom.html" && fail "the DOM has a script element from the label"
echo "ok: no script element from the label"
