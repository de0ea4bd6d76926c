#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto rows san
# --format=json|csv, --depth, --per-file, --sort, --top: the same numbers as
# the -b table, each row equal to a run on that path alone, valid JSON and
# CSV whatever the file names.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir -p data/src/lib data/media data/logs "data/odd dir"
text_data 3M >data/src/main.c
text_data 700K >data/src/lib/util.c
text_data 900 >data/src/lib/tiny.h
random_data 2M >data/media/photo.jpg
cp --reflink=always data/media/photo.jpg data/src/photo-copy.jpg
text_data 5M >data/logs/app.log
fallocate -l 1M data/logs/prealloc
ln data/src/main.c data/logs/main-link.c
printf 'x%.0s' $(seq 3000) >"data/odd dir/new
line"
text_data 64K >"data/odd dir/bad-$(printf '\xff\xfe')-utf8"
text_data 8K >'data/odd dir/quote"comma,'
sync

json() { jq -e "$@" "$OUT/ours.out" >/dev/null || fail "jq $*: $(head -c 300 "$OUT/ours.out")"; }

# JSON and CSV carry the -b table's numbers.
for args in "data" "-x data" "data/src data/logs" "data/media/photo.jpg"; do
	run_ours table -b $args
	expect_ours 0 '' --format=json $args
	jq -e . "$OUT/ours.out" >/dev/null || fail "invalid JSON for $args"
	want=$(awk 'NR == 1 { gsub(/[^0-9 ]/, " "); print $1, $2, $3, $4 }' "$OUT/table.out")
	got=$(jq -r '"\(.files) \(.extents) \(.refs) \(.inline)"' "$OUT/ours.out")
	[ "$want" = "$got" ] || fail "json counts for $args: $got, table $want"
	want=$(awk 'NR > 2 { print $1, $3, $4, $5 }' "$OUT/table.out")
	got=$(jq -r '"TOTAL \(.total.disk) \(.total.uncompressed) \(.total.referenced)",
		(.types[] | "\(.type) \(.disk) \(.uncompressed) \(.referenced)")' "$OUT/ours.out")
	[ "$want" = "$got" ] || fail "json rows for $args:"$'\n'"$got"$'\n'"table:"$'\n'"$want"
	json '.errors == [] and (.fragments | type == "number")'

	expect_ours 0 '' --format=csv $args
	got=$(python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8", errors="surrogateescape")))
assert rows[0][:7] == ["kind","path","type","setting","disk","uncompressed","referenced"], rows[0]
assert all(len(r) == len(rows[0]) for r in rows), "ragged CSV"
for r in rows[1:]:
    if r[0] == "total":
        print(r[2], r[4], r[5], r[6])
' "$OUT/ours.out") || fail "CSV for $args does not parse"
	want=$(awk 'NR > 2 { print $1, $3, $4, $5 }' "$OUT/table.out")
	[ "$want" = "$got" ] || fail "csv rows for $args:"$'\n'"$got"$'\n'"table:"$'\n'"$want"
done

# Each --depth row equals compsize on that path alone (its own dedup), with
# the fast scan and with --walk, and the table lists the same rows.
for walk in "" --walk; do
	for depth in 0 1 2; do
		expect_ours 0 '' $walk --depth=$depth --format=json data
		cp "$OUT/ours.out" "$OUT/depth.json"
		n=$(jq '.paths | length' "$OUT/depth.json")
		[ "$n" -gt 0 ] || fail "--depth=$depth: no rows"
		for ((i = 0; i < n; i++)); do
			p=$(jq -r ".paths[$i].path" "$OUT/depth.json")
			row=$(jq -c ".paths[$i] | del(.path)" "$OUT/depth.json")
			run_ours alone $walk --format=json "$p"
			alone=$(jq -c 'del(.errors, .schema, .filesystems, .method)' "$OUT/alone.out")
			[ "$row" = "$alone" ] ||
				fail "$walk --depth=$depth row $p:"$'\n'"$row"$'\n'"alone: $alone"
		done
		# the grand total is the run on data
		run_ours alone --format=json data
		[ "$(jq -c 'del(.paths)' "$OUT/depth.json")" = "$(jq -c . "$OUT/alone.out")" ] ||
			fail "--depth=$depth: grand total differs from compsize data"
	done
done
# depth 1 lists data's subdirectories after their contents, then data
expect_ours 0 '' --depth=1 --format=json data
got=$(jq -r '.paths[].path' "$OUT/ours.out" | tr '\n' ' ')
for d in data/src data/media data/logs "data/odd dir"; do
	case " $got" in *" $d "*) ;; *) fail "--depth=1 misses $d: $got" ;; esac
