# Helpers of the end-to-end tests. Source it; every resource a test creates is
# registered with on_exit and released in reverse order, also on failure and
# on SIGINT/SIGTERM.

set -u
RA_BIN=${RA_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}
RA_FIXTURES=${RA_FIXTURES:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/fixtures}
# ext4 mounted quiet: after a mount, the ext4lazyinit thread prefetches the
# block bitmaps in the background, and under load those reads land in a
# recording that counts the device's reads against its /sys/block stat.
EXT4_QUIET=no_prefetch_block_bitmaps
# the schema version this ratrace writes (include/ra_db.h)
# shellcheck disable=SC2034 # for the tests that source this file
RA_SCHEMA=$(sed -n 's/^#define RA_SCHEMA_VERSION \([0-9]*\)$/\1/p' \
	"$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/include/ra_db.h")
export PATH=$RA_BIN:$PATH

_ra_cleanups=()
on_exit() { _ra_cleanups+=("$*"); }
_ra_run_cleanups() {
	local i
	# a second signal (timeout(1) passes its SIGTERM on to the test after the
	# one to the process group) must not cut the cleanups short
	trap '' INT TERM
	for ((i = ${#_ra_cleanups[@]} - 1; i >= 0; i--)); do
		eval "${_ra_cleanups[$i]}" >/dev/null 2>&1 || true
	done
	_ra_cleanups=()
}
trap _ra_run_cleanups EXIT
# a test stopped (its time-out, Ctrl-C) says what it was running; its
# cleanups then run as at any exit
_ra_stopped() {
	trap '' INT TERM
	echo "stopped by SIG$1 while running: $2" >&2
	exit "$3"
}
trap '_ra_stopped INT "$BASH_COMMAND" 130' INT
trap '_ra_stopped TERM "$BASH_COMMAND" 143' TERM

skip() { echo "$*"; exit 77; }
# A failing test keeps its databases for a look afterwards: under the
# runner, in tests/artifacts/e2e/NAME.dbs/ (RA_ARTIFACTS).
fail() {
	echo "FAIL: $*" >&2
	if [ -n "${RA_ARTIFACTS:-}" ] && [ -n "${TMP:-}" ] && [ -d "$TMP" ]; then
		local keep
		keep=$RA_ARTIFACTS/$(basename "$0" .sh).dbs
		mkdir -p "$keep" && find "$TMP" -maxdepth 2 -name '*.db*' -size -64M \
			-exec cp {} "$keep/" \; 2>/dev/null
	fi
	exit 1
}
note() { echo "# $*"; }

# check_eq ACTUAL EXPECTED WHAT
check_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
	echo "ok: $3 = $2"
}
# check_cmp A OP B WHAT   (integer comparison, OP as for test: -gt -ge -lt -le)
check_cmp() {
	test "$1" "$2" "$3" 2>/dev/null || fail "$4: '$1' is not $2 '$3'"
	echo "ok: $4 ($1 $2 $3)"
}
# check_grep PATTERN FILE WHAT
check_grep() {
	grep -qE -- "$1" "$2" || fail "$3: /$1/ not in $2: $(head -c 300 "$2")"
	echo "ok: $3"
}

q() { sqlite3 -batch -noheader "$@"; }

# need_table DB TABLE: fail unless DB has TABLE (a comparison of the rows of
# a table that is not there compares two empty outputs)
need_table() {
	q "$1" "SELECT 1 FROM $2 LIMIT 0" > /dev/null 2>&1 || fail "$1 has no table $2"
}

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
	RA_TEST_PIDS=$(mktemp /tmp/ratrace-pids.XXXXXX)
	export RA_TEST_PIDS
	on_exit rm -f "$RA_TEST_PIDS"
}

# start_pg socket|tcp: a PostgreSQL server of the test's own (docs/fleet.md):
# initdb in a directory of its own (SQL_ASCII, collation C, local
# connections trusted but for the role pwuser, which needs its password), its
# unix socket there and, with tcp, 127.0.0.1 on a free port (PG_PORT), run as
# the postgres system user when the test is root. It is stopped by its pid
# and its directory removed when the test ends, also on failure or a
# time-out. Sets PG_DIR, PG_PID, PG_PORT, PG_BIN.
start_pg() {
	local as_pg=() i listen=
	PG_BIN=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/postgres" ]; then
		skip "PostgreSQL is not installed (postgresql)"
	fi
	command -v psql >/dev/null || skip "no psql (postgresql-client)"
	PG_DIR=$(mktemp -d /tmp/ratrace-pg.XXXXXX)
	on_exit rm -rf "$PG_DIR"
	PG_PORT=5432
	if [ "${1:-}" = tcp ]; then
		PG_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0));
