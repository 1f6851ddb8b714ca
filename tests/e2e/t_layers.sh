# The layer rule, as the build enforces it (docs/hacking.md): a source file
# of a layer compiles with include/ (the public interfaces), its own folder
# and the layers it builds on, and an include of any other layer's header
# does not compile. Each header of a layer is compiled alone with the
# options of every layer: it must compile where the rule allows it (a
# header that needs another first fails there too) and fail everywhere
# else, with the compiler saying the file is not found.
# test: budget=10
. "$(dirname "$0")/lib.sh"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler"
make_tmp
cd "$(dirname "$0")/../.." || fail "no source tree"

# the header of each layer (lib's are internal to it)
declare -A header=(
	[lib]=db_local.h [collect/decode]=decode.h [collect/host]=host.h
	[collect/trace]=trace.h [collect/import]=import.h [collect/record]=record.h
	[analyze]=analyze_local.h [report]=report.h
)
# what each layer may include besides itself: the rule this test holds the
# Makefile to
declare -A may=(
	[lib]="" [collect/decode]="" [collect/host]=""
	[collect/trace]="collect/decode collect/host"
	[collect/import]="collect/decode collect/trace"
	[collect/record]="collect/decode collect/host collect/trace"
	[analyze]="" [report]=""
)
allowed=0 refused=0
for layer in "${!may[@]}"; do
	read -r -a flags <<< "$(make -s --no-print-directory layer-flags SRC="$layer/probe.c")"
	[ "${#flags[@]}" -gt 0 ] || fail "no compiler options for $layer"
	for other in "${!header[@]}"; do
		h=${header[$other]}
		printf '#include "%s"\nint ra_probe(void);\nint ra_probe(void) { return 0; }\n' "$h" > "$TMP/probe.c"
		# the probe in $TMP: a quoted include finds nothing beside it
		"${CC:-cc}" "${flags[@]}" -fsyntax-only "$TMP/probe.c" > "$TMP/out" 2>&1
		rc=$?
		if [ "$other" = "$layer" ] || [[ " ${may[$layer]} " == *" $other "* ]]; then
			[ "$rc" -eq 0 ] || fail "$layer may include $h, and it does not compile: $(head -c 400 "$TMP/out")"
			allowed=$((allowed + 1))
		else
			[ "$rc" -ne 0 ] || fail "$layer includes $h, against the layer rule, and it compiles"
			grep -q "$h: No such file" "$TMP/out" ||
				fail "$layer including $h fails, but not for want of the file: $(head -c 400 "$TMP/out")"
			refused=$((refused + 1))
		fi
	done
done
echo "ok: $allowed includes the rule allows compile, $refused it forbids do not"
check_cmp "$refused" -ge 40 "most includes across layers are refused"

# No two files call each other: the one that builds on the other calls it,
# never back. The exception is a lifecycle split kept on purpose: lib/db.c
# opens a database and lib/newdb.c makes a new one in its place (it opens,
# removes and closes; db.c places). Found in the objects the build made: the
# global functions each defines and those it calls.
command -v nm >/dev/null || skip "no nm"
src=$(pwd)
# (the objects of sources the tree has: a build directory may keep older ones)
objs=$(cd "$RA_BIN" && find lib collect analyze report -name '*.o' | sort |
	while read -r o; do [ ! -f "$src/${o%.o}.c" ] || echo "$o"; done)
[ "$(echo "$objs" | wc -l)" -ge 40 ] || fail "the objects of $RA_BIN: $(echo "$objs" | wc -l) ('make' first)"
for o in $objs; do
	nm -g --defined-only "$RA_BIN/$o" | awk -v o="${o%.o}.c" '$2 == "T" { print "def", o, $3 }'
	nm -u "$RA_BIN/$o" | awk -v o="${o%.o}.c" '{ print "use", o, $2 }'
done > "$TMP/syms"
# "A B": A calls a function of B
awk '$1 == "def" { at[$3] = $2 } $1 == "use" { use[$2 " " $3] = 1 }
	END { for (k in use) { split(k, p, " "); if (p[2] in at && at[p[2]] != p[1]) print p[1], at[p[2]] } }' \
	"$TMP/syms" | sort -u > "$TMP/calls"
check_cmp "$(wc -l < "$TMP/calls")" -ge 100 "calls between files found"
mutual=$(awk '{ e[$1 " " $2] = 1 } END { for (k in e) { split(k, p, " ");
	if ((p[2] " " p[1]) in e && p[1] < p[2]) print p[1] " <-> " p[2] } }' "$TMP/calls" |
	grep -v '^lib/db\.c <-> lib/newdb\.c$' | sort)
[ -z "$mutual" ] || fail "files that call each other: $(echo "$mutual" | tr '\n' ';')"
echo "ok: no two files call each other ($(wc -l < "$TMP/calls") calls from file to file)"

# The database engines are lib/'s alone: the passes, renderers and collectors
# call the statement layer (ra_sql.h), never SQLite or libpq.
engine=$(awk '$1 == "use" && $3 ~ /^sqlite3_/ && $2 !~ /^lib\// { print $2 }' "$TMP/syms" | sort -u)
check_cmp "$(awk '$1 == "use" && $3 ~ /^sqlite3_/' "$TMP/syms" | wc -l)" -ge 20 "lib/ calls SQLite"
[ -z "$engine" ] || fail "files outside lib/ that call SQLite: $(echo "$engine" | tr '\n' ' ')"
echo "ok: only lib/ calls SQLite"
pq=$(awk '$1 == "use" && $3 ~ /^(PQ|pg_|lo_)/ && $2 !~ /^lib\// { print $2 }' "$TMP/syms" | sort -u)
check_cmp "$(awk '$1 == "use" && $3 ~ /^PQ/' "$TMP/syms" | wc -l)" -ge 10 "lib/ calls libpq"
[ -z "$pq" ] || fail "files outside lib/ that call libpq: $(echo "$pq" | tr '\n' ' ')"
echo "ok: only lib/ calls libpq"
