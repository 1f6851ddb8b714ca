# Every table of the text report says what its columns are: its headers are
# the JSON's columns of the same table, each under its own name or under the
# shorter header docs/report.md gives it, in order, none left out but the
# ones docs/report.md lists, and no header twice (the streams table once
# showed "max  max" for the largest window and ra_pages).
# test: budget=2
. "$(dirname "$0")/lib.sh"
make_tmp
DB=$TMP/h.db
for f in par4thrash seq128 mmapread; do
	ra-import -q -o "$DB" --label $f "$RA_FIXTURES/$f.dat" || fail "import $f"
done
for run in 1 2 3; do
	ra-report --run $run "$DB" > "$TMP/r$run.txt" || fail "ra-report --run $run"
	ra-report --run $run --json "$DB" > "$TMP/r$run.json" || fail "ra-report --json"
done
python3 - "$RA_TOP/docs/report.md" "$TMP" <<'PY' || fail "text headers"
import json, re, sys

doc = open(sys.argv[1]).read().split("\n## Text\n")[1].split("\n## ")[0]
cells = lambda l: [c.strip().strip("`") for c in l.strip().strip("|").split("|")]
parts = doc.split("columns that go when the table is too wide")
rows = [cells(l) for l in parts[0].split("\n") if l.startswith("| `")]
hidden = {r[0]: {c.strip().strip("`") for c in r[1].split(",")} for r in rows if len(r) == 2}
drops = {r[0]: [c.strip().strip("`") for c in r[1].split(",")]
         for r in (cells(l) for l in parts[1].split("\n\n")[0].split("\n") if l.startswith("| `"))}
rows += [cells(l) for l in parts[1].split("\n") if l.startswith("| `")]
short = {}
for r in (r for r in rows if len(r) == 6):
    for h, col in zip(r[0::2], r[1::2]):
        if h:
            assert col not in short, ("documented twice", col)
            short[col] = h
assert len(set(short.values())) == len(short), "two columns share a documented header"
assert hidden["streams"] == {"stream_id"} and short["readahead"] == "ra", (hidden, short)

checked = set()
for run in (1, 2, 3):
    text = open("%s/r%d.txt" % (sys.argv[2], run)).read().split("\n")
    doc_run = json.load(open("%s/r%d.json" % (sys.argv[2], run)))["runs"][0]
    keys = [k for k in doc_run if k not in ("warnings", "run", "advice", "unavailable")
            and not k.startswith("chart_")]
    # the text's tables in order: a title after a blank line, its note, then
    # "none" or the header
    tables, i = [], 0
    while i < len(text):
        if i and not text[i - 1] and text[i] and not text[i].startswith(" ") \
                and text[i] not in ("Warnings", "Recommended read_ahead_kb"):
            j = i + 1
            while text[j].startswith("  ("):
                j += 1
            empty = text[j] == "  none" or " analysis unavailable: " in text[j]
            tables.append(None if empty else text[j].split())
            i = j
        i += 1
    assert len(tables) == len(keys), (run, len(tables), keys)
    for key, hdr in zip(keys, tables):
        if hdr is None:
            assert not doc_run[key], (run, key, "rows in the JSON, none in the text")
            continue
        gone = set(hidden.get(key, ()))
        if "hit_ratio_max" in doc_run[key][0] and not any(r.get("mapped") for r in doc_run[key]):
            gone |= {"mapped", "hit_ratio_max"}	# no page mapped: 0 and hit_ratio
        if key == "block":	# a device by its name, or by its number when some has none
            named = sum(r["name"] is not None for r in doc_run[key])
            gone |= {"dev"} if named == len(doc_run[key]) else {"name"} if not named else set()
        cols = [c for c in doc_run[key][0] if c not in gone]
        want = [short.get(c, c) for c in cols]
        for d in drops.get(key, []):	# what goes, in order, from a table too wide
            if hdr == want:
                break
            want = [w for c, w in zip([c for c in cols], want) if c != d]
            cols = [c for c in cols if c != d]
        assert hdr == want, (run, key, hdr, want)
        assert len(set(hdr)) == len(hdr), (run, key, "a header twice", hdr)
        checked.add(key)
assert {"readahead_stats", "files", "streams", "block", "latency", "model"} <= checked, checked
print("ok: headers of", sorted(checked))
PY
check_grep "^file +pid +comm +windows +initial +max +ra_pages " "$TMP/r1.txt" "streams: max and ra_pages"
check_grep "^pattern +ra +io .* ra_pages +used " "$TMP/r1.txt" "readahead table: ra_pages"
check_grep "^file +windows +readahead_pages +used " "$TMP/r1.txt" "files: readahead_pages"
for run in 1 2 3; do
	check_eq "$(awk 'length > 100' "$TMP/r$run.txt" | grep -vc '^  ! ')" 0 "run $run: within 100 columns"
done
