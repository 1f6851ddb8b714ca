# A database written by an older ratrace (schema version 2, tests/fixtures/
# schema-v2.db.xz): read-only tools refuse it with the way out and leave it as
# it is; ra-analyze upgrades it in place to the tables, columns and views of a
# new database, keeps every event (every column of every row, as the views of
# the packed events give them back), and analyses its runs again. A database of
# version 3 (schema-v3.db.xz) the same way, and its device model is then made.
# test: budget=2
. "$(dirname "$0")/lib.sh"
command -v xz >/dev/null || skip "xz is not installed"
make_tmp
OLD=$TMP/old.db
xz -dc "$RA_FIXTURES/schema-v2.db.xz" > "$OLD" || fail "unpack the fixture"
check_eq "$(q "$OLD" 'PRAGMA user_version')" 2 "the fixture is version 2"
# the runs, and every column of every event: tables before version 10, the
# views of the packed events after
events() {
	q "$1" "SELECT (SELECT COUNT(*) FROM ra_events) || '|' || (SELECT COUNT(*) FROM page_events)
		|| '|' || (SELECT COUNT(*) FROM blk_events) || '|' || (SELECT COUNT(*) FROM runs)"
	for t in ra_events page_events blk_events; do
		q "$1" "SELECT * FROM $t ORDER BY seq" | sha256sum
	done
}
before=$(events "$OLD")
sum_before=$(sha256sum "$OLD" | cut -d' ' -f1)

ra-report "$OLD" > "$TMP/out" 2> "$TMP/err"
check_eq "$?" 2 "ra-report of version 2: exit status"
check_eq "$(cat "$TMP/err")" "ra-report: '$OLD' has schema version 2; 'ra-analyze $OLD' upgrades it" \
	"ra-report of version 2: the way out"
check_eq "$(sha256sum "$OLD" | cut -d' ' -f1)" "$sum_before" "the refused database is unchanged"

ra-analyze "$OLD" 2> "$TMP/err" || fail "ra-analyze of version 2: $(cat "$TMP/err")"
check_eq "$(q "$OLD" 'PRAGMA user_version')" "$RA_SCHEMA" "upgraded to version $RA_SCHEMA"
check_eq "$(q "$OLD" 'PRAGMA integrity_check')" ok "integrity after the upgrade"
check_eq "$(events "$OLD")" "$before" "every event and run kept"

# The same tables, columns (order, types, constraints) and views as a new database.
shape() {
	q "$1" "SELECT m.type || ' ' || m.name || '.' || p.cid || ' ' || p.name || ' ' || p.type || ' '
		|| p.\"notnull\" || ' ' || COALESCE(p.dflt_value, '-') || ' ' || p.pk
		FROM sqlite_schema m, pragma_table_info(m.name) p
		WHERE m.type IN ('table', 'view') ORDER BY m.name, p.cid"
}
ra-import -o "$TMP/new.db" "$RA_FIXTURES/mmapread.dat" 2>/dev/null || fail "import into a new database"
diff <(shape "$TMP/new.db") <(shape "$OLD") > "$TMP/diff" || fail "shapes differ: $(head -c 600 "$TMP/diff")"
echo "ok: the upgraded schema equals a new one ($(shape "$OLD" | wc -l) columns)"
check_eq "$(q "$OLD" "SELECT group_concat(event_id) FROM event_types WHERE system = 'syscalls'")" \
	"$(q "$TMP/new.db" "SELECT group_concat(event_id) FROM event_types WHERE system = 'syscalls'")" \
	"event types of a new database"

# The analyses are of this version now, and the report reads the upgraded file.
check_eq "$(q "$OLD" "SELECT hit_ratio_max IS NOT NULL FROM v_readahead_stats WHERE run_id = 1 AND pattern = 'all'")" \
	1 "the new view columns are filled"
# run 1 is fio's mmap read: version 2 called the fault-around pages used,
# this version's analysis (run by ra-analyze) calls them mapped
check_eq "$(q "$OLD" "SELECT mapped > used FROM v_file_fates WHERE run_id = 1 AND ino = 18")" 1 \
	"the runs were analysed again by this version's rules"
ra-report --run 1 "$OLD" > "$TMP/report" 2> "$TMP/err" || fail "ra-report after the upgrade: $(cat "$TMP/err")"
check_grep "Readahead" "$TMP/report" "the report of the upgraded database"

# Two writers that open the same old database at once: one upgrades it, the
# other finds it upgraded once it holds the lock, and both go on.
xz -dc "$RA_FIXTURES/schema-v2.db.xz" > "$TMP/both.db" || fail "unpack the fixture"
for i in 1 2 3 4 5; do
	ra-analyze "$TMP/both.db" 2> "$TMP/err.$i" &
	pids="${pids:-} $!"
