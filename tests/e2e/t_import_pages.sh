# ra-import reads a trace.dat's records itself, a sub-buffer at a time
# (compressed chunks decompressed one by one), so that its memory does not
# grow with the trace. The ground truth is trace-cmd's own reader on the
# same file: `trace-cmd report -t` lists every record with its CPU and its
# time in ns, and the records ra-import stores must be those, in that
# order, with those times and CPUs. On the compressed fixtures (version 7),
# the version 6 conversion of one (uncompressed), and, as root, a trace of
# two tracefs instances extracted here (three buffers: the top one and the
# two instances, merged by time).
# test: needs=root,tracefs budget=12
. "$(dirname "$0")/lib.sh"
command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
make_tmp

# every stored record of DB as "ts cpu event", in the order stored
stored() {
	q "$1" "SELECT e.ts_ns || ' ' || e.cpu || ' ' || t.name FROM (
		SELECT seq, ts_ns, cpu, event_id FROM ra_events UNION ALL
		SELECT seq, ts_ns, cpu, event_id FROM page_events UNION ALL
		SELECT seq, ts_ns, cpu, event_id FROM blk_events) e
		JOIN event_types t USING (event_id) ORDER BY e.seq"
}
# trace-cmd's records of the types DB stores, the same way
reported() {
	q "$2" "SELECT name FROM event_types" > "$TMP/types"
	trace-cmd report -t "$1" 2>/dev/null | awk -v types="$TMP/types" '
		BEGIN { while ((getline t < types) > 0) keep[t] = 1 }
		{ cpu = ""; for (i = 1; i < NF; i++) {
			if ($i ~ /^\[[0-9]+\]$/) { cpu = substr($i, 2, length($i) - 2) + 0 }
			if (cpu != "" && $i ~ /^[0-9]+\.[0-9]+:$/) {
				ts = $i; sub(/:$/, "", ts); sub(/\./, "", ts); sub(/^0+/, "", ts)
				ev = $(i + 1); sub(/:$/, "", ev)
				if (ev in keep) print ts, cpu, ev
				break } } }'
}
same_records() {	# FILE NAME
	rm -f "$TMP/one.db"*
	ra-import -q --no-analyze -o "$TMP/one.db" "$1" 2> "$TMP/err" || fail "$2: ra-import: $(cat "$TMP/err")"
	stored "$TMP/one.db" > "$TMP/ours"
	reported "$1" "$TMP/one.db" > "$TMP/theirs"
	check_cmp "$(wc -l < "$TMP/theirs")" -ge 100 "$2: records trace-cmd reports"
	cmp -s "$TMP/ours" "$TMP/theirs" ||
		fail "$2: the stored records differ from trace-cmd's: $(diff "$TMP/theirs" "$TMP/ours" | head -4 | tr '\n' ';')"
	echo "ok: $2: $(wc -l < "$TMP/ours") records, each trace-cmd's, in its order, times and CPUs"
}

for f in seq128 mmapread par4thrash; do
	same_records "$RA_FIXTURES/$f.dat" "$f (version 7, compressed)"
done
conv=()
[ "$(id -u)" -eq 0 ] && conv=(unshare -m)	# trace-cmd mounts tracefs if it can: not here
"${conv[@]}" trace-cmd convert --file-version 6 -i "$RA_FIXTURES/par4thrash.dat" -o "$TMP/v6.dat" \
	>/dev/null 2>&1 || fail "trace-cmd convert --file-version 6"
same_records "$TMP/v6.dat" "par4thrash (version 6, uncompressed)"

[ "$(id -u)" -eq 0 ] || skip "the trace of two instances needs root"
need_tracefs
T=/sys/kernel/tracing
A=$T/instances/ratrace-pages-a.$$ B=$T/instances/ratrace-pages-b.$$
on_exit "rmdir '$A' '$B' 2>/dev/null"
mkdir "$A" "$B" || fail "make the tracefs instances"
for i in "$A" "$B"; do echo 0 > "$i/tracing_on"; echo 1024 > "$i/buffer_size_kb"; done
{ echo 1 > "$A/events/filemap/enable" && echo 1 > "$B/events/block/enable"; } || fail "enable the events"
head -c 16M /dev/urandom > "$TMP/f" && sync "$TMP/f"
evict_files "$TMP/f"
for i in "$A" "$B"; do echo 1 > "$i/tracing_on"; done
dd if="$TMP/f" of=/dev/null bs=4k status=none
for i in "$A" "$B"; do echo 0 > "$i/tracing_on"; done
"$RA_TOP/bench/tc_extract.sh" "$TMP/two.dat" "$(basename "$A")" "$(basename "$B")" \
	> "$TMP/out" 2>&1 || fail "trace-cmd extract: $(tail -3 "$TMP/out")"
rmdir "$A" "$B" 2>/dev/null	# (trace-cmd extract may have removed them)
if [ -d "$A" ] || [ -d "$B" ]; then fail "remove the tracefs instances"; fi
same_records "$TMP/two.dat" "two instances (three buffers)"
