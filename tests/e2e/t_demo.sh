# The demo in a reduced form (two settings, one and two jobs, two iterations,
# a small file): it runs, its table shows fio's bandwidth rising from
# read_ahead_kb 16 to 512, ra-compare says so, the two clones of a fio job
# are two results and their group a third, the experiment ends with the
# device model and its advice (two sizes: the settings to record), all
# without SQL of the demo's own, and it leaves nothing behind.
# test: needs=root,tracefs,fio excl=instances budget=21
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
make_tmp

RA_DEMO_SIZES="16 512" RA_DEMO_JOBS="1 2" RA_DEMO_ITER=2 RA_DEMO_FILE_MB=8 \
	"$RA_TOP/scripts/demo.sh" > "$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
check_eq "$rc" 0 "demo exit status"
# the experiment's rows: read_ahead_kb, numjobs, n, MB/s ...
check_grep "^read_ahead_kb +numjobs +n +MB/s +min +max" "$TMP/out" "the experiment's run sets"
check_grep "^Throughput, MB/s \(harmonic mean of n runs\): rows read_ahead_kb, columns numjobs" "$TMP/out" \
	"the read_ahead_kb x numjobs matrix"
bw16=$(awk '$1 == "16" && $2 == "1" && $3 == "2" { print $4 }' "$TMP/out")
bw512=$(awk '$1 == "512" && $2 == "1" && $3 == "2" { print $4 }' "$TMP/out")
note "MB/s: read_ahead_kb 16: $bw16, 512: $bw512"
awk -v a="$bw16" -v b="$bw512" 'BEGIN { exit !(a > 0 && b > 2 * a) }' || fail "bandwidth does not rise from 16 to 512"
echo "ok: bandwidth rises from 16 to 512 KiB readahead"
check_grep "^read_bw_bytes .* \+[0-9.]+% [*]" "$TMP/out" "ra-compare shows the bandwidth gain"
DB=$RA_TOP/demo/out/demo.db
check_eq "$(q "$DB" "SELECT COUNT(DISTINCT job) FROM bench_results b JOIN runs r USING (run_id)
	WHERE r.label = 'read_ahead_kb=512,NR=2' AND b.metric = 'read_bw_bytes'
	AND b.job NOT LIKE '(group %'")" 2 "numjobs=2: both clones' results kept"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM bench_results b JOIN runs r USING (run_id)
	WHERE r.label = 'read_ahead_kb=512,NR=2' AND b.metric = 'read_bw_bytes'
	AND b.job = '(group 0)'")" 2 "and their group's, in each of the two runs"
# at 16 KiB the throttle's 200 IOPS bound the device: two readers share what
# one reader gets, so their group's bandwidth is about one reader's (one
# clone's result alone would be half of it)
bw=$(q "$DB" "SELECT ROUND(AVG(CASE WHEN r.label LIKE '%NR=2' THEN v.value END)
	/ AVG(CASE WHEN r.label LIKE '%NR=1' THEN v.value END), 3) FROM v_run_metrics v
	JOIN runs r USING (run_id) WHERE v.metric = 'read_bw_bytes' AND r.label LIKE 'read_ahead_kb=16,%'")
awk -v x="$bw" 'BEGIN { exit !(x > 0.75 && x < 1.33) }' || fail "numjobs=2 against 1 at 16 KiB: $bw"
echo "ok: numjobs=2: fio's group bandwidth is one reader's ($bw of it)"
check_grep "^Device service model" "$TMP/out" "the demo prints the device model"
# two settings fit both forms of the model exactly: no single number, and
# the settings that would decide
sed -n '/^Recommended/,/^$/p' "$TMP/out" | tr -s ' \n' '  ' > "$TMP/adv"
check_grep "^Recommended read_ahead_kb [0-9]+:[0-9]+: read_ahead_kb - \(recorded with .*No single number: .*Record read_ahead_kb [0-9]+" \
	"$TMP/adv" "and its advice: two sizes decide no number, it names what to record"
check_grep 'id="x-throughput"' "$RA_TOP/demo/experiment.html" "demo/experiment.html: the experiment page"
check_grep 'id="c-model"' "$RA_TOP/demo/experiment.html" "with the device model"
check_grep "^Device model and advice \(run [0-9]+, all runs of its pool\)" "$TMP/out" \
	"the experiment names the run whose pool the model is"
check_eq "$(find "$RA_TOP/demo" -mindepth 1 -maxdepth 1 -name 'experiment.run-*.html' | wc -l)" "$(q "$DB" "SELECT COUNT(*) FROM runs")" \
	"a page per run beside it"
check_eq "$(losetup -a | grep -c "/tmp/ratrace-demo\.")" 0 "loop devices left"
check_eq "$(find /sys/fs/cgroup/blkio -mindepth 1 -maxdepth 1 -name '*ratrace-demo*' ! -name '.*' | wc -l)" 0 "cgroups left"
# shellcheck disable=SC2119 # no PID: the instances of every recorder that is gone
check_eq "$(instances_left)" 0 "tracefs instances left"
