# ra-import of a real blktrace file: per action the counts blkparse prints for
# it; the same file given as NAME as blkparse takes it; run metadata.
# test: budget=2
. "$(dirname "$0")/lib.sh"
command -v blkparse >/dev/null || skip "blkparse is not installed"
make_tmp
bt=$RA_FIXTURES/nvme-readahead.blktrace.0
# blkparse rejects records whose CPU differs from the file's suffix: the file says CPU 1
cp "$bt" "$TMP/x.blktrace.1"
: > "$TMP/x.blktrace.0"
blkparse -i "$TMP/x" 2>/dev/null | awk 'NF > 7 && $1 ~ /,/ { print $6 }' | sort | uniq -c |
	awk '{ print $2 "|" $1 }' > "$TMP/bp"
cat "$TMP/bp"
[ -s "$TMP/bp" ] || fail "blkparse printed nothing"

DB=$TMP/imp.db
ra-import -o "$DB" "$bt" || fail "import"
declare -A ev=( [Q]=block_bio_queue [M]=block_bio_backmerge [F]=block_bio_frontmerge
	[G]=block_getrq [S]=block_sleeprq [I]=block_rq_insert [D]=block_rq_issue
	[C]=block_rq_complete [R]=block_rq_requeue [P]=block_plug [U]=block_unplug
	[X]=block_split [A]=block_bio_remap [B]=block_bio_bounce )
while IFS='|' read -r act n; do
	name=${ev[$act]:-}
	[ -n "$name" ] || fail "blkparse action $act has no ratrace event"
	if [ "$act" = U ]; then
		got=$(q "$DB" "SELECT COUNT(*) FROM blk_events WHERE event_id = 35 AND explicit_unplug = 1")
	else
		got=$(q "$DB" "SELECT n FROM v_event_counts WHERE event = '$name'")
	fi
	check_eq "$got" "$n" "action $act ($name)"
done < "$TMP/bp"
check_eq "$(q "$DB" "SELECT n FROM v_event_counts WHERE event = 'block_rq_complete'")" 963 "completed requests"
check_eq "$(q "$DB" "SELECT DISTINCT dev >> 20, dev & 1048575 FROM blk_events WHERE dev IS NOT NULL")" "259|0" "device 259:0"
check_eq "$(q "$DB" "SELECT DISTINCT old_dev >> 20, old_dev & 1048575 FROM blk_events WHERE event_id = 24")" "259|3" "remapped from 259:3"
check_eq "$(q "$DB" "SELECT DISTINCT rwbs FROM blk_events WHERE event_id = 30")" "RA" "readahead reads"
check_eq "$(q "$DB" "SELECT origin, cpus IS NULL FROM runs")" "blktrace|1" "run source"
check_cmp "$(q "$DB" "SELECT COUNT(*) FROM tasks")" -ge 1 "process names from notify records"

# NAME as blkparse takes it: x.blktrace.0 (empty) and x.blktrace.1 form one run.
ra-import -o "$TMP/name.db" "$TMP/x" || fail "import by name"
check_eq "$(q "$TMP/name.db" "SELECT COUNT(*) FROM runs")" 1 "one run for the NAME"
check_eq "$(q "$TMP/name.db" "SELECT SUM(n) FROM v_event_counts")" "$(q "$DB" "SELECT SUM(n) FROM v_event_counts")" "same events by NAME"
