# Labels are printed whole: the run list of a sweep's four run sets shows
# four labels (not four times "read_ahead_kb="), labels that differ only at
# their end stay different in the run list, in a report's header and in
# ra-compare's columns, and a label longer than a line wraps (in the run
# list and in the report's header) instead of being cut.
# test: budget=15
. "$(dirname "$0")/lib.sh"
make_tmp
DB=$TMP/l.db
sweep=(read_ahead_kb=16 read_ahead_kb=128 read_ahead_kb=512 read_ahead_kb=2048)
long=(fio-seqread-numjobs=4-iodepth=32-bs=4k-direct=0-kernel=6.12.38+deb13-cloud-amd64-a
      fio-seqread-numjobs=4-iodepth=32-bs=4k-direct=0-kernel=6.12.38+deb13-cloud-amd64-b)
huge=$(printf 'a-label-of-160-characters-%.0s' 1 2 3 4 5 6)end
labels=("${sweep[@]}" "${long[@]}" "$huge")
for l in "${labels[@]}"; do
	for i in 1 2; do
		ra-import -q -o "$DB" --label "$l" "$RA_FIXTURES/seq128.dat" || fail "import $l"
	done
done

# the run list: the label column, between the headers "label" and "kernel";
# a label wider than its column goes on in it on the lines below
ra-report "$DB" > "$TMP/all" 2> /dev/null || fail "ra-report (run list)"
cat "$TMP/all"
check_grep "^Experiment: " "$TMP/all" "the experiment comes first"
check_eq "$(awk 'length > 100' "$TMP/all" | wc -l)" 0 "the experiment and the run list within 100 columns"
sed -n '/^run  *label  /,$p' "$TMP/all" > "$TMP/list"
got=$(awk 'NR == 1 { a = index($0, "label"); b = index($0, "kernel"); next }
	{ s = substr($0, a, b - a); sub(/ +$/, "", s) }
	substr($0, 1, a - 1) ~ /^ *$/ { cur = cur s; next }
	NR > 2 { print cur } { cur = s } END { print cur }' "$TMP/list")
want=$(for l in "${labels[@]}"; do echo "$l"; echo "$l"; done)
check_eq "$got" "$want" "the run list: every label whole"
check_eq "$(echo "$got" | sort -u | wc -l)" ${#labels[@]} "the run list: as many labels as run sets"
check_eq "$(awk 'length > 100' "$TMP/list" | wc -l)" 0 "the run list within 100 columns"

# a report's header: the label whole, a long one wrapped under itself
run=1
for l in "${labels[@]}"; do
	ra-report --run $run "$DB" > "$TMP/r" || fail "ra-report --run $run"
	# (a line cut at a space drops it; a word longer than a line fills it)
	got=$(awk '/^  label / { full = length == 100; sub(/^  label +/, ""); s = $0; on = 1; next }
		on && /^                [^ ]/ { f = length == 100; sub(/^ +/, "");
			s = s (full ? "" : " ") $0; full = f; next } { on = 0 }
		END { print s }' "$TMP/r")
	check_eq "$got" "$l" "the header of run $run: its label whole"
	[ "$(awk 'length > 100' "$TMP/r" | grep -vc '^  ! ')" = 0 ] || fail "run $run: lines over 100 columns"
	run=$((run + 2))
done
check_cmp "$(grep -c '^                [^ ]' "$TMP/r")" -ge 1 "the longest label wraps"

# ra-compare: each side's column headed by its label whole
ra-compare --db "$DB" "${long[0]}" "${long[1]}" "${sweep[3]}" > "$TMP/c"
cat "$TMP/c"
# (too wide for one line: in blocks, each side beside the base, each block headed)
for l in "${long[0]} (n=2) base" "${long[1]} (n=2)" "${sweep[3]} (n=2)"; do
	grep '^metric ' "$TMP/c" | grep -qF -- "$l" || fail "ra-compare's headers lack '$l'"
done
check_eq "$(grep -c '^metric ' "$TMP/c")" 2 "two blocks: the base beside each side"
check_eq "$(grep -c "^metric .*${long[0]} (n=2) base" "$TMP/c")" 2 "the base in each"
echo "ok: ra-compare: every label whole in its column's header"
ra-compare -f json --db "$DB" "${long[0]}" "$huge" | python3 -c '
import json, sys
assert json.load(sys.stdin)["sides"] == sys.argv[1:], "sides"' "${long[0]}" "$huge" || fail "JSON sides"
echo "ok: ra-compare JSON: the labels whole"

# a label may hold colons: DB:LABEL splits at the first colon after a file
K=$TMP/k.db
for l in kernel:6.12 kernel:6.18; do
	for i in 1 2; do
		ra-import -q -o "$K" --label "$l" "$RA_FIXTURES/seq128.dat" || fail "import $l"
	done
done
for args in "$K:kernel:6.12 $K:kernel:6.18" "--db $K kernel:6.12 kernel:6.18"; do
	# shellcheck disable=SC2086 # $args split on purpose: one argument per word
	ra-compare $args > "$TMP/c" 2> "$TMP/err" || fail "ra-compare $args: $(cat "$TMP/err")"
	head -1 "$TMP/c" | grep -qE "^metric +kernel:6\.12 \(n=2\) base +kernel:6\.18 \(n=2\)$" ||
		fail "ra-compare $args: $(head -1 "$TMP/c")"
done
echo "ok: labels with colons, as DB:LABEL and with --db"
ra-compare "$TMP/none.db:kernel:6.12" "$K" 2> "$TMP/err"
check_eq "$?" 2 "a missing database before a label: exit status"
check_eq "$(cat "$TMP/err")" "ra-compare: cannot open '$TMP/none.db': No such file or directory" \
	"a missing database before a label: the message"
