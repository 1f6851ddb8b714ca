# Thrashing and runs that do not count, on a loop device throttled to 1000
# IOPS and 200 MB/s:
# - fio with 4 psync jobs inside a 14 MiB memory cgroup, read_ahead_kb 16, 64
#   and 256: the large windows are evicted before they are read (thrashed
#   pages: evicted unused, then read again). The advice is no lower than the
#   fastest measured setting that did not thrash (5% of the steady windows'
#   readahead pages at most), below the smallest that did, and the reasoning
#   says why, and why a faster thrashing setting is not worth it.
# - a run killed by the OOM killer (its workload allocates more than the
#   cgroup allows after reading) and a run that exits 3 join the same pool:
#   both are left out of the model and its run sets, and listed.
# test: needs=root,tracefs,fio cpu=1 budget=13
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
command -v fio >/dev/null || skip "no fio"
make_tmp
make_loop 320
mkdir -p "$MNT/fio"
for j in 0 1 2 3; do make_file "$MNT/fio/r.$j.0" 64; done
make_memcg 14
kdev=$(loop_kdev)
T="$LOOP_NAME=iops:1000,bps:200000000"
# fio's code is read outside the cgroup: only the files it reads are in it
fio_files=$(program_files fio | tr '\n' ' ')

DB=$TMP/thrash.db
# shellcheck disable=SC2016 # the $ are the inner sh's
ra-record -q -o "$DB" -d "$LOOP_NAME" --sweep read_ahead_kb=16,64,256 "${COLD[@]}" --throttle "$T" \
	-- sh -c 'cat $1 > /dev/null; echo $$ > "$0/cgroup.procs" && shift && exec "$@"' "$MEMCG" \
	"$fio_files" fio --name=r --rw=read --bs=4k \
	--numjobs=4 --size=64M --ioengine=psync --directory="$MNT/fio" --runtime=1.5 \
	--output-format=json >/dev/null 2>"$TMP/err"
run=$(q "$DB" "SELECT MAX(run_id) FROM runs")
q "$DB" "SELECT member, read_ahead_kb, state, reason FROM model_runs WHERE run_id = $run AND dev = $kdev" |
	sed 's/^/# run (member kb state reason): /'
q "$DB" "SELECT read_ahead_kb, runs, ROUND(thrash_share, 3), thrashed_pages, ROUND(measured_bps / 1e6, 1)
	FROM model_sets WHERE run_id = $run AND dev = $kdev" | sed 's/^/# set (kb runs thrash pages MB\/s): /'
