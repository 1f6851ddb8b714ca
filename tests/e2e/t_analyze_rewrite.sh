# A file truncated and rewritten under its reader is not thrashing. dd reads
# the first 4 MiB of a 16 MiB file (readahead runs ahead of it), cp then
# rewrites the file (O_TRUNC takes every cached page, the read-ahead ones not
# yet read among them) and dd reads it whole: the new pages come from cp's
# writes, not from the device. Ground truths: the pages the truncation took
# unread (evicted unused, > 0), the kernel's workingset_refault_file over the
# run (an upper bound: other programs' refaults count too), the device's
# reads (the first dd's only: the file is never read twice). Thrashed: 0.
# A real refault still counts: the same file read under memory pressure by
# t_analyze_thrash and t_model_thrash.
# test: needs=root,tracefs budget=6
. "$(dirname "$0")/lib.sh"
need_tracefs
make_tmp
make_loop 64
make_file "$MNT/f" 16
make_file "$TMP/g" 16	# off the traced device: cp's reads of it are not the file's
ino=$(stat -c %i "$MNT/f")
before=$(stat_rs "$LOOP_NAME")
record_loop 128 sh -c "dd if='$MNT/f' of=/dev/null bs=4k count=1024 status=none &&
	cp '$TMP/g' '$MNT/f' && dd if='$MNT/f' of=/dev/null bs=4k status=none"
out=$(delta_rs "$before" "$(stat_rs "$LOOP_NAME")")
check_eq "$(stat -c %i "$MNT/f")" "$ino" "cp rewrote the file in place (same inode)"
ev=$(q "$DB" "SELECT SUM(evicted_unused) FROM windows WHERE run_id = $run AND ino = $ino")
check_cmp "${ev:-0}" -gt 0 "the truncation took read-ahead pages unread"
th=$(q "$DB" "SELECT SUM(thrashed) FROM windows WHERE run_id = $run AND ino = $ino")
refaults=$(q "$DB" "SELECT a.value - b.value FROM vmstat a JOIN vmstat b USING (run_id, name)
	WHERE run_id = $run AND name = 'workingset_refault_file' AND a.phase = 'after' AND b.phase = 'before'")
note "evicted unused $ev, thrashed $th, the kernel's refaults $refaults, device reads|sectors $out"
check_eq "$th" 0 "pages a rewrite brought back are not thrashed"
check_cmp "$th" -le "${refaults:-0}" "thrashed within the kernel's refaults"
# the device read the first 4 MiB and what readahead ran ahead, never 16 MiB
check_cmp "${out#*|}" -lt 16384 "the device read less than the file: nothing was read twice"
