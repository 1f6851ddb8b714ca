# The demo in a reduced form (two settings, one and two jobs, two iterations,
# a small file): it runs, its table shows fio's bandwidth rising from
# read_ahead_kb 16 to 512, ra-compare says so, the two clones of a fio job
# are two results and their group a third, the experiment ends with the
# device model and its advice (two sizes: the settings to record), all
# without SQL of the demo's own, and it leaves nothing behind.
# test: needs=root,tracefs,fio excl=instances budget=23
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
# the bandwidth of a run of two readers is their group's, fio's aggregate
# (all bytes over the longer runtime), not a clone's: above the clone that
# ran longest (so above the lower of the two) and at most the sum of theirs.
# The ground truth is fio's own per-job figures.
bad=$(q "$DB" "SELECT r.run_id || ': ' || v.value || ' of clones ' || MIN(b.value) || ', ' || SUM(b.value)
	FROM runs r JOIN v_run_metrics v ON v.run_id = r.run_id AND v.metric = 'read_bw_bytes'
	JOIN bench_results b ON b.run_id = r.run_id AND b.metric = 'read_bw_bytes'
	 AND b.job NOT LIKE '(group %'
	WHERE r.label LIKE '%NR=2' GROUP BY r.run_id
	HAVING COUNT(*) != 2 OR NOT (v.value > MIN(b.value) AND v.value <= 1.001 * SUM(b.value))
	 OR v.value != (SELECT g.value FROM bench_results g WHERE g.run_id = r.run_id
	  AND g.metric = 'read_bw_bytes' AND g.job = '(group 0)')")
check_eq "$(q "$DB" "SELECT COUNT(*) FROM runs WHERE label LIKE '%NR=2'")" 4 "the runs of two readers"
[ -z "$bad" ] || fail "a run of two readers not measured by its group: $bad"
echo "ok: each run of two readers is measured by its group, within its clones' bounds"
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
