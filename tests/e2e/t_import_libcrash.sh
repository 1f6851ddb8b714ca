# Crashes of libtraceevent 1.7.1 that the trace.dat check cannot see (they are
# in the text of the event formats, which only its parser reads), in a slice
# of a fixture with one format damaged as fuzzing found: the import's child
# dies of the signal, the parent says so in one line, exit status 2, and the
# database stays as it was (docs/robustness.md lists them).
# test: budget=2
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
make_tmp
cd "$TMP" || fail "cd"
slice=$RA_TOP/tests/fuzz/corpus/tracedat/seq128-v6.dat
ra-import -q -o keep.db "$RA_FIXTURES/nvme-readahead.blktrace.0" || fail "base import"
before=$(q keep.db .dump | sha256sum)
ra-import -q -o ok.db "$slice" || fail "the undamaged slice is refused"

# crash_format WHAT: the slice with page_cache_async_ra's format damaged
crash_format() {
	python3 - "$RA_TOP/tests/tools" "$slice" "$1" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import tracedat
t = tracedat.parse_v6(open(sys.argv[2], "rb").read())
what = sys.argv[3]
for i, (name, fmts) in enumerate(t["systems"]):
    for j, f in enumerate(fmts):
        if not f.startswith(b"name: page_cache_async_ra\n"):
            continue
        head, _, _ = f.partition(b"print fmt:")
        if what == "symbolic":      # a field the format does not have
            f = head + b'print fmt: "%s", __print_symbolic(REC->nosuch, { 0, "a" })\n'
        elif what == "division":    # a constant division by zero
            f = head + b'print fmt: "%d", 1 / 0\n'
        elif what == "array":       # an array field not closed before the end
            f = f.partition(b"\tfield:unsigned int order;")[0] + b"\tfield:char name["
        fmts[j] = f
pages = [[d[k:k + 4096] for k in range(0, len(d), 4096)] for d in t["cpu_data"]]
keep = {tracedat.format_id(f) for _, fmts in t["systems"] for f in fmts}
tracedat.write_v6(t, pages, keep, "crash.dat")
PY
}

# Sanitizers would report the crash themselves: leave the signal to the kernel.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0:handle_sigfpe=0
for c in symbolic:"Segmentation fault" division:"Floating point exception" \
	array:"Segmentation fault"; do
	crash_format "${c%%:*}" || fail "${c%%:*}: cannot damage the slice"
	ra-import -o keep.db crash.dat >out 2>err
	check_eq "$? $(wc -l < err)" "2 1" "${c%%:*}: exit status 2, one line"
	check_grep "^ra-import: 'crash.dat': the import crashed reading it \(${c#*:}\): corrupt input; 'keep.db' is as it was$" \
		err "${c%%:*}: $(cat err)"
	check_eq "$(q keep.db .dump | sha256sum)" "$before" "${c%%:*}: the database as it was"
	rm -f new.db*
	ra-import -q -o new.db crash.dat 2>/dev/null && fail "${c%%:*}: imported"
	[ -e new.db ] && fail "${c%%:*}: a new database appeared"
	check_eq "$(find . -mindepth 1 -maxdepth 1 -name '.new.db*' | wc -l)" 0 "${c%%:*}: no temporary left"
done
