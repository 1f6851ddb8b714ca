#!/bin/sh
# The libFuzzer harnesses of tests/fuzz (see the Makefile's fuzz targets).
#
#   scripts/fuzz.sh probe CC                 can CC build a libFuzzer harness?
#   scripts/fuzz.sh run BUILD OUT SECONDS NAME...
#                                            run each harness BUILD/fuzz_NAME for
#                                            SECONDS from its committed corpus
#                                            (tests/fuzz/corpus/NAME; the trace.dat
#                                            harnesses share corpus/tracedat);
#                                            new inputs, crashes and logs go to
#                                            OUT/NAME (never into the tree)
#   scripts/fuzz.sh replay BUILD NAME...     every committed input once (a
#                                            regression run; exit 1 on a crash)
#
# FUZZ_ARGS adds libFuzzer options to a run (for example -fork=2
# -ignore_crashes=1 to go on after a crash, -jobs=N).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

probe() {
	dir=$(mktemp -d "${TMPDIR:-/tmp}/ratrace-probe.XXXXXX") || exit 1
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }' > "$dir/p.c"
	if ! "$1" -fsanitize=fuzzer,address,undefined -o "$dir/p" "$dir/p.c" >"$dir/log" 2>&1; then
		echo "ratrace: '$1' cannot build libFuzzer harnesses: $(grep -m1 -i error "$dir/log")" \
			"(Debian: clang and libclang-rt-dev)" >&2
		rm -rf "$dir"
		exit 1
	fi
	rm -rf "$dir"
}

# The committed corpus of a harness: the two trace.dat harnesses share one.
corpus_of() {
	case $1 in
	tracedat_check) echo "$top/tests/fuzz/corpus/tracedat" ;;
	*) echo "$top/tests/fuzz/corpus/$1" ;;
	esac
}

# "stat::number_of_executed_units: N" of a libFuzzer log
stat_of() {
	sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

run() {
	build=$1 out=$2 secs=$3
	shift 3
	status=0
	for name in "$@"; do
		dir=$out/$name
		mkdir -p "$dir/corpus" "$dir/crashes" || exit 1
		start=$(date +%s)
		# shellcheck disable=SC2086
		"$build/fuzz_$name" -max_total_time="$secs" -print_final_stats=1 \
			-artifact_prefix="$dir/crashes/" ${FUZZ_ARGS:-} \
			"$dir/corpus" "$(corpus_of "$name")" >"$dir/log" 2>&1
		rc=$?
		end=$(date +%s)
		execs=$(stat_of number_of_executed_units "$dir/log")
		# -fork mode prints no final stats: its last status line counts
		[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' "$dir/log" | tail -n 1)
		crashes=$(find "$dir/crashes" -type f | wc -l)
		printf 'fuzz_%-16s %10s executions in %5ss, %d crash input(s) in %s\n' \
			"$name" "${execs:-?}" $((end - start)) "$crashes" "$dir/crashes"
		if [ $rc -ne 0 ] || [ "$crashes" -gt 0 ]; then
			status=1
			grep -m1 -E "ERROR: |runtime error|SUMMARY" "$dir/log" | sed 's/^/    /'
		fi
	done
	exit $status
}

replay() {
	build=$1
	shift
	status=0
	for name in "$@"; do
		corpus=$(corpus_of "$name")
		n=$(find "$corpus" -type f | wc -l)
		log=$(mktemp "${TMPDIR:-/tmp}/ratrace-replay.XXXXXX") || exit 1
		if find "$corpus" -type f -print0 | xargs -0 "$build/fuzz_$name" >"$log" 2>&1; then
			echo "ok: fuzz_$name: $n committed inputs"
		else
			echo "FAIL: fuzz_$name on its committed inputs:"
			grep -E "^Running: |ERROR: |runtime error|SUMMARY|^    #[0-9]" "$log" | tail -n 25
			status=1
		fi
		rm -f "$log"
	done
	exit $status
}

# The harnesses' own files go to a directory of this script's, removed at
# the end whatever the harnesses left (a crashed job cannot clean up).
private_tmp() {
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/ratrace-fuzzrun.XXXXXX") || exit 1
	trap 'rm -rf "$scratch"' EXIT
	trap 'rm -rf "$scratch"; trap - INT; kill -INT $$' INT
	trap 'rm -rf "$scratch"; exit 143' TERM
	TMPDIR=$scratch
	export TMPDIR
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
probe) probe "$@" ;;
run) private_tmp; run "$@" ;;
replay) private_tmp; replay "$@" ;;
*) sed -n '2,19p' "$0" >&2; exit 2 ;;
esac
