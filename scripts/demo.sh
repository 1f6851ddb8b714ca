#!/bin/bash
# The seed experiment of ratrace, end to end: is a larger read_ahead_kb better
# on a slow disk, for how many readers, and why? fio sequential readers (1 and
# 4 jobs, 4 KiB reads, one file each) on an ext4 loop device throttled to 200
# IOPS and 50 MiB/s (a blkio cgroup emulates the slow disk), recorded with
# ra-record at read_ahead_kb 16, 128, 512 and 2048, 3 iterations each from a
# cold cache. Prints the experiment (ra-report: the run sets, the matrix of
# read_ahead_kb x jobs, the device model with its recommended read_ahead_kb)
# and the comparison against 128 KiB (ra-compare), writes
# demo/experiment.html (with a page per run) and demo/out/demo.db, and
# removes everything it set up, also on failure or Ctrl-C.
#
# RA_DEMO_SIZES, RA_DEMO_JOBS, RA_DEMO_ITER, RA_DEMO_FILE_MB make it smaller;
# RA_BIN names the build (default build/; the tests' build-san under the
# sanitizers).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${RA_BIN:-$top/build}
out=$top/demo/out
SIZES=${RA_DEMO_SIZES:-16 128 512 2048}
JOBS=${RA_DEMO_JOBS:-1 4}
ITER=${RA_DEMO_ITER:-3}
FILE_MB=${RA_DEMO_FILE_MB:-16}
[ "$(id -u)" -eq 0 ] || { echo "demo: run as root (it sets up a loop device and cgroups)" >&2; exit 2; }
[ -d /sys/fs/cgroup/blkio ] || { echo "demo: needs the cgroup v1 blkio controller" >&2; exit 2; }
command -v fio >/dev/null || { echo "demo: needs fio (make demo installs it)" >&2; exit 2; }

work=$(mktemp -d /tmp/ratrace-demo.XXXXXX)
cleanup() {
	set +e
	mountpoint -q "$work/mnt" && umount "$work/mnt"
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "demo: interrupted" >&2; exit 130' INT TERM
step() { printf '\n== [%s] %s\n' "$(date +%T)" "$*" | fold -s -w 100; }
maxjobs=0
for j in $JOBS; do [ "$j" -gt "$maxjobs" ] && maxjobs=$j; done

step "setting up an ext4 loop device with $maxjobs files of $FILE_MB MiB"
truncate -s $((maxjobs * FILE_MB + 64))M "$work/img"
LOOP=$(losetup -f --show --direct-io=on "$work/img")
NAME=$(basename "$LOOP")
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP"
mkdir "$work/mnt"
mount "$LOOP" "$work/mnt"
for ((i = 0; i < maxjobs; i++)); do
	dd if=/dev/urandom of="$work/mnt/job.$i.0" bs=1M count="$FILE_MB" status=none conv=fsync
done
cat > "$work/seq.fio" <<FIO
[global]
ioengine=psync
rw=read
bs=4k
size=${FILE_MB}m
directory=$work/mnt
filename_format=job.\$jobnum.0
numjobs=\${NR}
[seq]
FIO

mkdir -p "$out"
rm -f "$out"/demo.db*
nsizes=$(echo "$SIZES" | wc -w)
njobs=$(echo "$JOBS" | wc -w)
step "recording $((nsizes * njobs * ITER)) runs: read_ahead_kb {$SIZES} x jobs {$JOBS} x $ITER," \
	"on $NAME throttled to 200 IOPS, 50 MiB/s"
# shellcheck disable=SC2086 # the lists split on purpose: one comma between values
"$bin/ra-record" -q -o "$out/demo.db" -d "$NAME" --sweep "read_ahead_kb=$(echo $SIZES | tr ' ' ,)" \
	--sweep-env "NR=$(echo $JOBS | tr ' ' ,)" --repeat "$ITER" --evict "$work/mnt" \
	--throttle "$NAME=iops:200,bps:52428800" -- fio --output-format=json "$work/seq.fio" \
	> /dev/null

step "results: the run sets (fio's read bandwidth, harmonic mean of $ITER runs), what readahead" \
	"did, and the device model of $NAME with the read_ahead_kb it recommends"
"$bin/ra-report" --experiment "$out/demo.db"

for j in $JOBS; do
	sides=""
	base="read_ahead_kb=128,NR=$j"
	case " $SIZES " in *" 128 "*) ;; *) base="read_ahead_kb=${SIZES%% *},NR=$j" ;; esac
	for kb in $SIZES; do
		[ "read_ahead_kb=$kb,NR=$j" = "$base" ] || sides="$sides read_ahead_kb=$kb,NR=$j"
	done
	step "compared with ${base%%,*} ($j job(s)): ra-compare"
	# shellcheck disable=SC2086 # $sides split on purpose: one argument per run set
	"$bin/ra-compare" --db "$out/demo.db" "$base" $sides || true
done
rm -f "$top"/demo/experiment.run-*.html "$top/demo/report.html"
"$bin/ra-report" --html "$top/demo/experiment.html" "$out/demo.db" 2> /dev/null
step "wrote $top/demo/experiment.html (the run sets, charts, the device model, a page per run)" \
	"and $out/demo.db"
echo "   ra-report $out/demo.db lists the runs; ra-report --run N $out/demo.db prints one"
