#!/bin/bash
# The ratrace schema's functions with SQLite's meaning (lib/pgfuncs.c), on a
# PostgreSQL server of the test's own, against SQLite itself (Python's
# sqlite3, the same libsqlite3 ratrace links) on 3000 values: decimals near
# the points where rounding turns (ties and their neighbours a bit away),
# ratios as the reports compute them, values from 1e-300 to 1e20, zeros,
# subnormals and halves. ROUND(x, n) and CAST(x AS INTEGER) must give the same
# double, bit for bit; the text of a real ("'' || x"), printf('%.2f') and
# printf('%.5g') the same text. Then the aggregates and the functions of two
# values on groups with NULLs: SUM, AVG and group_concat of integers, reals
# and texts, MAX and MIN of two values, IFNULL, INSTR.
# Ground truth: SQLite's results.
# test: needs=postgres cpu=1 budget=8
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
make_tmp
start_pg socket
(cd "$RA_FIXTURES" && ra-import -q -o "$TMP/imp.db" seq128.dat) 2> "$TMP/err" ||
	fail "import: $(cat "$TMP/err")"
pg_createdb funcs
ra-push -q "$TMP/imp.db" "$(pg_url funcs)" || fail "push (the schema)"

python3 - "$TMP" "$PG_DIR" "$PG_PORT" <<'PY' || fail "the functions differ from SQLite's"
import math, random, sqlite3, struct, subprocess, sys

tmp, pgdir, port = sys.argv[1:4]
random.seed(20261204)
vals = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, 0.125, 2.675, 1.005, 31.75, 1e20, 1e-7, 5e-324,
	2.2250738585072014e-308, 4503599627370495.5, 4503599627370497.0, 1e-300, 123456789.987654321]
while len(vals) < 3000:
	r = random.random()
	if r < 0.3:
		x = random.uniform(-1, 1) * 10 ** random.randint(-8, 14)
	elif r < 0.7:	# a decimal, or a neighbour of it one or two steps away
		x = random.randint(-10 ** random.randint(1, 9), 10 ** random.randint(1, 9)) / 10 ** random.randint(1, 6)
		for _ in range(random.choice([0, 0, 1, 2])):
			x = math.nextafter(x, random.choice([math.inf, -math.inf]))
	else:		# a ratio as the reports make them
		x = random.randint(0, 100000) / random.randint(1, 100000) * random.choice([1, 100, 1e6, 1 / 1024, 1048576])
	vals.append(x)
cases = [(x, random.randint(0, 6)) for x in vals]

db = sqlite3.connect(':memory:')
want = [db.execute("SELECT round(?1, ?2), '' || ?1, printf('%.2f', ?1), printf('%.5g', ?1),"
		   " CAST(?1 AS INTEGER)", (x, n)).fetchone() for x, n in cases]
with open(tmp + '/vals', 'w') as f:
	for i, (x, n) in enumerate(cases):
		f.write('%d\t%r\t%d\n' % (i, x, n))

def psql(sql):
	p = subprocess.run(['psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-h', pgdir, '-p', port,
			    '-U', 'ratrace', '-d', 'funcs'], input=sql, text=True, capture_output=True)
	if p.returncode:
		sys.exit('psql: ' + p.stderr)
	return p.stdout

psql(r"""SET search_path = ratrace, pg_catalog; SET extra_float_digits = 3;
CREATE TEMP TABLE v (i int, x float8, n int);
\copy v from '%s/vals'
\copy (SELECT i, round(x, n), '' || x, printf('%%.2f', x), printf('%%.5g', x), CAST(x AS INTEGER) FROM v ORDER BY i) to '%s/got'
""".replace('CAST(x AS INTEGER)', 'ratrace.cast_integer(x)') % (tmp, tmp))
bits = lambda d: struct.pack('<d', d)
bad = 0
for line, (x, n), w in zip(open(tmp + '/got'), cases, want):
	i, r, text, f2, g5, ci = line.rstrip('\n').split('\t')
	if bits(float(r)) != bits(w[0]) or text != w[1] or f2 != w[2] or g5 != w[3] or int(ci) != w[4]:
		bad += 1
		if bad <= 10:
			print('x=%r n=%d: server %s %s %s %s %s, SQLite %r %s %s %s %s' % (x, n, r, text, f2, g5,
			      ci, w[0], w[1], w[2], w[3], w[4]))
