# One run answers the sweep. A cold dd of a 32 MiB file on a loop device
# throttled to 1000 IOPS and 50 MB/s, in reads of 4 KiB and of 256 KiB, each
# recorded at read_ahead_kb 128 alone (a database of that one setting, whose
# device model cannot be fitted: one I/O size), and swept at 16, 128, 512 and
# 2048 in another; four fio readers of their own files, recorded at 128 alone
# and at 512. ra-whatif replays the lone runs' accesses at the other settings.
# Ground truths: the runs recorded at those settings (their windows, one
# for one in order per file: trigger, start, size, async size), the reader's
# own rate (dd's "copied, S s" of its bytes; fio's read bandwidth), and the
# sweep's own answer: the smallest read_ahead_kb whose measured rate reaches
# 80% of the best.
# - the windows predicted for 16, 512 and 2048 are the recorded ones (at
#   least 99% one for one: the share is printed), at both read sizes;
# - the predicted rate of dd is within 10% of dd's own at every setting;
# - the advice of each one run equals its sweep's answer;
# - the replay of each recorded run gives back its own windows (99%);
# - the hypothetical policies, labelled so: a fixed window of 256 KiB is
#   64 pages from the first window on (the kernel's first is smaller), a
#   scaling window of 512 KiB is the kernel's ramp to 512 KiB, window for
#   window;
#   the device scaling needs a fitted model, which one setting does not give,
#   and ra-whatif says so;
# - two dd readers of one file at once: whose read takes whose mark is a
#   matter of microseconds no trace orders for another setting. The replay
#   follows the recorded triggers (on this throttle the two readers take
#   turns: it gives back their windows, and predicts those of 512 KiB), but
#   it names what it cannot know (shared), at the recorded setting and in
#   the prediction's row and report: a share is printed, not held (on an
#   unthrottled device the readers race, and the replay gives back from 2%
#   to all of their windows, run to run).
# test: needs=root,tracefs,fio cpu=2 budget=26
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -d /sys/fs/cgroup/blkio ] || skip "no cgroup v1 blkio controller"
command -v fio >/dev/null || skip "no fio"
make_tmp
make_loop 400
make_file "$MNT/f" 32
mkdir -p "$MNT/fio"
for j in 0 1 2 3; do make_file "$MNT/fio/r.$j.0" 24; done
THR="$LOOP_NAME=iops:1000,bps:50000000"
DD=(dd if="$MNT/f" of=/dev/null bs=4k)
DD256=(dd if="$MNT/f" of=/dev/null bs=256k)
FIO=(fio --name=r --rw=read --bs=4k --numjobs=4 --size=24M --ioengine=psync
	--directory="$MNT/fio" --output-format=json)

