#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick rows san
# The README's scripting examples, run as written with /srv/data replaced by
# a test filesystem: an example that is never run drifts.
. "$(dirname "$0")/../common.sh"

readme=$(cd "$(dirname "$0")/../../.." && pwd)/README.md
setup_fs compress=zstd:1
mkdir -p data/a data/b data/c
text_data 2M >data/a/text
random_data 1M >data/b/random
text_data 600K >data/c/small
text_data 800 >data/c/inline
sync

# The command lines of the ```sh block under "### Scripting".
mapfile -t examples < <(awk '
	in_block && /^```/ { exit }
	in_block && /^compsize / { print }
	in_block { next }
	/^### Scripting/ { in_section = 1; next }
	in_section && /^#/ { exit }
	in_section && /^```sh/ { in_block = 1 }' "$readme")
[ "${#examples[@]}" -ge 5 ] || fail "found ${#examples[@]} examples in README.md"

# The README says "compsize": make that ours, whatever $COMPSIZE is.
mkdir "$TESTDIR/bin"

# On the fast scan and on the path walk (--walk): each example as
# written, and the same with --walk first.
for scan in "" --walk; do
	printf '#!/bin/sh\nexec "%s" %s"$@"\n' "$COMPSIZE" "${scan:+$scan }" \
		>"$TESTDIR/bin/compsize"
	chmod 755 "$TESTDIR/bin/compsize"
	echo "# the examples as compsize${scan:+ $scan} ..." >&2
	for cmd in "${examples[@]}"; do
		CHECKS=$((CHECKS + 1))
		cmd=${cmd//\/srv\/data/$MNT/data}
		case $cmd in
		*defragment*)
			# an uncompressed file for the example to find and
			# rewrite, on each pass
			raw_text "$MNT/data/c/small" 600K compress=zstd:1
			;;
		esac
		if ! (PATH=$TESTDIR/bin:$PATH; cd "$TESTDIR" &&
		      bash -o pipefail -c "$cmd" >"$OUT/example.out" 2>"$OUT/example.err"); then
			fail "README example failed: $cmd"
			cat "$OUT/example.err" >&2
			continue
		fi
		case $cmd in
		*'> usage.csv')
			[ "$(head -n 1 "$TESTDIR/usage.csv" | cut -d, -f1-3)" = kind,path,type ] ||
				fail "usage.csv has no CSV header"
			[ "$(grep -c '^path,.*,TOTAL,' "$TESTDIR/usage.csv")" = 4 ] ||
				fail "usage.csv should have 4 file rows"
			;;
		*'> data.ncdu')
			CHECKS=$((CHECKS + 1))
			python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d[:2] == [1, 2] and d[3][0]["name"] == sys.argv[2]' \
				"$TESTDIR/data.ncdu" "$MNT/data" || fail "data.ncdu is no ncdu export"
			;;
		*'mv compsize.prom.tmp compsize.prom')
			CHECKS=$((CHECKS + 1))
			[ ! -e "$TESTDIR/compsize.prom.tmp" ] &&
				grep -q '^compsize_disk_bytes{path=' "$TESTDIR/compsize.prom" ||
				fail "compsize.prom: $(cat "$TESTDIR/compsize.prom")"
			;;
		*defragment*)
			[ "$(cat "$OUT/example.out")" = "$MNT/data/c/small" ] ||
				fail "--find | xargs defragment example: $(cat "$OUT/example.out")"
			;;
		*--top=3*)
			[ "$(wc -l <"$OUT/example.out")" = 3 ] || fail "--top=3 example: $(cat "$OUT/example.out")"
			;;
		*'.total.disk'*)
			run_ours table -b "$MNT/data"
			[ "$(cat "$OUT/example.out")" = "$(awk '$1 == "TOTAL" { print $3 }' "$OUT/table.out")" ] ||
				fail "total disk example: $(cat "$OUT/example.out")"
			;;
		*)
			[ -s "$OUT/example.out" ] || fail "README example printed nothing: $cmd"
			;;
		esac
	done
done
