# Helpers of the end-to-end tests. Source it; every resource a test creates is
# registered with on_exit and released in reverse order, also on failure and
# on SIGINT/SIGTERM.

set -u
RA_BIN=${RA_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}
RA_FIXTURES=${RA_FIXTURES:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/fixtures}
export PATH=$RA_BIN:$PATH

_ra_cleanups=()
on_exit() { _ra_cleanups+=("$*"); }
_ra_run_cleanups() {
	local i
	for ((i = ${#_ra_cleanups[@]} - 1; i >= 0; i--)); do
		eval "${_ra_cleanups[$i]}" >/dev/null 2>&1 || true
	done
	_ra_cleanups=()
}
trap _ra_run_cleanups EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

skip() { echo "$*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

# check_eq ACTUAL EXPECTED WHAT
check_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
	echo "ok: $3 = $2"
}
# check_cmp A OP B WHAT   (integer comparison, OP as for test: -gt -ge -lt -le)
check_cmp() {
	[ "$1" "$2" "$3" ] 2>/dev/null || fail "$4: '$1' is not $2 '$3'"
	echo "ok: $4 ($1 $2 $3)"
}
# check_grep PATTERN FILE WHAT
check_grep() {
	grep -qE -- "$1" "$2" || fail "$3: /$1/ not in $2: $(head -c 300 "$2")"
	echo "ok: $3"
}

q() { sqlite3 -batch -noheader "$@"; }

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
}

# Mount tracefs for the test when it is not mounted; unmount it again after.
need_tracefs() {
	need_root
	if ! mountpoint -q /sys/kernel/tracing; then
		mount -t tracefs nodev /sys/kernel/tracing || skip "cannot mount tracefs"
		on_exit umount /sys/kernel/tracing
	fi
	[ -d /sys/kernel/tracing/events/block ] || skip "no block tracepoints in this kernel"
}

# A private temporary directory, removed at exit.
make_tmp() {
	TMP=$(mktemp -d /tmp/ratrace-test.XXXXXX)
	on_exit rm -rf "$TMP"
}

# make_loop SIZE_MB: an ext4 file system on a loop device with direct I/O.
# Sets LOOP (/dev/loopN), LOOP_NAME (loopN), LOOP_DEV (MAJ:MIN), MNT.
make_loop() {
	local size=$1 dir img
	command -v losetup >/dev/null || skip "no losetup"
	dir=$(mktemp -d /tmp/ratrace-loop.XXXXXX)
	on_exit rm -rf "$dir"
	img=$dir/img
	truncate -s "${size}M" "$img"
	LOOP=$(losetup -f --show --direct-io=on "$img") || skip "cannot set up a loop device"
	on_exit losetup -d "$LOOP"
	LOOP_NAME=$(basename "$LOOP")
	LOOP_DEV=$(cat "/sys/block/$LOOP_NAME/dev")
	local ra_old
	ra_old=$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")
	on_exit "echo $ra_old > /sys/block/$LOOP_NAME/queue/read_ahead_kb"
	mkfs.ext4 -q -F "$LOOP" || fail "mkfs.ext4 $LOOP"
	MNT=$dir/mnt
	mkdir -p "$MNT"
	mount "$LOOP" "$MNT" || fail "mount $LOOP"
	on_exit umount "$MNT"
}

# make_file PATH SIZE_MB: a file of random data, written out to the device.
make_file() {
	dd if=/dev/urandom of="$1" bs=1M count="$2" status=none conv=fsync || fail "write $1"
}

instances_left() {
	ls /sys/kernel/tracing/instances 2>/dev/null | grep -c '^ra-record\.' || true
}
