# The test runner itself (tests/run.sh), on tests made for it: tests that
# do not disturb each other run at the same time; one declared alone runs
# with nothing beside it; two that name the same excl= never overlap; one past
# its time-out fails naming itself and the command it was running, within
# seconds, and its cleanups run (its temporary directory and its child are
# gone); a skip is a skip, and a failure in CI; every test's time is in
# timings.tsv and the slowest are printed.
# test: budget=7
. "$(dirname "$0")/lib.sh"
make_tmp
D=$TMP/e2e
mkdir "$D" || fail "mkdir"
ln -s "$RA_TOP/tests/e2e/lib.sh" "$D/lib.sh"
LOG=$TMP/intervals
# fake NAME DECLARATION SECONDS: a test that sleeps SECONDS between two lines
# of $LOG (NAME start|end EPOCHREALTIME)
fake() {
	cat > "$D/t_$1.sh" <<EOF
# test: $2
. "\$(dirname "\$0")/lib.sh"
echo "$1 start \$EPOCHREALTIME" >> "$LOG"
sleep $3
echo "$1 end \$EPOCHREALTIME" >> "$LOG"
EOF
}
fake par1 "budget=2" 2
fake par2 "budget=2" 2
fake solo1 "alone budget=1" 1
fake solo2 "alone budget=1" 1
fake ex1 "excl=thing budget=1" 1
fake ex2 "excl=thing,other budget=1" 1
cat > "$D/t_slow.sh" <<EOF
# test: timeout=3 budget=1
. "\$(dirname "\$0")/lib.sh"
on_exit "touch '$TMP/slow.last-cleanup'"
make_tmp
on_exit "sleep 1"	# a slow cleanup: the second SIGTERM (timeout's own) comes meanwhile
echo "\$TMP" > "$TMP/slow.tmp"
sleep 300 &
echo \$! > "$TMP/slow.child"
on_exit "kill \$!"
note "waiting for the device"
sleep 60
EOF
cat > "$D/t_skipper.sh" <<EOF
. "\$(dirname "\$0")/lib.sh"
skip "needs a unicorn"
EOF

start=$EPOCHREALTIME
CI='' "$RA_TOP/tests/run.sh" -j 4 --dir "$D" --artifacts "$TMP/art" > "$TMP/out" 2>&1
rc=$?
wall=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
cat "$TMP/out"
check_eq "$rc" 1 "exit status with a test that timed out"
check_grep "^FAIL  e2e/t_slow +timed out after 3s; it was at: stopped by SIGTERM while running: sleep 60$" \
	"$TMP/out" "the time-out names the test and what it was running"
check_grep "^SKIP  e2e/t_skipper +needs a unicorn$" "$TMP/out" "a skip says why"
check_grep "^6 passed, 1 failed, 1 skipped$" "$TMP/out" "the closing line"
[ -e "$(cat "$TMP/slow.tmp")" ] && fail "the timed-out test's temporary directory is left"
[ -e "$TMP/slow.last-cleanup" ] || fail "the timed-out test's cleanups were cut short"
echo "ok: the timed-out test's cleanups ran, all of them"
kill -0 "$(cat "$TMP/slow.child")" 2>/dev/null && fail "the timed-out test's child is left"
echo "ok: no process of it left"
# solo 1 + solo 1, then the rest at once: 2 + 3 s (the time-out), not the 10 s
# of one after another
awk -v w="$wall" 'BEGIN { exit !(w >= 5 && w < 8.5) }' || fail "wall time $wall s, not 5 to 8.5"
echo "ok: in parallel: $wall s"

# the intervals: NAME START END, then what overlaps
awk '$2 == "start" { s[$1] = $3 } $2 == "end" { e[$1] = $3 } END { for (n in e) print n, s[n], e[n] }' \
	"$LOG" > "$TMP/iv"
overlap() {	# A B: 1 when the intervals of A and B overlap
	awk -v a="$1" -v b="$2" '$1 == a { as = $2; ae = $3 } $1 == b { bs = $2; be = $3 }
		END { print (as < be && bs < ae) ? 1 : 0 }' "$TMP/iv"
}
check_eq "$(wc -l < "$TMP/iv")" 6 "every fake test ran"
check_eq "$(overlap par1 par2)" 1 "two tests without declarations run at the same time"
check_eq "$(overlap ex1 ex2)" 0 "two tests of one excl= do not"
for s in solo1 solo2; do
	for o in par1 par2 ex1 ex2 solo1 solo2; do
		[ "$s" = "$o" ] && continue
		[ "$(overlap "$s" "$o")" = 0 ] || fail "$s ran beside $o"
	done
done
echo "ok: a test declared alone runs with nothing beside it"

check_eq "$(tail -n +2 "$TMP/art/timings.tsv" | cut -f1,2 | sort | tr '\t\n' ': ')" \
	"e2e/t_ex1:pass e2e/t_ex2:pass e2e/t_par1:pass e2e/t_par2:pass e2e/t_skipper:skip e2e/t_slow:fail e2e/t_solo1:pass e2e/t_solo2:pass " \
	"timings.tsv: every test and its verdict"
check_grep "^  e2e/t_slow +[34]\.[0-9]s  budget 1s$" "$TMP/out" "the slowest listed first"
grep -q "^note: e2e/t_par" "$TMP/out" && fail "a test within its budget called slow"
echo "ok: no test within its budget called slow"

# in CI a skip fails
CI=true "$RA_TOP/tests/run.sh" --dir "$D" --artifacts "$TMP/art2" skipper > "$TMP/ci" 2>&1
check_eq "$?" 1 "CI: a skip is a failure"
check_grep "^FAIL  e2e/t_skipper +skipped in CI: needs a unicorn$" "$TMP/ci" "CI: the skip's line"

# The runner stopped (Ctrl-C, a SIGTERM): every test it runs is stopped and
# runs all its cleanups, a slow one too, though timeout(1) passes the signal
# on a second time.
S=$TMP/stop
mkdir "$S" || fail "mkdir"
ln -s "$RA_TOP/tests/e2e/lib.sh" "$S/lib.sh"
cat > "$S/t_held.sh" <<EOF
. "\$(dirname "\$0")/lib.sh"
on_exit "touch '$TMP/held.last-cleanup'"
on_exit "sleep 1"
touch "$TMP/held.started"
sleep 60
EOF
"$RA_TOP/tests/run.sh" --dir "$S" --artifacts "$TMP/art3" > "$TMP/stop.out" 2>&1 &
runner=$!
on_exit "kill $runner"
for _ in $(seq 100); do [ -e "$TMP/held.started" ] && break; sleep 0.05; done
[ -e "$TMP/held.started" ] || note "the held test had not started 5 s after its runner"
kill -TERM "$runner"
# a runner that does not end is named with what it still runs, not left to
# this test's own time-out
for _ in $(seq 200); do kill -0 "$runner" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$runner" 2>/dev/null; then
	ps -eo pid,ppid,pgid,stat,etimes,args > "$TMP/ps"
	fail "the runner still runs 20 s after SIGTERM: $(grep -E "t_held|run.sh --dir $S|sleep (1|60)$" "$TMP/ps" |
		tr -s ' ' | head -8 | paste -sd ';')"
fi
wait "$runner"
check_eq "$?" 143 "a stopped runner: exit status"
[ -e "$TMP/held.last-cleanup" ] || fail "the stopped test's cleanups were cut short"
echo "ok: a stopped runner's tests run all their cleanups"
