# Every output form of ra-report, the experiment and ra-compare, byte for
# byte, against the outputs kept in tests/golden/: on the fixture traces
# imported (three trace.dat files and a blktrace file, four runs; the pages of
# the experiment hold each run's page) and on a
# recorded sweep (tests/fixtures/sweep.db.xz: read_ahead_kb 64 and 512, two
# runs each, analysed again here so that the analysis is covered too). A
# change that moves any figure, word or byte of an output shows here as a
# diff; one that is meant to is committed with the outputs it makes:
#   RA_GOLDEN_UPDATE=1 tests/run.sh t_golden
# Each case runs in a directory of its own, with relative paths, and keeps
# its standard output, standard error, exit status and the files it wrote.
# (RA_GOLDEN_UPDATE is for the one who changed an output on purpose: the
# committed diff of tests/golden is then the review of that change.)
# test: budget=15
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/golden_cases.sh"
command -v xz >/dev/null || skip "xz is not installed"
make_tmp
GOLDEN=$(cd "$(dirname "$0")/.." && pwd)/golden
OUT=$TMP/out	# a case's directory is $OUT/NAME: the databases are ../../../imp.db, ../../../sweep.db
mkdir -p "$OUT"

# the databases: relative source paths, so that no output names this machine
(cd "$RA_FIXTURES" && ra-import -q -o "$TMP/imp.db" seq128.dat mmapread.dat par4thrash.dat \
	nvme-readahead.blktrace.0) 2> "$TMP/err" || fail "import the fixtures: $(cat "$TMP/err")"
xz -dc "$RA_FIXTURES/sweep.db.xz" > "$TMP/sweep.db" || fail "unpack the sweep"
ra-analyze -q "$TMP/sweep.db" 2> "$TMP/err" || fail "analyse the sweep: $(cat "$TMP/err")"

n=0
# out NAME CMD...: CMD run in $OUT/NAME
out() {
	local name=$1; shift
	mkdir "$OUT/$name" || fail "two cases named $name"
	(cd "$OUT/$name" && { "$@" > stdout 2> stderr; echo $? > status; })
	n=$((n + 1))
}

golden_cases ../../imp.db ../../sweep.db

if [ -n "${RA_GOLDEN_UPDATE:-}" ]; then
	rm -rf "$GOLDEN" || fail "remove $GOLDEN"
	cp -r "$OUT" "$GOLDEN" || fail "update $GOLDEN"
	echo "ok: $n outputs written to $GOLDEN"
	exit 0
fi
[ -d "$GOLDEN" ] || fail "no $GOLDEN: make it with RA_GOLDEN_UPDATE=1"
diff -r "$GOLDEN" "$OUT" > "$TMP/diff"
rc=$?
[ "$rc" -eq 0 ] || fail "outputs differ from $GOLDEN ($(grep -c '^[<>]' "$TMP/diff") lines):
$(head -c 3000 "$TMP/diff")"
echo "ok: $n outputs byte-identical to tests/golden ($(find "$OUT" -type f | wc -l) files)"
