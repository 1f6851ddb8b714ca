# The setting of a file system on two devices. A btrfs striped over two loop
# devices (RAID0 data: every 64 KiB to the other device), swept at
# read_ahead_kb 128 and 512 on the second: btrfs reads ahead through its own
# bdi, which --read-ahead-kb sets, and the requests name both members, whose
# own queues keep their values (the first's is 2560). Ground truth: the setting each run applied (v_run_params,
# the bdi's value in filesystems). The model's run sets and runs are those
# settings, not a member queue's value, and the report says each run was
# recorded with its own.
# test: needs=root,tracefs budget=10
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v mkfs.btrfs >/dev/null || skip "no mkfs.btrfs"
grep -qw btrfs /proc/filesystems || modprobe btrfs 2>/dev/null || true
grep -qw btrfs /proc/filesystems || skip "no btrfs in this kernel"
make_tmp
make_loop_raw 300
A=$RAW_NAME
make_loop_raw 300
B=$RAW_NAME
echo 2560 > "/sys/block/$A/queue/read_ahead_kb"	# the first member's own value, put back at exit
MNT=$TMP/mnt
make_btrfs_two "$A" "$B" "$MNT"
make_file "$MNT/f" 48
DB=$TMP/m.db
rec -q -o "$DB" -d "$B" --sweep read_ahead_kb=128,512 "${COLD[@]}" \
	-- dd if="$MNT/f" of=/dev/null bs=4k status=none || fail "record"
check_eq "$(q "$DB" "SELECT group_concat(value, ' ') FROM (SELECT value FROM v_run_params
	WHERE name = 'read_ahead_kb' ORDER BY run_id)")" "128 512" "the settings the runs applied"
q "$DB" "SELECT run_id, dev, COUNT(*) FROM requests GROUP BY 1, 2" | sed "s/^/# requests (run|dev|n): /"
check_eq "$(q "$DB" "SELECT COUNT(DISTINCT q.dev) FROM requests q")" 2 "the requests name both members"
q "$DB" "SELECT run_id, fs_dev, dev, fstype, bdi, read_ahead_kb FROM filesystems" | sed "s/^/# filesystems: /"
last=$(q "$DB" "SELECT MAX(run_id) FROM runs")
check_eq "$(q "$DB" "SELECT group_concat(read_ahead_kb, ' ') FROM (SELECT DISTINCT read_ahead_kb FROM model_sets
	WHERE run_id = $last ORDER BY 1)")" "128 512" "the model's run sets are the applied settings"
check_eq "$(q "$DB" "SELECT group_concat(read_ahead_kb, ' ') FROM (SELECT read_ahead_kb FROM model_runs
	WHERE run_id = $last ORDER BY member)")" "128 512" "the model's runs, each at its setting"
for r in 1 2; do
	kb=$(q "$DB" "SELECT value FROM v_run_params WHERE run_id = $r AND name = 'read_ahead_kb'")
	ra-report --run "$r" "$DB" > "$TMP/r$r.txt" || fail "ra-report --run $r"
	grep -q "recorded with $kb" "$TMP/r$r.txt" || grep -q "Recorded with read_ahead_kb $kb" "$TMP/r$r.txt" ||
		fail "run $r: the report does not say it was recorded with $kb: $(grep -io "recorded with[^.;]*" "$TMP/r$r.txt" | head -3)"
	echo "ok: run $r: recorded with $kb"
done
grep -h "2560" "$TMP/r1.txt" "$TMP/r2.txt" | grep -iv "queue" | grep -i "read_ahead_kb 2560\|recorded with 2560\|at read_ahead_kb.*2560" &&
	fail "a member queue's own value is taken for the setting"
echo "ok: no run is said to be at the member's 2560"
