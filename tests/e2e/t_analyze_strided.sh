# Readers that leave pages out keep exact fates: strided readers (rawl stride:
# read BS bytes, skip SKIP, to the end), a backward reader and a random reader,
# on a throttled loop device (their reads catch up with readahead, so some
# show only their tails). For every window whose pages were all added, the
# used pages must lie between what the mm_filemap_get_pages ranges alone show
# and the pages the program really read (known from its stride): no page is
# called used that was not read. Tails of a strided reader are filled only
# as far as a read of its shortest width reaches.
# test: needs=root,tracefs budget=20
. "$(dirname "$0")/lib.sh"
need_tracefs
need_rawl
make_tmp
command -v python3 >/dev/null || skip "no python3"
make_loop 160
make_file "$MNT/f" 64
ino=$(stat -c %i "$MNT/f")
size=$(stat -c %s "$MNT/f")

record() {	# WHAT RAWL-ARGS...
	local what=$1; shift
	DB=$TMP/$what.db
	ra-record -q -o "$DB" -d "$LOOP_NAME" --read-ahead-kb "$LOOP_NAME=128" "${COLD[@]}" \
		--throttle "$LOOP_NAME=bps:104857600" -- "$RAWL" "$@" > "$TMP/out" 2> "$TMP/err" ||
		fail "$what: ra-record: $(cat "$TMP/err")"
	check_eq "$(q "$DB" "SELECT lost_events FROM v_runs")" 0 "$what: lost events"
}

# check_windows WHAT MODE BS SKIP: per window (all pages added), the get_pages
# pages <= used <= really read; prints the totals.
check_windows() {
	python3 - "$DB" "$ino" "$size" "$2" "$3" "$4" <<'PY' > "$TMP/check" || fail "$1: $(cat "$TMP/check")"
import sqlite3, sys
db, ino, size, mode, bs, skip = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
c = sqlite3.connect(db)
reads = c.execute("SELECT seq, page_index, last_index FROM page_events WHERE ino = ? AND event_id = 12"
                  " ORDER BY seq", (ino,)).fetchall()
def got_after(seq, pages):	# the pages a get_pages range showed read after seq
    return {p for s, f, l in reads if s > seq for p in range(max(f, min(pages)), min(l, max(pages)) + 1)} & pages
read = set()
if mode == 'stride':
    off = 0
    while off < size:
        read.update(range(off // 4096, (min(off + bs, size) - 1) // 4096 + 1))
        off += bs + skip
else:
    read = set(range((size + 4095) // 4096))	# backward and random: see below
bad, tot_used, tot_got, tot_read = [], 0, 0, 0
for wid, wseq, start, n, ds, dn, used, added in c.execute(
        "SELECT window_id, seq, start_page, size_pages, COALESCE(demand_start, 0), demand_pages, used,"
        " pages_added FROM windows WHERE ino = ? AND evicted_unused = 0", (ino,)):
    if added != n:	# (a window whose pages were evicted, by anyone, is left out)
        continue
    ra = set(range(start, start + n)) - set(range(ds, ds + dn))
    if not ra:
        continue
    lo, hi = len(got_after(wseq, ra)), len(ra & read)
    tot_used += used; tot_got += lo; tot_read += hi
    if not lo <= used <= hi:
        bad.append(f"window {wid} [{start}+{n}]: used {used} not in [{lo}, {hi}]")
print(f"used {tot_used}, get_pages alone {tot_got}, really read {tot_read}")
if bad:
    print("; ".join(bad[:5]))
    sys.exit(1)
PY
	note "$1: $(cat "$TMP/check"); inferred $(q "$DB" "SELECT SUM(used_inferred) FROM windows WHERE ino = $ino")"
	echo "ok: $1: every window's used pages between the get_pages ranges and the pages read"
}

inferred=0
for s in "100000 5000" "10240 4096" "65536 4096" "20000 6000"; do
	# shellcheck disable=SC2086 # split on purpose: $1 the size, $2 the skip
	set -- $s
	record "stride$1-$2" stride "$MNT/f" --bs "$1" --skip "$2"
	check_grep "^stride: " "$TMP/out" "stride $1/$2: rawl ran"
	check_windows "stride $1/$2" stride "$1" "$2"
	inferred=$((inferred + $(q "$DB" "SELECT SUM(used_inferred) FROM windows WHERE ino = $ino")))
done
check_cmp "$inferred" -gt 0 "strided readers' tails were filled (cautiously)"

# backward and random readers: nothing is filled, the fates are the get_pages ones
record backward backward "$MNT/f" --bs 10240
check_windows "backward 10240" backward 0 0
check_eq "$(q "$DB" "SELECT SUM(used_inferred) FROM windows")" 0 "backward: no page inferred"
record random random "$MNT/f" --bs 10240 --count 1000 --seed 11
check_windows "random 10240" random 0 0
check_eq "$(q "$DB" "SELECT SUM(used_inferred) FROM windows")" 0 "random: no page inferred"
