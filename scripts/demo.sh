#!/bin/bash
# The seed experiment of ratrace, end to end: is a larger read_ahead_kb better
# on a slow disk, and why? A cold sequential dd bs=4k of a 32 MiB file on an
# ext4 loop device throttled to 200 IOPS and 50 MB/s (a blkio cgroup emulates
# the slow disk), recorded with ra-record at read_ahead_kb 16, 128, 512 and
# 2048. Prints the table, writes demo/report.html (the 512 KiB run) and
# demo/out/demo.db, and removes everything it set up, also on failure or
# Ctrl-C.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build
out=$top/demo/out
SIZES=${RA_DEMO_SIZES:-16 128 512 2048}
FILE_MB=${RA_DEMO_FILE_MB:-32}
[ "$(id -u)" -eq 0 ] || { echo "demo: run as root (it sets up a loop device and cgroups)" >&2; exit 2; }
[ -d /sys/fs/cgroup/blkio ] || { echo "demo: needs the cgroup v1 blkio controller" >&2; exit 2; }

work=$(mktemp -d /tmp/ratrace-demo.XXXXXX)
CG=/sys/fs/cgroup/blkio/ratrace-demo.$$
cleanup() {
	set +e
	if [ -d "$CG" ]; then
		for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do echo "$p" > /sys/fs/cgroup/blkio/cgroup.procs; done
		rmdir "$CG"
	fi
	mountpoint -q "$work/mnt" && umount "$work/mnt"
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "demo: interrupted" >&2; exit 130' INT TERM
step() { printf '\n== %s\n' "$*"; }

step "setting up an ext4 loop device with a ${FILE_MB} MiB file"
truncate -s $((FILE_MB + 64))M "$work/img"
LOOP=$(losetup -f --show --direct-io=on "$work/img")
NAME=$(basename "$LOOP")
mkfs.ext4 -q -F "$LOOP"
mkdir "$work/mnt"
mount "$LOOP" "$work/mnt"
dd if=/dev/urandom of="$work/mnt/data" bs=1M count="$FILE_MB" status=none conv=fsync

step "emulating a slow disk: 200 IOPS and 50 MB/s on $NAME (blkio cgroup)"
mkdir "$CG"
echo "$(cat /sys/block/$NAME/dev) 200" > "$CG/blkio.throttle.read_iops_device"
echo "$(cat /sys/block/$NAME/dev) 52428800" > "$CG/blkio.throttle.read_bps_device"

mkdir -p "$out"
rm -f "$out"/demo.db*
for kb in $SIZES; do
	step "read_ahead_kb=$kb: recording a cold dd bs=4k of the file"
	"$bin/ra-record" -o "$out/demo.db" --label "ra$kb" -d "$NAME" --read-ahead-kb "$NAME=$kb" \
		--drop-caches -- sh -c 'echo $$ > "$1/cgroup.procs" && exec dd if="$2" of=/dev/null bs=4k' \
		sh "$CG" "$work/mnt/data"
done

step "results (same file, same device, only read_ahead_kb changes)"
sqlite3 -header -column "$out/demo.db" "
SELECT r.label AS setting,
       ROUND($FILE_MB * 1048576 / (r.wall_ns / 1e9) / 1e6, 1) AS MB_per_s,
       ROUND(r.wall_ns / 1e9, 2) AS seconds,
       s.readahead AS windows, s.size AS avg_window_pages, s.hit_ratio,
       d.reads_completed AS requests, ROUND(d.ra_avg_bytes / 1024, 1) AS ra_io_KiB,
       ROUND(d.q2c_avg_ns / 1e6, 2) AS q2c_ms
  FROM runs r
  JOIN v_readahead_stats s ON s.run_id = r.run_id AND s.pattern = 'all'
  JOIN v_device_io d ON d.run_id = r.run_id AND d.dev = (SELECT dev FROM v_devices
       WHERE run_id = r.run_id AND role = 'filter')
 ORDER BY r.run_id"
run512=$(sqlite3 "$out/demo.db" "SELECT run_id FROM runs WHERE label = 'ra512' UNION ALL
	SELECT MAX(run_id) FROM runs LIMIT 1")
"$bin/ra-report" --run "$run512" --html "$top/demo/report.html" "$out/demo.db"
step "wrote $top/demo/report.html (run $run512) and $out/demo.db"
echo "   ra-report $out/demo.db lists the runs; ra-report --run N $out/demo.db prints one"
