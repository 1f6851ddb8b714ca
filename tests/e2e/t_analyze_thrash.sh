# Readahead thrashing: four sequential readers (rawl seq) of four 24 MiB files
# at once, with read_ahead_kb=2048 (windows of up to 512 pages), all four in a
# cgroup v1 memory cgroup of 12 MiB. Their read-ahead pages are reclaimed
# before the readers reach them and read again: thrashed pages. The recorder
# runs outside the cgroup. ra-whatif predicts the run under pressure: its
# estimate of reclaim thrashes as the run did, and less with smaller windows.
# test: needs=root,tracefs budget=6
. "$(dirname "$0")/lib.sh"
LIMIT_MB=${RA_THRASH_LIMIT_MB:-12}
FILE_MB=24
need_tracefs
need_rawl
make_tmp
make_loop 160
# A reader's own memory counts against the limit too: about 256 KiB for a
# normal build of rawl, about 10 MiB for a sanitizer build. Measure it in a
# probe cgroup while a reader waits in the middle of reading a pipe (after a
# first run has charged the shared libraries), and add what is above 1 MiB per
# reader to the limit, so that about LIMIT_MB remain for the page cache.
# (Leak checks at exit would take much more: off for the readers.)
READER_ASAN=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
make_memcg 1024
probe=$MEMCG
head -c 4096 /dev/urandom > "$TMP/probe"
ASAN_OPTIONS=$READER_ASAN in_memcg "$RAWL" seq "$TMP/probe" >/dev/null || fail "rawl in the probe cgroup"
base=$(cat "$probe/memory.usage_in_bytes")
{ head -c 4096 /dev/zero; sleep 0.5; cat "$probe/memory.usage_in_bytes" > "$TMP/usage"; } |
	ASAN_OPTIONS=$READER_ASAN in_memcg "$RAWL" seq /dev/stdin >/dev/null || fail "rawl reading a pipe in the probe cgroup"
own=$(( $(cat "$TMP/usage") - base ))
extra_mb=0
[ "$own" -gt $((1 << 20)) ] && extra_mb=$(( (4 * own + (1 << 20) - 1) >> 20 ))
note "a reader's own memory: $own bytes; memory cgroup of $LIMIT_MB + $extra_mb MiB"
limit=$((LIMIT_MB + extra_mb))
inos=()
for i in 1 2 3 4; do
	make_file "$MNT/f$i" "$FILE_MB"
	inos+=("$(stat -c %i "$MNT/f$i")")
done

# The workload: a shell outside the cgroup starts the four readers inside it.
# Whether the readers' timing makes them thrash at a given limit varies (most
# with sanitizer builds, whose readers use more memory): a run that did not
# thrash is recorded again in a tighter cgroup, at most three times.
export RAWL MNT READER_ASAN
export -f in_memcg
in_list=$(IFS=,; echo "${inos[*]}")
for attempt in 1 2 3; do
	make_memcg "$limit"
	export MEMCG
	check_eq "$(cat "$MEMCG/memory.limit_in_bytes")" $((limit << 20)) "memory cgroup limit"
	rm -f "$TMP"/run.db*
	# shellcheck disable=SC2016 # the $ are the inner bash's
	record_loop 2048 bash -c 'pids=
		for i in 1 2 3 4; do
			ASAN_OPTIONS=$READER_ASAN in_memcg "$RAWL" seq "$MNT/f$i" & pids="$pids $!"
		done
		rc=0; for p in $pids; do wait $p || rc=1; done; exit $rc'
	note "memory cgroup: max usage $(cat "$MEMCG/memory.max_usage_in_bytes") bytes, failcnt $(cat "$MEMCG/memory.failcnt")"
	fates=$(raw_page_fates "$DB" "$run" "$kdev" "${inos[@]}")
	IFS='|' read -r _ _ _ r_thrashed <<<"$fates"
	[ "$r_thrashed" -gt 0 ] && break
	note "attempt $attempt: no thrashing in $limit MiB, trying a tighter cgroup"
	limit=$((limit * 3 / 4))
done
check_eq "$(q "$DB" "SELECT workload_output FROM runs" | grep -c "^seq: $((FILE_MB << 20)) bytes")" 4 \
	"the four readers read their files"

