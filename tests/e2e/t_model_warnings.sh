# The advice's warnings, each from a recording that shows its condition:
# - read_ahead_kb 0: readahead disabled; 8: tiny (under 16 KB);
# - the workload raises read_ahead_kb after ra-record set it: the trace's
#   ra_pages disagrees with the recorded setting;
# - POSIX_FADV_WILLNEED of 32 MiB: the kernel reads max(io_pages, ra_pages)
#   of it and the call is reported cut short;
# - one run at one read_ahead_kb: no model (one I/O size), said so, and no
#   advice made up;
# - the thrashing fixture: the advice is lowered below the windows that
#   thrashed.
# test: needs=root,tracefs budget=6
. "$(dirname "$0")/lib.sh"
need_tracefs
need_rawl
make_tmp
make_loop 64
make_file "$MNT/f" 32
kdev=$(loop_kdev)

warnings() { ra-report --run "$2" "$1" | sed -n '/^Warnings/,/^$/p'; }

DB=$TMP/w.db
for kb in 0 8; do
	ra-record -q -o "$DB" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=$kb" "${COLD[@]}" \
		-- dd if="$MNT/f" of=/dev/null bs=4k count=1024 2>/dev/null || fail "record at $kb"
done
warnings "$DB" 1 > "$TMP/w1"
cat "$TMP/w1"
check_grep "! readahead is disabled on $LOOP_NAME: read_ahead_kb 0" "$TMP/w1" "read_ahead_kb 0: disabled"
warnings "$DB" 2 > "$TMP/w2"
cat "$TMP/w2"
check_grep "! readahead is tiny on $LOOP_NAME: read_ahead_kb 8, under 16 KB" "$TMP/w2" "read_ahead_kb 8: tiny"
check_eq "$(grep -c 'readahead is' "$TMP/w2")" 1 "tiny is not also disabled"

# the setting changed under the run: the trace shows 512 KiB windows, the
# recorded setting is 128 (ra-record restores 128's predecessor after)
ra_before=$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")
C=$TMP/changed.db
ra-record -q -o "$C" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" -- \
	sh -c "echo 512 > /sys/block/$LOOP_NAME/queue/read_ahead_kb && dd if=$MNT/f of=/dev/null bs=4k 2>/dev/null" \
	|| fail "record the change"
check_eq "$(cat "/sys/block/$LOOP_NAME/queue/read_ahead_kb")" "$ra_before" "read_ahead_kb restored"
warnings "$C" 1 > "$TMP/w3"
cat "$TMP/w3"
check_grep "! ra_pages 128 in the trace disagrees with read_ahead_kb 128 of $LOOP_NAME \(32 pages\)" \
	"$TMP/w3" "ra_pages against sysfs"

# WILLNEED of the whole file
F=$TMP/fadvise.db
ra-record -q -o "$F" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" -- \
	"$RAWL" fadvise "$MNT/f" --len 33554432 > /dev/null || fail "record fadvise"
q "$F" "SELECT * FROM advice_calls" | sed 's/^/# /'
io_pages=$(( $(cat "/sys/block/$LOOP_NAME/queue/max_sectors_kb") / 4 ))
cap=$(( io_pages > 32 ? io_pages : 32 ))
check_eq "$(q "$F" "SELECT call || ' ' || asked_pages || ' ' || read_pages FROM advice_calls")" \
	"fadvise64 8192 $cap" "WILLNEED asked 8192 pages, read max(io_pages, ra_pages) = $cap"
warnings "$F" 1 > "$TMP/w4"
cat "$TMP/w4"
check_grep "! fadvise64\(POSIX_FADV_WILLNEED\) of $MNT/f: 1 call\(s\) asked 32768 KB and the kernel read $((cap * 4)) KB" \
	"$TMP/w4" "WILLNEED cut short"

# a WILLNEED call that fails (a pipe: ESPIPE) is recorded at its entry and
# reads nothing: it is in the trace, not in advice_calls (a pipe is no
# recorded device's file, and its task read none), no warning, and the report
# does not trip over it
P=$TMP/pipe.db
ra-record -q -o "$P" -d "$LOOP_NAME" -- python3 -c '
import os
open(os.environ["RA_TEST_PIDS"], "a").write("%d\n" % os.getpid())
r, w = os.pipe()
try:
    os.posix_fadvise(r, 0, 1 << 20, os.POSIX_FADV_WILLNEED)
except OSError as e:
    print("fadvise:", e.strerror)' || fail "record the failed call"
check_eq "$(q "$P" "SELECT COUNT(*) FROM ra_events WHERE event_id = 5 AND pid IN ($(own_pids))")" 1 \
	"the failed call is in the trace"
check_eq "$(q "$P" "SELECT COUNT(*) FROM advice_calls")" 0 "the failed call is no call of the recorded device"
ra-report "$P" > "$TMP/pipe.txt" || fail "ra-report with a failed WILLNEED call"
sed -n '/^Warnings/,/^$/p' "$TMP/pipe.txt" | grep -q "WILLNEED" && fail "a warning for a call that read nothing"
echo "ok: no warning for the failed call"

# one run, one I/O size: no model and no advice
ra-report --run 1 "$C" > "$TMP/one.txt"
check_eq "$(q "$C" "SELECT status FROM device_models WHERE dev = $kdev AND timing = 'window' AND chosen")" \
	unidentifiable "one read_ahead_kb: no window model"
sed -n '/^Recommended/,/^$/p' "$TMP/one.txt" | tr -s ' \n' '  ' > "$TMP/one.adv"
check_grep "No single number: .*No model: one I/O size only \(512 KiB\)" "$TMP/one.adv" "the report says why"
check_grep "Record read_ahead_kb [0-9]+ to decide" "$TMP/one.adv" "and which setting to record next"
check_grep "^  $LOOP_DEV: read_ahead_kb - " "$TMP/one.txt" "no advice made up"

# thrashing: par4thrash (one read_ahead_kb, no model) read 2 MiB windows
# that thrashed; the advice is to stay below them
T=$TMP/thrash.db
ra-import -q -o "$T" "$RA_FIXTURES/par4thrash.dat" || fail "import par4thrash"
check_eq "$(q "$T" "SELECT thrash_kb || ' ' || COALESCE(model_kb, '-') || ' ' || recommended_kb FROM device_advice WHERE dev = $((7 << 20))")" \
	"2048 - 1024" "thrashing windows of 2048 KiB: 1024 at most"
ra-report "$T" | sed -n '/^Recommended/,/^$/p' | tr -s ' \n' '  ' | grep -q "Settings of 2048 KiB and more thrashed .* 1024 KiB at most" \
	|| fail "the report says why"
echo "ok: the report explains the thrashing limit"
