# Strings from a trace through every output of ra-report and ra-compare.
# A recording on a loop device reads files whose names hold a quote, a
# backslash, a newline, a tab, '|', a comma, ESC, DEL, C1, a bidirectional
# override, bytes that are not UTF-8 and wide characters, with a program
# whose name (the task's comm) holds ESC, under labels as bad. Then:
# - text (ra-report, its run list, ra-compare text): valid UTF-8, no control
#   byte but the newlines, every name escaped as docs/report.md says, whole
#   (wrapped cells joined again), and no line but a warning wider than 100
#   columns;
# - JSON (ra-report --json, ra-compare -f json): parses, and holds every
#   name as it is (valid UTF-8 kept, a byte that is not UTF-8 as U+00XX);
# - CSV: parses into the same cells; Markdown: every row has its cells, each
#   the text escape of its string; HTML: valid UTF-8, no control byte.
# test: needs=root,tracefs budget=3
. "$(dirname "$0")/lib.sh"
need_tracefs
command -v python3 >/dev/null || skip "python3 is not installed"
make_tmp
make_loop 64

names=(
	$'q"uote\\back'
	$'nl\nline'
	$'tab\tx|pipe,comma'
	$'esc\e[31mred'
	$'bad\xff\xfe'
	'ünï日本語'
	$'c1\xc2\x9bx\x7fdel'
	$'rlo\xe2\x80\xaeoh'
)
paths=()
for n in "${names[@]}"; do
	make_file "$MNT/$n" 1
	paths+=("$MNT/$n")
done
prog=$TMP/$'rd\e[7m'		# the comm of the reader
cp "$(command -v md5sum)" "$prog"
L1=$'lab"el\\1\n\t|,\e[2J\xff ünï'
L2=$'second|label,"q"\x7f\xc2\x85日本'
DB=$TMP/s.db
for l in "$L1" "$L2"; do
	ra-record -q -o "$DB" --label "$l" -d "$LOOP_NAME" "${COLD[@]}" -- "$prog" "${paths[@]}" \
		> /dev/null || fail "record"
done

O=$TMP/out
mkdir -p "$O"
ra-report "$DB" > "$O/list.txt" 2> /dev/null || fail "ra-report (run list)"
for r in 1 2; do
	ra-report --run $r "$DB" > "$O/text$r.txt" || fail "ra-report --run $r"
	ra-report --run $r --json "$DB" > "$O/report$r.json" || fail "ra-report --json"
	ra-report --run $r --html "$O/report$r.html" "$DB" || fail "ra-report --html"
	ra-report --run $r --markdown "$DB" > "$O/report$r.md" || fail "ra-report --markdown"
done
for f in text json csv markdown; do
	ra-compare --inconclusive pass -f $f --db "$DB" "$L1" "$L2" > "$O/compare.$f" ||
		fail "ra-compare -f $f"
done

python3 - "$O" "$DB" "$MNT" "$prog" "$L1" "$L2" "${names[@]}" <<'PY' || fail "the outputs"
import csv, io, json, os, re, sqlite3, sys, unicodedata

out, db, mnt, prog = sys.argv[1:5]
labels = [os.fsencode(a) for a in sys.argv[5:7]]
names = [os.fsencode(a) for a in sys.argv[7:]]
paths = [os.fsencode(mnt) + b"/" + n for n in names]
comm = os.fsencode(os.path.basename(prog))[:15]
BIDI = {0x61c, 0x200e, 0x200f} | set(range(0x2028, 0x202f)) | set(range(0x2066, 0x206a))