# The raw recording: page fates from the page-cache events alone.
ra="FROM ra_events WHERE run_id = $run AND dev = $kdev AND ino IN ($in_list)"
pe="FROM page_events WHERE run_id = $run AND dev = $kdev AND ino IN ($in_list)"
note "raw: $(q "$DB" "SELECT GROUP_CONCAT(n || ' ' || e, ', ') FROM (SELECT CASE event_id WHEN 1 THEN 'sync' WHEN 2 THEN 'async' WHEN 3 THEN 'ra_order' ELSE 'ra_unbounded' END AS e, COUNT(*) AS n $ra GROUP BY event_id)")"
check_eq "$(q "$DB" "SELECT COUNT(DISTINCT pid) || '|' || COUNT(DISTINCT ino) $ra")" "4|4" "readahead of four tasks on four files"
check_eq "$(q "$DB" "SELECT MAX(ra_pages) $ra AND event_id = 3")" 512 "ra_pages 512"
check_cmp "$(q "$DB" "SELECT COUNT(*) $pe AND event_id = 11")" -gt 0 "page-cache deletes of the files"
note "raw page fates of the four files (added|used|evicted_unused|thrashed): $fates (the files have $((4 * FILE_MB * 256)) pages)"
check_cmp "$r_thrashed" -gt 0 "raw: pages evicted unused and read again"

# The analysis.
f="FROM v_file_fates WHERE run_id = $run AND dev = '$LOOP_DEV' AND ino IN ($in_list)"
note "v_file_fates (ino|windows|ra_pages|used|evicted_unused|pending|thrashed|hit_ratio):"
q "$DB" "SELECT ino, windows, ra_pages, used, evicted_unused, pending, thrashed, hit_ratio $f ORDER BY ino" | sed 's/^/#   /'
check_eq "$(q "$DB" "SELECT COUNT(*) $f")" 4 "v_file_fates rows of the four files"
check_cmp "$(q "$DB" "SELECT COALESCE(SUM(thrashed), 0) $f")" -gt 0 "thrashed pages"
check_eq "$(q "$DB" "SELECT COUNT(*) $f AND evicted_unused < thrashed")" 0 "evicted_unused >= thrashed per file"
check_cmp "$(q "$DB" "SELECT COALESCE(SUM(evicted_unused), 0) $f")" -ge "$(q "$DB" "SELECT COALESCE(SUM(thrashed), 0) $f")" "evicted_unused >= thrashed"

# The replay under memory pressure. The recorded run's reclaim took pages
# read ahead before they were read: a prediction holds its page cache to
# what the run's cache held when its reclaim took pages (the four files'
# pages, on average at each deletion), evicting by a
# clock in the order folios came, instead of the run's own deletions (which
# another setting would not make): its evictions are an estimate, and its
# doubts say reclaim. Ground truth: at the run's own setting the estimate
# thrashes as the run did, within a factor of 2 of its thrashed pages (0.86
# to 1.44 times in five runs, 0.99 to 1.23 in three of sanitizer builds; a
# clock that spared folios read once, which the kernel's reclaim does not,
# thrashed up to 4.7 times the run); at 128 KiB,
# windows a sixteenth the size, fewer pages are evicted unused.
ra-whatif -q --store -r "$run" -k 2048,128 "$DB" > /dev/null || fail "ra-whatif under pressure"
w() {	# KB: the prediction's evicted unused and thrashed pages of the four files
	q "$DB" "SELECT COALESCE(SUM(w.evicted_unused), 0) || ' ' || COALESCE(SUM(w.thrashed), 0)
		FROM windows w JOIN whatif p USING (run_id) WHERE p.read_ahead_kb = $1
		AND w.dev = $kdev AND w.ino IN ($in_list)"
}
read -r e2048 t2048 < <(w 2048)
read -r e128 t128 < <(w 128)
note "predicted evicted unused|thrashed pages: at 2048 KiB $e2048|$t2048, at 128 KiB $e128|$t128 (recorded at 2048: $r_thrashed thrashed)"
check_cmp "$t2048" -ge $((r_thrashed / 2)) "the estimate at the run's setting: thrashed within a factor of 2 (above)"
check_cmp "$t2048" -le $((r_thrashed * 2)) "the estimate at the run's setting: thrashed within a factor of 2 (below)"
check_cmp "$e128" -lt "$e2048" "smaller windows: fewer pages evicted unused"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM whatif WHERE doubts LIKE '%reclaim%'")" 2 \
	"both predictions say their evictions are reclaim's estimate"
