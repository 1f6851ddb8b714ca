#!/bin/bash
# The device model and its advice on the cases of a user's report, each a
# sweep with 3 cold repeats per setting on an ext4 loop device: per case the
# truth (the smallest read_ahead_kb whose median measured throughput reaches
# 80% of the best), the advice and its status, the fitted access time and
# bandwidth against the throttle's 1 / IOPS and bps, the predictions' errors
# against the measured throughput, and the runs left out.
#
#   bench/model_cases.sh [CASE...]   (default: all; see the case list below)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build
work=$(mktemp -d /tmp/ratrace-cases.XXXXXX)
loop='' mnt=$work/mnt memcg=/sys/fs/cgroup/memory/ratrace-bench.$$
cleanup() {
	if [ -d "$memcg" ]; then
		while read -r p; do echo "$p" > /sys/fs/cgroup/memory/cgroup.procs; done < "$memcg/cgroup.procs"
		rmdir "$memcg"
	fi
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

truncate -s 1500M "$work/img"
loop=$(losetup -f --show --direct-io=on "$work/img")
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$loop"
mkdir -p "$mnt"
mount "$loop" "$mnt"
mkdir -p "$mnt/fio"
name=$(basename "$loop")
dd if=/dev/urandom of="$mnt/f" bs=1M count=1024 conv=fsync status=none
for j in 0 1 2 3; do
	dd if=/dev/urandom of="$mnt/fio/r.$j.0" bs=1M count=64 conv=fsync status=none
done
fio_cmd="fio --name=r --rw=read --bs=4k --numjobs=4 --size=64M --ioengine=psync
	--directory=$mnt/fio --runtime=3 --output-format=json"

# record DB IOPS BPS KBS CMD...: a sweep of KBS, 3 repeats (IOPS 0: unthrottled)
record() {
	local db=$1 iops=$2 bps=$3 kbs=$4 thr=(); shift 4
	[ "$iops" -gt 0 ] && thr=(--throttle "$name=iops:$iops,bps:$bps")
	"$bin/ra-record" -q -o "$db" -d "$name" --sweep "read_ahead_kb=$kbs" --repeat 3 \
		--drop-caches "${thr[@]}" -- "$@" >/dev/null 2>&1 || true
}

report() {	# CASE DB IOPS BPS
	local db=$2 iops=$3 bps=$4 run
	run=$(sqlite3 "$db" "SELECT MAX(run_id) FROM runs")
	sqlite3 -separator ' ' "$db" "
	WITH d AS (SELECT dev FROM device_advice WHERE run_id = $run ORDER BY dev LIMIT 1),
	s AS (SELECT * FROM model_sets WHERE run_id = $run AND dev = (SELECT dev FROM d)),
	m AS (SELECT * FROM device_models WHERE run_id = $run AND dev = (SELECT dev FROM d)
	      AND timing = 'window' AND chosen)
	SELECT '$1:', 'truth', COALESCE((SELECT MIN(read_ahead_kb) FROM s WHERE measured_bps >= 0.8
		* (SELECT MAX(measured_bps) FROM s)), '-'),
	 '| advice', COALESCE(a.recommended_kb, '-'), a.status, COALESCE('next ' || a.next_kb, ''),
	 '| model', COALESCE((SELECT form || ' ' || status || ' access ' || printf('%.3f', access_ns / 1e6)
		|| ' ms' || CASE WHEN $iops > 0 THEN printf(' (%+.1f%%)', (access_ns * $iops / 1e9 - 1) * 100)
		ELSE '' END || ' bw ' || printf('%.1f', bandwidth_bps / 1e6) || ' MB/s' || CASE WHEN $bps > 0
		THEN printf(' (%+.1f%%)', (bandwidth_bps / $bps - 1) * 100) ELSE '' END FROM m), '-'),
	 '| predicted/measured', (SELECT group_concat(read_ahead_kb || ':' || printf('%+.0f%%',
		(predicted_bps - measured_bps) * 100 / measured_bps) || CASE explained WHEN 0 THEN '!'
		ELSE '' END, ' ') FROM s),
	 '| left out', (SELECT COUNT(*) FROM model_runs WHERE run_id = $run AND dev = (SELECT dev FROM d)
		AND state != 'used')
	FROM device_advice a WHERE a.run_id = $run AND a.dev = (SELECT dev FROM d)"
}

case_dd1000() { record "$1" 1000 200000000 $full dd if="$mnt/f" of=/dev/null bs=4k count=51200; echo 1000 200000000; }
case_dd5000() { record "$1" 5000 500000000 $full dd if="$mnt/f" of=/dev/null bs=4k count=128000; echo 5000 500000000; }
case_unthrottled() { record "$1" 0 0 $full dd if="$mnt/f" of=/dev/null bs=4k; echo 0 0; }
# shellcheck disable=SC2086
case_fio1000() { record "$1" 1000 200000000 $full $fio_cmd; echo 1000 200000000; }
case_two128() { record "$1" 125 100000000 128,512 dd if="$mnt/f" of=/dev/null bs=4k count=8192; echo 125 100000000; }
case_two64() { record "$1" 125 100000000 64,4096 dd if="$mnt/f" of=/dev/null bs=4k count=8192; echo 125 100000000; }
case_bs1m() { record "$1" 125 100000000 $full dd if="$mnt/f" of=/dev/null bs=1M count=100; echo 125 100000000; }
case_memcg() {
	mkdir -p "$memcg"
	echo $((16 << 20)) > "$memcg/memory.limit_in_bytes"
	# shellcheck disable=SC2086,SC2016 # the lists split on purpose; the $ are the inner sh's
	record "$1" 1000 200000000 $full sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$memcg" $fio_cmd
	echo 1000 200000000
}
case_cached() {
	dd if="$mnt/f" of=/dev/null bs=1M count=128 status=none	# and past what is read
	"$bin/ra-record" -q -o "$1" -d "$name" -- dd if="$mnt/f" of=/dev/null bs=4k count=16384 \
		>/dev/null 2>&1
	echo 0 0
}

cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(dd1000 dd5000 unthrottled fio1000 two128 two64 bs1m memcg cached)
for c in "${cases[@]}"; do
	t0=$(date +%s)
	read -r iops bps < <("case_$c" "$work/$c.db")
	report "$c" "$work/$c.db" "$iops" "$bps"
	echo "  ($(( $(date +%s) - t0 )) s, $(sqlite3 "$work/$c.db" "SELECT COUNT(*) FROM runs") runs)"
done
