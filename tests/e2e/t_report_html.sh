# The HTML report: one file that opens offline in headless Chromium with no
# console errors and no network requests, with the charts (the screenshot is
# kept in tests/artifacts/), and trace strings escaped: a file named
# <script>alert(1)</script> (a directory '<script>alert(1)<' and a file 'script>') is text
# on the page, not a script.
# test: needs=root,tracefs,chromium budget=11
. "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || skip "chromium is not installed"
need_tracefs
make_tmp
make_loop 64
name='<script>alert(1)</script>'
mkdir "$MNT/<script>alert(1)<"		# the '/' of the name makes a directory
make_file "$MNT/$name" 8
DB=$TMP/r.db
ra-record -q -o "$DB" -d "$LOOP_NAME" "${COLD[@]}" -- dd if="$MNT/$name" of=/dev/null bs=4k || fail "record"
ra-import -q -o "$DB" "$RA_FIXTURES/par4thrash.dat" || fail "import"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM files WHERE path LIKE '%<script>%'")" 1 "the file's name is in the database"

# The checks can fail: a page that loads an image from elsewhere is caught.
mkdir -p "$TMP/control"
echo '<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png"></body></html>' > "$TMP/control/p.html"
chromium_page "$TMP/control" "file://$TMP/control/p.html" || fail "chromium failed on the control page"
page_requests "$TMP/control/net.json" | grep -q '127.0.0.1:9/x.png' || fail "the net log check misses a request"
echo "ok: the check sees a request of a control page"

for run in 1 2; do
	html=$TMP/r$run.html
	ra-report --run $run --html "$html" "$DB" || fail "ra-report --html (run $run)"
	[ -e "$html.tmp" ] && fail "temporary file left"
	check_cmp "$(stat -c %s "$html")" -gt 10000 "page of run $run has content"
	grep -qiE '<(script|link|img|iframe)[ >]|src=|href="?https?:' "$html" &&
		fail "run $run: the page loads or runs something: $(grep -oiE '<(script|link|img|iframe)[^>]*>|src=[^ ]*|https?:[^ ]*' "$html" | head -3)"
	check_cmp "$(grep -c '<svg' "$html")" -ge 4 "run $run: charts"
	for c in c-windows c-fates c-latency c-throughput; do
		grep -q "id=\"$c\"" "$html" || fail "run $run: chart $c missing"
	done
	echo "ok: run $run: window, fate, latency and throughput charts"
	out=$TMP/chromium-$run
	mkdir -p "$out"
	chromium_page "$out" "file://$html" || fail "chromium failed: $(tail -5 "$out/log")"
	check_cmp "$(stat -c %s "$out/shot.png")" -gt 50000 "run $run: screenshot"
	grep -E 'CONSOLE|Uncaught|Content Security Policy|Refused to' "$out/log" &&
		fail "run $run: console messages on the page"
	echo "ok: run $run: no console messages"
	page_requests "$out/net.json" > "$out/req" || fail "cannot read the net log"
	[ -s "$out/req" ] && fail "run $run: the page made network requests: $(head -3 "$out/req")"
	echo "ok: run $run: no network requests from the page"
	mkdir -p "$RA_TOP/tests/artifacts"
	cp "$out/shot.png" "$RA_TOP/tests/artifacts/report-run$run.png"
done

# the file name is text, escaped once, never markup
grep -qF "$name" "$TMP/r1.html" && fail "the raw file name is in the page"
check_grep '&lt;script&gt;alert\(1\)&lt;/script&gt;' "$TMP/r1.html" "the file name is escaped"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$TMP/profile-dom" --dump-dom "file://$TMP/r1.html" > "$TMP/dom.html" 2>/dev/null
check_cmp "$(grep -c '&lt;script&gt;alert(1)&lt;/script&gt;' "$TMP/dom.html")" -ge 1 "the DOM holds the name as text"
grep -q '<script>alert' "$TMP/dom.html" && fail "the DOM has a script element from the name"
echo "ok: no script element in the DOM"
