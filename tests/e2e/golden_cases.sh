# The cases of the outputs kept byte for byte (tests/golden): every output
# form of ra-report, the experiment and ra-compare, on the fixture traces
# imported (IMP) and on the recorded sweep (SWEEP). t_golden runs them on
# the SQLite files, t_fleet_golden on a PostgreSQL server they were pushed
# to. The caller defines out NAME CMD... (CMD run in a directory of its own).
# golden_cases IMP SWEEP
golden_cases() {
	local imp=$1 sweep=$2 r f
	for r in 1 2 3 4; do
		out "run$r-text" ra-report --run "$r" "$imp"
		out "run$r-json" ra-report --run "$r" --json "$imp"
		out "run$r-markdown" ra-report --run "$r" --markdown "$imp"
	done
	out imports-text ra-report "$imp"
	out imports-experiment ra-report --experiment "$imp"
	out imports-json ra-report --experiment --json "$imp"
	out imports-html ra-report --html page.html "$imp"
	out sweep-text ra-report "$sweep"
	out sweep-experiment-markdown ra-report --experiment --markdown "$sweep"
	out sweep-json ra-report --experiment --json "$sweep"
	out sweep-html ra-report --html page.html "$sweep"
	out sweep-run3-text ra-report --run 3 --top 3 --fraction 90% "$sweep"
	out sweep-run3-json ra-report --run 3 --json "$sweep"
	out sweep-label ra-report --label read_ahead_kb=512 "$sweep"
	for f in text json csv markdown junit; do
		out "compare-$f" ra-compare -f "$f" "$sweep:read_ahead_kb=64" "$sweep:read_ahead_kb=512"
	done
	out compare-html ra-compare --html page.html --inconclusive pass "$sweep:read_ahead_kb=64" \
		"$sweep:read_ahead_kb=512"
	out compare-nolabel ra-compare --incomplete judge "$imp:seq128" "$imp"
}