done
[ "$(jq -r '.paths[-1].path' "$OUT/ours.out")" = data ] || fail "--depth=1: data is not last"
# table form: a du-like listing, then the usual report
expect_ours 0 '' -b --depth=1 data
grep -q '^Perc     Disk Usage   Uncompressed Referenced   Path$' "$OUT/ours.out" ||
	fail "--depth table header"
grep -q '^Processed ' "$OUT/ours.out" || fail "--depth table: no report after the rows"
grep -q ' data/odd dir$' "$OUT/ours.out" || fail "--depth table: odd dir row"

# --per-file: one row per file, each equal to compsize FILE
expect_ours 0 '' --per-file --format=json data
[ "$(jq '.paths | length' "$OUT/ours.out")" = "$(jq .files "$OUT/ours.out")" ] ||
	fail "--per-file: not one row per file"
cp "$OUT/ours.out" "$OUT/perfile.json"
for f in data/src/main.c data/logs/prealloc data/src/photo-copy.jpg; do
	row=$(jq -c --arg p "$f" '.paths[] | select(.path == $p) | del(.path)' "$OUT/perfile.json")
	run_ours alone --format=json "$f"
	[ "$row" = "$(jq -c 'del(.errors, .schema, .filesystems, .method)' "$OUT/alone.out")" ] || fail "--per-file row $f"
done

# --sort and --top
expect_ours 0 '' --per-file --sort=disk --format=json data
jq -e '[.paths[].total.disk] as $d | $d == ($d | sort | reverse)' "$OUT/ours.out" >/dev/null ||
	fail "--sort=disk is not descending"
expect_ours 0 '' --per-file --sort=name --format=json data
jq -e '[.paths[].path] as $p | $p == ($p | sort)' "$OUT/ours.out" >/dev/null ||
	fail "--sort=name is not ascending"
expect_ours 0 '' --per-file --sort=saved --format=json data
jq -e '[.paths[].total | .uncompressed - .disk] as $s | $s == ($s | sort | reverse)' \
	"$OUT/ours.out" >/dev/null || fail "--sort=saved is not descending"
expect_ours 0 '' --per-file --sort=ratio --format=json data
jq -e '[.paths[].total | select(.uncompressed > 0) | .disk / .uncompressed] as $r |
	$r == ($r | sort)' "$OUT/ours.out" >/dev/null || fail "--sort=ratio is not ascending"
expect_ours 0 '' --per-file --top=3 --format=json data
[ "$(jq -r '[.paths[].path] | join("|")' "$OUT/ours.out")" = \
  "$(jq -r '[.paths[].path][:3] | join("|")' "$OUT/perfile.json" >/dev/null;
     run_ours all --per-file --sort=disk --format=json data
     jq -r '[.paths[].path][:3] | join("|")' "$OUT/all.out")" ] ||
	fail "--top=3 is not the first 3 by disk"

# Hostile names.  JSON: only strings strict parsers accept (valid UTF-8,
# no lone surrogate), the exact bytes in path_bytes (base64) beside a name
# that isn't UTF-8; CSV: RFC 4180 records, no control byte written raw,
# names escaped as the man page says.
expect_ours 0 '' --per-file --format=json "data/odd dir"
jq -e '.paths | length == 3' "$OUT/ours.out" >/dev/null || fail "jq does not read the JSON"
"$PYTHON" - "$OUT/ours.out" <<'PY' || fail "odd names do not round-trip through JSON"
import base64, json, sys
raw = open(sys.argv[1], "rb").read()
doc = json.loads(raw.decode("utf-8"))  # strict UTF-8
def strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for k, v in x.items():
            yield k
            yield from strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from strings(v)
