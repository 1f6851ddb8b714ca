# The replay on the real traces of tests/fixtures: each run's accesses
# through the readahead of its kernel series give back its windows. Ground
# truth: the windows the traces recorded. seq128 (one dd reader), mmapread
# (fio over mmap) and the recorded sweep (sweep.db, dd bs=64k at 64 and 512
# KiB) give back 99% or more; par4thrash (four readers in a 20 MiB memory
# cgroup: the pages read ahead are evicted before they are read) is given
# back too, the evictions replayed where they happened, but the replay says
# what it could not have known (reclaim), in the table and in the report. ra-whatif from the sweep's 64 KiB run predicts
# its 512 KiB runs' windows one for one, and refuses what it cannot do with
# one line and exit status 2.
# test: budget=6
. "$(dirname "$0")/lib.sh"
make_tmp
DB=$TMP/fx.db
for f in seq128 mmapread par4thrash; do
	ra-import -q -o "$DB" --label "$f" "$RA_FIXTURES/$f.dat" || fail "import $f"
done
xz -dc "$RA_FIXTURES/sweep.db.xz" > "$TMP/sweep.db" || fail "unpack sweep.db"
ra-analyze -q "$TMP/sweep.db" || fail "ra-analyze of the sweep"

share() {	# DB LABEL-or-RUN
	q "$1" "SELECT c.share FROM replay_checks c JOIN runs r USING (run_id)
		WHERE r.label = '$2' OR r.run_id = '$2'"
}
for f in seq128 mmapread; do
	s=$(share "$DB" "$f")
	note "$f: $(q "$DB" "SELECT c.exact || ' of ' || c.windows || COALESCE(' (' || c.doubts || ')', '')
		FROM replay_checks c JOIN runs r USING (run_id) WHERE r.label = '$f'") windows given back"
	check_cmp "$(awk -v s="$s" 'BEGIN { print (s >= 0.99) }')" -eq 1 "$f: its windows given back ($s)"
done
for r in 1 2 3 4; do
	check_eq "$(share "$TMP/sweep.db" "$r")" 1.0 "sweep run $r: every window given back"
done

s=$(share "$DB" par4thrash)
note "par4thrash: $(q "$DB" "SELECT c.exact || ' of ' || c.windows || ' (' || c.doubts || ')'
	FROM replay_checks c JOIN runs r USING (run_id) WHERE r.label = 'par4thrash'") windows given back"
check_cmp "$(awk -v s="$s" 'BEGIN { print (s >= 0.99) }')" -eq 1 "par4thrash: given back ($s)"
check_grep reclaim <(q "$DB" "SELECT c.doubts FROM replay_checks c JOIN runs r USING (run_id)
	WHERE r.label = 'par4thrash'") "par4thrash: the replay says what it could not know (reclaim)"
ra-report --run "$(q "$DB" "SELECT run_id FROM runs WHERE label = 'par4thrash'")" "$DB" > "$TMP/r.txt" ||
	fail "ra-report of par4thrash"
check_grep "^Replay of the run's accesses" "$TMP/r.txt" "the report has the replay"
check_grep "^6\.18 .*reclaim" "$TMP/r.txt" "and says why it is not exact"

# par4thrash predicted at its own setting: reclaim is estimated (a clock
# over what the files had cached when the run's reclaim took their pages),
# and thrashes as the run did. Ground truth: the run's thrashed pages
# (6224). The estimate gives 7580; a clock that spared folios read once,
# which the kernel's reclaim does not, gave 12711 (over the most the files
# had cached).
p4=$(q "$DB" "SELECT run_id FROM runs WHERE label = 'par4thrash'")
ra-whatif -q --store -r "$p4" -k 2048 "$DB" > /dev/null || fail "ra-whatif of par4thrash"
rec=$(q "$DB" "SELECT SUM(thrashed) FROM windows WHERE run_id = $p4")
est=$(q "$DB" "SELECT SUM(w.thrashed) FROM windows w JOIN whatif p USING (run_id)
	WHERE p.source_run_id = $p4 AND p.read_ahead_kb = 2048")
note "par4thrash thrashed pages: $rec recorded, $est estimated at 2048 KiB"
check_cmp "$rec" -gt 1000 "par4thrash: the run thrashed"
check_cmp $((est * 2)) -ge $((rec * 4 / 3)) "par4thrash: the estimate within a factor of 1.5 (above)"
check_cmp $((est * 2)) -le $((rec * 3)) "par4thrash: the estimate within a factor of 1.5 (below)"

# the sweep: 512 KiB predicted from a run at 64, against its two runs at 512
ra-whatif -q -r 2 -k 512 --json "$TMP/sweep.db" > "$TMP/w.json" || fail "ra-whatif of the sweep"
python3 - "$TMP/w.json" <<'PY' || fail "the prediction of 512 KiB"
import json, sys
p = json.load(open(sys.argv[1]))["predictions"][0]
assert p["read_ahead_kb"] == 512 and p["measured_runs"] == 2, p
assert p["measured_windows"] > 0 and p["measured_windows_exact"] == p["measured_windows"], p
print("ok: 512 KiB predicted from 64:", p["measured_windows_exact"], "of", p["measured_windows"],
      "recorded windows")
PY
check_eq "$(q "$TMP/sweep.db" "SELECT COUNT(*) FROM runs")" 4 "without --store the database is left as it was"

# what it refuses: one line, exit status 2
ra-whatif -r 99 "$TMP/sweep.db" > /dev/null 2> "$TMP/err"
check_eq "$?" 2 "an unknown run: exit status"
check_eq "$(wc -l < "$TMP/err")" 1 "an unknown run: one line ($(cat "$TMP/err"))"
ra-whatif -K 5.10 "$TMP/sweep.db" > /dev/null 2> "$TMP/err"
check_eq "$?" 2 "an unknown series: exit status"
check_grep "unknown kernel series '5.10'" "$TMP/err" "an unknown series: said"
ra-whatif -k 0 "$TMP/sweep.db" > /dev/null 2> "$TMP/err"
check_eq "$?" 2 "a bad read_ahead_kb: exit status"
ra-whatif "$TMP/none.db" > /dev/null 2> "$TMP/err"
check_eq "$?" 2 "a missing database: exit status"
check_eq "$(wc -l < "$TMP/err")" 1 "a missing database: one line ($(cat "$TMP/err"))"
