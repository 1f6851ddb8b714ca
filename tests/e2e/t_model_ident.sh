# Sweeps that cannot decide the advice, on a loop device throttled to 125 IOPS
# and 100 MB/s (a knee of 800 KB: windows below it are access-bound):
# - read_ahead_kb 128 and 512, both access-bound (each window costs the
#   throttle's 8 ms): no single number, and the settings to record are larger
#   than both;
# - dd bs=1M, read_ahead_kb 128, 1024, 4096: the reads ask 1 MiB, more than
#   read_ahead_kb 128, so its windows are 1 MiB too; every size is
#   bandwidth-bound: no setting to advise, the reasoning says that readahead
#   below 1 MiB changes nothing, and the model's table has no size below the
#   smallest window measured.
# test: needs=root,tracefs cpu=1 budget=11
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
make_tmp
make_loop 160
make_file "$MNT/f" 100
kdev=$(loop_kdev)
T="$LOOP_NAME=iops:125,bps:100000000"

DB=$TMP/two.db
ra-record -q -o "$DB" -d "$LOOP_NAME" --sweep read_ahead_kb=128,512 "${COLD[@]}" --throttle "$T" \
	-- dd if="$MNT/f" of=/dev/null bs=4k count=8192 2>/dev/null || fail "record 128,512"
q "$DB" "SELECT read_ahead_kb, window_bytes, measured_bps, predicted_bps FROM model_sets WHERE run_id = 2" |
	sed 's/^/# /'
# the ground truth: both sizes took the throttle's 8 ms per window, within 20%
check_eq "$(q "$DB" "SELECT COUNT(*) FROM model_points WHERE run_id = 2 AND timing = 'window'
	AND used AND ABS(service_ns - 8e6) <= 0.2 * 8e6")" 2 "both sizes access-bound: 8 ms a window"
check_eq "$(q "$DB" "SELECT status || ' ' || COALESCE(recommended_kb, '-') FROM device_advice
	WHERE run_id = 2 AND dev = $kdev")" "unidentifiable -" "two access-bound sizes: no single number"
next=$(q "$DB" "SELECT next_kb FROM device_advice WHERE run_id = 2 AND dev = $kdev")
check_grep '^[0-9,]+$' <(echo "$next") "settings to record: $next"
for kb in ${next//,/ }; do
	check_cmp "$kb" -gt 512 "record $kb: above both measured sizes"
done
ra-report --run 2 "$DB" | sed -n '/^Recommended/,/^$/p' | tr -s ' \n' '  ' > "$TMP/two.adv"
check_grep "read_ahead_kb - .*No single number: .*bandwidth is not identifiable.*Record read_ahead_kb [0-9, and]+ to decide" \
	"$TMP/two.adv" "the report names what to add"

B=$TMP/bs1m.db
ra-record -q -o "$B" -d "$LOOP_NAME" --sweep read_ahead_kb=128,1024,4096 "${COLD[@]}" --throttle "$T" \
	-- dd if="$MNT/f" of=/dev/null bs=1M count=96 2>/dev/null || fail "record bs=1M"
q "$B" "SELECT read_ahead_kb, window_bytes, measured_bps, predicted_bps FROM model_sets WHERE run_id = 3" |
	sed 's/^/# /'
check_eq "$(q "$B" "SELECT window_bytes FROM model_sets WHERE run_id = 3 AND read_ahead_kb = 128")" \
	1048576.0 "read_ahead_kb 128 read windows of the reads' 1 MiB"
check_eq "$(q "$B" "SELECT MIN(io_kb) || '..' || MAX(io_kb) FROM v_model_table WHERE run_id = 3
	AND dev = '$LOOP_DEV'")" "1024..4096" "the table covers the measured sizes only"
check_eq "$(q "$B" "SELECT status || ' ' || COALESCE(recommended_kb, '-') FROM device_advice
	WHERE run_id = 3 AND dev = $kdev")" "flat -" "bs=1M: no setting to advise"
ra-report --run 3 "$B" > "$TMP/bs1m.txt" || fail "ra-report"
check_eq "$(sed -n '/^I\/O size against throughput/,/^$/p' "$TMP/bs1m.txt" |
	awk -v d="$LOOP_DEV" '$1 == d && $3 < 1024' | wc -l)" 0 "text: no row of the table below 1 MiB"
sed -n '/^Recommended/,/^$/p' "$TMP/bs1m.txt" | tr -s ' \n' '  ' > "$TMP/bs1m.adv"
check_grep "readahead below 1024 KiB changes nothing" "$TMP/bs1m.adv" "the reasoning says why"
check_grep "access time is not identifiable" "$TMP/bs1m.adv" "and that the access time is not known"