done
for p in $pids; do
	wait "$p" || fail "a concurrent upgrade failed: $(cat "$TMP"/err.*)"
done
echo "ok: five writers opened the old database at once"
check_eq "$(q "$TMP/both.db" 'PRAGMA user_version')" "$RA_SCHEMA" "upgraded once"
check_eq "$(q "$TMP/both.db" 'PRAGMA integrity_check')" ok "integrity after concurrent upgrades"
check_eq "$(events "$TMP/both.db")" "$before" "every event and run kept"

# Version 3, from the ratrace before the device model's tables
V3=$TMP/v3.db
xz -dc "$RA_FIXTURES/schema-v3.db.xz" > "$V3" || fail "unpack the version 3 fixture"
check_eq "$(q "$V3" 'PRAGMA user_version')" 3 "the fixture is version 3"
before3=$(events "$V3")
ra-report "$V3" > "$TMP/out" 2> "$TMP/err"
check_eq "$?" 2 "ra-report of version 3: exit status"
ra-analyze "$V3" 2> "$TMP/err" || fail "ra-analyze of version 3: $(cat "$TMP/err")"
check_eq "$(q "$V3" 'PRAGMA user_version')" "$RA_SCHEMA" "version 3 upgraded to version $RA_SCHEMA"
check_eq "$(q "$V3" 'PRAGMA integrity_check')" ok "integrity after the upgrade from 3"
check_eq "$(events "$V3")" "$before3" "every event and run of version 3 kept"
diff <(shape "$TMP/new.db") <(shape "$V3") > "$TMP/diff" || fail "shapes differ after 3 -> 4: $(head -c 600 "$TMP/diff")"
echo "ok: the schema upgraded from version 3 equals a new one"
# version 8 made model_runs again, for a state its CHECK did not allow
check_eq "$(q "$V3" "SELECT sql LIKE '%''no_readahead''%' FROM sqlite_schema WHERE name = 'model_runs'")" 1 \
	"model_runs takes the state no_readahead"
check_eq "$(q "$V3" "SELECT COUNT(*) FROM analyses WHERE pass = 'block' AND state = 'ok'")" 2 \
	"both runs analysed again"
ra-report --run 2 "$V3" > "$TMP/report3" 2> "$TMP/err" || fail "ra-report after 3 -> 4: $(cat "$TMP/err")"
check_grep "Block I/O" "$TMP/report3" "the report of the database upgraded from 3"
# what the older runs varied, as far as it can be known: their kernel
check_eq "$(q "$V3" "SELECT COUNT(*) FROM v_run_params p JOIN runs r USING (run_id) WHERE p.name = 'kernel' AND p.value = r.kernel")" \
	"$(q "$V3" "SELECT COUNT(*) FROM runs WHERE kernel IS NOT NULL")" "the older runs' kernels in v_run_params"

# Version 6 says how each run was executed: the recordings of older versions
# ran on the recorder's own kernel, where an imported trace ran is not known.
xz -dc "$RA_FIXTURES/schema-v2.db.xz" > "$TMP/exec.db" || fail "unpack the fixture"
q "$TMP/exec.db" "INSERT INTO runs (run_id, label, source, complete) VALUES (3, 'old', 'record', 1)"
sources=$(q "$TMP/exec.db" "SELECT group_concat(run_id || ':' || source || ':' || COALESCE(source_path, '-'), ' ')
	FROM (SELECT * FROM runs ORDER BY run_id)")
ra-analyze "$TMP/exec.db" 2> "$TMP/err" || fail "ra-analyze of version 2 with a recording: $(cat "$TMP/err")"
check_eq "$(q "$TMP/exec.db" "SELECT group_concat(run_id || ':' || COALESCE(execution, '-'), ' ')
	FROM (SELECT * FROM runs ORDER BY run_id)")" "1:- 2:- 3:host" "execution of the upgraded runs"
check_eq "$(q "$TMP/exec.db" "SELECT execution FROM v_runs WHERE run_id = 3")" host "execution in v_runs"
# version 9 renamed the three columns called source, keeping their values
check_eq "$(q "$TMP/exec.db" "SELECT group_concat(run_id || ':' || origin || ':' || COALESCE(origin_path, '-'), ' ')
	FROM (SELECT * FROM runs ORDER BY run_id)")" "$sources" "runs.source is runs.origin"
check_eq "$(q "$TMP/exec.db" "SELECT (SELECT COUNT(*) FROM pragma_table_info('device_models')
	WHERE name = 'timing') || (SELECT COUNT(*) FROM pragma_table_info('event_sources') WHERE name = 'probe')")" 11 \
	"device_models.timing and event_sources.probe"
