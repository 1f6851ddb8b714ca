# Events a source holds that ratrace does not store are counted by type,
# stored in skipped_events, said in one line on stderr and shown by the
# report:
# - a trace.dat made here with block:* (block_io_start, block_io_done,
#   block_dirty_buffer, block_touch_buffer among them) and sched:* events of
#   a read and a write on a loop device: per type, the count equals what
#   `trace-cmd report` prints for the same file;
# - the blktrace fixture with records of kinds ratrace does not map (abort,
#   driver data, messages, an unknown action) appended: the events stored
#   and skipped add up to blkparse's entries, its messages and the actions
#   it calls bad are the ones counted.
# test: needs=root,tracefs budget=2
. "$(dirname "$0")/lib.sh"
command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
command -v blkparse >/dev/null || skip "blkparse is not installed"
need_tracefs
make_tmp
make_loop 64
make_file "$MNT/f" 8

# ---- a trace.dat with events ratrace does not use ----
T=/sys/kernel/tracing
inst=ratrace-test-skip.$$
I=$T/instances/$inst
mkdir "$I" || fail "cannot create the tracefs instance $inst"
on_exit rmdir "$I"
on_exit "echo 0 > $I/tracing_on"
echo 0 > "$I/tracing_on"
echo 2048 > "$I/buffer_size_kb"
for e in block sched/sched_switch sched/sched_wakeup filemap/mm_filemap_add_to_page_cache; do
	echo 1 > "$I/events/$e/enable" || fail "cannot enable $e"
done
evict_cold
echo 1 > "$I/tracing_on"
dd if="$MNT/f" of=/dev/null bs=64k status=none
dd if=/dev/urandom of="$MNT/g" bs=64k count=16 conv=fsync status=none
echo 0 > "$I/tracing_on"
"$RA_TOP/bench/tc_extract.sh" "$TMP/made.dat" "$inst" > /dev/null 2>&1
[ -s "$TMP/made.dat" ] || fail "trace-cmd extract made no file"

trace-cmd report "$TMP/made.dat" 2>/dev/null | awk '{ for (i = 1; i < NF; i++)
	if ($i ~ /^[0-9]+\.[0-9]+:$/) { sub(/:$/, "", $(i + 1)); print $(i + 1); break } }' |
	sort | uniq -c | awk '{ print $2 "|" $1 }' > "$TMP/tc"
DB=$TMP/made.db
ra-import -o "$DB" "$TMP/made.dat" 2> "$TMP/err" || fail "import: $(cat "$TMP/err")"
cat "$TMP/err"
# what trace-cmd shows of the types ratrace does not store
q "$DB" "SELECT name FROM event_types" | sort > "$TMP/ours"
grep -v -F -x -f "$TMP/ours" <(cut -d'|' -f1 "$TMP/tc") > "$TMP/other" || true
want=$(grep -F -f <(sed 's/$/|/' "$TMP/other") "$TMP/tc" | sort)
got=$(q "$DB" "SELECT name || '|' || n FROM skipped_events" | sort)
note "trace-cmd report, types ratrace does not store: ${want//$'\n'/ }"
check_eq "$got" "$want" "skipped events per type = trace-cmd report's counts"
for e in block_io_start block_io_done block_dirty_buffer block_touch_buffer sched_switch; do
	check_cmp "$(q "$DB" "SELECT COALESCE(SUM(n), 0) FROM skipped_events WHERE name = '$e'")" -gt 0 "$e in the trace and skipped"
done
check_eq "$(q "$DB" "SELECT system FROM skipped_events WHERE name = 'sched_switch'")" sched "system of sched_switch"
total=$(q "$DB" "SELECT SUM(n) FROM skipped_events")
line=$(grep "^ra-import: '$TMP/made.dat': skipped" "$TMP/err")
[ -n "$line" ] || fail "no line about the skipped events"
check_eq "$(echo "$line" | sed -n 's/.*skipped \([0-9]*\) events ratrace does not use: .*/\1/p')" "$total" "the line's total"
check_eq "$(echo "$line" | sed 's/.*does not use: //' | tr ',' '\n' | sed 's/^ //' | sort)" \
	"$(q "$DB" "SELECT name || ' ' || n FROM skipped_events" | sort)" "the line's counts"
# the events it stores are still trace-cmd's
for e in block_bio_queue block_rq_complete mm_filemap_add_to_page_cache; do
	check_eq "$(q "$DB" "SELECT n FROM v_event_counts WHERE event = '$e'")" \
		"$(grep "^$e|" "$TMP/tc" | cut -d'|' -f2)" "$e stored = trace-cmd report"