lines = sum(1 for _ in open(tmp + '/got'))
if bad or lines != len(cases):
	sys.exit('%d of %d values differ (%d compared)' % (bad, len(cases), lines))
print('ok: ROUND, the text of a real, printf and CAST of %d values are SQLite\'s, bit for bit' % lines)

# aggregates and the functions of two values, on groups with NULLs
rows = []
for g in range(300):
	for k in range(random.randint(0, 6)):
		a = random.choice([None, random.randint(-10 ** 12, 10 ** 12), random.randint(-9, 9)])
		b = random.choice([None, random.uniform(-1e6, 1e6), random.randint(0, 7) / 8])
		t = random.choice([None, '', 'x,y', "q'uote", 'z' * random.randint(1, 5)])
		rows.append((g, a, b, t))
db.execute('CREATE TABLE r (g INTEGER, a INTEGER, b REAL, t TEXT)')
db.executemany('INSERT INTO r VALUES (?, ?, ?, ?)', rows)
queries = [
	"SELECT g, SUM(a), AVG(a), SUM(b), AVG(b), COUNT(a), group_concat(a, ';'), group_concat(t),"
	" group_concat(b, '|'), SUM(a > 0), MAX(a), MIN(t) FROM r GROUP BY g ORDER BY g",
	"SELECT g, a, b, t, MAX(a, 3), MIN(a, -3), MAX(b, 0.25), MIN(b, 0.25), IFNULL(a, 7),"
	" INSTR(t, 'y'), MAX(t, 'x'), ROUND(b, 2), ROUND(a), CAST(b AS INTEGER), a || '/' || b"
	" FROM r ORDER BY g, a, b, t",
]
with open(tmp + '/rows', 'w') as f:
	for row in rows:
		f.write('\t'.join('\\N' if v is None else repr(v) if isinstance(v, float) else str(v)
				  for v in row) + '\n')
psql(r"""CREATE TABLE r (g bigint, a bigint, b float8, t text);
\copy r from '%s/rows'
""" % tmp)
def norm(v):
	if v is None:
		return '\\N'
	if isinstance(v, float):
		return struct.pack('<d', v).hex()
	return str(v)
for q in queries:
	want = [[norm(v) for v in row] for row in db.execute(q)]
	# as lib/pgdialect.c writes them
	qs = q.replace('CAST(b AS INTEGER)', 'ratrace.cast_integer(b)').replace('AVG(a)',
		'AVG(ratrace.cast_real(a))').replace('AVG(b)', 'AVG(ratrace.cast_real(b))')
	out = psql("SET search_path = ratrace, pg_catalog; SET extra_float_digits = 3;\n"
		   "\\copy (" + qs.replace('ORDER BY g, a, b, t', 'ORDER BY g, a NULLS FIRST, b NULLS FIRST,'
		   ' t NULLS FIRST') + ") to '" + tmp + "/agg'\n")
	typed = [row for row in db.execute(q)]
	got = []
	for line, ref in zip(open(tmp + '/agg'), typed):
		cells = line.rstrip('\n').split('\t')
		got.append([c if c == '\\N' else struct.pack('<d', float(c)).hex() if isinstance(r, float)
			    else c for c, r in zip(cells, ref)])
	if got != want:
		for g, w in zip(got, want):
			if g != w:
				sys.exit('%s\n  server %s\n  SQLite %s' % (q[:60], g, w))
		sys.exit('%s: %d rows, SQLite %d' % (q[:60], len(got), len(want)))
	print('ok: %d groups or rows of "%s..." are SQLite\'s' % (len(want), q[:50]))
PY
