# ra-record's pace: a recorder whose store falls behind the kernel's events
# runs the threads that store them (the recording loop and its tap threads)
# ahead of the workload's, and back once it has caught up; one that keeps up
# changes nothing. The workload prints its own nice value and that of each
# of the recorder's threads (by name; the loop is the recorder's pid) while
# it runs, under a recorder started at nice 4: kept up (a run of a few
# thousand events of a device of its own), every thread at 4 but the one
# that empties the ring buffers (ra-drain, ten below: -6); always behind
# (RATRACE_BEHIND_MS=0), the loop and the tap threads (ra-tap) at -1, still
# behind ra-drain. Either way the workload runs at 4, also the one started
# after the first in --repeat 2: the pace is the recorder's, never given to
# what it starts.
# test: needs=root,tracefs budget=3
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 16
make_file "$MNT/f" 4

# shellcheck disable=SC2016 # the $ are the inner sh's
look='sleep 0.3
	nice_of() { s=$(cat "$1"); s=${s##*) }; set -- $s; echo "${17}"; }
	echo "workload $(nice_of /proc/$$/stat)" >> "$1"
	echo "recorder $PPID" >> "$1"
	for t in /proc/$PPID/task/*; do
		name=$(cat "$t/comm")
		[ "${t##*/}" = "$PPID" ] && name=loop
		echo "$name $(nice_of "$t/stat")" >> "$1"
	done
	dd if="$2" of=/dev/null bs=64k status=none'
# the nice values of the threads named NAME in FILE, sorted, on one line
nices() { awk -v n="$2" '$1 == n {print $2}' "$1" | sort -n | tr '\n' ' '; }
# the recorders of FILE have left no tracefs instance
left() { awk '/^recorder/ {print $2}' "$1" | while read -r p; do instance_left "$p"; done | sort -u; }

nice -n 4 ra-record -v -o "$TMP/kept.db" -d "$LOOP_NAME" "${COLD[@]}" -- \
	sh -c "$look" sh "$TMP/kept" "$MNT/f" 2> "$TMP/kept.err" ||
	{ cat "$TMP/kept.err"; fail "ra-record, kept up"; }
cat "$TMP/kept"
check_eq "$(nices "$TMP/kept" workload)" "4 " "the workload's nice, kept up"
check_eq "$(nices "$TMP/kept" loop)" "4 " "the loop's nice, kept up"
check_eq "$(nices "$TMP/kept" ra-drain)" "-6 " "the ring buffers' thread's nice, kept up"
check_eq "$(grep -v "^workload\|^recorder\|^ra-drain" "$TMP/kept" | awk '$2 != 4' | wc -l)" 0 \
	"other threads not at the recorder's nice, kept up"
check_eq "$(grep -c "ran ahead" "$TMP/kept.err")" 0 "a recorder that kept up said it ran ahead"

RATRACE_BEHIND_MS=0 nice -n 4 ra-record -v --repeat 2 -o "$TMP/behind.db" -d "$LOOP_NAME" \
	"${COLD[@]}" -- sh -c "$look" sh "$TMP/behind" "$MNT/f" 2> "$TMP/behind.err" ||
	{ cat "$TMP/behind.err"; fail "ra-record, behind"; }
cat "$TMP/behind"
check_eq "$(nices "$TMP/behind" workload)" "4 4 " "the workloads' nice, behind"
check_eq "$(nices "$TMP/behind" loop)" "-1 -1 " "the loop's nice, behind"
check_eq "$(nices "$TMP/behind" ra-drain)" "-6 -6 " "the ring buffers' thread's nice, behind"
# each run's store and replay (none without a second CPU: both in the loop)
taps=$(awk '$1 == "ra-tap"' "$TMP/behind" | wc -l)
if [ "$(nproc)" -ge 2 ] && [ "${RATRACE_PIPELINE:-1}" != 0 ]; then
	check_cmp "$taps" -ge 4 "tap threads in two runs"
fi
check_eq "$(awk '$1 == "ra-tap" && $2 != -1' "$TMP/behind" | wc -l)" 0 "tap threads not ahead"
check_eq "$(grep -c "its threads ran ahead of the workload's" "$TMP/behind.err")" 2 \
	"each run says it ran ahead"
check_eq "$(q "$TMP/behind.db" "SELECT COUNT(*), SUM(lost_events) FROM v_runs")" "2|0" \
	"runs stored, events lost"
check_eq "$({ left "$TMP/kept"; left "$TMP/behind"; } | sort -u)" "0" "tracefs instances left"