for t in strings(doc):
    t.encode("utf-8")  # a lone surrogate raises: strict parsers refuse it
assert not any(0 < b < 0x20 and b != 0x0a for b in raw), "raw control byte"
names = {base64.b64decode(p["path_bytes"], validate=True) if "path_bytes" in p
         else p["path"].encode("utf-8") for p in doc["paths"]}
want = {b"data/odd dir/new\nline", b"data/odd dir/bad-\xff\xfe-utf8",
        b'data/odd dir/quote"comma,'}
assert names == want, names
assert [p["path"] for p in doc["paths"] if "path_bytes" in p] == \
    ["data/odd dir/bad-\ufffd\ufffd-utf8"], doc["paths"]
PY
expect_ours 0 '' --per-file --format=csv "data/odd dir"
"$PYTHON" - "$OUT/ours.out" <<'PY' || fail "odd names do not round-trip through CSV"
import csv, re, sys
raw = open(sys.argv[1], "rb").read()
assert not any(b < 0x20 and b not in (0x0a, 0x0d) or b == 0x7f for b in raw), "raw control byte"
assert not re.search(rb"\xc2[\x80-\x9f]", raw), "raw C1 control"
def unescape(f):
    return re.sub(rb"\\(x[0-9a-f]{2}|n|t|\\)", lambda m: {b"n": b"\n", b"t": b"\t",
                  b"\\": b"\\"}.get(m.group(1)) or bytes([int(m.group(1)[1:], 16)]),
                  f.encode("utf-8"))
rows = list(csv.reader(raw.decode("utf-8").splitlines(True)))
names = {unescape(r[1]) for r in rows[1:] if r[0] == "path" and r[2] == "TOTAL"}
assert names == {b"data/odd dir/new\nline", b"data/odd dir/bad-\xff\xfe-utf8",
                 b'data/odd dir/quote"comma,'}, names
PY
expect_ours 0 '' --per-file "data/odd dir"
grep -q 'data/odd dir/new\\nline$' "$OUT/ours.out" || fail "table: newline not escaped"
grep -q 'data/odd dir/bad-\\xff\\xfe-utf8$' "$OUT/ours.out" || fail "table: bad UTF-8 not escaped"
[ "$(grep -c '' "$OUT/ours.out")" = 9 ] || fail "table: rows broken across lines"

# errors land in JSON, and the exit status says so
expect_ours 1 'compsize: data/missing: No such file or directory' --format=json data data/missing
json '.errors == [{"path": "data/missing", "error": "No such file or directory"}]'
json '.files > 0'

# usage errors
expect_ours 2 "invalid --format 'xml'" --format=xml data
expect_ours 2 "invalid --depth '-1'" --depth=-1 data
expect_ours 2 "invalid --sort 'size'" --depth=1 --sort=size data
expect_ours 2 "invalid --top '0'" --per-file --top=0 data
expect_ours 2 'need --depth, --per-file or --subvolumes' --sort=disk data

# A report that can't be written is an I/O failure, not an internal one
# (issue #60): exit 1, one line naming standard output, in every format,
# on the fast scan and the walk.
for fmt in table json csv prometheus ncdu; do
	for walk in "" --walk; do
		CHECKS=$((CHECKS + 1))
		rc=0
		"$COMPSIZE" $walk --format=$fmt data >/dev/full 2>"$OUT/full.err" || rc=$?
		[ "$rc" = 1 ] || fail "--format=$fmt $walk >/dev/full: exit $rc, expected 1"
		cmp -s "$OUT/full.err" <(echo "compsize: standard output: No space left on device") ||
			fail "--format=$fmt $walk >/dev/full: stderr $(head -c 200 "$OUT/full.err")"
	done
done
# --help and --version too: what they print is lost as well
for opt in --help -h --version; do
	CHECKS=$((CHECKS + 1))
	rc=0
	"$COMPSIZE" $opt >/dev/full 2>"$OUT/full.err" || rc=$?
	[ "$rc" = 1 ] || fail "$opt >/dev/full: exit $rc, expected 1"
	cmp -s "$OUT/full.err" <(echo "compsize: standard output: No space left on device") ||
		fail "$opt >/dev/full: stderr $(head -c 200 "$OUT/full.err")"
done