thrash=$(q "$DB" "SELECT MIN(read_ahead_kb) FROM model_sets WHERE run_id = $run AND dev = $kdev
	AND thrash_share >= 0.05 AND thrashed_pages >= 16")
fast=$(q "$DB" "SELECT read_ahead_kb FROM model_sets WHERE run_id = $run AND dev = $kdev
	AND read_ahead_kb < $thrash ORDER BY measured_bps DESC LIMIT 1")
# shellcheck disable=SC2015 # fail when either is missing
[ -n "$thrash" ] && [ -n "$fast" ] || fail "no thrashing above a setting that did not thrash (thrash '$thrash', fast '$fast')"
note "thrashing from $thrash KiB, the fastest below it: $fast KiB"
q "$DB" "SELECT recommended_kb, thrash_kb, status, reasoning FROM device_advice WHERE run_id = $run
	AND dev = $kdev" | sed 's/^/# /'
rec=$(q "$DB" "SELECT recommended_kb FROM device_advice WHERE run_id = $run AND dev = $kdev")
check_eq "$(q "$DB" "SELECT thrash_kb FROM device_advice WHERE run_id = $run AND dev = $kdev")" "$thrash" \
	"the cap: the smallest setting measured thrashing"
check_cmp "$rec" -ge "$fast" "the advice is no lower than the fastest setting that did not thrash"
check_cmp "$rec" -lt "$thrash" "and below the thrashing ones"
ra-report --run "$run" "$DB" | sed -n '/^Recommended/,/^$/p' | tr -s ' \n' '  ' > "$TMP/adv"
check_grep "Settings of $thrash KiB and more thrashed \([0-9]+% of the readahead pages" "$TMP/adv" \
	"the reasoning names the thrashing settings"
faster=$(q "$DB" "SELECT COUNT(*) FROM model_sets WHERE run_id = $run AND dev = $kdev
	AND read_ahead_kb >= $thrash AND measured_bps > (SELECT measured_bps FROM model_sets
	WHERE run_id = $run AND dev = $kdev AND read_ahead_kb = $rec)")
if [ "$faster" -gt 0 ]; then
	check_grep "was measured faster .* not worth it" "$TMP/adv" "a faster thrashing setting: why not"
fi

# runs that do not count: one OOM-killed, one failed, in the same pool
# shellcheck disable=SC2016 # the $ are the inner sh's
ra-record -q -o "$DB" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=64" "${COLD[@]}" --throttle "$T" \
	-- sh -c 'echo $$ > "$0/cgroup.procs" && dd if="$1" of=/dev/null bs=4k 2>/dev/null &&
	exec python3 -c "b = bytearray(64 << 20); b[::4096] = b\"x\" * (len(b) // 4096)"' \
	"$MEMCG" "$MNT/fio/r.0.0" 2>/dev/null
oom=$(q "$DB" "SELECT MAX(run_id) FROM runs")
# shellcheck disable=SC2016 # $0 is the inner sh's
ra-record -q -o "$DB" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=2048" "${COLD[@]}" --throttle "$T" \
	-- sh -c 'dd if="$0" of=/dev/null bs=4k 2>/dev/null; exit 3' "$MNT/fio/r.1.0"
failed=$(q "$DB" "SELECT MAX(run_id) FROM runs")
check_eq "$(q "$DB" "SELECT COALESCE(exit_signal, '-') || ' ' || COALESCE(exit_status, '-') FROM runs
	WHERE run_id = $oom")" "9 -" "the OOM killer ended the run's workload"
q "$DB" "SELECT member, read_ahead_kb, state, reason FROM model_runs WHERE run_id = $failed
	AND dev = $kdev AND state != 'used'" | sed 's/^/# left out: /'
check_eq "$(q "$DB" "SELECT state FROM model_runs WHERE run_id = $failed AND dev = $kdev AND member = $oom")" \
	killed "the OOM-killed run: killed"
check_grep "OOM killer" <(q "$DB" "SELECT reason FROM model_runs WHERE run_id = $failed AND member = $oom") \
	"its reason names the OOM killer"
check_eq "$(q "$DB" "SELECT state || ' ' || reason FROM model_runs WHERE run_id = $failed AND dev = $kdev
	AND member = $failed")" "failed exit status 3" "the failed run: failed"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM model_sets WHERE run_id = $failed AND dev = $kdev AND read_ahead_kb = 2048")" 0 \
	"no run set of the failed run's setting"
check_eq "$(q "$DB" "SELECT runs FROM model_sets WHERE run_id = $failed AND dev = $kdev AND read_ahead_kb = 64")" \
	"$(q "$DB" "SELECT runs FROM model_sets WHERE run_id = $run AND dev = $kdev AND read_ahead_kb = 64")" \
	"the killed run is not in its setting's run set"
check_eq "$(q "$DB" "SELECT runs FROM device_models WHERE run_id = $failed AND dev = $kdev AND timing = 'window' AND chosen")" \
	"$(q "$DB" "SELECT runs FROM device_models WHERE run_id = $run AND dev = $kdev AND timing = 'window' AND chosen")" \
	"nor in the model's samples"
ra-report --run "$failed" "$DB" > "$TMP/r.txt" 2>&1 || fail "ra-report"
# (a run of the sweep may have been OOM-killed too: it is listed with them)
check_grep "! runs left out of the device model of $LOOP_DEV: (run [0-9]+ [^;]*; )*run $oom \(read_ahead_kb 64\) killed by signal 9: the OOM killer[^;]*; run $failed \(read_ahead_kb 2048\) exit status 3" \
	"$TMP/r.txt" "the report lists the runs left out"
left=$(q "$DB" "SELECT COUNT(*) FROM model_runs WHERE run_id = $failed AND dev = $kdev AND state != 'used'")
sed -n '/^Recommended/,/^$/p' "$TMP/r.txt" | tr -s ' \n' '  ' | grep -q "$left runs of the pool were left out" ||
	fail "the advice says so"
echo "ok: the advice says so ($left runs left out)"
