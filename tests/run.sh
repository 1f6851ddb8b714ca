#!/bin/bash
# Run every test suite: the unit test binaries, then the end-to-end scripts.
# A test exits 0 (pass), 77 (skip, with the reason on its last line) or
# anything else (fail). With CI=true a skip counts as a failure: CI runs as
# root with tracefs, so nothing there may be skipped.
#
#   tests/run.sh [PATTERN]    run the tests whose name contains PATTERN

set -u
cd "$(dirname "$0")/.." || exit 2
export RA_TOP=$PWD
export RA_BIN=$PWD/${RA_BUILD:-build}
export RA_FIXTURES=$PWD/tests/fixtures
export RA_SHARED_FIXTURES=${RA_SHARED_FIXTURES:-$PWD/../shared/fixtures}
export PATH=$RA_BIN:$PATH
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
pattern=${1:-}
artifacts=$PWD/tests/artifacts
mkdir -p "$artifacts"

pass=0 fail=0 skip=0
failed_names=()

run_one() {
	local name=$1; shift
	local log=$artifacts/$name.log rc start end
	mkdir -p "$(dirname "$log")"
	start=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	end=$(date +%s)
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		printf 'PASS  %-40s %3ss\n' "$name" $((end - start))
	elif [ $rc -eq 77 ] && [ "${CI:-}" != "true" ]; then
		skip=$((skip + 1))
		printf 'SKIP  %-40s %s\n' "$name" "$(tail -n 1 "$log")"
	else
		fail=$((fail + 1))
		failed_names+=("$name")
		if [ $rc -eq 77 ]; then
			printf 'FAIL  %-40s skipped in CI: %s\n' "$name" "$(tail -n 1 "$log")"
		else
			printf 'FAIL  %-40s (exit %d)\n' "$name" $rc
			sed 's/^/      | /' "$log" | tail -n 30
		fi
	fi
}

for t in "$RA_BIN"/tests/test_*; do
	[ -x "$t" ] || continue
	name=unit/$(basename "$t")
	case $name in *"$pattern"*) ;; *) continue ;; esac
	run_one "$name" "$t"
done
for t in tests/e2e/t_*.sh; do
	[ -f "$t" ] || continue
	name=e2e/$(basename "$t" .sh)
	case $name in *"$pattern"*) ;; *) continue ;; esac
	run_one "$name" bash "$t"
done

echo
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
