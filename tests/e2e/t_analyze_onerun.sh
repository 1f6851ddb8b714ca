# Analysing one run changes no other run's derived rows, and every run of a
# recording or an import pools the runs recorded like it. Three imports of
# the same trace (one host, kernel and device: one model pool), the third
# stored without its analyses: ra-analyze --run 3 fits run 3's model on all
# three and leaves every row of runs 1 and 2 as it was; an import of two
# files at once gives both runs a model of both; ra-analyze of every run
# gives each a model of all three.
# test: budget=6
. "$(dirname "$0")/lib.sh"
make_tmp
T=$RA_FIXTURES/seq128.dat
DB=$TMP/p.db
ra-import -q -o "$DB" "$T" || fail "import 1"
ra-import -q -o "$DB" "$T" || fail "import 2"
ra-import -q -o "$DB" --no-analyze "$T" || fail "import 3"

# every row of runs 1 and 2 in every table that has a run_id
rows_of() {	# DB RUNS
	local t
	for t in $(q "$1" "SELECT m.name FROM sqlite_master m WHERE m.type = 'table'
		AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) WHERE name = 'run_id') ORDER BY 1"); do
		echo "== $t"
		q "$1" "SELECT * FROM \"$t\" WHERE run_id IN ($2) ORDER BY 1, 2, 3"
	done | sha256sum
}
pooled() {	# DB RUN: how many runs the run's chosen window model pooled
	q "$1" "SELECT group_concat(DISTINCT runs) FROM device_models WHERE run_id = $2 AND timing = 'window' AND chosen"
}
check_eq "$(pooled "$DB" 1) $(pooled "$DB" 2)" "1 2" "each import's model pools the runs analysed by then"
before=$(rows_of "$DB" 1,2)
ra-analyze -q --run 3 "$DB" || fail "ra-analyze --run 3"
check_eq "$(pooled "$DB" 3)" 3 "run 3's model pools the three runs"
check_eq "$(rows_of "$DB" 1,2)" "$before" "runs 1 and 2: every row as it was"

ra-analyze -q "$DB" || fail "ra-analyze"
check_eq "$(pooled "$DB" 1) $(pooled "$DB" 2) $(pooled "$DB" 3)" "3 3 3" \
	"ra-analyze of every run: each pools the three"
ra-import -q -o "$TMP/two.db" "$T" "$T" || fail "import of two files"
check_eq "$(pooled "$TMP/two.db" 1) $(pooled "$TMP/two.db" 2)" "2 2" "an import of two files: both pool both"
