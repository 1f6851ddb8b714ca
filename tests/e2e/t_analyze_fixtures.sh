# The worked examples of the readahead analysis on the trace-cmd fixtures
# (file system on device 7:0), after ra-import; ra-analyze recomputes the same
# tables (idempotent).
# test: budget=2
. "$(dirname "$0")/lib.sh"
make_tmp
DB=$TMP/fx.db
for f in seq128 mmapread par4thrash; do
	ra-import -q -o "$DB" --label "$f" "$RA_FIXTURES/$f.dat" || fail "import $f"
done
run() { q "$DB" "SELECT run_id FROM runs WHERE label = '$1'"; }
fates() {	# RUN INO -> windows|readahead pages|used|evicted unused|thrashed|pending|hit ratio
	q "$DB" "SELECT windows, ra_pages, used, evicted_unused, thrashed, pending, hit_ratio
		FROM v_file_fates WHERE run_id = $1 AND dev = '7:0' AND ino = $2"
}
patterns() {
	q "$DB" "SELECT group_concat(pattern || '=' || n, ' ') FROM (SELECT pattern, COUNT(*) AS n
		FROM v_windows WHERE run_id = $1 AND dev = '7:0' AND ino = $2 GROUP BY pattern ORDER BY pattern)"
}
check_all() {
	local s m p
	s=$(run seq128) m=$(run mmapread) p=$(run par4thrash)
	check_eq "$(fates "$s" 12)" "518|16383|16383|0|0|0|1.0" "seq128 inode 12: windows, pages, fates"
	check_eq "$(patterns "$s" 12)" "initial=1 subsequent=517" "seq128 inode 12: patterns"
	check_eq "$(q "$DB" "SELECT MAX(size) FROM v_windows WHERE run_id = $s AND ino = 12 AND dev = '7:0'")" 32 "seq128: largest window"
	# fio ioengine=mmap reads all 8192 pages through the mapping: page 0 is the
	# first fault's demand, the 128 faults of the readahead pages are accesses,
	# fault-around maps the other pages, so the hit ratio lies in [128/8191, 1].
	check_eq "$(fates "$m" 18)" "129|8191|128|0|0|0|0.0156" "mmapread inode 18: windows, pages, fates"
	check_eq "$(q "$DB" "SELECT mapped || '|' || hit_ratio_max FROM v_file_fates WHERE run_id = $m AND dev = '7:0' AND ino = 18")" \
		"8063|1.0" "mmapread inode 18: the rest is mapped (access unknown); used + mapped = all"
	check_eq "$(q "$DB" "SELECT COUNT(*) FROM page_events WHERE run_id = $m AND ino = 18 AND event_id = 13")" 129 \
		"mmapread: 129 faults (one demand page, 128 readahead pages used)"
	check_eq "$(patterns "$m" 18)" "initial=1 subsequent=128" "mmapread inode 18: patterns"
	check_eq "$(q "$DB" "SELECT MAX(size) FROM v_windows WHERE run_id = $m AND ino = 18 AND dev = '7:0'")" 64 "mmapread: largest window"
	check_eq "$(q "$DB" "SELECT MIN(mmap) FROM v_windows WHERE run_id = $m AND ino = 18 AND dev = '7:0'")" 1 "mmapread: windows from page faults"
	local i=0 ra=(12579 15241 13417 14118) used=(12285 12282 12283 12281) thr=(294 2959 1134 1837)
	for ino in 13 14 15 16; do
		check_eq "$(fates "$p" $ino | cut -d'|' -f2-6)" "${ra[$i]}|${used[$i]}|${thr[$i]}|${thr[$i]}|0" \
			"par4thrash inode $ino: readahead pages, used, evicted unused, thrashed, pending"
		i=$((i + 1))
	done
	# besides dd's file, two mapped files (the trace has the whole machine): their
	# 46 readahead pages were mapped, 2 of them also faulted on
	check_eq "$(q "$DB" "SELECT readahead, used, mapped, thrashed FROM v_readahead_stats WHERE run_id = $s AND pattern = 'all'")" \
		"525|16385|46|0" "seq128: the whole run in v_readahead_stats"
	check_eq "$(q "$DB" "SELECT state FROM analyses WHERE run_id = $s AND pass = 'readahead'")" ok "analysis state"
	check_eq "$(q "$DB" "SELECT windows, initial_size_pages, max_size_pages FROM streams WHERE run_id = $s AND ino = 12 AND dev = 7340032")" \
		"518|4|32" "seq128: the stream of inode 12"
}
check_all
before=$(q "$DB" "SELECT * FROM windows ORDER BY run_id, window_id" | sha256sum)
ra-analyze -q "$DB" || fail "ra-analyze"
check_eq "$(q "$DB" "SELECT * FROM windows ORDER BY run_id, window_id" | sha256sum)" "$before" "ra-analyze gives the same windows again"
ra-analyze -q --run 1 "$DB" || fail "ra-analyze --run 1"
check_all
ra-analyze -q --run 99 "$DB" 2>"$TMP/err"
check_eq "$?" 2 "exit status for an unknown run"
check_grep "^ra-analyze: no run 99 in" "$TMP/err" "message for an unknown run"

# A recording without readahead events: the analysis says why, instead of zeros.
ra-import -q -o "$TMP/blk.db" "$RA_FIXTURES/nvme-readahead.blktrace.0" || fail "import blktrace"
check_eq "$(q "$TMP/blk.db" "SELECT state FROM analyses WHERE pass = 'readahead'")" unavailable "blktrace run: readahead analysis unavailable"
check_grep "readahead:page_cache_ra_order" <(q "$TMP/blk.db" "SELECT message FROM analyses") "the reason names the tracepoint"
check_eq "$(q "$TMP/blk.db" "SELECT COUNT(*) FROM windows")" 0 "no windows"
