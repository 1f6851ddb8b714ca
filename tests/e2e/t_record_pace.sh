# ra-record's pace: a recorder whose store falls behind the kernel's events
# runs the threads that store them (the recording loop and its tap threads)
# ahead of the workload's, and back once it has caught up; one that keeps up
# changes nothing. The workload prints its own nice value and that of each
# of the recorder's threads while it runs, under a recorder started at nice
# 4: kept up (a run of a few thousand events), every thread at 4 but the
# one that empties the ring buffers (-10); always behind
# (RATRACE_BEHIND_MS=0), the loop and the tap threads at -1. Either way the
# workload runs at 4, also the one started after the first in --repeat 2:
# the pace is the recorder's, never given to what it starts.
# test: needs=root,tracefs budget=3
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
head -c 4M /dev/urandom > "$TMP/f"

# shellcheck disable=SC2016 # the $ are the inner sh's
look='sleep 0.3
	echo "workload $(cut -d" " -f19 /proc/$$/stat)" >> "$1"
	echo "recorder $PPID" >> "$1"
	for t in /proc/$PPID/task/*; do
		echo "$(basename "$t") $(cut -d" " -f19 "$t/stat")" >> "$1"
	done
	dd if="$2" of=/dev/null bs=64k status=none'

nice -n 4 ra-record -v -o "$TMP/kept.db" -- sh -c "$look" sh "$TMP/kept" "$TMP/f" \
	2> "$TMP/kept.err" || { cat "$TMP/kept.err"; fail "ra-record, kept up"; }
cat "$TMP/kept"
check_eq "$(grep -c "^workload 4$" "$TMP/kept")" 1 "the workload's nice, kept up"
check_eq "$(grep -v "^workload\|^recorder" "$TMP/kept" | awk '$2 != 4' | awk '{print $2}' | sort | tr '\n' ' ')" \
	"-10 " "the recorder's threads not at its own nice, kept up"
check_eq "$(grep -c "ran ahead" "$TMP/kept.err")" 0 "a recorder that kept up said it ran ahead"

RATRACE_BEHIND_MS=0 nice -n 4 ra-record -v --repeat 2 -o "$TMP/behind.db" -- \
	sh -c "$look" sh "$TMP/behind" "$TMP/f" 2> "$TMP/behind.err" ||
	{ cat "$TMP/behind.err"; fail "ra-record, behind"; }
cat "$TMP/behind"
check_eq "$(grep -c "^workload 4$" "$TMP/behind")" 2 "the workloads' nice, behind"
# each run: its loop (the recorder's pid), the store's tap thread, the replay's
ahead=$(grep -v "^workload\|^recorder" "$TMP/behind" | awk '$2 == -1' | wc -l)
[ "$ahead" -ge 4 ] || fail "threads ahead in two runs: $ahead, expected 4 or more"
echo "ok: $ahead threads ahead in two runs"
while read -r pid; do
	check_eq "$(awk -v p="$pid" '$1 == p {print $2}' "$TMP/behind" | head -1)" -1 \
		"the recording loop's nice, behind"
done < <(awk '/^recorder/ {print $2}' "$TMP/behind")
check_eq "$(grep -v "^workload\|^recorder" "$TMP/behind" | awk '$2 != -1' | awk '{print $2}' | sort | tr '\n' ' ')" \
	"-10 -10 " "the recorder's threads not ahead, behind"
check_eq "$(grep -c "its threads ran ahead of the workload's" "$TMP/behind.err")" 2 \
	"each run says it ran ahead"
check_eq "$(q "$TMP/behind.db" "SELECT COUNT(*), SUM(lost_events) FROM v_runs")" "2|0" \
	"runs stored, events lost"