done
ra-report "$DB" > "$TMP/report" || fail "ra-report"
check_grep "^Events ratrace did not use" "$TMP/report" "the report has the table"
check_grep "^block +block_io_start +$(q "$DB" "SELECT n FROM skipped_events WHERE name = 'block_io_start'")$" \
	"$TMP/report" "with block_io_start's count"
ra-import -q -o "$TMP/quiet.db" "$TMP/made.dat" 2> "$TMP/qerr" || fail "import -q"
[ -s "$TMP/qerr" ] && fail "-q printed: $(cat "$TMP/qerr")"
echo "ok: -q prints nothing"

# ---- blktrace records ratrace does not map ----
python3 - "$RA_FIXTURES/nvme-readahead.blktrace.0" "$TMP/y.blktrace.1" <<'EOF' || fail "write the blktrace file"
import struct, sys
data = open(sys.argv[1], 'rb').read()
def rec(t, action, nbytes, pdu=b''):
    # version 7, little-endian like the fixture: magic, seq, time, sector,
    # bytes, action, pid, device (259:0), cpu, error, pdu_len
    return struct.pack('<IIQQIIIIIHH', 0x65617407, 0, t, 8, nbytes, action, 77,
                       (259 << 20) | 0, 1, 0, len(pdu)) + pdu
off, last = 0, 0
while off + 48 <= len(data):
    t, = struct.unpack_from('<Q', data, off + 8)
    plen, = struct.unpack_from('<H', data, off + 46)
    last = max(last, t)
    off += 48 + plen
q = 0x10 << 16
extra = [rec(last + 1, 16 | q, 4096), rec(last + 2, 16 | q, 4096),       # abort
         rec(last + 3, 17 | (0x4000 << 16), 0, b'drvd'),                  # driver data
         rec(last + 4, 2 | (0x400 << 16), 0, b'first\0'),                 # messages
         rec(last + 5, 2 | (0x400 << 16), 0, b'second\0'),
         rec(last + 6, 2 | (0x400 << 16), 0, b'third\0'),
         rec(last + 7, 30 | q, 4096)]                                     # no such action
open(sys.argv[2], 'wb').write(data + b''.join(extra))
EOF
: > "$TMP/y.blktrace.0"
(cd "$TMP" && blkparse -i y > bp.out 2> bp.err)
entries=$(sed -n 's/^Events (y): \([0-9]*\) entries$/\1/p' "$TMP/bp.out")
[ -n "$entries" ] || fail "blkparse printed no entry count"
B=$TMP/bt.db
ra-import -o "$B" "$TMP/y.blktrace.1" 2> "$TMP/bterr" || fail "blktrace import: $(cat "$TMP/bterr")"
cat "$TMP/bterr"
check_eq "$(q "$B" "SELECT (SELECT SUM(n) FROM v_event_counts) + (SELECT SUM(n) FROM skipped_events)")" \
	"$entries" "stored + skipped = blkparse's entries"
check_eq "$(q "$B" "SELECT n FROM skipped_events WHERE name = 'message'")" \
	"$(awk '$6 == "m"' "$TMP/bp.out" | wc -l)" "messages = blkparse's m lines"
check_eq "$(q "$B" "SELECT SUM(n) FROM skipped_events WHERE name IN ('abort', 'action 30')")" \
	"$(grep -c '^Bad fs action' "$TMP/bp.err" "$TMP/bp.out" | awk -F: '{ s += $2 } END { print s }')" \
	"abort and the unknown action = blkparse's bad actions"
check_eq "$(q "$B" "SELECT name || ' ' || n FROM skipped_events ORDER BY n DESC, name")" \
	"$(printf 'message 3\nabort 2\naction 30 1\ndrv_data 1')" "blktrace records skipped by kind"
check_grep "^ra-import: '$TMP/y.blktrace.1': skipped 7 events ratrace does not use: message 3, abort 2, action 30 1, drv_data 1$" \
	"$TMP/bterr" "the line for blktrace"
# the fixture alone: nothing skipped, no line
ra-import -o "$TMP/fx.db" "$RA_FIXTURES/nvme-readahead.blktrace.0" 2> "$TMP/fxerr" || fail "fixture import"
check_eq "$(q "$TMP/fx.db" "SELECT COUNT(*) FROM skipped_events")" 0 "the fixture: nothing skipped"
grep -q skipped "$TMP/fxerr" && fail "a skipped line for the fixture"
echo "ok: no line when nothing is skipped"
