# ra-record --kernel: a cold sequential read recorded in a 7.3 guest and in a
# 6.1 guest, brought into one database. The block totals equal the guests'
# /sys/block stat deltas; 7.3 has readahead windows; 6.1 has no readahead:*
# tracepoints, and recorded from tracepoints only (no kprobes in their
# place), its runs say the readahead analysis is unavailable instead of
# showing zeros. The guest workload's exit status reaches the host, and the
# guest's disk its hardware as the guest's sysfs names it.
# test: needs=root,qemu cpu=1 budget=27
. "$(dirname "$0")/lib.sh"
need_vm
make_tmp
export TMPDIR=$TMP
mkdir "$TMP/files"
head -c $((16 << 20)) /dev/urandom > "$TMP/files/seq" || fail "make the file"
DB=$TMP/vm.db
start=$(date +%s)

ra-record -o "$DB" --kernel 7.3 --kernel-files "$TMP/files" --drop-caches \
	-- dd if="$TMP/files/seq" of=/dev/null bs=4k 2> "$TMP/err.new"
rc=$?
cat "$TMP/err.new"
check_eq "$rc" 0 "7.3: exit status"
# The second guest's runs join a database that holds runs already, and its
# workload's exit status (3) comes back: exit 1, the run kept.
ra-record -o "$DB" --kernel 6.1 --kernel-files "$TMP/files" --drop-caches --event-source tracepoint \
	-- sh -c "dd if='$TMP/files/seq' of=/dev/null bs=4k; exit 3" 2> "$TMP/err.old"
rc=$?
cat "$TMP/err.old"
check_eq "$rc" 1 "6.1: exit status of a workload that failed"
note "two guests in $(( $(date +%s) - start )) s"
check_eq "$(vm_left)" 0 "no qemu left"
check_eq "$(vm_dirs_left)" 0 "no temporary directories left"
check_grep "^ra-record: kernel 7\.3 \(7\.3\.[^,]*, vm-(tcg|kvm)\): run 1 in" "$TMP/err.new" "7.3: the run is named"

check_eq "$(q "$DB" "SELECT group_concat(run_id || ' ' || label || ' ' || exit_status, ', ')
	FROM (SELECT * FROM runs ORDER BY run_id)")" "1 kernel=7.3 0, 2 kernel=6.1 3" "runs, labels, exit statuses"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM runs WHERE execution IN ('vm-tcg', 'vm-kvm')")" 2 "execution"
check_eq "$(q "$DB" "SELECT (kernel LIKE '7.3.%') || (boot_kernel LIKE 'linux-image-7.3.%') FROM runs WHERE run_id = 1")" 11 "7.3: kernel and boot_kernel"
check_eq "$(q "$DB" "SELECT (kernel LIKE '6.1.0-%') || (boot_kernel LIKE 'linux-image-6.1.0-%') FROM runs WHERE run_id = 2")" 11 "6.1: kernel and boot_kernel"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM runs WHERE seq_first IS NULL OR seq_last < seq_first")" 0 "both runs have events"
check_eq "$(q "$DB" "SELECT (SELECT seq_first FROM runs WHERE run_id = 2) > (SELECT seq_last FROM runs WHERE run_id = 1)")" 1 "the second run's events follow the first's"
check_eq "$(q "$DB" 'PRAGMA integrity_check')" ok "integrity"

