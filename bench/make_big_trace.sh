#!/bin/bash
# Record a large trace.dat (well over 500,000 events) on a loop device, the
# way the fixtures were made: events enabled by hand in a tracefs instance
# (filtered to the loop device, the plugs to dd's),
# then `trace-cmd extract` (trace-cmd record cannot run on machines that
# refuse writes to /proc/sys/kernel/ftrace_enabled; extract works when that
# file is bind-mounted over in a private mount namespace: bench/tc_extract.sh).
#
#   bench/make_big_trace.sh OUT.dat [FILE_MB] [CACHED_PASSES]   (root; 1024, 1)
#
# The workload: a cold dd bs=4k read of a FILE_MB file with read_ahead_kb=128,
# then CACHED_PASSES cached ones (one mm_filemap_get_pages per 4 KiB read): more
# passes make more events over the same page-cache state.

set -eu
out=$1
mb=${2:-1024}
passes=${3:-1}
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 2; }
command -v trace-cmd >/dev/null || { echo "needs trace-cmd" >&2; exit 2; }
out=$(realpath -m "$out")
work=$(mktemp -d /dev/shm/ratrace-big.XXXXXX)
T=/sys/kernel/tracing
I=$T/instances/ra-bigtrace
mounted_tracefs=0
cleanup() {
	set +e
	[ -d $I ] && { echo 0 > $I/tracing_on; rmdir $I; }
	mountpoint -q "$work/mnt" && umount "$work/mnt"
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	[ $mounted_tracefs = 1 ] && umount $T
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if ! mountpoint -q $T; then mount -t tracefs nodev $T; mounted_tracefs=1; fi
truncate -s $((mb + 200))M "$work/img"
LOOP=$(losetup -f --show --direct-io=on "$work/img")
NAME=$(basename "$LOOP")
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP"
mkdir "$work/mnt"
mount "$LOOP" "$work/mnt"
dd if=/dev/urandom of="$work/mnt/big" bs=1M count="$mb" status=none conv=fsync
echo 128 > "/sys/block/$NAME/queue/read_ahead_kb"

mkdir $I
echo 0 > $I/tracing_on
echo $((mb * (80 + 60 * passes))) > $I/buffer_size_kb
for s in readahead filemap block; do echo 1 > $I/events/$s/enable; done
# the loop device's events alone: the machine's other I/O (tests running
# beside this one) would fill the buffers and push the workload's out
IFS=: read -r major minor < "/sys/block/$NAME/dev"
kdev=$(((major << 20) | minor))
for e in "$I"/events/readahead/*/ "$I"/events/filemap/*/ "$I"/events/block/*/; do
	if grep -q 'field:dev_t s_dev;' "$e/format"; then
		echo "s_dev == $kdev" > "$e/filter"
	elif grep -q 'field:dev_t dev;' "$e/format"; then
		echo "dev == $kdev" > "$e/filter"
	elif grep -q 'field:char comm\[16\];' "$e/format"; then	# plugs: the reader's
		echo 'comm == "dd"' > "$e/filter"
	fi
done
# cold: the file's own pages evicted, not the page cache of everything else
sync "$work/mnt/big"
dd if="$work/mnt/big" iflag=nocache count=0 status=none
echo 1 > $I/tracing_on
dd if="$work/mnt/big" of=/dev/null bs=4k status=none
for ((p = 0; p < passes; p++)); do
	dd if="$work/mnt/big" of=/dev/null bs=4k status=none
done
echo 0 > $I/tracing_on
# a trace that lost events is not the workload's: the buffers' own counts
# say so before trace-cmd reads them out
lost=$(cat $I/per_cpu/cpu*/stats | awk '/^(overrun|commit overrun|dropped events):/ { n += $NF } END { print n + 0 }')
[ "$lost" -eq 0 ] || { echo "the ring buffer lost $lost events" >&2; exit 1; }
"$(dirname "$0")/tc_extract.sh" "$out" ra-bigtrace > /dev/null 2>&1
[ -s "$out" ] || { echo "trace-cmd extract made no file" >&2; exit 1; }
ls -la "$out"