print(s.getsockname()[1])') || skip "no free port (python3)"
		listen=127.0.0.1
	fi
	if [ "$(id -u)" -eq 0 ]; then
		as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups --)
		chown postgres: "$PG_DIR"
	fi
	"${as_pg[@]}" "$PG_BIN/initdb" -D "$PG_DIR/data" -U ratrace -A trust -E SQL_ASCII --locale=C \
		--no-sync > "$PG_DIR/initdb.log" 2>&1 || fail "initdb: $(tail -n 3 "$PG_DIR/initdb.log")"
	printf 'local all pwuser scram-sha-256\nlocal all all trust\nhost all all 127.0.0.1/32 trust\n' \
		> "$PG_DIR/data/pg_hba.conf"
	"${as_pg[@]}" "$PG_BIN/postgres" -D "$PG_DIR/data" -k "$PG_DIR" -p "$PG_PORT" \
		-c listen_addresses="$listen" -c fsync=off -c synchronous_commit=off \
		-c full_page_writes=off -c shared_buffers=64MB -c max_connections=20 \
		> "$PG_DIR/server.log" 2>&1 &
	PG_PID=$!
	on_exit stop_pg
	for ((i = 0; i < 300; i++)); do
		"$PG_BIN/pg_isready" -q -h "$PG_DIR" -p "$PG_PORT" && return 0
		kill -0 "$PG_PID" 2>/dev/null || break
		sleep 0.1
	done
	fail "the PostgreSQL server did not start: $(tail -n 5 "$PG_DIR/server.log")"
}
# stop_pg: a fast shutdown, then SIGKILL after 10 s; the server is the test's child
stop_pg() {
	local i
	[ -n "${PG_PID:-}" ] || return 0
	kill -INT "$PG_PID" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$PG_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$PG_PID" 2>/dev/null
	wait "$PG_PID" 2>/dev/null
	PG_PID=
}
# pg_url DB [USER[:PASSWORD]]: the URL of database DB on the test's server
pg_url() {
	echo "postgresql://${2:-ratrace}@${PG_DIR//\//%2F}:$PG_PORT/$1"
}
# pg_sql DB SQL...: psql as the server's superuser, unaligned, no headers
pg_sql() {
	local db=$1
	shift
	psql -X -q -At -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PG_PORT" -U ratrace -d "$db" "$@"
}
# pg_createdb NAME: a database for ratrace (the cluster's SQL_ASCII and C)
pg_createdb() {
	pg_sql postgres -c "CREATE DATABASE \"$1\"" || fail "cannot create database $1"
}

# own_pids: the pids of every rawl (or other program of the test that writes
# its pid to $RA_TEST_PIDS) this test ran, comma-separated. The trace
# is the whole machine's: a system call event may be another program's.
own_pids() {
	{ echo -1; cat "$RA_TEST_PIDS"; } | paste -sd,
}

