# An unthrottled loop device serves 4 KiB reads faster than dd can take them
# (with tracing): the device sits idle between windows with nothing in flight,
# so the reader, not the device, sets the pace. Ground truth: the runs' own
# measured throughput (the /sys/block stat delta over the wall time) against
# the model's prediction for their windows.
# - the runs are reader-paced, idle a large share of the I/O time;
# - the model's predictions exceed the measured by more than the 15%
#   tolerance, and the report says it does not explain them and why;
# - the advice is marked unreliable, not printed as a fact;
# - read again from the page cache, the run has no I/O and no advice, and
#   the reasoning says so.
# test: needs=root,tracefs budget=13
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 320
make_file "$MNT/f" 256
kdev=$(loop_kdev)

DB=$TMP/cpu.db
ra-record -q -o "$DB" -d "$LOOP_NAME" --sweep read_ahead_kb=16,256,4096 "${COLD[@]}" \
	-- dd if="$MNT/f" of=/dev/null bs=4k 2>/dev/null || fail "record"
q "$DB" "SELECT read_ahead_kb, pace, idle_share, measured_bps, predicted_bps FROM model_sets WHERE run_id = 3" |
	sed 's/^/# /'
check_eq "$(q "$DB" "SELECT COUNT(*) FROM model_sets WHERE run_id = 3 AND dev = $kdev
	AND pace = 'reader'")" 3 "every setting: the reader set the pace"
check_cmp "$(q "$DB" "SELECT CAST(MAX(idle_share) * 100 AS INTEGER) FROM model_sets WHERE run_id = 3
	AND dev = $kdev")" -ge 25 "the device idle a quarter of the time or more"
check_cmp "$(q "$DB" "SELECT COUNT(*) FROM model_sets WHERE run_id = 3 AND dev = $kdev AND explained = 0
	AND predicted_bps > 1.15 * measured_bps")" -ge 1 "predictions above the measured beyond 15%"
check_eq "$(q "$DB" "SELECT status FROM device_advice WHERE run_id = 3 AND dev = $kdev")" unreliable \
	"the advice is unreliable"
ra-report --run 3 "$DB" > "$TMP/r.txt" || fail "ra-report"
check_grep "! the device model of $LOOP_DEV does not explain the measured throughput at read_ahead_kb [0-9, ]+ .*the reader set the pace" \
	"$TMP/r.txt" "the warning names the setting and the cause"
sed -n '/^Recommended/,/^$/p' "$TMP/r.txt" | tr -s ' \n' '  ' > "$TMP/adv"
check_grep "^Recommended read_ahead_kb $LOOP_DEV: read_ahead_kb [0-9]+ .* Unreliable: the model does not explain" \
	"$TMP/adv" "the advice's reasoning begins with Unreliable"

# the file in the page cache: no I/O, no advice, and the reason (other tests
# may drop the caches meanwhile: warm it and record again, three times at most)
C=$TMP/cached.db
for try in 1 2 3; do
	rm -f "$C"
	dd if="$MNT/f" of=/dev/null bs=1M count=128 2>/dev/null
	ra-record -q -o "$C" -d "$LOOP_NAME" -- dd if="$MNT/f" of=/dev/null bs=4k count=16384 2>/dev/null ||
		fail "record the cached read"
	[ "$(q "$C" "SELECT stat_sectors_delta FROM v_devices WHERE run_id = 1 AND name = '$LOOP_NAME'")" = 0 ] &&
		break
	note "the cache was dropped under the run (try $try)"
done
check_eq "$(q "$C" "SELECT stat_sectors_delta FROM v_devices WHERE run_id = 1 AND name = '$LOOP_NAME'")" 0 \
	"the cached read read nothing from the device"
check_eq "$(q "$C" "SELECT status || ' ' || COALESCE(recommended_kb, '-') FROM device_advice
	WHERE run_id = 1 AND dev = $kdev")" "none -" "no advice"
check_eq "$(q "$C" "SELECT state FROM model_runs WHERE run_id = 1 AND dev = $kdev")" no_io "the run: no I/O"
ra-report "$C" | sed -n '/^Recommended/,/^$/p' | tr -s ' \n' '  ' > "$TMP/cached.adv"
check_grep "No run of the pool read from the device: the reads found their pages in the page cache" \
	"$TMP/cached.adv" "the advice says why"
