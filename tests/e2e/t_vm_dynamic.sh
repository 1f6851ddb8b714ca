# The dynamic events' edges, on real kernels in guests:
# - SIGINT, SIGTERM and SIGKILL of a recorder while its workload runs leave
#   no dynamic event and no tracefs instance (6.1, where the readahead events
#   are kprobes): the killed one's guardian removes them; when the guardian
#   is killed too, the next recorder removes what they left;
# - a function missing (page_cache_ra_unbounded, hidden from the recorder)
#   gives one line naming it and what is lost, the rest of the run is
#   recorded, and the self-check marks the fadvise run, whose forced windows
#   went unseen, inconsistent: no windows or fates in its report; the
#   sequential run, whose windows page_cache_ra_order gives, passes;
# - a kernel without BTF (6.12, its BTF hidden) gives one line, the run is
#   recorded with its block and page-cache events, and the readahead analysis
#   is unavailable with the reason;
# - this machine's kernel, which has no kprobe events, with the dynamic events
#   forced on: one line, and the run is recorded.
# test: needs=root,tracefs,qemu cpu=1 budget=89
. "$(dirname "$0")/lib.sh"
need_vm
need_tracefs
make_tmp
export TMPDIR=$TMP
make_scenario_files
cp "$RA_TOP/tests/tools/dynsignals.sh" "$F/sig.sh"

# signals: the outer recorder takes tracepoints only, so that every dynamic
# event in the guest is an inner recorder's
DB=$TMP/sig.db
ra-record -q -o "$DB" --kernel 6.1 --kernel-files "$F" --event-source tracepoint \
	-- bash "$F/sig.sh" > /dev/null 2> "$TMP/err" || fail "record the signals under 6.1: $(cat "$TMP/err")"
q "$DB" "SELECT workload_output FROM runs" > "$TMP/out"
cat "$TMP/out"
for sig in INT TERM KILL; do
	n=$(sed -n "s/^during $sig events=\([0-9]*\) instances=1$/\1/p" "$TMP/out")
	check_cmp "${n:-0}" -ge 10 "SIG$sig: the inner recorder had its dynamic events while it ran"
	check_grep "^after $sig events=0 instances=0$" "$TMP/out" "SIG$sig: no dynamic event and no instance left"
done
check_grep "^during ALL events=[1-9][0-9]* instances=1$" "$TMP/out" "recorder and guardian: the events while it ran"
check_grep "^after ALL events=[1-9][0-9]* instances=1$" "$TMP/out" \
	"recorder and guardian killed: their events and instance stay until another recorder runs"
check_grep "^after the next recorder events=0 instances=0$" "$TMP/out" "the next recorder removed them"
check_grep "^status INT 130$" "$TMP/out" "SIGINT: exit status 130"
check_grep "^status TERM 143$" "$TMP/out" "SIGTERM: exit status 143"
check_grep "^status KILL 137$" "$TMP/out" "SIGKILL: killed"

# a function missing
DB=$TMP/hide.db
RATRACE_PROBE_HIDE=page_cache_ra_unbounded ra-record -o "$DB" --kernel 6.1 --kernel-files "$F" \
	--read-ahead-kb vda=128 --drop-caches --sweep-env SCEN=fadvise,seq -- sh "$F/run.sh" \
	> /dev/null 2> "$TMP/err" || fail "record with a function missing: $(cat "$TMP/err")"
cat "$TMP/err"
check_eq "$(grep -c 'page_cache_ra_unbounded' "$TMP/err")" 1 "one line for the missing function"
check_grep "no dynamic event for readahead:page_cache_ra_unbounded \(page_cache_ra_unbounded is not a function the kernel can probe.*\): the run is recorded without it: no forced windows" \
	"$TMP/err" "the line names the function and what is lost"
fadv=$(q "$DB" "SELECT run_id FROM runs WHERE label = 'kernel=6.1,SCEN=fadvise'")
seq=$(q "$DB" "SELECT run_id FROM runs WHERE label = 'kernel=6.1,SCEN=seq'")
check_eq "$(q "$DB" "SELECT state || ' ' || (failed > 0) FROM self_checks WHERE run_id = $fadv")" "fail 1" \
	"fadvise: the self-check saw pages added inside readahead calls without a window"
