#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick format
# The man page's EXAMPLES, run as written (as jq runs its manual's), with
# build/, /srv and /mnt replaced by a test filesystem: an example that is
# never run drifts.  Where the page shows the output, ours must have the
# same lines with only the numbers differing (sizes, percentages, speeds);
# a shown line "..." ends the comparison there.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../exclusive.sh"

man=$(cd "$(dirname "$0")/../../.." && pwd)/man/compsize.8

# Each example as "command<TAB>expected output with \n escaped": the lines
# after "# " in a .nf block of the EXAMPLES section, continuation lines
# ("\e" at the end) joined, roff escapes undone, then the lines up to .ft.
examples=$(awk '
	function unroff(s) {
		gsub(/\\-/, "-", s); gsub(/\\&/, "", s); gsub(/\\e/, "\\", s); return s
	}
	/^\.SH / { in_sec = ($2 == "EXAMPLES"); next }
	!in_sec { next }
	/^\.nf/ { in_nf = 1; cmd = ""; out = ""; next }
	/^\.fi/ { if (cmd != "") print cmd "\t" out; in_nf = 0; next }
	!in_nf || /^\.ft/ { next }
	cont { line = unroff($0); sub(/^ +/, " ", line); cmd = cmd line; cont = sub(/ *\\$/, "", cmd); next }
	/^# / { cmd = unroff(substr($0, 3)); cont = sub(/ *\\$/, "", cmd); next }
	cmd != "" { out = out unroff($0) "\\n" }' "$man")
[ "$(grep -c . <<<"$examples")" -ge 2 ] ||
	fail "found $(grep -c . <<<"$examples") examples in man/compsize.8"

# The man page says "compsize": make that ours, whatever $COMPSIZE is.
mkdir "$TESTDIR/bin"

# A build directory written with compress=zstd:1 (text compresses, random
# data doesn't: types none and zstd, as shown), /srv with six directories
# for --top=5, and /mnt/snapshots as in the "which snapshot" story.
setup_fs compress=zstd:1
snapshot_story
mkdir -p build/obj build/bin
for i in 1 2 3; do text_data $((i * 300))K >build/obj/f$i.o; done
random_data 400K >build/bin/blob
text_data 900 >build/obj/tiny.h
for d in a b c d e f; do
	mkdir -p srv/$d
	text_data $((RANDOM % 400 + 100))K >srv/$d/file
done
sync

# Numbers of any kind (12, 1.5, +12K, -15M, 0B, 372MB/s) become N, runs of
# spaces one space, trailing spaces go (the page can't show them): the
# layout and the words must match.
skeleton()
{
	sed -E 's/[-+]?[0-9]+(\.[0-9]+)?[BKMGTPE]?/N/g; s/ +/ /g; s/ $//'
}

# On the fast scan and on the path walk (--walk): each example as
# written, and the same with --walk first.
for scan in "" --walk; do
	printf '#!/bin/sh\nexec "%s" %s"$@"\n' "$COMPSIZE" "${scan:+$scan }" \
		>"$TESTDIR/bin/compsize"
	chmod 755 "$TESTDIR/bin/compsize"
	echo "# the examples as compsize${scan:+ $scan} ..." >&2
	while IFS=$'\t' read -r cmd want; do
		CHECKS=$((CHECKS + 1))
		cmd=${cmd//\/mnt\//$MNT/}
		cmd=${cmd//\/srv/$MNT/srv}
		case $cmd in
		*defragment*)
			# a raw file for the example to find, on each pass
			raw_text "$MNT/build/obj/raw.o" 200K compress=zstd:1
			;;
		esac
		if ! (PATH=$TESTDIR/bin:$PATH; cd "$MNT" &&
		      bash -o pipefail -c "$cmd" >"$OUT/example.out" 2>"$OUT/example.err"); then
			fail "man page example failed: $cmd"
			cat "$OUT/example.err" >&2
			continue
		fi
		[ -s "$OUT/example.out" ] || fail "man page example printed nothing: $cmd"
		if [ -n "$want" ]; then
			printf '%b' "$want" | sed '/^\.\.\.$/,$d' | skeleton >"$OUT/want.skel"
			# our paths as the page spells them
			sed "s|$MNT/|/mnt/|g" "$OUT/example.out" | skeleton |
				head -n "$(wc -l <"$OUT/want.skel")" >"$OUT/got.skel"
			cmp -s "$OUT/want.skel" "$OUT/got.skel" || {
				fail "man page example's output has another layout: $cmd"
				diff -u --label man --label ours "$OUT/want.skel" "$OUT/got.skel" >&2 || true
			}
		fi
		case $cmd in
		*--top=5*)
			[ "$(grep -c . "$OUT/example.out")" = 5 ] ||
				fail "--top=5 example: $(cat "$OUT/example.out")"
			if grep -qvE "^[0-9]+"$'\t'"$MNT/srv" "$OUT/example.out"; then
				fail "--top=5 example: a line is not 'bytes<TAB>path': $(cat "$OUT/example.out")"
			fi
			;;
		esac
	done <<<"$examples"
done
