# Complete sequential reads whose read() sizes are not page multiples, reads
# of 1 MiB, 16 MiB and 64 MiB (larger than the 32 MiB file: one read() spans
# every window), on ext4, xfs and btrfs (which marks folios read in a worker,
# after the block completion), and tar over a directory of many small files:
# every read-ahead page is read, so the hit ratio is exactly 1.0, nothing is
# pending or evicted, and the block totals equal the /sys/block stat deltas.
# The device is throttled (100 MB/s) so that the readers catch up with their
# readahead: reads then span a folio still under I/O, whose first batch the
# kernel returns without an mm_filemap_get_pages event (docs/metrics.md), and
# the analysis must find those pages from the kernel's own signature
# (used_inferred).
# test: needs=root,tracefs budget=45
. "$(dirname "$0")/lib.sh"
need_tracefs
need_rawl
make_tmp
command -v tar >/dev/null || skip "no tar"

# check_complete WHAT: the run in $DB read every read-ahead page.
check_complete() {
	local f
	f=$(q "$DB" "SELECT used || '|' || evicted_unused || '|' || pending || '|' || thrashed || '|' || mapped
		|| '|' || (used = readahead_pages) || '|' || hit_ratio FROM v_readahead_stats
		WHERE run_id = $run AND pattern = 'all'")
	note "$1: used|evicted|pending|thrashed|mapped|all used|hit = $f; inferred $(q "$DB" "SELECT SUM(used_inferred) FROM windows")"
	# on a mismatch, the first windows that left pages unread say which case it was
	local got why=
	got=$(echo "$f" | cut -d'|' -f2-)
	[ "$got" = "0|0|0|0|1|1.0" ] || why=" (unread in: $(q "$DB" "SELECT GROUP_CONCAT(w, '; ') FROM (SELECT
		'ino ' || ino || ' eof ' || COALESCE(eof_page, '?') || ' window ' || start_page || '+' || size_pages
		|| '/' || async_size_pages || ' ' || trigger || ' used ' || used || ' inferred ' || used_inferred
		|| ' pending ' || pending || ' evicted ' || evicted_unused AS w FROM windows WHERE run_id = $run
		AND ra_pages_added > used ORDER BY seq LIMIT 4)"))"
	check_eq "$got" "0|0|0|0|1|1.0" "$1: every read-ahead page used, hit ratio 1.0$why"
	# the trace's completions and sectors, then the stat deltas, when they differ
	check_eq "$(q "$DB" "SELECT reads_completed || '/' || sectors_read || ' != ' || stat_reads_delta
		|| '/' || stat_sectors_delta FROM v_device_io WHERE run_id = $run AND stat_match IS NOT 1
		AND dev = '$LOOP_DEV'")" "" "$1: block totals = stat deltas"
}
record() {	# WHAT CMD...: a cold, throttled recording of CMD
	local what=$1; shift
	DB=$TMP/$what.db
	ra-record -q -o "$DB" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" \
		--throttle "$LOOP_NAME=bps:104857600" -- "$@" > "$TMP/out" 2> "$TMP/err" ||
		fail "$what: ra-record: $(cat "$TMP/err")"
	run=$(q "$DB" "SELECT run_id FROM runs")
	check_eq "$(q "$DB" "SELECT lost_events FROM v_runs")" 0 "$what: lost events"
}

inferred=0
for fs in ext4 xfs btrfs; do
	make_loop 400 "$fs"
	make_file "$MNT/f" 32
	for bs in 10240 6144 3000 1048576 16777216 67108864; do
		record "$fs-dd$bs" dd if="$MNT/f" of=/dev/null bs="$bs"
		check_complete "$fs: dd bs=$bs"
		inferred=$((inferred + $(q "$DB" "SELECT SUM(used_inferred) FROM windows")))
	done
	record "$fs-rawl" "$RAWL" seq "$MNT/f" --bs 100000
	check_grep "^seq: 33554432 bytes" "$TMP/out" "$fs: rawl read the file"
	check_complete "$fs: rawl seq --bs 100000"
done

# A read that stops short of the end, 20,000,000 bytes of the 32 MiB file:
# the window ahead of it stays cached and unread, and the reads returned
# batches without events, so the trace cannot tell whether every pending page
# went unread. The report says so and bounds the hit ratio: from the pages the
# trace placed to those plus the pending ones.
record btrfs-partial dd if="$MNT/f" of=/dev/null bs=100000 count=200
f=$(q "$DB" "SELECT used || '|' || pending || '|' || hit_ratio || '|' || readahead_pages
	FROM v_readahead_stats WHERE run_id = $run AND pattern = 'all'")
note "partial: used|pending|hit|readahead pages = $f"
IFS='|' read -r used pending hit ra <<< "$f"
# the pages dd read: 0 .. 19999999 / 4096; every one read ahead but the first
check_cmp "$used" -le 4882 "partial: no page past what dd read is used"
check_cmp "$pending" -gt 0 "partial: the window ahead is pending"
ra-report "$DB" > "$TMP/report" || fail "ra-report of the partial read"
check_grep "! $pending read-ahead pages were still cached and unread by any traced read.* between $hit and $(q "$DB" "SELECT ROUND(CAST($used + $pending AS REAL) / $ra, 4)")\$" \
	"$TMP/report" "partial: the report bounds the hit ratio and says why"
check_cmp "$inferred" -gt 0 "reads showed only their tails, and the analysis found them"

# tar of a directory of many small files of all sizes
make_loop 128
mkdir "$MNT/d"
for i in $(seq 1500); do
	head -c $(( (i * 7919) % 60000 + 1 )) /dev/urandom > "$MNT/d/f$i"
done
sync
record tar sh -c "tar cf - -C '$MNT' d | cat > /dev/null"
check_complete "tar of 1500 small files"
check_cmp "$(q "$DB" "SELECT COUNT(DISTINCT ino) FROM windows")" -ge 1000 "tar: windows of most files"
