#!/bin/bash
# How readahead behaved release by release: a fixed scenario set (rawl: a
# cold sequential read, random reads, an mmap read, fadvise(WILLNEED) then a
# read, two readers interleaved; a 16 MiB file, read_ahead_kb 128) recorded
# in a guest of every Debian kernel series that can be fetched, one boot per
# kernel, into one database, and written out as Markdown: the experiment
# (kernel x scenario), the windows of the sequential read per kernel (sizes
# in order: the ramp), and what each kernel offered. Timings are emulated
# (qemu without KVM here): the behavioural figures are the kernels'.
#
#   scripts/kernels-report.sh OUT.md [SERIES...]
#       (default 6.1 6.12.94 6.16 6.17 6.18 6.19 7.0 7.1 7.2 7.3)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=$top/build
out=${1:?usage: scripts/kernels-report.sh OUT.md [SERIES...]}
shift
[ $# -gt 0 ] || set -- 6.1 6.12.94 6.16 6.17 6.18 6.19 7.0 7.1 7.2 7.3
[ "$(id -u)" -eq 0 ] || { echo "kernels: run as root" >&2; exit 2; }
work=$(mktemp -d /tmp/ratrace-kernels.XXXXXX) || exit 2
trap 'rm -rf "$work"' EXIT
trap 'echo "kernels: interrupted" >&2; exit 130' INT TERM
export TMPDIR=$work
F=$work/files
mkdir "$F"
head -c $((16 << 20)) /dev/urandom > "$F/f"
cp "$bin/tools/rawl" "$F/rawl"
cp "$top/tests/tools/scenarios.sh" "$F/run.sh"
DB=$work/kernels.db
done_k=""
for k in "$@"; do
	if ! "$bin/ra-vm" fetch "$k" > /dev/null 2> "$work/fetch.err"; then
		echo "kernels: $k: not fetched: $(tail -n 1 "$work/fetch.err")" >&2
		continue
	fi
	echo "kernels: $k" >&2
	if "$bin/ra-record" -q -o "$DB" --kernel "$k" --kernel-files "$F" --read-ahead-kb vda=128 \
		--drop-caches --sweep-env SCEN=seq,random,mmap,fadvise,interleave -- sh "$F/run.sh" \
		> /dev/null 2> "$work/err"; then
		done_k="$done_k $k"
	else
		echo "kernels: $k: $(tail -n 1 "$work/err")" >&2
	fi
done
[ -n "$done_k" ] || { echo "kernels: no kernel recorded" >&2; exit 1; }
{
	echo "# Readahead across kernel releases"
	echo
	echo "Written by \`make kernels\` (scripts/kernels-report.sh) on $(date -u +%Y-%m-%d): the"
	echo "scenarios of rawl on a 16 MiB file at read_ahead_kb 128, recorded by"
	echo "\`ra-record --kernel\` in a guest of each Debian kernel:$done_k. The guests ran"
	echo "under software emulation, so MB/s and latencies are not the machine's; windows,"
	echo "patterns, hit ratios and request sizes are the kernels' own. On kernels without"
	echo "\`readahead:*\` tracepoints (before 6.18) the readahead events come from kprobes"
	echo "made from the kernel's BTF (the last table says which, and their self-check). A"
	echo "series whose packages could not be fetched is left out (the fetch's reason is"
	echo "printed)."
	echo
	echo "## Run sets"
	echo
	"$bin/ra-report" --markdown "$DB" 2> /dev/null
	echo
	echo "## The sequential read's windows, in order (pages, then the pattern's initial)"
	echo
	echo "| kernel | guest kernel | windows | sizes |"
	echo "|---|---|---:|---|"
	# the data file's windows (the shell and rawl being loaded have theirs)
	sqlite3 "$DB" "WITH f AS (SELECT run_id, ino FROM files WHERE path LIKE '%/f')
		SELECT '| ' || substr(r.label, 8, instr(r.label, ',') - 8) || ' | ' || r.kernel || ' | '
		|| (SELECT COUNT(*) FROM windows w JOIN f USING (run_id, ino) WHERE w.run_id = r.run_id) || ' | '
		|| COALESCE((SELECT group_concat(size_pages || substr(pattern, 1, 1), ' ') FROM
			(SELECT size_pages, pattern FROM windows w JOIN f USING (run_id, ino)
			 WHERE w.run_id = r.run_id ORDER BY window_id LIMIT 24)), '-')
		|| ' |' FROM runs r WHERE r.label LIKE '%SCEN=seq' ORDER BY r.run_id"
	echo
	echo "## What each kernel offered"
	echo
	echo "| kernel | readahead:* | mm_filemap_get_pages | readahead events from | self-check | readahead analysis |"
	echo "|---|---|---|---|---|---|"
	sqlite3 "$DB" "SELECT '| ' || r.kernel || ' | '
		|| (SELECT CASE WHEN MIN(available) = 1 THEN 'yes' ELSE 'no' END FROM tracepoints t
			WHERE t.run_id = r.run_id AND t.system = 'readahead') || ' | '
		|| (SELECT CASE WHEN available = 1 THEN 'yes' ELSE 'no' END FROM tracepoints t
			WHERE t.run_id = r.run_id AND t.name = 'mm_filemap_get_pages') || ' | '
		|| COALESCE((SELECT group_concat(DISTINCT probe || COALESCE(' (' || args || ')', ''))
			FROM event_sources e WHERE e.run_id = r.run_id AND e.system = 'readahead'), '-') || ' | '
		|| COALESCE((SELECT state FROM self_checks c WHERE c.run_id = r.run_id), '-') || ' | '
		|| (SELECT state FROM analyses a WHERE a.run_id = r.run_id AND pass = 'readahead') || ' |'
		FROM runs r WHERE r.label LIKE '%SCEN=seq' ORDER BY r.run_id"
} > "$out.tmp" && mv "$out.tmp" "$out"
echo "kernels: wrote $out" >&2
