# ra-analyze of a database whose runs cannot be told: the run rows damaged
# (a corrupted page of the runs table), gone while their events stay (all of
# them, or one run's), or no run at all. Each is one clear line and exit 2,
# not a silent exit 0; naming an intact run with -r still analyses it.
# test: budget=2
. "$(dirname "$0")/lib.sh"
make_tmp
cd "$TMP" || fail "cd"
ra-import -q --no-analyze -o base.db "$RA_FIXTURES/nvme-readahead.blktrace.0" \
	"$RA_FIXTURES/seq128.dat" || fail "import"
sqlite3 base.db "PRAGMA journal_mode = DELETE" >/dev/null

# expect DB REGEX WHAT: ra-analyze DB exits 2 with one line matching REGEX
expect() {
	ra-analyze "$1" >out 2>err
	check_eq "$? $(wc -l < err)" "2 1" "$3: exit status 2, one line"
	check_grep "^ra-analyze: $2" err "$3: $(cat err)"
}

# the runs table's page overwritten
cp base.db damaged.db
root=$(q damaged.db "SELECT rootpage FROM sqlite_master WHERE name = 'runs'")
psize=$(q damaged.db "PRAGMA page_size")
head -c "$psize" /dev/zero | tr '\0' '\377' |
	dd of=damaged.db bs="$psize" seek=$((root - 1)) conv=notrunc status=none
expect damaged.db "cannot read the runs of 'damaged.db': database disk image is malformed" \
	"damaged run rows"

# every run row deleted (foreign keys off, as the sqlite3 shell has them)
cp base.db norows.db
sqlite3 norows.db "DELETE FROM runs"
expect norows.db "'norows.db': the events of run [12] have no run row \(damaged or deleted\)" \
	"run rows missing"

# one run's row deleted: the other can be analysed by name
cp base.db onerow.db
sqlite3 onerow.db "DELETE FROM runs WHERE run_id = 2"
expect onerow.db "'onerow.db': the events of run 2 have no run row" "one run row missing"
ra-analyze -q -r 1 onerow.db || fail "ra-analyze -r 1 of the intact run"
check_cmp "$(q onerow.db 'SELECT COUNT(*) FROM requests WHERE run_id = 1')" -gt 0 \
	"the intact run analysed by name"

# no runs at all (deleted with their events)
cp base.db empty.db
sqlite3 empty.db "PRAGMA foreign_keys = ON; DELETE FROM runs"
expect empty.db "'empty.db' holds no runs" "no runs"
