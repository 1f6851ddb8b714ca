#!/bin/bash
# What a window-heavy live recording leaves for after its workload: fio
# randread (4 KiB, psync) for SECONDS on an ext4 loop device backed by
# /dev/shm (a 3 GiB file, cold), recorded by ra-record -vv; the time of each
# analysis pass after the workload's end and in all, against ra-analyze of
# the same database (every pass from the stored events: the reference,
# measured in the same run), and the time after the workload per window;
# with the events the recorder had still to store when the workload ended
# (drain) and its CPU time an event. IOS=N reads N times instead of for
# SECONDS (the same work for builds compared).
#
#   bench/after_workload.sh [SECONDS [N]]      (root; default 20 s, N=2 runs)
set -eu
SECS=${1:-20}
N=${2:-2}
top=$(cd "$(dirname "$0")/.." && pwd)
REC=$top/build/ra-record
[ -x "$REC" ] || { echo "build first: make" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 2; }
command -v fio >/dev/null || { echo "needs fio" >&2; exit 2; }

work=$(mktemp -d /dev/shm/ratrace-after.XXXXXX)
cleanup() {
	set +e
	mountpoint -q "$work/mnt" && umount "$work/mnt"
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

truncate -s 3300M "$work/img"
LOOP=$(losetup -f --show --direct-io=on "$work/img")
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP"
mkdir "$work/mnt"
mount "$LOOP" "$work/mnt"
dd if=/dev/urandom of="$work/mnt/f" bs=1M count=3072 status=none conv=fsync

pass_s() {	# PASS LOG -> seconds the pass took, 0 when it did not say
	awk -v p="$1:" '$1 == p && $NF == "s" && $(NF - 1) ~ /^[0-9.]+$/ { s = $(NF - 1) }
		END { print s + 0 }' "$2"
}

if [ -n "${IOS:-}" ]; then
	length=(--number_ios="$IOS" --randseed=7)
else
	length=(--time_based --runtime="$SECS")
fi
printf '%-4s %9s %10s %8s %8s %8s %10s %11s %9s %8s %9s %7s\n' run windows readahead block model \
	analyses "us/window" ra-analyze ratio drain "us/event" ahead
for i in $(seq "$N"); do
	rm -f "$work/r.db"*
	"$REC" -vv -o "$work/r.db" -d "$(basename "$LOOP")" --evict "$work/mnt/f" -- \
		fio --name=r --filename="$work/mnt/f" --rw=randread --bs=4k "${length[@]}" \
		--ioengine=psync --output=/dev/null 2> "$work/rec.log"
	wins=$(sqlite3 "$work/r.db" "SELECT COUNT(*) FROM windows")
	all=$(awk '$1 == "ra-record:" && $2 == "analyses" { print $NF == "s" ? $(NF - 1) : $NF }' \
		"$work/rec.log")
	all=${all%s}
	/usr/bin/time -f "%e" -o "$work/ana.t" "$top/build/ra-analyze" -q "$work/r.db"
	ana=$(cat "$work/ana.t")
	drain=$(awk '/last events read and stored/ { print $(NF - 1) }' "$work/rec.log")
	per=$(awk '/the recorder.s own CPU/ { print $(NF - 3) }' "$work/rec.log")
	# how long its threads ran ahead of the workload's (the store behind)
	ahead=$(awk '/ran ahead of the workload/ { print $(NF - 4) }' "$work/rec.log")
	awk -v i="$i" -v w="$wins" -v r="$(pass_s readahead "$work/rec.log")" \
		-v b="$(pass_s block "$work/rec.log")" -v m="$(pass_s model "$work/rec.log")" \
		-v a="$all" -v z="$ana" -v d="${drain:-0}" -v e="${per:-0}" -v h="${ahead:-0}" 'BEGIN {
		printf "%-4d %9d %9.3fs %7.3fs %7.3fs %7.3fs %10.2f %10.2fs %9.3f %7.3fs %9.2f %6.2fs\n",
			i, w, r, b, m, a, (w ? a * 1e6 / w : 0), z, (z > 0 ? a / z : 0), d, e, h }'
done