record() {	# DB KBS WORKLOAD...
	local db=$1 kbs=$2; shift 2
	ra-record -q -o "$db" -d "$LOOP_NAME" --sweep "read_ahead_kb=$kbs" "${COLD[@]}" \
		--throttle "$THR" "${REPEAT[@]}" -- "$@" > /dev/null 2> "$TMP/err" ||
		fail "record $kbs: $(cat "$TMP/err")"
}
# The one run replayed is the second of its recording: ra-whatif -r.
REPEAT=(--repeat 2)
record "$TMP/one.db" 128 "${DD[@]}"
record "$TMP/one256.db" 128 "${DD256[@]}"
REPEAT=()
record "$TMP/sweep.db" 16,128,512,2048 "${DD[@]}"
record "$TMP/sweep256.db" 16,128,512,2048 "${DD256[@]}"
record "$TMP/fio1.db" 128 "${FIO[@]}"
record "$TMP/fio512.db" 512 "${FIO[@]}"
TWO=(sh -c "dd if='$MNT/f' of=/dev/null bs=4k 2>/dev/null &
	dd if='$MNT/f' of=/dev/null bs=4k 2>/dev/null; wait")
record "$TMP/two.db" 128 "${TWO[@]}"
record "$TMP/two512.db" 512 "${TWO[@]}"

# the replay of every recorded run gives back its windows
for db in one sweep one256 sweep256 fio1 fio512; do
	while IFS='|' read -r run share; do
		note "$db run $run: replay share $share"
		check_cmp "$(awk -v s="$share" 'BEGIN { print (s >= 0.99) }')" -eq 1 \
			"$db run $run: its own windows given back ($share)"
	done < <(q "$TMP/$db.db" "SELECT run_id, share FROM replay_checks ORDER BY run_id")
done

for one in one one256; do
	ra-whatif -q --store -r 2 -k 16,128,512,2048 --json "$TMP/$one.db" > "$TMP/$one.json" ||
		fail "ra-whatif of the one run ($one)"
done
ra-whatif -q --store -k 512 "$TMP/fio1.db" > /dev/null || fail "ra-whatif of the fio run"
note "the one run: $(q "$TMP/one.db" "SELECT 'reads ' || read_ns || ' ns, ' || bytes_read || ' bytes' FROM replay_checks WHERE run_id = 2"); device: $(q "$TMP/one.db" "SELECT model_form || ', head start ' || device_lead_ns || ' ns' FROM whatif LIMIT 1")"

# windows_equal A_DB A_RUN B_DB B_RUN: "exact total" of B's windows met one for
# one by A's, in order per file
windows_equal() {
	q "$1" "ATTACH '$3' AS b;
	WITH a AS (SELECT dev, ino, trigger, start_page, size_pages, async_size_pages,
	           ROW_NUMBER() OVER (PARTITION BY dev, ino ORDER BY window_id) AS k
	           FROM main.windows WHERE run_id = $2),
	     m AS (SELECT dev, ino, trigger, start_page, size_pages, async_size_pages,
	           ROW_NUMBER() OVER (PARTITION BY dev, ino ORDER BY window_id) AS k
	           FROM b.windows WHERE run_id = $4)
	SELECT (SELECT COUNT(*) FROM m JOIN a USING (dev, ino, k) WHERE m.trigger = a.trigger
	        AND m.start_page = a.start_page AND m.size_pages = a.size_pages
	        AND m.async_size_pages = a.async_size_pages) || ' ' || (SELECT COUNT(*) FROM m)"
}
# dd_rate DB RUN: dd's own bytes per second, from its output
dd_rate() {
	q "$1" "SELECT workload_output FROM runs WHERE run_id = $2" |
		awk '/bytes .* copied/ { printf "%.0f\n", $1 / $(NF-3) }'
}

# predict_sweep ONE SWEEP READ: the one run's predictions against its sweep
predict_sweep() {
	local one=$1 sweep=$2 rd=$3 best=0 kb mrun prun exact total err truth advice
	local -A measured predicted
	for db in "$one" "$sweep"; do
		note "$rd reads, $db: dd's rates $(for r in $(q "$TMP/$db.db" "SELECT run_id FROM runs
			WHERE origin IS NOT 'whatif' ORDER BY run_id"); do printf '%s ' "$(dd_rate "$TMP/$db.db" "$r")"; done)"
	done
	for kb in 16 128 512 2048; do
		mrun=$(q "$TMP/$sweep.db" "SELECT run_id FROM v_run_params
			WHERE name = 'read_ahead_kb' AND value = '$kb' LIMIT 1")
		prun=$(q "$TMP/$one.db" "SELECT run_id FROM whatif WHERE read_ahead_kb = $kb")
		if [ -z "$mrun" ] || [ -z "$prun" ]; then fail "$rd: no run of $kb KiB ($mrun, $prun)"; fi
		read -r exact total < <(windows_equal "$TMP/$one.db" "$prun" "$TMP/$sweep.db" "$mrun")
		note "$rd reads, read_ahead_kb $kb: $exact of the $total recorded windows predicted one for one"
		check_cmp "$(awk -v e="$exact" -v t="$total" 'BEGIN { print (t > 0 && e >= 0.99 * t) }')" \
			-eq 1 "$rd reads, read_ahead_kb $kb: the recorded windows predicted ($exact of $total)"
		measured[$kb]=$(dd_rate "$TMP/$sweep.db" "$mrun")
		predicted[$kb]=$(q "$TMP/$one.db" "SELECT CAST(read_bps AS INTEGER) FROM whatif
			WHERE run_id = $prun")
		err=$(awk -v p="${predicted[$kb]}" -v m="${measured[$kb]}" \
			'BEGIN { printf "%.1f", (p - m) * 100 / m }')
		note "$rd reads, read_ahead_kb $kb: predicted ${predicted[$kb]} B/s, dd measured ${measured[$kb]} B/s ($err%)"
		check_cmp "$(awk -v e="$err" 'BEGIN { print (e <= 10 && e >= -10) }')" -eq 1 \
			"$rd reads, read_ahead_kb $kb: the predicted rate within 10% of dd's ($err%)"
		[ "${measured[$kb]}" -gt "$best" ] && best=${measured[$kb]}
	done
	# the sweep's answer: the smallest setting reaching 80% of the best measured
	truth=
	for kb in 16 128 512 2048; do
		if [ -z "$truth" ] && [ $((measured[$kb] * 10)) -ge $((best * 8)) ]; then truth=$kb; fi
	done
	advice=$(python3 -c "import json, sys; print(json.load(sys.stdin)['advice']['read_ahead_kb'])" \
		< "$TMP/$one.json") || fail "no advice in $(head -c 300 "$TMP/$one.json")"
	check_eq "$advice" "$truth" "$rd reads: the advice of one run is the sweep's answer"
}
predict_sweep one sweep 4k
predict_sweep one256 sweep256 256k

# the hypothetical policies, from the 4k reads' one run
ra-whatif -r 2 -p fixed:256,scaling:512 "$TMP/one.db" > "$TMP/pol.txt" 2> "$TMP/err" ||
	fail "ra-whatif -p: $(cat "$TMP/err")"
check_grep 'fixed \(hyp\.\)' "$TMP/pol.txt" "a fixed window is labelled hypothetical"
check_grep 'scaling \(hyp\.\)' "$TMP/pol.txt" "a scaling window is labelled hypothetical"
ra-whatif -q --store -r 2 -p fixed:256,scaling:512 "$TMP/one.db" > /dev/null ||
	fail "ra-whatif --store -p"
pages=8192	# the file's
fixed=$(q "$TMP/one.db" "SELECT run_id FROM whatif WHERE policy = 'fixed'")
scaling=$(q "$TMP/one.db" "SELECT run_id FROM whatif WHERE policy = 'scaling'")
# a window the file's end cuts is shorter; every other is the fixed size
read -r n bad < <(q -separator ' ' "$TMP/one.db" "SELECT COUNT(*), SUM(size_pages != 64
	AND start_page + size_pages < $pages) FROM windows WHERE run_id = $fixed")
note "fixed:256: $n windows, $bad of another size before the file's end"
check_cmp "$n" -gt 100 "fixed:256: windows predicted ($n)"
check_eq "$bad" 0 "fixed:256: every window 64 pages, the first too"
kernel512=$(q "$TMP/one.db" "SELECT run_id FROM whatif WHERE policy = 'kernel' AND read_ahead_kb = 512")
read -r n max < <(q -separator ' ' "$TMP/one.db" "SELECT COUNT(*), MAX(size_pages) FROM windows
	WHERE run_id = $scaling")
read -r exact total < <(windows_equal "$TMP/one.db" "$scaling" "$TMP/one.db" "$kernel512")
note "scaling:512: $n windows, at most $max pages; $exact of the kernel's $total at 512 KiB"
check_eq "$max" 128 "scaling:512: the window ramps to 128 pages"
check_eq "$exact/$n" "$total/$total" "scaling:512: the kernel's ramp to 512 KiB, window for window"
# the run's page charts them: a line of the four settings, a square per policy
ra-report --run 2 --html "$TMP/one.html" "$TMP/one.db" || fail "ra-report --html of the one run"
python3 - "$TMP/one.html" <<'PY' || fail "the what-if chart"
import re, sys
h = open(sys.argv[1]).read()
m = re.search(r'<figure id="c-whatif">(.*?)</figure>', h, re.S)
assert m, "no what-if chart"
lines = re.findall(r'<polyline[^>]*points="([^"]*)"', m.group(1))
assert len(lines) == 1 and len(lines[0].split()) == 4, lines
assert len(re.findall(r'<title>(fixed|scaling) ', m.group(1))) == 2, "the policies' marks"
PY
echo "ok: the run's page charts its predictions"
ra-whatif -r 2 -p scaling "$TMP/one.db" > /dev/null 2> "$TMP/err"
check_eq "$?" 2 "scaling with no device model: an error"
check_grep "no device model" "$TMP/err" "scaling with no device model: says so"

# two readers of one file: the doubt named, at the setting and in a prediction
note "two readers of one file: the replay gives back $(q "$TMP/two.db" "SELECT exact || ' of '
	|| windows || ' (' || doubts || ')' FROM replay_checks") windows"
check_grep shared <(q "$TMP/two.db" "SELECT doubts FROM replay_checks") \
	"two readers of one file: the replay says what it cannot know (shared)"
ra-whatif -q --store -k 512 "$TMP/two.db" > /dev/null || fail "ra-whatif of the two readers"
prun=$(q "$TMP/two.db" "SELECT run_id FROM whatif WHERE read_ahead_kb = 512")
read -r exact total < <(windows_equal "$TMP/two.db" "$prun" "$TMP/two512.db" 1)
note "two readers at 512: $exact of the $total recorded windows predicted one for one"
check_grep shared <(q "$TMP/two.db" "SELECT doubts FROM whatif WHERE run_id = $prun") \
	"two readers at 512 KiB: the prediction says why (shared)"
ra-report --run "$prun" "$TMP/two.db" > "$TMP/two.txt" || fail "ra-report of the prediction"
check_grep "^whatif .*shared|shared" "$TMP/two.txt" "its report names it"


# four readers of their own files: 512 predicted from 128
prun=$(q "$TMP/fio1.db" "SELECT run_id FROM whatif WHERE read_ahead_kb = 512")
mrun=$(q "$TMP/fio512.db" "SELECT MIN(run_id) FROM runs")
read -r exact total < <(windows_equal "$TMP/fio1.db" "$prun" "$TMP/fio512.db" "$mrun")
note "four readers at 512: $exact of the $total recorded windows predicted one for one"
check_cmp "$(awk -v e="$exact" -v t="$total" 'BEGIN { print (t > 0 && e >= 0.99 * t) }')" -eq 1 \
	"four readers at 512 KiB: the recorded windows predicted ($exact of $total)"
