# The end-to-end scenarios under the kernels people run: a cold sequential
# read, random reads, an mmap read, fadvise(WILLNEED) then a read, and two
# readers interleaved on one file (rawl), at read_ahead_kb 128, recorded on
# this machine's kernel (a loop device) and inside guests of 6.1, 6.12, 6.18
# and 7.3 (one guest boot per kernel: the scenarios are a --sweep-env), all in
# one database. On every kernel the block totals equal the disk's stat
# deltas and the pages added cover what was read. On 6.18, the machine's own
# series, each scenario's windows (sizes and patterns, in order) and page
# fates equal the machine's; on 7.3 the sequential reads are whole (hit ratio
# 1.0). On 6.1 and 6.12 (no readahead:* tracepoints) the readahead events
# come from kprobes made from the kernel's BTF: their self-check passes, and
# the cold sequential read has one initial window, the rest subsequent,
# windows no larger than ra_pages and hit ratio 1.0; 6.12's kprobes written
# with offsets read from BTF give what its kprobes with BTF names give. On
# 6.18 and 7.3, recorded from both sources at once, the kprobes give exactly
# the windows, patterns and fates of the tracepoints. Every run's replay at
# its own series gives back its windows (99%), and the machine's run of
# each scenario, replayed at each guest's series and device, gives the
# windows that guest recorded, every one. The experiment overview of the
# database has kernel and scenario as its dimensions, and ra-compare
# compares two kernels' runs without judging the emulated timings.
# test: needs=root,tracefs,qemu cpu=1 budget=142
. "$(dirname "$0")/lib.sh"
need_vm
need_tracefs
make_tmp
export TMPDIR=$TMP
make_scenario_files
SCENS=seq,random,mmap,fadvise,interleave
DB=$TMP/k.db

# the machine: the same files on an ext4 loop device
make_loop 64
cp "$F/f" "$F/rawl" "$F/run.sh" "$MNT/" || fail "copy to the loop device"
sync
rec -q -o "$DB" --label host -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" \
	--sweep-env "SCEN=$SCENS" -- sh "$MNT/run.sh" > /dev/null 2> "$TMP/err.host" ||
	fail "record on the machine: $(cat "$TMP/err.host")"
start=$(date +%s)
# 6.18 and 7.3 from both sources at once: each recording is stored as the
# tracepoints' run and the kprobes' run (labelled events=tracepoint, kprobe)
for k in 6.1 6.12.94 6.18 7.3; do
	both=--event-source=auto
	case $k in 6.18 | 7.3) both=--event-source=both ;; esac
	ra-record -q -o "$DB" --kernel "$k" --kernel-files "$F" --read-ahead-kb vda=128 --drop-caches \
		"$both" --sweep-env "SCEN=$SCENS" -- sh "$F/run.sh" > /dev/null 2> "$TMP/err.$k" ||
		fail "record under $k: $(cat "$TMP/err.$k")"
done
# 6.12 again, its kprobes written with offsets read from BTF: the scenarios
# that reach every probe (seq: the sync, async and order ones and
# filemap_read; mmap: the fault and map_pages ones; fadvise: the unbounded one)
DYN=$TMP/dyn.db
ra-record -q -o "$DYN" --kernel 6.12.94 --kernel-files "$F" --read-ahead-kb vda=128 --drop-caches \
	--probe-args=btf-offsets --sweep-env "SCEN=seq,mmap,fadvise" -- sh "$F/run.sh" > /dev/null 2> "$TMP/err.dyn" ||
	fail "record under 6.12 with offsets: $(cat "$TMP/err.dyn")"
note "five guests (five scenarios each, three in the last) in $(( $(date +%s) - start )) s"
check_eq "$(vm_left)" 0 "no qemu left"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM runs")" 35 \
	"runs: five scenarios on the machine and four kernels, two sources of 6.18 and 7.3"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM runs WHERE exit_status != 0")" 0 "every scenario ran"

