#!/bin/bash
# What a run over many small files costs: N files of 8 KiB (10,000 by
# default) on an ext4 loop device backed by /dev/shm, read once, cold, by
# tar under ra-record -vv; the recorder's peak RSS, its time after the
# workload, and ra-analyze of the run (time, peak RSS), against tar's own
# time without the recorder (the reference, measured in the same run, on a
# cold cache too). Memory per file is what grows here: docs/performance.md.
# PROCS=1: a process of its own reads each file (xargs -n 1 cat), so that
# the tasks grow with the files. SIZE: the files' size in bytes (8192).
#
#   [PROCS=1] [SIZE=B] bench/many_files.sh [N...]      (root)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
REC=$top/build/ra-record
[ -x "$REC" ] || { echo "build first: make" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 2; }
[ $# -gt 0 ] || set -- 10000
# the workload, $work expanded by its own shell (from its environment)
# shellcheck disable=SC2016
if [ "${PROCS:-0}" = 1 ]; then
	job='cd "$work/mnt" && find d -type f -print0 | xargs -0 -n 1 cat > /dev/null'
else
	job='tar cf - -C "$work/mnt" d | cat > /dev/null'
fi
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 2; }

work=$(mktemp -d /dev/shm/ratrace-many.XXXXXX)
cleanup() {
	set +e
	mountpoint -q "$work/mnt" && umount "$work/mnt"
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

printf '%8s %9s %9s %10s %10s %9s %10s %10s\n' files events tar_s record_s after_s rec_MiB \
	analyze_s ana_MiB
for n in "$@"; do
	mountpoint -q "$work/mnt" && umount "$work/mnt"
	[ -n "${LOOP:-}" ] && losetup -d "$LOOP"
	rm -rf "${work:?}"/*
	truncate -s $((n / 100 + 512))M "$work/img"
	LOOP=$(losetup -f --show --direct-io=on "$work/img")
	mkfs.ext4 -q -F -N $((n + 10000)) -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP"
	mkdir "$work/mnt"
	mount "$LOOP" "$work/mnt"
	"$top/bench/make_files.sh" "$work/mnt/d" "$n" "${SIZE:-8192}"
	# the reference: tar alone, cold (the file system mounted again)
	umount "$work/mnt"
	mount "$LOOP" "$work/mnt"
	/usr/bin/time -f %e -o "$work/tar.t" env work="$work" sh -c "$job"
	umount "$work/mnt"
	mount "$LOOP" "$work/mnt"
	/usr/bin/time -f '%e %M' -o "$work/rec.t" "$REC" -vv -o "$work/r.db" -d "$(basename "$LOOP")" \
		-- env work="$work" sh -c "$job" 2> "$work/rec.log"
	after=$(awk '$1 == "ra-record:" && $NF == "s" && /last events|store finished|processes of|file names|analyses|committed/ {
		s += $(NF - 1) } END { printf "%.2f", s }' "$work/rec.log")
	events=$(awk '/events in/ { print $4 }' "$work/rec.log")
	/usr/bin/time -f '%e %M' -o "$work/ana.t" "$top/build/ra-analyze" -q "$work/r.db"
	read -r rec_s rec_kb < "$work/rec.t"
	read -r ana_s ana_kb < "$work/ana.t"
	printf '%8d %9s %9s %10s %10s %9d %10s %10d\n' "$n" "$events" "$(cat "$work/tar.t")" "$rec_s" \
		"$after" $((rec_kb / 1024)) "$ana_s" $((ana_kb / 1024))
	umount "$work/mnt"
	losetup -d "$LOOP"
	LOOP=
	rm -f "$work"/img "$work"/r.db*
done
