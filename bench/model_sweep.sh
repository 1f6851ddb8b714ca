#!/bin/bash
# The automatic read_ahead_kb sweep against the full one: per blkio throttle,
# dd bs=4k of a file of one second at the throttle's bandwidth (1 GiB at
# most) on an ext4 loop device, recorded
#   - with --sweep read_ahead_kb=16,32,...,4096 --repeat 3 (the reference: 27
#     runs), its advice and its truth (the smallest setting whose median
#     measured throughput reaches 80% of the best), and
#   - with --sweep read_ahead_kb=auto, its runs and advice;
# then the runs and the wall time of each, and their ratios.
#
#   bench/model_sweep.sh [IOPS:BPS...]   (default 1000:200000000 250:50000000 5000:500000000)
#   RA_BENCH_WORKLOAD=fio: fio, 4 psync jobs for 3 s, instead of dd
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build
work=$(mktemp -d /tmp/ratrace-sweep.XXXXXX)
loop='' mnt=$work/mnt
cleanup() {
	set +e
	for _ in 1 2 3 4 5; do
		mountpoint -q "$mnt" || break
		umount "$mnt" 2>/dev/null || sleep 1
	done
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$work"
}
trap cleanup EXIT
full=16,32,64,128,256,512,1024,2048,4096

truncate -s 1400M "$work/img"
loop=$(losetup -f --show --direct-io=on "$work/img")
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$loop"
mkdir -p "$mnt"
mount "$loop" "$mnt"
name=$(basename "$loop")
dd if=/dev/urandom of="$mnt/f" bs=1M count=1024 conv=fsync status=none
mkdir -p "$mnt/fio"
for j in 0 1 2 3; do
	[ "${RA_BENCH_WORKLOAD:-dd}" = fio ] &&
		dd if=/dev/urandom of="$mnt/fio/r.$j.0" bs=1M count=64 conv=fsync status=none
done

workload() {	# BPS
	if [ "${RA_BENCH_WORKLOAD:-dd}" = fio ]; then
		echo fio --name=r --rw=read --bs=4k --numjobs=4 --size=64M --ioengine=psync \
			--directory="$mnt/fio" --runtime=3 --output-format=json
	else
		local pages=$(( $1 / 4096 ))
		echo dd if="$mnt/f" of=/dev/null bs=4k count=$(( pages > 262144 ? 262144 : pages ))
	fi
}

secs() { date +%s.%N; }

advice() {	# DB
	sqlite3 "$1" "SELECT COALESCE(recommended_kb, '-') || ' (' || status || ')' FROM device_advice
		WHERE run_id = (SELECT MAX(run_id) FROM runs) ORDER BY dev LIMIT 1"
}

truth() {	# DB
	sqlite3 "$1" "WITH s AS (SELECT read_ahead_kb, measured_bps FROM model_sets
		WHERE run_id = (SELECT MAX(run_id) FROM runs) AND dev = (SELECT dev FROM device_advice
		WHERE run_id = (SELECT MAX(run_id) FROM runs) ORDER BY dev LIMIT 1))
		SELECT MIN(read_ahead_kb) FROM s WHERE measured_bps >= 0.8 * (SELECT MAX(measured_bps) FROM s)"
}

printf '%-22s %6s %8s %-18s %6s | %6s %8s %-18s | %6s %6s\n' throttle runs wall_s advice truth \
	runs wall_s advice runs% time%
throttles=("$@")
[ ${#throttles[@]} -gt 0 ] || throttles=(1000:200000000 250:50000000 5000:500000000)
for t in "${throttles[@]}"; do
	iops=${t%:*} bps=${t#*:}
	cmd=$(workload "$bps")
	rm -f "$work"/full.db* "$work"/auto.db*
	t0=$(secs)
	# shellcheck disable=SC2086
	"$bin/ra-record" -q -o "$work/full.db" -d "$name" --sweep "read_ahead_kb=$full" --repeat 3 \
		--drop-caches --throttle "$name=iops:$iops,bps:$bps" -- $cmd >/dev/null 2>&1
	t1=$(secs)
	# shellcheck disable=SC2086
	"$bin/ra-record" -q -o "$work/auto.db" -d "$name" --sweep read_ahead_kb=auto \
		--drop-caches --throttle "$name=iops:$iops,bps:$bps" -- $cmd >"$work/auto.out" 2>&1
	t2=$(secs)
	fr=$(sqlite3 "$work/full.db" "SELECT COUNT(*) FROM runs")
	ar=$(sqlite3 "$work/auto.db" "SELECT COUNT(*) FROM runs")
	awk -v t="$iops IOPS $((bps / 1000000)) MB/s" -v fr="$fr" -v t0="$t0" -v t1="$t1" -v t2="$t2" \
		-v fa="$(advice "$work/full.db")" -v ft="$(truth "$work/full.db")" -v ar="$ar" \
		-v aa="$(advice "$work/auto.db")" 'BEGIN { fw = t1 - t0; aw = t2 - t1
		printf "%-22s %6d %8.1f %-18s %6s | %6d %8.1f %-18s | %5.0f%% %5.0f%%\n", t, fr, fw,
			fa, ft, ar, aw, aa, ar * 100 / fr, aw * 100 / fw }'
	sqlite3 "$work/auto.db" "SELECT '  auto order: ' || group_concat(REPLACE(label, 'read_ahead_kb=', ''), ' ')
		FROM (SELECT label FROM runs ORDER BY run_id)"
	sed -n '/^read_ahead_kb auto:/{n;s/^ */  auto: /p;n;s/^ *\(.\{0,240\}\).*/  \1/p}' "$work/auto.out"
	sqlite3 "$work/full.db" "SELECT '  full: ' || form || ' access ' || printf('%.3f', access_ns / 1e6)
		|| ' ms (' || printf('%+.1f', (access_ns * $iops / 1e9 - 1) * 100) || '%), bandwidth '
		|| printf('%.1f', bandwidth_bps / 1e6) || ' MB/s (' || printf('%+.1f',
		(bandwidth_bps / $bps - 1) * 100) || '%), predicted/measured: ' || (SELECT group_concat(
		read_ahead_kb || ':' || printf('%+.0f%%', (predicted_bps - measured_bps) * 100
		/ measured_bps) || CASE explained WHEN 0 THEN '!' ELSE '' END, ' ') FROM model_sets s
		WHERE s.run_id = m.run_id AND s.dev = m.dev) FROM device_models m
		WHERE run_id = (SELECT MAX(run_id) FROM runs) AND timing = 'window' AND chosen
		ORDER BY dev LIMIT 1"
done