def text_escape(b):		# docs/report.md, "Strings": the text escape
    r = []
    for ch in b.decode("utf-8", "surrogateescape"):
        o = ord(ch)
        if 0xdc80 <= o <= 0xdcff:
            r.append("\\x%02x" % (o - 0xdc00))
        elif ch in "\\\n\t\r":
            r.append({"\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}[ch])
        elif o < 0x20 or o == 0x7f:
            r.append("\\x%02x" % o)
        elif 0x80 <= o <= 0x9f or o in BIDI:
            r.append("\\u%04x" % o)
        else:
            r.append(ch)
    return "".join(r)

def json_map(b):		# ... and JSON's: a byte that is not UTF-8 is U+00XX
    s = b.decode("utf-8", "surrogateescape")
    return "".join(chr(ord(c) - 0xdc00) if 0xdc80 <= ord(c) <= 0xdcff else c for c in s)

def width(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF"
               else 1 for c in s)

def read_text(f):		# valid UTF-8, no control character but the newline
    s = open(os.path.join(out, f), "rb").read().decode("utf-8")
    bad = [c for c in s if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f or ord(c) in BIDI]
    assert not bad, (f, bad[:5])
    return s

# the database holds the strings as the kernel and the command line gave them
c = sqlite3.connect(db)
c.text_factory = bytes
assert set(paths) <= {r[0] for r in c.execute("SELECT path FROM files")}, "paths not recorded"
assert comm in {r[0] for r in c.execute("SELECT comm FROM tasks")}, "comm not recorded"
assert [r[0] for r in c.execute("SELECT label FROM runs ORDER BY run_id")] == labels
esc_paths = {text_escape(p) for p in paths}

def cut(line, cols):		# the prefix of @line within @cols terminal columns
    n = w = 0
    while n < len(line) and w + width(line[n]) <= cols:
        w += width(line[n])
        n += 1
    return line[:n], line[n:]

def table(s, title):		# rows of a text table, wrapped cells joined again
    lines = s.split("\n")
    i = lines.index(title) + 1
    while lines[i].startswith("  ("):
        i += 1
    return lines[i], [l for l in lines[i + 1:lines.index("", i)]]

for r in (1, 2):
    s = read_text("text%d.txt" % r)
    for l in s.split("\n"):	# (a warning is one line, however long)
        assert width(l) <= 100 or l.startswith("  ! "), ("wider than 100 columns", l)
    assert "  label         " + text_escape(labels[r - 1]) in s.split("\n"), "label"
    wl = [l.strip() for l in s.split("\n") if l.startswith(("  workload ", " " * 16))]
    for p in esc_paths:
        assert any(p in l for l in wl), ("workload lacks", p)
    # files: the file column is as wide as the text before the header "windows"
    hdr, rows = table(s, "Files by readahead volume")
    wcol = width(hdr[:hdr.index(" windows")])
    files, cur = [], None
    for l in rows:
        piece, rest = cut(l, wcol)
        if rest.strip():	# a row's first line: the other columns are there
            files.append(piece.rstrip())
        else:			# a continuation of the file's cell
            files[-1] += piece.rstrip()
    assert set(files) == esc_paths, ("files", set(files) ^ esc_paths)
    hdr, rows = table(s, "Streams (windows of one task on one file that continue one another)")
    assert any(text_escape(comm) in l for l in rows), "streams: comm"
print("ok: text reports: escaped, whole, within 100 columns")

s = read_text("list.txt").rstrip("\n").split("\n")	# a long label goes on under itself
s = s[[i for i, l in enumerate(s) if l.startswith("run  ") and " label " in l][0]:]	# after the experiment
a, b = s[0].index("label"), s[0].index("kernel")
listed = []
for line in s[1:]:
    head, rest = cut(line, a)
    piece = cut(rest, b - a)[0].rstrip()
    if head.strip():
        listed.append(piece)
    else:
        listed[-1] += piece
assert listed == [text_escape(l) for l in labels], listed
s = read_text("compare.text")
hdr = s.split("\n")[0]
assert text_escape(labels[0]) + " (n=1) base" in hdr and text_escape(labels[1]) + " (n=1)" in hdr, hdr
print("ok: run list and ra-compare text: labels whole and escaped")

for r in (1, 2):
    raw = open(os.path.join(out, "report%d.json" % r), "rb").read()
    run = json.loads(raw.decode("utf-8"))["runs"][0]
    assert run["run"]["label"] == json_map(labels[r - 1]), run["run"]["label"]
    assert {f["file"] for f in run["files"]} == {json_map(p) for p in paths}, "JSON files"
    assert json_map(comm) in {t["comm"] for t in run["streams"]}, "JSON comm"
    assert all(json_map(p) in run["run"]["workload"] for p in paths), "JSON workload"
d = json.loads(open(os.path.join(out, "compare.json"), "rb").read().decode("utf-8"))
assert d["sides"] == [json_map(l) for l in labels], d["sides"]
print("ok: JSON parses and holds every string (bytes that are not UTF-8 as U+00XX)")

rows = list(csv.reader(io.StringIO(open(os.path.join(out, "compare.csv"), "rb").read().decode("utf-8"), newline="")))
assert rows[0][:2] == ["metric", "side"] and {len(r) for r in rows} == {15}, "CSV shape"
assert {r[1] for r in rows[1:]} == {json_map(l) for l in labels}, {r[1] for r in rows[1:]}
print("ok: CSV parses into the same cells")

def md_cells(line):		# split a Markdown row on its unescaped pipes, unescaped
    cells, cur, i = [], "", 0
    while i < len(line):
        if line[i] == "\\":
            cur += line[i + 1]
            i += 2
            continue
        if line[i] == "|":
            cells.append(cur.strip())
            cur = ""
        else:
            cur += line[i]
        i += 1
    return cells[1:]

md = [l for l in read_text("compare.markdown").split("\n") if l.startswith("|")]
assert md[0].count("|") >= 4 and {len(md_cells(l)) for l in md} == {3}, md
heads = md_cells(md[0])[1:]
assert re.fullmatch(re.escape(text_escape(labels[0])) + r" \(n=\d+\) base", heads[0]), heads
assert re.fullmatch(re.escape(text_escape(labels[1])) + r" \(n=\d+\)", heads[1]), heads
print("ok: Markdown: every row has its three cells; a label's cell reads as the text shows it")

for r in (1, 2):		# a run's report in Markdown: every table whole, every name as text shows it
    blocks, cur = [], []
    for l in read_text("report%d.md" % r).split("\n") + [""]:
        if l.startswith("|"):
            cur.append(l)
        elif cur:
            blocks.append(cur)
            cur = []
    assert len(blocks) >= 8, len(blocks)
    for b in blocks:
        assert len({len(md_cells(l)) for l in b}) == 1, b[:3]
    cells = {c for b in blocks for l in b for c in md_cells(l)}
    assert esc_paths <= cells, ("Markdown files", esc_paths - cells)
print("ok: a run's report in Markdown: %d tables, every row whole, names escaped" % len(blocks))

for r in (1, 2):
    h = read_text("report%d.html" % r)
    assert text_escape(paths[0]).replace('"', "&quot;") in h, "HTML file name"
print("ok: HTML: valid UTF-8, no control byte, names escaped")
PY
echo "ok: every output of ra-report and ra-compare"