# the label of a run: host or kernel=K, then SCEN=S
run_of() { q "$DB" "SELECT run_id FROM runs WHERE label IN ('$1,SCEN=$2', '$1,SCEN=$2,events=tracepoint')"; }
for l in host kernel=6.1 kernel=6.12.94 kernel=6.18 kernel=7.3; do
	for s in seq random mmap fadvise interleave; do
		r=$(run_of "$l" "$s")
		[ -n "$r" ] || fail "no run $l $s"
		check_eq "$(q "$DB" "SELECT COUNT(*) FROM v_device_io WHERE run_id = $r AND stat_match = 1
			AND name IN ('vda', '$LOOP_NAME')")" 1 "$l $s: block totals = stat deltas"
		ino=$(q "$DB" "SELECT ino FROM files WHERE run_id = $r AND path LIKE '%/f'")
		added=$(q "$DB" "SELECT SUM(1 << COALESCE(folio_order, 0)) FROM (SELECT DISTINCT p.page_index,
			p.folio_order FROM page_events p JOIN event_types t USING (event_id)
			WHERE p.run_id = $r AND t.name = 'mm_filemap_add_to_page_cache' AND p.ino = '$ino')")
		case $s in
		random)	# what rawl says it read: distinct pages of its reads
			want=$(q "$DB" "SELECT workload_output FROM runs WHERE run_id = $r" |
				sed -n 's/^random: .*; \([0-9]*\) pages read$/\1/p')
			[ -n "$want" ] || fail "$l random: rawl did not say what it read" ;;
		*) want=4096 ;;
		esac
		check_cmp "$added" -ge "$want" "$l $s: the pages added cover what was read"
	done
done

# 6.18 (the machine's series): the data file's windows and fates as on the
# machine. The windows WILLNEED forces are the device's, not the kernel's:
# force_page_cache_ra() reads max(io_pages, ra_pages) pages (io_pages from
# max_sectors_kb: a loop device's differs from a virtio disk's) in chunks of
# 2 MiB; they are checked against that, and the read after them is compared
# by its ramp (its first 16 windows: it starts past the forced pages, so the
# count of its windows is the device's too) and its fates.
ino_of() { q "$DB" "SELECT ino FROM files WHERE run_id = $1 AND path LIKE '%/f'"; }
shape() {	# RUN [N]: the data file's windows in order (size, pattern; the first N) but forced ones, and its fates
	local ino
	ino=$(ino_of "$1")
	q "$DB" "SELECT group_concat(size_pages || pattern, ' ') FROM (SELECT * FROM windows WHERE run_id = $1
		AND ino = $ino AND pattern != 'forced' ORDER BY window_id LIMIT ${2:--1})"
	q "$DB" "SELECT SUM(used) || '|' || SUM(evicted_unused) || '|' || SUM(pending) || '|' || SUM(mapped)
		|| '|' || SUM(thrashed) FROM windows WHERE run_id = $1 AND ino = $ino"
}
forced() {	# RUN: the forced pages and the largest forced window, and what the device says
	local ino
	ino=$(ino_of "$1")
	q "$DB" "SELECT SUM(size_pages) || ' ' || MAX(size_pages) FROM windows WHERE run_id = $1 AND ino = $ino
		AND pattern = 'forced'"
	q "$DB" "SELECT MIN(4096, MAX(s.max_sectors_kb / 4, 32)) || ' ' || MIN(512, MAX(s.max_sectors_kb / 4, 32))
		FROM device_snapshots s JOIN devices d USING (run_id, dev) WHERE s.run_id = $1 AND s.phase = 'before'
		AND d.name IN ('vda', '$LOOP_NAME')"
}
for s in seq random mmap fadvise interleave; do
	n=-1
	[ "$s" = fadvise ] && n=16
	h=$(shape "$(run_of host "$s")" $n) g=$(shape "$(run_of kernel=6.18 "$s")" $n)
	[ -n "$h" ] || fail "no windows on the machine for $s"
	check_eq "$g" "$h" "6.18 $s: the file's windows and fates equal the machine's"
done
for l in host kernel=6.18 kernel=7.3; do
	f=$(forced "$(run_of "$l" fadvise)")
	check_eq "$(echo "$f" | head -n 1)" "$(echo "$f" | tail -n 1)" \
		"$l fadvise: WILLNEED forced max(io_pages, ra_pages) pages in chunks of at most 2 MiB"
	r=$(run_of "$l" seq)
	ino=$(ino_of "$r")
	check_eq "$(q "$DB" "SELECT SUM(used) = SUM(ra_pages_added) AND SUM(ra_pages_added) > 0 FROM windows
		WHERE run_id = $r AND ino = $ino")" 1 "$l seq: every read-ahead page of the file read"
	check_eq "$(q "$DB" "SELECT pattern FROM windows WHERE run_id = $r AND ino = $ino ORDER BY window_id LIMIT 1")" \
		initial "$l seq: the file's first window is initial"
done