check_eq "$(q "$DB" "SELECT state FROM analyses WHERE run_id = $fadv AND pass = 'readahead'")" unavailable \
	"fadvise: the inconsistent run has no readahead analysis"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM windows WHERE run_id = $fadv")" 0 "fadvise: no windows stored"
ra-report --run "$fadv" "$DB" > "$TMP/r.txt" 2>&1 || fail "ra-report of the inconsistent run"
check_grep "readahead analysis unavailable: the run is inconsistent: its dynamic readahead events failed the self-check" \
	"$TMP/r.txt" "the report says the run is inconsistent"
check_cmp "$(grep -c '^  readahead analysis unavailable: the run is inconsistent' "$TMP/r.txt")" -ge 3 \
	"the windows, files and streams sections say so"
grep -qE "^(pattern|initial|subsequent|forced|all) " "$TMP/r.txt" &&
	fail "the report of an inconsistent run prints a windows table: $(cat "$TMP/r.txt")"
echo "ok: no windows table in its report"
check_eq "$(q "$DB" "SELECT state FROM self_checks WHERE run_id = $seq")" pass \
	"seq: the self-check passes: the windows of page_cache_ra_order hold what its fallback read"
check_eq "$(q "$DB" "SELECT state FROM analyses WHERE run_id = $seq AND pass = 'readahead'")" ok \
	"seq: its windows (page_cache_ra_order's) are analysed"
check_cmp "$(q "$DB" "SELECT COUNT(*) FROM blk_events WHERE run_id = $fadv")" -gt 0 "the rest of the run is recorded"

# no BTF
DB=$TMP/nobtf.db
RATRACE_BTF=/nonexistent ra-record -o "$DB" --kernel 6.12.94 --kernel-files "$F" --read-ahead-kb vda=128 \
	--drop-caches --sweep-env SCEN=seq -- sh "$F/run.sh" > /dev/null 2> "$TMP/err" ||
	fail "record without BTF: $(cat "$TMP/err")"
cat "$TMP/err"
check_eq "$(grep -c 'no BTF' "$TMP/err")" 1 "one line for the missing BTF"
check_grep "no dynamic event for readahead:page_cache_sync_ra, .* \(this kernel has no BTF .*\): the run is recorded without them: no windows, patterns or fates" \
	"$TMP/err" "it says what is lost"
r=$(q "$DB" "SELECT run_id FROM runs")
check_grep "is not available on this kernel .Linux 6.18\+., and no dynamic event could be made: this kernel has no BTF" \
	<(q "$DB" "SELECT message FROM analyses WHERE run_id = $r AND pass = 'readahead'") "the analysis says why"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM v_device_io WHERE run_id = $r AND name = 'vda' AND stat_match = 1")" 1 \
	"the block events are recorded, their totals = the stat deltas"
check_cmp "$(q "$DB" "SELECT COUNT(*) FROM page_events WHERE run_id = $r")" -gt 4096 "the page-cache events are recorded"
check_eq "$(vm_left)" 0 "no qemu left"

# this machine: no kprobe events
make_loop 16
make_file "$MNT/g" 4
evict_cold
rec -o "$TMP/host.db" -d "$LOOP_NAME" --event-source dynamic -- dd if="$MNT/g" of=/dev/null bs=4k \
	2> "$TMP/err" || fail "record on the machine: $(cat "$TMP/err")"
cat "$TMP/err"
if [ -e /sys/kernel/tracing/kprobe_events ]; then
	note "this kernel has kprobe events: the line for a kernel without them is not shown here"
else
	check_eq "$(grep -c 'no kprobe events' "$TMP/err")" 1 "one line: this kernel has no kprobe events"
fi
check_eq "$(q "$TMP/host.db" "SELECT COUNT(*) FROM event_sources WHERE probe = 'tracepoint'")" 0 \
	"forced: no tracepoint stands in for them"
check_cmp "$(q "$TMP/host.db" "SELECT SUM(1 << COALESCE(p.folio_order, 0)) FROM page_events p
	JOIN event_types t USING (event_id) WHERE t.name = 'mm_filemap_add_to_page_cache'")" -ge 1024 \
	"the run is recorded: the file's pages added"
# shellcheck disable=SC2002 # through cat, a missing file counts 0 (grep FILE would print nothing)
check_eq "$(cat /sys/kernel/tracing/dynamic_events 2>/dev/null | grep -c ratrace_)" 0 "no dynamic event left here"
rc=0