# A cold start without touching the other tests' page cache: the recorder's
# --evict of every file system the test made ("${COLD[@]}" where a recording
# wants cold caches), or evict_files from the shell. Dropping the whole page
# cache would change what the tests running beside this one measure.
COLD=()
# evict_files DIR...: the pages of every file under DIR written out and evicted
# (POSIX_FADV_DONTNEED, through dd's nocache flag)
evict_files() {
	local f
	find "$@" -xdev -type f -print0 2>/dev/null | while IFS= read -r -d '' f; do
		sync "$f" 2>/dev/null
		dd if="$f" iflag=nocache count=0 status=none 2>/dev/null
	done
}
# evict_cold: evict_files of every file system the test made
evict_cold() {
	local i dirs=()
	for ((i = 1; i < ${#COLD[@]}; i += 2)); do dirs+=("${COLD[$i]}"); done
	[ ${#dirs[@]} -eq 0 ] || evict_files "${dirs[@]}"
}

# umount_retry DIR: unmount DIR, waiting up to 10 s while a workload that was
# killed still holds it
umount_retry() {
	local i
	for i in $(seq 50); do
		umount "$1" 2>/dev/null && return 0
		mountpoint -q "$1" || return 0
		sleep 0.2
	done
	umount -l "$1"
}

# make_loop SIZE_MB [FSTYPE]: a file system (ext4 by default) on a loop device
# with direct I/O. Sets LOOP (/dev/loopN), LOOP_NAME (loopN), LOOP_DEV
# (MAJ:MIN), MNT, and what make_loop_fs sets.
make_loop() {
	make_loop_fs "$1" "${2:-ext4}"
}

# make_loop_fs SIZE_MB FSTYPE: a file system of FSTYPE (ext4, xfs, btrfs) on a
# loop device with direct I/O, mounted; skips when mkfs.FSTYPE is missing.
# Sets LOOP, LOOP_NAME, LOOP_DEV, MNT as make_loop, and FS_DEV (MAJ:MIN of the
# file system's s_dev, from mountinfo: for btrfs an anonymous 0:N), FS_KDEV
# (its kernel encoding, the dev of its page-cache events), BDI (the bdi of
# its readahead: MAJ:MIN of the loop device, or btrfs-N from
# /sys/fs/btrfs/UUID/bdi) and RA_FILE (that bdi's read_ahead_kb file). The
# loop device's and the bdi's read_ahead_kb are put back at exit.
make_loop_fs() {
	local size=$1 fstype=$2 dir img ra_old
	command -v losetup >/dev/null || skip "no losetup"
	command -v "mkfs.$fstype" >/dev/null || skip "no mkfs.$fstype"
	dir=$(mktemp -d /tmp/ratrace-loop.XXXXXX)
	on_exit rm -rf "$dir"
	img=$dir/img
	truncate -s "${size}M" "$img"
	LOOP=$(losetup -f --show --direct-io=on "$img") || skip "cannot set up a loop device"
	on_exit losetup -d "$LOOP"
	LOOP_NAME=$(basename "$LOOP")
	LOOP_DEV=$(cat "/sys/block/$LOOP_NAME/dev")
	ra_old=$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")
	on_exit "echo $ra_old > /sys/block/$LOOP_NAME/queue/read_ahead_kb"
	grep -qw "$fstype" /proc/filesystems || skip "no $fstype in this kernel"
	case $fstype in
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" ;;
	xfs) mkfs.xfs -q -f "$LOOP" ;;
	btrfs) mkfs.btrfs -q -f "$LOOP" >/dev/null ;;
	*) fail "make_loop_fs: no mkfs line for $fstype" ;;
	esac || fail "mkfs.$fstype $LOOP"
	MNT=$dir/mnt
	mkdir -p "$MNT"
	local mopt=()
	[ "$fstype" = ext4 ] && mopt=(-o "$EXT4_QUIET")
	mount -t "$fstype" "${mopt[@]}" "$LOOP" "$MNT" || fail "mount $LOOP"
	on_exit umount_retry "$MNT"
	COLD+=(--evict "$MNT")
	FS_DEV=$(findmnt -no MAJ:MIN --mountpoint "$MNT" | tr -d ' ')
	# shellcheck disable=SC2034 # for the tests that source this file
	FS_KDEV=$(( (${FS_DEV%:*} << 20) | ${FS_DEV#*:} ))
	BDI=$LOOP_DEV
	RA_FILE=/sys/block/$LOOP_NAME/queue/read_ahead_kb
	if [ "$fstype" = btrfs ]; then
		btrfs_bdi "$LOOP_NAME"
		# shellcheck disable=SC2034 # for the tests that source this file
		BDI=$BTRFS_BDI RA_FILE=$BTRFS_RA_FILE
	fi
}

# btrfs_bdi DEV: the bdi a mounted btrfs on block device DEV (loop3) reads
# ahead through. Sets BTRFS_BDI (btrfs-N), BTRFS_RA_FILE (its read_ahead_kb,
# put back at exit) and BTRFS_RA_OLD (its value before).
btrfs_bdi() {
	local uuid
	uuid=$(blkid -s UUID -o value "/dev/$1")
	BTRFS_BDI=$(basename "$(readlink "/sys/fs/btrfs/$uuid/bdi")")
	[ -n "$BTRFS_BDI" ] || fail "no bdi of the btrfs on $1"
	BTRFS_RA_FILE=/sys/class/bdi/$BTRFS_BDI/read_ahead_kb
	BTRFS_RA_OLD=$(cat "$BTRFS_RA_FILE")
	on_exit "[ -e $BTRFS_RA_FILE ] && echo $BTRFS_RA_OLD > $BTRFS_RA_FILE"
}

# make_loop_raw SIZE_MB: a loop device with direct I/O and nothing on it. Sets
# RAW (/dev/loopN), RAW_NAME (loopN), RAW_DEV (MAJ:MIN); its read_ahead_kb is
# put back at exit.
make_loop_raw() {
	local dir ra_old
	command -v losetup >/dev/null || skip "no losetup"
	dir=$(mktemp -d /tmp/ratrace-loop.XXXXXX)
	on_exit rm -rf "$dir"
	truncate -s "${1}M" "$dir/img"
	RAW=$(losetup -f --show --direct-io=on "$dir/img") || skip "cannot set up a loop device"
	on_exit losetup -d "$RAW"
	RAW_NAME=$(basename "$RAW")
	# shellcheck disable=SC2034 # for the tests that source this file
	RAW_DEV=$(cat "/sys/block/$RAW_NAME/dev")
	ra_old=$(cat "/sys/block/$RAW_NAME/queue/read_ahead_kb")
	on_exit "echo $ra_old > /sys/block/$RAW_NAME/queue/read_ahead_kb"
}

# make_btrfs_two DEV1 DEV2 DIR: a btrfs striped over block devices DEV1 and
# DEV2 (names: loop3, loop4p2; RAID0 data, RAID1 metadata), mounted at DIR
# (made), unmounted at exit, in COLD. Sets what btrfs_bdi sets.
make_btrfs_two() {
	local a=$1 b=$2 dir=$3
	mkfs.btrfs -q -f -d raid0 -m raid1 "/dev/$a" "/dev/$b" >/dev/null || fail "mkfs.btrfs on $a and $b"
	mkdir -p "$dir"
	mount -t btrfs -o "device=/dev/$a,device=/dev/$b" "/dev/$a" "$dir" || fail "mount the btrfs on $a and $b"
	on_exit umount_retry "$dir"
	COLD+=(--evict "$dir")
	btrfs_bdi "$a"
}

# make_loop_parts SIZE_MB P1_MB: a loop device with direct I/O and an MBR of
# two partitions, the first of P1_MB from sector 2048, the second the rest (1
# MiB aligned). Sets PLOOP, PLOOP_NAME, PLOOP_DEV as make_loop_raw's, and P1,
# P2 (the partitions' names, loopNp1), P1_DEV, P2_DEV (MAJ:MIN; loop devices
# without partition minors get them from the extended range, 259:N).
make_loop_parts() {
	local size=$1 p1=$(($2 * 2048)) dir ra_old n
	command -v losetup >/dev/null || skip "no losetup"
	dir=$(mktemp -d /tmp/ratrace-loop.XXXXXX)
	on_exit rm -rf "$dir"
	truncate -s "${size}M" "$dir/img"
	python3 - "$dir/img" 2048 $p1 $((2048 + p1)) $(( size * 2048 - 2048 - p1 - 2048 )) <<'PY' ||
import struct, sys
entry = lambda start, n: struct.pack("<B3sB3sII", 0, b"\0" * 3, 0x83, b"\0" * 3, start, n)
a = [int(x) for x in sys.argv[2:]]
with open(sys.argv[1], "r+b") as f:
    f.seek(446)
    f.write(entry(a[0], a[1]) + entry(a[2], a[3]) + b"\0" * 32 + b"\x55\xaa")
PY
		fail "cannot write the partition table"
	sync "$dir/img"
	PLOOP=$(losetup -f --show -P --direct-io=on "$dir/img") ||
		skip "cannot set up a loop device"
	on_exit losetup -d "$PLOOP"
	PLOOP_NAME=$(basename "$PLOOP")
	# shellcheck disable=SC2034 # for the tests that source this file
	PLOOP_DEV=$(cat "/sys/block/$PLOOP_NAME/dev")
	ra_old=$(cat "/sys/block/$PLOOP_NAME/queue/read_ahead_kb")
	on_exit "echo $ra_old > /sys/block/$PLOOP_NAME/queue/read_ahead_kb"
	P1=${PLOOP_NAME}p1 P2=${PLOOP_NAME}p2
	[ -e "/sys/class/block/$P1" ] || partx -a "$PLOOP" 2>/dev/null
	on_exit partx -d "$PLOOP"
	for n in $(seq 50); do
		[ -e "/dev/$P2" ] && [ -e "/sys/class/block/$P2/dev" ] && break
		sleep 0.1
	done
	[ -e "/sys/class/block/$P2/dev" ] || skip "no partitions on $PLOOP_NAME"
	[ -b "/dev/$P2" ] || skip "no /dev/$P2"
	# shellcheck disable=SC2034 # for the tests that source this file
	P1_DEV=$(cat "/sys/class/block/$P1/dev")
	# shellcheck disable=SC2034 # likewise
	P2_DEV=$(cat "/sys/class/block/$P2/dev")
}

# stat_rs NAME: "reads|sectors" read by block device NAME so far (fields 1 and
# 3 of /sys/class/block/NAME/stat: a partition's own, a disk's with its
# partitions')
stat_rs() {
	awk '{ print $1 "|" $3 }' "/sys/class/block/$1/stat"
}

# delta_rs BEFORE AFTER: "reads|sectors" AFTER - BEFORE
delta_rs() {
	echo "$(( ${2%|*} - ${1%|*} ))|$(( ${2#*|} - ${1#*|} ))"
}

# kdev MAJ:MIN: the kernel's dev_t (MAJ << 20 | MIN), the dev of the raw events
kdev_of() {
	echo $(( (${1%:*} << 20) | ${1#*:} ))
}

# make_file PATH SIZE_MB: a file of random data, written out to the device.
make_file() {
	dd if=/dev/urandom of="$1" bs=1M count="$2" status=none conv=fsync || fail "write $1"
}

# rec ARGS...: ra-record ARGS with its exit status; REC_PID is its pid, to
# check what it left behind while other recorders may run.
rec() {
	ra-record "$@" &
	REC_PID=$!
	wait $REC_PID
}

# instance_left PID: 1 when the tracefs instance of recorder PID exists, else 0
instance_left() {
	[ -d "/sys/kernel/tracing/instances/ra-record.$1" ] && echo 1 || echo 0
}

# instances_left [PID]: with PID, whether that recorder's tracefs instance is left;
# without, how many instances of recorders that are gone are left.
instances_left() {
	local n=0 i
	if [ -n "${1:-}" ]; then
		[ -d "/sys/kernel/tracing/instances/ra-record.$1" ] && echo 1 || echo 0
		return
	fi
	# other recorders may be running on the machine meanwhile
	for i in /sys/kernel/tracing/instances/ra-record.*; do
		[ -d "$i" ] && ! kill -0 "${i##*.}" 2>/dev/null && n=$((n + 1))
	done
	echo $n
}

# loop_kdev: LOOP_DEV (MAJ:MIN) as the kernel's dev_t (MAJ << 20 | MIN), the
# dev of the raw events.
loop_kdev() {
	echo $(( (${LOOP_DEV%:*} << 20) | ${LOOP_DEV#*:} ))
}

# setup_rawl FILE_MB: what a recording of rawl needs (tracefs, RAWL, TMP), and
# a file $MNT/f of FILE_MB on a 64 MiB loop device (make_loop).
setup_rawl() {
	need_tracefs
	need_rawl
	make_tmp
	make_loop 64
	make_file "$MNT/f" "$1"
}

# record_loop READ_AHEAD_KB CMD...: record CMD with ra-record into $TMP/run.db,
# tracing the loop device with read_ahead_kb=READ_AHEAD_KB and cold caches.
# Checks that ra-record exits 0, leaves no tracefs instance and loses no event.
# Sets DB, run (the run id) and kdev (loop_kdev).
record_loop() {
	local ra_kb=$1 rc; shift
	kdev=$(loop_kdev)
	DB=$TMP/run.db
	rec -o "$DB" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=$ra_kb" "${COLD[@]}" \
		-- "$@" 2>"$TMP/err"
	rc=$?
	cat "$TMP/err"
	check_eq "$rc" 0 "ra-record exit status"
	check_eq "$(instance_left $REC_PID)" 0 "tracefs instance left"
	run=$(q "$DB" "SELECT run_id FROM v_runs")
	check_eq "$(q "$DB" "SELECT lost_events FROM v_runs")" 0 "lost events"
	# stored while the workload ran, a step at a time: still in time order
	check_eq "$(q "$DB" "SELECT COUNT(*) FROM (SELECT ts_ns, LAG(ts_ns) OVER (ORDER BY seq) AS p
		FROM (SELECT seq, ts_ns FROM ra_events UNION ALL SELECT seq, ts_ns FROM page_events
		UNION ALL SELECT seq, ts_ns FROM blk_events)) WHERE ts_ns < p")" 0 "events out of time order"
	# the readahead and block passes and the replay followed the events as
	# they were stored: their rows are those of a read of the stored events
	# after the run (the windows' device time, given as they completed, that
	# of every window computed at the end), and the model's inputs fed as
	# those rows were written are those read from the rows
	local t sel again=$TMP/again.db
	rm -f "$again"
	q "$DB" ".backup '$again'"
	RATRACE_DEVICE_TIME=end ra-analyze -q "$again" || check_eq $? 0 "ra-analyze of a copy"
	for t in windows streams advice_calls requests stalls window_io device_io device_latency \
		latency_hist plugs model_facts model_samples replay_files replay_checks; do
		sel="*"
		need_table "$DB" "$t"
		[ "$t" = model_samples ] && sel="run_id, dev, timing, size_class, part, n, bytes,
			sum_ns, n_latency, sum_latency_ns, lo_ns, hi_ns, hex(ns)"
		check_eq "$(q "$DB" "SELECT $sel FROM $t" | sort | md5sum)" \
			"$(q "$again" "SELECT $sel FROM $t" | sort | md5sum)" \
			"$t as recorded against ra-analyze again"
	done
	rm -f "$again"
}

# record_rawl MODE FILE [ARGS...]: record_loop of "$RAWL" MODE FILE ARGS... with
# read_ahead_kb=128. Sets DB, run, kdev, and ino, size and pages (4 KiB pages,
# rounded up) of FILE.
record_rawl() {
	# shellcheck disable=SC2034 # for the tests that source this file
	ino=$(stat -c %i "$2")
	size=$(stat -c %s "$2")
	# shellcheck disable=SC2034 # likewise
	pages=$(( (size + 4095) / 4096 ))
	record_loop 128 "$RAWL" "$@"
}

# make_memcg LIMIT_MB: a cgroup v1 memory cgroup limited to LIMIT_MB, removed at
# exit (its tasks are moved to the parent first). Sets MEMCG to its directory.
# Skips when cgroup v1 memory is not mounted.
_ra_memcg_n=0
# The files a program maps: itself and the libraries it loads. A workload in
# a small memory cgroup reads them first, from outside it (after ra-record's
# --drop-caches or --evict): charged to the cgroup, fio's hundred megabytes of libraries
# would be paged in and out of it for as long as it runs.
program_files() {
	local p
	p=$(command -v "$1") || fail "no $1"
	echo "$p"
	ldd "$p" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
}
make_memcg() {
	local root=/sys/fs/cgroup/memory
	need_root
	# shellcheck disable=SC2015 # skip when any of them is missing
	mountpoint -q "$root" && [ -f "$root/cgroup.procs" ] && [ -f "$root/memory.limit_in_bytes" ] ||
		skip "cgroup v1 memory controller not mounted at $root"
	_ra_memcg_n=$((_ra_memcg_n + 1))
	MEMCG=$root/ratrace-test.$$.$_ra_memcg_n
	on_exit _ra_memcg_remove "$MEMCG"
	mkdir "$MEMCG" || fail "cannot create memory cgroup $MEMCG"
	echo $(($1 << 20)) > "$MEMCG/memory.limit_in_bytes" || fail "cannot set the limit of $MEMCG"
}
# The test's memory cgroup goes: its processes moved out, and after 5 s
# those still in it (the test's own workloads, stuck in reclaim or exiting)
# killed; it can take until they are reaped, up to 30 s.
_ra_memcg_remove() {
	local cg=$1 parent pid i
	parent=$(dirname "$cg")
	[ -d "$cg" ] || return 0
	for i in $(seq 300); do
		while read -r pid; do
			echo "$pid" > "$parent/cgroup.procs" 2>/dev/null ||
				{ [ "$i" -gt 50 ] && kill -KILL "$pid" 2>/dev/null; }
		done < "$cg/cgroup.procs"
		rmdir "$cg" 2>/dev/null && return 0
		sleep 0.1
	done
	rmdir "$cg"
}
# in_memcg CMD...: run CMD inside $MEMCG.
in_memcg() {
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$MEMCG" "$@"
}

# need_rawl: sets RAWL to the workload program of the tests (built by make).
need_rawl() {
	RAWL=$RA_BIN/tools/rawl
	[ -x "$RAWL" ] || fail "$RAWL is missing: run make"
}

# raw_page_fates DB RUN KDEV INO...: the fate of every page added to the page
# cache for these inodes, computed from the raw page events alone (a check of
# the analysis, for read(2) workloads: an access is an mm_filemap_get_pages
# range). Prints added|used|evicted_unused|thrashed, in pages: used = read after
# it was added and before it was deleted, evicted_unused = deleted before any
# read, thrashed = evicted unused and read later.
raw_page_fates() {
	local db=$1 run=$2 kdev=$3; shift 3
	local inos
	inos=$(IFS=,; echo "$*")
	q "$db" "
	CREATE TEMP TABLE pe AS SELECT seq, event_id, ino, page_index AS first,
		CASE WHEN event_id = 12 THEN last_index
		     ELSE page_index + (1 << folio_order) - 1 END AS last
	  FROM page_events WHERE run_id = $run AND dev = $kdev AND ino IN ($inos)
	   AND event_id IN (10, 11, 12);
	CREATE TEMP TABLE pp AS WITH RECURSIVE x(seq, event_id, ino, page, last) AS (
		SELECT seq, event_id, ino, first, last FROM pe
		UNION ALL SELECT seq, event_id, ino, page + 1, last FROM x WHERE page < last)
	  SELECT seq, event_id, ino, page FROM x;
	CREATE INDEX temp.pp_i ON pp(event_id, ino, page, seq);
	CREATE TEMP TABLE life AS SELECT a.ino, a.page, a.seq AS added,
		(SELECT MIN(d.seq) FROM pp d WHERE d.event_id = 11 AND d.ino = a.ino
		    AND d.page = a.page AND d.seq > a.seq) AS deleted
	  FROM pp a WHERE a.event_id = 10;
	CREATE TEMP TABLE fate AS SELECT l.deleted IS NOT NULL AS deleted,
		EXISTS (SELECT 1 FROM pp g WHERE g.event_id = 12 AND g.ino = l.ino AND g.page = l.page
		    AND g.seq > l.added AND g.seq < COALESCE(l.deleted, 1 << 62)) AS used,
		EXISTS (SELECT 1 FROM pp g WHERE g.event_id = 12 AND g.ino = l.ino AND g.page = l.page
		    AND g.seq > l.deleted) AS later
	  FROM life l;
	SELECT COUNT(*) || '|' || COALESCE(SUM(used), 0) || '|' ||
	       COALESCE(SUM(deleted AND NOT used), 0) || '|' ||
	       COALESCE(SUM(deleted AND NOT used AND later), 0) FROM fate;"
}

# Requests the page made, from Chromium's net log (the browser's own background
# requests carry the initiator "not an origin" and are not the page's).
page_requests() {
	python3 - "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
try:
    log = json.loads(text)
except ValueError:			# a log cut at exit lacks its closing brackets
    log = json.loads(text.rstrip().rstrip(",") + "]}")
kinds = {v: k for k, v in log["constants"]["logEventTypes"].items()}
for e in log["events"]:
    p = e.get("params", {})
    url = p.get("url", "")
    if kinds.get(e["type"]) != "URL_REQUEST_START_JOB" or not url or url.startswith(("file:", "data:")):
        continue
    if p.get("initiator") != "not an origin":
        print(url)
PY
}

chromium_page() {	# DIR URL: screenshot, console log and net log of one page
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$1/profile" --enable-logging=stderr --v=0 \
		--log-net-log="$1/net.json" --window-size=1200,3200 \
		--screenshot="$1/shot.png" "$2" > "$1/log" 2>&1
}

# Guests of ra-record --kernel: skip without root, qemu, busybox or the
# Debian archive keyring (a skip fails in CI). Kernels are fetched once into
# the cache (RATRACE_KERNEL_CACHE, default /var/cache/ratrace/kernels).
need_vm() {
	need_root
	command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (Debian: qemu-system-x86)"
	command -v busybox >/dev/null || skip "no busybox (Debian: busybox-static)"
	# shellcheck disable=SC2015 # skip when either is missing
	command -v mkfs.ext4 >/dev/null && command -v debugfs >/dev/null || skip "no e2fsprogs"
	[ -r /usr/share/keyrings/debian-archive-keyring.gpg ] || skip "no debian-archive-keyring"
	[ -x "$RA_BIN/ra-vm" ] || fail "no $RA_BIN/ra-vm (make)"
}

# The qemu processes of guests with their disks under $TMP (none may be left).
vm_left() {
	pgrep -f "qemu-system-x86_64 .*$TMP/ra-vm\." | wc -l
}

# The guest's files of the scenarios (tests/tools/scenarios.sh as run.sh,
# rawl, a 16 MiB file f) in a new directory $F under $TMP.
make_scenario_files() {
	F=$TMP/files
	mkdir "$F" || fail "cannot create $F"
	head -c $((16 << 20)) /dev/urandom > "$F/f" || fail "make the file"
	cp "$RA_BIN/tools/rawl" "$F/rawl" || fail "copy rawl"
	cp "$RA_TOP/tests/tools/scenarios.sh" "$F/run.sh" || fail "copy the scenarios"
}

# The temporary directories of guests under $TMP (the tests set TMPDIR=$TMP).
vm_dirs_left() {
	find "$TMP" -maxdepth 1 \( -name 'ra-vm.*' -o -name 'ra-record-vm.*' \) | wc -l
}
