# Every output form of ra-report and ra-compare on the databases whose runs
# vary in nothing: one run; two runs without labels of the same trace (one
# run set, no dimension); two runs of one label. None crashes (an exit
# status of 128 and up is a signal), each exits as documented, the JSON
# parses, and the pages of the experiment, of one run and of a comparison
# open in headless Chromium with no console message.
# test: needs=chromium budget=20
. "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || skip "chromium is not installed"
make_tmp
T=$RA_FIXTURES/seq128.dat
ra-import -q -o "$TMP/one.db" "$T" || fail "import one"
ra-import -q -o "$TMP/same.db" "$T" || fail "import same 1"
ra-import -q -o "$TMP/same.db" "$T" || fail "import same 2"
ra-import -q -o "$TMP/label.db" --label x "$T" || fail "import label 1"
ra-import -q -o "$TMP/label.db" --label x "$T" || fail "import label 2"

# run WHAT WANT CMD...: CMD's exit status is one of WANT (a|b), never a signal
n=0
run() {
	local what=$1 want=$2 rc
	shift 2
	n=$((n + 1))
	"$@" > "$TMP/out.$n" 2> "$TMP/err.$n"
	rc=$?
	[ $rc -lt 128 ] || fail "$what: killed by signal $((rc - 128)): $(tail -n 3 "$TMP/err.$n")"
	case "|$want|" in *"|$rc|"*) ;; *) fail "$what: exit status $rc, not $want: $(head -n 3 "$TMP/err.$n")" ;; esac
	echo "ok: $what: exit status $rc"
}
json() {	# WHAT FILE: FILE is one JSON document
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$2" || fail "$1: not JSON"
}

pages=()
for db in one same label; do
	D=$TMP/$db.db
	run "$db: text" 0 ra-report "$D"
	run "$db: json" 0 ra-report --json "$D"
	json "$db: json" "$TMP/out.$n"
	run "$db: markdown" 0 ra-report --markdown "$D"
	run "$db: run 1" 0 ra-report --run 1 "$D"
	run "$db: run 1 markdown" 0 ra-report --run 1 --markdown "$D"
	run "$db: html" 0 ra-report --html "$TMP/$db.html" "$D"
	[ "$db" = label ] || pages+=("$TMP/$db.html")
	run "$db: run 1 html" 0 ra-report --run 1 --html "$TMP/$db-run1.html" "$D"
	[ "$db" = one ] && continue
	run "$db: experiment" 0 ra-report --experiment "$D"
	run "$db: experiment json" 0 ra-report --experiment --json "$D"
	json "$db: experiment json" "$TMP/out.$n"
	run "$db: experiment markdown" 0 ra-report --experiment --markdown "$D"
	run "$db: experiment html" 0 ra-report --experiment --html "$TMP/$db-x.html" "$D"
	pages+=("$TMP/$db-x.html")
	# two runs a side: too few to judge (3), or no regression (0)
	side=$D
	[ "$db" = label ] && side=$D:x
	for f in text json csv markdown junit; do
		run "$db: ra-compare -f $f" "0|3" ra-compare -f "$f" "$side" "$side"
		[ "$f" = json ] && json "$db: ra-compare json" "$TMP/out.$n"
	done
	run "$db: ra-compare --html" "0|3" ra-compare --html "$TMP/$db-cmp.html" "$side" "$side"
	[ "$db" = label ] && pages+=("$TMP/$db-cmp.html")
done

for p in "${pages[@]}"; do
	[ -s "$p" ] || fail "$p: empty"
	out=$TMP/chromium.$(basename "$p" .html)
	mkdir -p "$out"
	chromium_page "$out" "file://$p" || fail "chromium failed on $p: $(tail -n 5 "$out/log")"
	grep -E 'CONSOLE|Uncaught|Content Security Policy|Refused to' "$out/log" &&
		fail "$(basename "$p"): console messages on the page"
	echo "ok: $(basename "$p"): no console message"
done
