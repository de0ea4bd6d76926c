#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick robust san
# Hostile names beyond 014-odd-names: printf directives, terminal escape
# sequences, names that are only a newline or a carriage return, invalid
# UTF-8 (overlong, lone continuation, surrogate), 255-byte names, a name
# that is a backslash escape.  The table must stay byte for byte the
# oracle's; error messages name the path escaped as the man page says (no
# control sequence reaches the terminal, a format string in a name is never
# interpreted).
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
names=(
	'%s%s%s%n%n%x%p'
	$'\e[31mred\e]0;title\a\e[0m'
	$'\n'
	$'\r'
	$'\t \v\f'
	$'\x01\x02\x7f'
	$'\xc0\xaf'
	$'\x80'
	$'\xed\xa0\x80'
	$'\xff\xfe\xfd'
	'\n\x41\\'
	"$(printf 'L%.0s' $(seq 255))"
	"$(printf '\xe2\x9c\x93%.0s' $(seq 85))"
	'...'
	' '
	'-'
)
mkdir h
i=0
for n in "${names[@]}"; do
	i=$((i + 1))
	text_data $((i * 10))K >"h/$n"
	mkdir "h/dir$i"
	random_data $((i * 3))K >"h/dir$i/$n"
done
ls h | wc -l | grep -qx $((2 * ${#names[@]})) || fail "not every name was created"

compare h
compare -x h
for n in "${names[@]}"; do
	compare "h/$n"
	compare "h/$n" h/dir1
done
cd h
compare -- "${names[@]}"
cd "$MNT"
# The path walk too, where the default is to read metadata.
if "$COMPSIZE" --walk "h/dir1/${names[0]}" >/dev/null 2>&1; then
	expect_ours 0 '' --walk h
	ours_stdout_matches_oracle h
	expect_ours 0 '' --walk -b h/dir2 "h/${names[1]}"
	ours_stdout_matches_oracle -b h/dir2 "h/${names[1]}"
fi

# Errors name the path escaped: no control byte (C0, DEL, C1) reaches the
# terminal.
names+=($'\xc2\x9b2J C1 CSI' $'\e[2J\e]0;owned\a')
for n in "${names[@]}"; do
	expect_ours 1 '*' "h/gone/$n" h
	ours_stderr_is "compsize: $(escape_name "h/gone/$n"): No such file or directory"
	ours_stdout_matches_oracle h
	CHECKS=$((CHECKS + 1))
	if LC_ALL=C grep -aq $'[\x01-\x09\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$OUT/ours.err"; then
		fail "a control byte on stderr for $(escape_name "$n")"
	fi
done

# A tmpfs mounted at a hostile name: as an argument, and inside the tree.
# (No newline here: common.sh's cleanup reads mount points line by line.)
tm=$'tmp\tfs %s \e[0m\xff'
tmpfs_at "$TESTDIR/$tm"
echo data >"$TESTDIR/$tm/file"
expect_ours 1 '*' "$TESTDIR/$tm/file" h/dir2
ours_stderr_is "compsize: $(escape_name "$TESTDIR/$tm/file"): not on a btrfs filesystem"
ours_stdout_matches_oracle h/dir2
tmpfs_at "h/dir3/$tm"
echo data >"h/dir3/$tm/file"
expect_ours 0 '*' -b h/dir3
ours_stderr_is "compsize: $(escape_name "h/dir3/$tm"): skipped: not a btrfs filesystem"
umount "h/dir3/$tm"
rmdir "h/dir3/$tm"
expect_ours 0 '' -b h/dir3
cp "$OUT/ours.out" "$OUT/dir3.out"
expect_ours 0 '*' -b h/dir3
cmp -s "$OUT/ours.out" "$OUT/dir3.out" ||
	fail "a skipped tmpfs changed the report"