for run in 1 2; do
	vda=$(q "$DB" "SELECT dev FROM devices WHERE run_id = $run AND name = 'vda'")
	[ -n "$vda" ] || fail "run $run: no vda"
	blk=$(q "$DB" "SELECT COUNT(*) || '|' || SUM(b.nr_sector) FROM blk_events b JOIN event_types t USING (event_id)
		WHERE b.run_id = $run AND t.name = 'block_rq_complete' AND b.dev = $vda AND b.rwbs LIKE '%R%'")
	stat=$(q "$DB" "SELECT stat_reads_delta || '|' || stat_sectors_delta FROM v_devices WHERE run_id = $run AND name = 'vda'")
	note "run $run: completions|sectors: trace $blk, stat $stat"
	check_eq "$blk" "$stat" "run $run: read completions and sectors equal the guest's stat delta"
	check_cmp "${blk#*|}" -ge 32768 "run $run: the file was read from the disk"
	check_eq "$(q "$DB" "SELECT stat_match FROM v_device_io WHERE run_id = $run AND name = 'vda'")" 1 \
		"run $run: the block analysis agrees"
	# qemu's virtio-blk disk: bus virtio, vendor the virtio PCI vendor id, no model
	check_eq "$(q "$DB" "SELECT transport || ' ' || vendor || ' ' || COALESCE(model, '-')
		FROM devices WHERE run_id = $run AND name = 'vda'")" "virtio 0x1af4 -" "run $run: vda's hardware"
done

# 7.3: the windows of a sequential read.
# (the file's inode on the guest's disk is not the one here)
ino=$(q "$DB" "SELECT ino FROM files WHERE run_id = 1 AND path = '$TMP/files/seq'")
[ -n "$ino" ] || fail "7.3: the file is not named"
check_eq "$(q "$DB" "SELECT state FROM analyses WHERE run_id = 1 AND pass = 'readahead'")" ok "7.3: readahead analysis"
check_eq "$(q "$DB" "SELECT pattern FROM windows WHERE run_id = 1 AND ino = $ino ORDER BY window_id LIMIT 1")" initial "7.3: the first window is initial"
check_cmp "$(q "$DB" "SELECT COUNT(*) FROM windows WHERE run_id = 1 AND ino = $ino AND pattern = 'subsequent'")" -gt 4 "7.3: subsequent windows"

# 6.1: no readahead tracepoints, so no readahead analysis, said and not zero.
check_eq "$(q "$DB" "SELECT COUNT(*) FROM tracepoints WHERE run_id = 2 AND system = 'readahead' AND available = 0")" 4 "6.1: readahead:* not available"
check_eq "$(q "$DB" "SELECT state || ': ' || message FROM analyses WHERE run_id = 2 AND pass = 'readahead'")" \
	"unavailable: readahead:page_cache_ra_order is not available on this kernel (Linux 6.18+), and kprobes were not asked for (--event-source tracepoint)" \
	"6.1: readahead analysis unavailable"
check_eq "$(q "$DB" "SELECT state FROM analyses WHERE run_id = 2 AND pass = 'block'")" ok "6.1: block analysis"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM windows WHERE run_id = 2")" 0 "6.1: no windows"
ra-report --run 2 "$DB" > "$TMP/report" 2>&1 || fail "ra-report of the 6.1 run: $(cat "$TMP/report")"
check_grep "readahead analysis unavailable: readahead:page_cache_ra_order is not available" "$TMP/report" "6.1: the report says why"
ra-report --json --run 2 "$DB" > "$TMP/report.json" 2>&1 || fail "ra-report --json"
python3 - "$TMP/report.json" <<'PY' || fail "6.1: the JSON report shows a readahead figure"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
# a missing analysis is absent and said, not zero
for key in ("readahead_stats", "files", "streams", "window_io"):
    assert run[key] == [], (key, run[key])
    assert run["unavailable"][key].startswith("readahead analysis unavailable: "), run["unavailable"]
assert "block" not in run["unavailable"] and run["block"], run["unavailable"]
PY
echo "ok: the JSON report of 6.1 has no readahead figures, and says why"
check_eq "$(grep -A2 '^Readahead windows by pattern' "$TMP/report" | tail -n 1)" \
	"  readahead analysis unavailable: readahead:page_cache_ra_order is not available on this kernel (Linux 6.18+), and kprobes were not asked for (--event-source tracepoint)" \
	"6.1: the text report says why in place of the windows"

# Under emulation the comparison judges the behaviour, never the times.
ra-compare --db "$DB" kernel=6.1 kernel=7.3 > "$TMP/cmp" 2> "$TMP/cmp.err"
cat "$TMP/cmp" "$TMP/cmp.err"
if [ "$(q "$DB" "SELECT COUNT(*) FROM runs WHERE execution = 'vm-tcg'")" -gt 0 ]; then
	check_grep "ran under software emulation \(vm-tcg\): their times, bandwidths and latencies are shown, not judged" \
		"$TMP/cmp.err" "ra-compare says the timings are not judged"
	check_grep "^wall_s .* E" "$TMP/cmp" "wall_s marked E"
	ra-report --run 1 "$DB" > "$TMP/report1" 2>&1
	check_grep "recorded in a guest under software emulation" "$TMP/report1" "the report says the run was emulated"
fi
