# The demo in a reduced form (two settings, one job, two iterations, a small
# file): it runs, its table shows fio's bandwidth rising from read_ahead_kb 16
# to 512, ra-compare says so, and it leaves nothing behind.
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
make_tmp
loops_before=$(losetup -a | wc -l)
RA_DEMO_SIZES="16 512" RA_DEMO_JOBS=1 RA_DEMO_ITER=2 RA_DEMO_FILE_MB=8 \
	"$RA_TOP/scripts/demo.sh" > "$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
check_eq "$rc" 0 "demo exit status"
bw16=$(awk '$1 == "ra16" && $2 == "jobs=1" { print $3 }' "$TMP/out")
bw512=$(awk '$1 == "ra512" && $2 == "jobs=1" { print $3 }' "$TMP/out")
note "MB/s: read_ahead_kb 16: $bw16, 512: $bw512"
awk -v a="$bw16" -v b="$bw512" 'BEGIN { exit !(a > 0 && b > 2 * a) }' || fail "bandwidth does not rise from 16 to 512"
echo "ok: bandwidth rises from 16 to 512 KiB readahead"
check_grep "^read_bw_bytes .* \+[0-9.]+% [*]" "$TMP/out" "ra-compare shows the bandwidth gain"
[ -s "$RA_TOP/demo/report.html" ] || fail "no demo/report.html"
echo "ok: demo/report.html written"
check_eq "$(losetup -a | wc -l)" "$loops_before" "loop devices left"
check_eq "$(ls /sys/fs/cgroup/blkio | grep -c ratrace-demo)" 0 "cgroups left"
check_eq "$(instances_left)" 0 "tracefs instances left"
