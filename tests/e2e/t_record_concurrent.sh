# Two recordings at once on two loop devices, each filtered to its own device:
# neither sees the other's device, both instances are removed.
# test: needs=root,tracefs budget=2
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 64; A_NAME=$LOOP_NAME A_DEV=$LOOP_DEV A_MNT=$MNT
make_loop 64; B_NAME=$LOOP_NAME B_DEV=$LOOP_DEV B_MNT=$MNT
make_file "$A_MNT/f" 16
make_file "$B_MNT/f" 16
kdev() { echo $(( (${1%:*} << 20) | ${1#*:} )); }
A_K=$(kdev "$A_DEV") B_K=$(kdev "$B_DEV")
evict_cold

# Both workloads read while both recorders run: each waits for the other's start.
ra-record -o "$TMP/a.db" -d "$A_NAME" -- sh -c "touch $TMP/a.go; while [ ! -e $TMP/b.go ]; do sleep 0.05; done; \
	dd if=$A_MNT/f of=/dev/null bs=4k; dd if=$B_MNT/f of=/dev/null bs=4k; sleep 0.3" &
pa=$!
on_exit "kill -KILL $pa"
ra-record -o "$TMP/b.db" -d "$B_NAME" -- sh -c "touch $TMP/b.go; while [ ! -e $TMP/a.go ]; do sleep 0.05; done; \
	dd if=$B_MNT/f of=/dev/null bs=4k; dd if=$A_MNT/f of=/dev/null bs=4k; sleep 0.3" &
pb=$!
on_exit "kill -KILL $pb"
wait $pa; ra=$?
wait $pb; rb=$?
check_eq "$ra $rb" "0 0" "both recordings succeed"
check_eq "$(instance_left $pa) $(instance_left $pb)" "0 0" "instances left"

for side in a b; do
	DB=$TMP/$side.db
	if [ $side = a ]; then mine=$A_K other=$B_K; else mine=$B_K other=$A_K; fi
	check_eq "$(q "$DB" "SELECT COUNT(*) FROM ra_events WHERE dev = $other") $(q "$DB" "SELECT COUNT(*) FROM page_events WHERE dev = $other") $(q "$DB" "SELECT COUNT(*) FROM blk_events WHERE dev = $other")" \
		"0 0 0" "$side: no events of the other device"
	check_cmp "$(q "$DB" "SELECT COUNT(*) FROM ra_events WHERE dev = $mine")" -gt 0 "$side: readahead events of its device"
	check_cmp "$(q "$DB" "SELECT COUNT(*) FROM blk_events WHERE dev = $mine AND rwbs LIKE '%R%'")" -gt 0 "$side: block reads of its device"
	check_eq "$(q "$DB" 'SELECT lost_events FROM v_runs')" 0 "$side: lost events"
done
