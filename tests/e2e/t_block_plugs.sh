# Plugs per device, on a live recording: dd reads a file of a traced loop
# device while another reader (another program, another loop device, not
# traced) plugs at the same time. block_plug and block_unplug carry no device,
# so ra-record records every task's; the traced device's plugs must be the
# workload's only: equal to a count made here from the raw blk_events (a plug
# of a task that got a request of the device just before it, or queued a bio
# of it before its unplug), none of the other reader's plugs counted, and the
# report says "unknown" for what ftrace does not tell (explicit or timer).
# test: needs=root,tracefs budget=2
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 64
make_file "$MNT/f" 32
traced_loop=$LOOP traced_name=$LOOP_NAME traced_dev=$LOOP_DEV traced_mnt=$MNT
make_loop 64
make_file "$MNT/g" 32
other_mnt=$MNT
# the other reader: its own program name, direct reads (each one plugs), until stopped
cp "$(command -v dd)" "$TMP/rdr2"
bash -c 'trap "exit 0" TERM
	while :; do "$1" if="$2" of=/dev/null bs=64k iflag=direct status=none || exit 1; done' \
	reader "$TMP/rdr2" "$other_mnt/g" &
other=$!
on_exit "kill $other; wait $other"
sleep 0.3
kill -0 $other 2>/dev/null || fail "the other reader did not start"

LOOP=$traced_loop LOOP_NAME=$traced_name LOOP_DEV=$traced_dev MNT=$traced_mnt
record_loop 128 dd if="$traced_mnt/f" of=/dev/null bs=4k
kill -0 $other 2>/dev/null || fail "the other reader stopped during the recording"

b="blk_events WHERE run_id = $run"
other_pids="SELECT pid FROM tasks WHERE run_id = $run AND comm = 'rdr2'"
check_cmp "$(q "$DB" "SELECT COUNT(*) FROM $b AND event_id = 34 AND pid IN ($other_pids)")" -gt 0 \
	"the other reader plugged during the recording"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM $b AND event_id = 20 AND pid IN ($other_pids)")" 0 \
	"its bios are not in the trace (its device is not traced)"

# Independent count from the raw events: a plug P of task T counts for the
# device when T's last event of a bio, request or plug before P is a request
# (G) of the device, or when T queued a bio of the device after P and before
# T's next plug or unplug. (ratrace also gives a plug the request a full
# plug's flush left for it, Q G U P: dd's single-request plugs have none.)
raw_plugs() {
	q "$DB" "
	WITH b AS (SELECT seq, pid, event_id, dev FROM $b AND event_id IN (20, 26, 34, 35)),
	p AS (SELECT p.seq, p.pid,
		(SELECT MIN(n.seq) FROM b n WHERE n.pid = p.pid AND n.event_id IN (34, 35)
		    AND n.seq > p.seq) AS e,
		(SELECT MAX(g.seq) FROM b g WHERE g.pid = p.pid AND g.event_id = 26
		    AND g.seq < p.seq) AS g
	      FROM b p WHERE p.event_id = 34 ${1:-}),
	s AS (SELECT p.seq FROM p JOIN b g ON g.seq = p.g AND g.dev = $kdev
	       WHERE NOT EXISTS (SELECT 1 FROM b x WHERE x.pid = p.pid AND x.seq > p.g
	                         AND x.seq < p.seq AND x.event_id IN (20, 34, 35)))
	SELECT COUNT(*) FROM p WHERE p.seq IN (SELECT seq FROM s)
	    OR EXISTS (SELECT 1 FROM b x WHERE x.pid = p.pid AND x.event_id = 20 AND x.dev = $kdev
	               AND x.seq > p.seq AND x.seq < COALESCE(p.e, 1 << 62))"
}
plugs=$(q "$DB" "SELECT plugs FROM plugs WHERE run_id = $run AND dev = $kdev")
all=$(q "$DB" "SELECT COUNT(*) FROM $b AND event_id = 34")
note "plugs of $traced_name: $plugs; block_plug events of every task: $all"
check_cmp "$plugs" -gt 0 "plugs of the traced device"
check_eq "$plugs" "$(raw_plugs)" "plugs = the count from the raw events"
check_eq "$(raw_plugs "AND p.pid IN ($other_pids)")" 0 "none of the other reader's plugs holds a traced bio"
check_cmp "$plugs" -lt "$all" "fewer than all block_plug events"
# dd's, and those of the kernel's writers of the file system (its journal,
# writeback) that may flush meanwhile: tasks that queued a bio of the device
check_cmp "$plugs" -le "$(q "$DB" "SELECT COUNT(*) FROM $b AND event_id = 34 AND pid IN
	(SELECT pid FROM tasks WHERE run_id = $run AND comm = 'dd' UNION
	 SELECT pid FROM blk_events WHERE run_id = $run AND event_id = 20 AND dev = $kdev)")" \
	"no more than the block_plug events of the device's own submitters"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM plugs WHERE run_id = $run AND dev = 0")" 0 "no row for no device"
check_eq "$(q "$DB" "SELECT unplugs = plugs, unplugs_explicit IS NULL, unplugs_timer IS NULL,
	unplug_requests >= unplugs, plugged_bios >= plugs FROM plugs WHERE run_id = $run AND dev = $kdev")" \
	"1|1|1|1|1" "one unplug per plug, explicit/timer not known from ftrace"
# each plugged bio of the device was queued by a task with a plug open
check_cmp "$(q "$DB" "SELECT plugged_bios FROM plugs WHERE run_id = $run AND dev = $kdev")" -le \
	"$(q "$DB" "SELECT COUNT(*) FROM $b AND event_id = 20 AND dev = $kdev")" "plugged bios within the bios queued"

ra-report "$DB" > "$TMP/report" || fail "ra-report"
sed -n '/^Plugging/,/^$/p' "$TMP/report"
check_grep "^$traced_dev +$plugs +$plugs +unknown +unknown " "$TMP/report" "the report: the device's plugs, explicit and timer unknown"
