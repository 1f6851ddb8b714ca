# The libFuzzer harnesses of tests/fuzz build, and every committed input of
# their corpora (the seeds and the inputs that once crashed ratrace) runs
# through its harness without a crash, a leak or undefined behaviour: a
# regression run of seconds. Needs clang with its libFuzzer runtime.
# test: needs=clang cpu=1 budget=4
. "$(dirname "$0")/lib.sh"
top=${RA_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang >/dev/null || skip "clang is not installed (Debian: clang, libclang-rt-dev)"
"$top/scripts/fuzz.sh" probe clang 2>/dev/null ||
	skip "clang cannot link libFuzzer harnesses (Debian: libclang-rt-dev)"
make_tmp
make -C "$top" --no-print-directory fuzz-build >"$TMP/build.log" 2>&1 ||
	fail "make fuzz-build: $(tail -n 5 "$TMP/build.log")"
names=()
for src in "$top"/tests/fuzz/fuzz_*.c; do
	n=$(basename "$src" .c)
	names+=("${n#fuzz_}")
done
check_cmp ${#names[@]} -ge 5 "harnesses"
"$top/scripts/fuzz.sh" replay "$top/build-fuzz" "${names[@]}" || fail "a committed input crashed"
