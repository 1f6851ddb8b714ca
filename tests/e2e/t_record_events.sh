# ra-record mounts tracefs when it is not mounted and unmounts it after; a
# recording without the readahead:* events (as on kernels before 6.18, or when
# not selected) stores the rest and says which tracepoints it lacked.
# test: needs=root alone budget=2
. "$(dirname "$0")/lib.sh"
need_root
make_tmp
make_loop 64
make_file "$MNT/f" 8
if mountpoint -q /sys/kernel/tracing; then
	umount /sys/kernel/tracing || skip "tracefs is in use, cannot test mounting it"
	on_exit mount -t tracefs nodev /sys/kernel/tracing
fi
evict_cold
ra-record -o "$TMP/r.db" -d "$LOOP_NAME" -e filemap,block -- dd if="$MNT/f" of=/dev/null bs=4k
check_eq "$?" 0 "exit status"
mountpoint -q /sys/kernel/tracing && fail "tracefs left mounted"
echo "ok: tracefs unmounted again"
DB=$TMP/r.db
check_eq "$(q "$DB" "SELECT COUNT(*) FROM tracepoints WHERE system = 'readahead' AND available = 1 AND enabled = 0")" 4 "readahead tracepoints not recorded"
check_eq "$(q "$DB" "SELECT COUNT(*) FROM ra_events")" 0 "no readahead events"
check_cmp "$(q "$DB" "SELECT SUM(1 << folio_order) FROM page_events WHERE event_id = 10")" -ge 2048 "pages added of the 8 MiB file"
check_cmp "$(q "$DB" "SELECT n FROM v_event_counts WHERE event = 'block_rq_complete'")" -gt 0 "block completions"

ra-record -o "$TMP/bad.db" -e nosuchsystem -- true 2>"$TMP/err"
check_eq "$?" 2 "exit status of an unknown event selection"
check_grep "^ra-record: no tracepoint of 'nosuchsystem' is recorded by ratrace" "$TMP/err" "message of an unknown event selection"

# Every disk of the machine (no --device): each one's hardware as sysfs has
# it under /sys/class/block/DISK/device (the bus it hangs on, its vendor,
# model and firmware revision; none for a loop device).
ra-record -q -o "$TMP/all.db" -e block -- true || fail "record every disk"
sysfs_str() {	# the first of the files FILE... under DIR with text, blanks cut
	local dir=$1 f; shift
	for f in "$@"; do
		[ -r "$dir/$f" ] || continue
		v=$(sed 's/^[[:space:]]*//; s/[[:space:]]*$//' "$dir/$f" | tr -c '[:print:]\n' '?')
		[ -n "$v" ] && { printf '%s' "$v"; return; }
	done
}
with_hw=0 disks=0
while IFS='|' read -r name got; do
	dir=/sys/class/block/$name/device want="$name,,,,"
	if [ -e "$dir/subsystem" ]; then
		bus=$(basename "$(readlink -f "$dir/subsystem")")
		case $bus in nvme*) bus=nvme ;; esac
		if [ "$bus" = mmc ]; then
			want="$name,$bus,$(sysfs_str "$dir" manfid),$(sysfs_str "$dir" name),$(sysfs_str "$dir" fwrev)"
		else
			want="$name,$bus,$(sysfs_str "$dir" vendor),$(sysfs_str "$dir" model),$(sysfs_str "$dir" firmware_rev rev)"
		fi
		with_hw=$((with_hw + 1))
	fi
	check_eq "$name,$got" "$want" "$name: its hardware as sysfs has it"
	disks=$((disks + 1))
done < <(q "$TMP/all.db" "SELECT name || '|' || COALESCE(transport, '') || ',' || COALESCE(vendor, '')
	|| ',' || COALESCE(model, '') || ',' || COALESCE(firmware, '') FROM devices WHERE run_id = 1 ORDER BY dev")
check_eq "$disks" "$(for s in /sys/block/*/size; do [ "$(cat "$s")" -gt 0 ] && echo; done | wc -l)" "every disk with a size recorded"
[ -n "${CI:-}" ] && check_cmp "$with_hw" -gt 0 "a disk of a machine of CI has hardware (virtio, scsi or nvme)"
echo "ok: $disks disks, $with_hw with their hardware as sysfs names it"
