# Bad input to ra-record: each a one-line error naming the problem, exit 2,
# and no database file left behind.
# test: budget=2
. "$(dirname "$0")/lib.sh"
make_tmp
cd "$TMP" || fail "cd"

# expect_error EXPECTED_REGEX ARGS...
expect_error() {
	local re=$1; shift
	ra-record "$@" >out 2>err
	rc=$?
	check_eq "$rc" 2 "exit status of: ra-record $*"
	check_eq "$(wc -l < err)" 1 "one line of error for: ra-record $*"
	check_grep "^ra-record: $re" err "message for: ra-record $*"
}

expect_error "unknown block device 'nosuchdev0'" -o x.db -d nosuchdev0 -- true
expect_error "unknown block device '99:99'" -o x.db -d 99:99 -- true
expect_error "bad --read-ahead-kb 'loop0'" -o x.db --read-ahead-kb loop0 -- true
expect_error "cannot run 'no-such-command-ra': command not found" -o x.db -- no-such-command-ra
expect_error "no workload given" -o x.db
expect_error "no output database" -- true
check_eq "$(ls)" "err
out" "no database created by rejected runs"
expect_error "cannot create '/nonexistent/dir/x.db': No such file or directory" -o /nonexistent/dir/x.db -- true
mkdir adir
expect_error "'adir' is a directory" -o adir -- true
echo "not a database, just text that is long enough to be looked at by sqlite" > text.db
expect_error "'text.db' is not a ratrace database" -o text.db -- true
check_grep "^not a database" text.db "the text file is untouched"

# A database of a newer schema is refused before anything runs.
sqlite3 new.db "PRAGMA application_id = $((0x52415452)); PRAGMA user_version = 99; CREATE TABLE runs (x);"
expect_error "'new.db' has schema version 99, newer than this ratrace reads \($RA_SCHEMA\)" -o new.db -- touch ran
[ -e ran ] && fail "the workload ran despite the refused database"
check_eq "$(q new.db 'PRAGMA user_version')" 99 "newer database untouched"

# Without root: one line saying what is missing.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod 777 "$TMP"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$RA_BIN/ra-record" -o "$TMP/u.db" -- true >out 2>err
	check_eq "$?" 2 "exit status without root"
	check_grep "^ra-record: .*(ra-record needs root)" err "message without root"
	check_eq "$(wc -l < err)" 1 "one line without root"
fi