# 6.1 and 6.12: the readahead events from kprobes, checked, and the cold
# sequential read's windows as the algorithm makes them
for l in kernel=6.1 kernel=6.12.94; do
	check_eq "$(q "$DB" "SELECT group_concat(DISTINCT e.probe) FROM event_sources e JOIN runs r USING (run_id)
		WHERE r.label LIKE '$l,%' AND e.system = 'readahead'")" kprobe "$l: readahead events from kprobes"
	check_eq "$(q "$DB" "SELECT COUNT(*) FROM self_checks c JOIN runs r USING (run_id) WHERE r.label LIKE '$l,%'
		AND c.state = 'pass' AND c.checked > 0")" 5 "$l: the self-check passed in every scenario"
	r=$(run_of "$l" seq)
	ino=$(ino_of "$r")
	check_eq "$(q "$DB" "SELECT state FROM analyses WHERE run_id = $r AND pass = 'readahead'")" ok \
		"$l: readahead analysis ran"
	check_eq "$(q "$DB" "SELECT SUM(pattern = 'initial') || ' ' || SUM(pattern = 'subsequent') || ' ' || COUNT(*)
		FROM windows WHERE run_id = $r AND ino = $ino" | awk '{ print $1, ($2 == $3 - 1) }')" "1 1" \
		"$l seq: one initial window, the rest subsequent"
	check_eq "$(q "$DB" "SELECT COUNT(*) FROM windows WHERE run_id = $r AND ino = $ino AND size_pages > ra_pages")" 0 \
		"$l seq: no window larger than ra_pages"
	check_eq "$(q "$DB" "SELECT MAX(ra_pages) FROM windows WHERE run_id = $r AND ino = $ino")" 32 \
		"$l seq: ra_pages is read_ahead_kb 128"
	check_eq "$(q "$DB" "SELECT SUM(used) = SUM(ra_pages_added) AND SUM(ra_pages_added) > 0 FROM windows
		WHERE run_id = $r AND ino = $ino")" 1 "$l seq: hit ratio 1.0"
	ra-report --run "$r" "$DB" > "$TMP/r.txt" 2>&1 || fail "ra-report $l"
	check_grep "readahead:page_cache_sync_ra from kprobes .fields btf [a-z]*.: self-check pass" "$TMP/r.txt" \
		"$l: the report says where the events came from"
done
check_eq "$(q "$DB" "SELECT group_concat(DISTINCT e.args) FROM event_sources e JOIN runs r USING (run_id)
	WHERE r.label LIKE 'kernel=6.1,%' AND e.probe = 'kprobe'")" btf-offsets "6.1 refuses BTF names: offsets from BTF"
check_eq "$(q "$DB" "SELECT group_concat(DISTINCT e.args) FROM event_sources e JOIN runs r USING (run_id)
	WHERE r.label LIKE 'kernel=6.12.94,%' AND e.probe = 'kprobe'")" btf-names "6.12 takes BTF names"
check_eq "$(q "$DYN" "SELECT group_concat(DISTINCT e.args) FROM event_sources e JOIN runs r USING (run_id)
	WHERE r.label LIKE 'kernel=6.12.94,%' AND e.probe = 'kprobe'")" btf-offsets "6.12 with offsets asked for"

# every window of the file in order (start, size, async size, pattern, trigger,
# pages added and their fates), and the totals of the other files
windows_of() {	# DB RUN
	local ino
	ino=$(q "$1" "SELECT ino FROM files WHERE run_id = $2 AND path LIKE '%/f'")
	q "$1" "SELECT group_concat(w, ' ') FROM (SELECT pattern || ':' || trigger || ':' || start_page || '+'
		|| size_pages || '/' || async_size_pages || ' a' || pages_added || '/' || ra_pages_added || ' u'
		|| used || ' e' || evicted_unused || ' p' || pending || ' t' || thrashed || ' m' || mapped AS w
		FROM windows WHERE run_id = $2 AND ino = $ino ORDER BY window_id)"
	q "$1" "SELECT COUNT(*) || ' ' || SUM(size_pages) || ' ' || SUM(used) FROM windows WHERE run_id = $2
		AND ino != $ino"
}
for k in 6.18 7.3; do
	for s in seq random mmap fadvise interleave; do
		a=$(windows_of "$DB" "$(run_of "kernel=$k" "$s")")
		b=$(windows_of "$DB" "$(q "$DB" "SELECT run_id FROM runs WHERE label = 'kernel=$k,SCEN=$s,events=kprobe'")")
		[ -n "$(echo "$a" | head -n 1)" ] || fail "$k $s: no windows"
		check_eq "$b" "$a" "$k $s: kprobes give the tracepoints' windows, patterns and fates of one recording"
	done
	check_eq "$(q "$DB" "SELECT COUNT(*) FROM self_checks c JOIN runs r USING (run_id) WHERE r.label LIKE
		'kernel=$k,%,events=kprobe' AND c.state = 'pass'")" 5 "$k: the kprobes' self-check passed"
