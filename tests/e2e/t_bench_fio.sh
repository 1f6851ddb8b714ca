# fio with numjobs=4 and --output-format=json,normal, recorded by ra-record:
# the JSON document is found inside the normal text around it, every clone
# keeps its own results, and the reporting group gets a row '(group 0)'
# whose bandwidth equals what fio itself prints for the group in the same
# output ("Run status group 0": the jobs' bytes over the longest job's run
# time, not the sum of the jobs' bandwidths), within fio's rounding; that is
# the run's read_bw_bytes. Two groups one after another (stonewall): the
# report warns that their summed bandwidth may overstate it.
# test: needs=root,tracefs,fio budget=3
. "$(dirname "$0")/lib.sh"
command -v fio >/dev/null || skip "fio is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
need_tracefs
make_tmp
make_loop 256
# each clone reads a file of its own, 4 to 32 MiB (fio picks the sizes): the
# clones run for different times
mkdir "$MNT/fio"
record_loop 128 fio --name=seq --directory="$MNT/fio" --nrfiles=1 --filesize=4m-32m --rw=read \
	--bs=64k --numjobs=4 --output-format=json,normal
q "$DB" "SELECT workload_output FROM runs WHERE run_id = $run" > "$TMP/out"
grep -q '^Run status group 0' "$TMP/out" || fail "no normal output from fio"
grep -q '^{' "$TMP/out" || fail "no JSON output from fio"

# fio's own group bandwidth: READ: bw=2286MiB/s (2397MB/s), ...
line=$(grep -A1 '^Run status group 0' "$TMP/out" | grep 'READ: bw=')
note "fio: $line"
printed=$(echo "$line" | sed -n 's/.*READ: bw=[^(]*(\([0-9.]*\)\([kMGT]\{0,1\}\)B\/s).*/\1 \2/p')
[ -n "$printed" ] || fail "cannot read fio's group bandwidth from '$line'"
group=$(q "$DB" "SELECT value FROM bench_results WHERE run_id = $run AND job = '(group 0)' AND metric = 'read_bw_bytes'")
[ -n "$group" ] || fail "no (group 0) bandwidth stored"
# within one unit of the last digit fio printed
awk -v g="$group" -v p="${printed% *}" -v u="${printed#* }" 'BEGIN {
	m = u == "k" ? 1e3 : u == "M" ? 1e6 : u == "G" ? 1e9 : u == "T" ? 1e12 : 1
	dot = index(p, "."); digit = dot ? 10 ^ -(length(p) - dot) : 1
	d = g - p * m; if (d < 0) d = -d
	printf "ours %.0f B/s, fio %s %sB/s, tolerance %.0f B/s\n", g, p, u, digit * m
	exit !(d <= digit * m) }' || fail "group bandwidth $group differs from fio's $printed""B/s"
echo "ok: (group 0) bandwidth = fio's printed group bandwidth"

# the same figures from the JSON, and the clones' own rows
python3 - "$TMP/out" > "$TMP/json" <<'EOF' || fail "cannot read fio's JSON"
import json, sys
text = open(sys.argv[1]).read()
start = text.index('\n{') + 1
doc, _ = json.JSONDecoder().raw_decode(text[start:])
jobs = [j for j in doc['jobs'] if j['groupid'] == 0]
rt = max(j['read']['runtime'] for j in jobs)
print(len(jobs), sum(j['read']['total_ios'] for j in jobs) * 1000.0 / rt,
      sum(j['read']['bw_bytes'] for j in jobs))
EOF
read -r njobs iops sum_bw < "$TMP/json"
check_eq "$njobs" 4 "four jobs in fio's JSON"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM bench_results WHERE run_id = $run AND metric = 'read_bw_bytes' AND job LIKE 'seq#%'")" \
	4 "each clone's bandwidth stored"
check_eq "$(q "$DB" "SELECT CAST(SUM(value) AS INTEGER) FROM bench_results WHERE run_id = $run AND metric = 'read_bw_bytes' AND job LIKE 'seq#%'")" \
	"$sum_bw" "the clones' bandwidths are fio's"
awk -v a="$(q "$DB" "SELECT value FROM bench_results WHERE run_id = $run AND job = '(group 0)' AND metric = 'read_iops'")" \
	-v b="$iops" 'BEGIN { d = a - b; exit !(d < 1e-6 && d > -1e-6) }' || fail "group IOPS: stored differs from the JSON's $iops"
echo "ok: (group 0) IOPS = total I/Os over the longest run time ($iops)"
note "sum of the clones' bandwidths: $sum_bw B/s; the group's: $group B/s"
awk -v s="$sum_bw" -v g="$group" 'BEGIN { exit !(s > 1.01 * g) }' ||
	fail "the clones ran alike: their summed bandwidth $sum_bw is the group's $group"
echo "ok: the clones' summed bandwidth is not the group's"
check_eq "$(q "$DB" "SELECT v.value = b.value FROM v_run_metrics v, bench_results b WHERE v.run_id = $run
	AND v.metric = 'read_bw_bytes' AND b.run_id = $run AND b.job = '(group 0)' AND b.metric = 'read_bw_bytes'")" 1 \
	"the run's read_bw_bytes is the group's"

# two groups, the second after the first (stonewall): a warning, not a silent sum
evict_cold
rec -q -o "$TMP/two.db" -d "$LOOP_NAME" -- fio --output-format=json --directory="$MNT/fio" \
	--name=a --rw=read --bs=64k --size=4m --name=b --stonewall --rw=read --bs=64k --size=4m \
	> /dev/null 2> "$TMP/err" || fail "fio with two groups: $(cat "$TMP/err")"
check_eq "$(q "$TMP/two.db" "SELECT COUNT(*) FROM bench_results WHERE job LIKE '(group %' AND metric = 'read_bw_bytes'")" 2 \
	"two groups stored"
ra-report "$TMP/two.db" > "$TMP/two.txt" 2>&1 || fail "ra-report of two groups"
check_grep "fio reported 2 groups: read_bw_bytes sums their bandwidths" "$TMP/two.txt" "the report warns"