done
# two boots: the same, but for when fault-around finds the last window's
# pages read (the emulated disk's timing), so mmap's fates are not compared
for s in seq mmap fadvise; do
	a=$(windows_of "$DB" "$(run_of kernel=6.12.94 "$s")")
	b=$(windows_of "$DYN" "$(q "$DYN" "SELECT run_id FROM runs WHERE label = 'kernel=6.12.94,SCEN=$s'")")
	if [ "$s" = mmap ]; then
		a=$(echo "$a" | head -n 1 | sed 's/ a[0-9/]* u[0-9]* e[0-9]* p[0-9]* t[0-9]* m[0-9]*//g')
		b=$(echo "$b" | head -n 1 | sed 's/ a[0-9/]* u[0-9]* e[0-9]* p[0-9]* t[0-9]* m[0-9]*//g')
	fi
	check_eq "$b" "$a" "6.12 $s: kprobes with offsets from BTF give those with BTF names"
done

# The replay: each run's accesses through its own series' readahead give back
# its windows (metrics.md "Replay"); and the machine's run of each scenario,
# replayed at each guest's series and device (max_sectors_kb), gives the
# windows that guest recorded, one for one in order per file (named by its
# name: other devices, other inodes).
for l in host kernel=6.1 kernel=6.12.94 kernel=6.18 kernel=7.3; do
	for s in seq random mmap fadvise interleave; do
		r=$(run_of "$l" "$s")
		share=$(q "$DB" "SELECT share FROM replay_checks WHERE run_id = $r")
		note "$l $s: the replay gives back $(q "$DB" "SELECT exact || ' of ' || windows
			|| COALESCE(' (' || doubts || ')', '') FROM replay_checks WHERE run_id = $r") windows"
		check_cmp "$(awk -v s="$share" 'BEGIN { print (s >= 0.99) }')" -eq 1 \
			"$l $s: the replay at its own series and setting gives back its windows ($share)"
	done
done
for s in seq random mmap fadvise interleave; do
	for k in 6.1 6.12.94 6.18 7.3; do
		g=$(run_of "kernel=$k" "$s")
		kb=$(q "$DB" "SELECT s.max_sectors_kb FROM device_snapshots s JOIN devices d USING (run_id, dev)
			WHERE s.run_id = $g AND s.phase = 'before' AND d.name = 'vda'")
		ra-whatif -q -r "$(run_of host "$s")" -K "$k" -k 128 --max-sectors-kb "$kb" --against "$g" \
			--json "$DB" > "$TMP/w.json" || fail "ra-whatif of the machine's $s at $k"
		read -r exact total < <(python3 -c "import json, sys
p = json.load(sys.stdin)['predictions'][0]
print(int(p['measured_windows_exact']), int(p['measured_windows']))" < "$TMP/w.json")
		check_eq "$exact $total" "$total $total" \
			"$s: the machine's run replayed at $k gives the windows $k recorded ($exact of $total)"
	done
done

# the experiment: kernel x scenario
ra-report --json "$DB" > "$TMP/x.json" 2> /dev/null || fail "ra-report --json"
/usr/bin/python3 - "$TMP/x.json" <<'PY' || fail "the experiment's dimensions"
import json, sys
x = json.load(open(sys.argv[1]))["experiment"]
assert "kernel" in x["dimensions"] and "SCEN" in x["dimensions"], x["dimensions"]
assert len(x["sets"]) == 35, len(x["sets"])
print("ok: the experiment's dimensions:", x["dimensions"])
PY
ra-report --experiment "$DB" 2> /dev/null | tee "$TMP/x.txt" | head -40
# two kernels compared: behaviour judged, emulated timings not
ra-compare --inconclusive pass "$DB:kernel=6.18,SCEN=seq,events=tracepoint" "$DB:kernel=7.3,SCEN=seq,events=tracepoint" > "$TMP/c.txt" 2> "$TMP/c.err"
check_eq "$?" 0 "ra-compare of two kernels"
cat "$TMP/c.txt" "$TMP/c.err"
check_grep "emulat" "$TMP/c.err" "ra-compare says the timings are emulated"
check_grep "^windows " "$TMP/c.txt" "the windows compared"
