#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick robust
# EACCES inside the tree.  Root normally can't get EACCES on a local
# filesystem (CAP_DAC_OVERRIDE), so compsize runs as root without
# CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH but with CAP_SYS_ADMIN: the
# searches work, unreadable directories and files fail.  Each one is
# reported as "compsize: PATH: Permission denied" and the rest is counted
# exactly as by the oracle (which prints "PATH: Permission denied" and exits
# 0); ours exits 1.  Then as nobody: no CAP_SYS_ADMIN, the report from
# FIEMAP (121), the same paths unreadable.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir -p acc/open acc/locked/inner acc/noexec acc/noread acc/later
text_data 200K >acc/open/text
random_data 64K >acc/open/random
text_data 50K >acc/locked/inner/g
text_data 70K >acc/locked/h
text_data 30K >acc/noexec/f
text_data 40K >acc/noread/f
random_data 16K >acc/open/secret
text_data 90K >acc/later/z
chown 65534:65534 acc/open/secret
chmod 000 acc/locked acc/open/secret
chmod 444 acc/noexec	# can list, can't open what's listed
chmod 111 acc/noread	# can pass through, can't list
sync

NODAC=(setpriv --inh-caps=-dac_override,-dac_read_search
	--bounding-set=-dac_override,-dac_read_search --)
[ "$("${NODAC[@]}" cat /proc/self/status | awk '/^CapEff/ { print $2 }')" != \
	"$(awk '/^CapEff/ { print $2 }' /proc/self/status)" ] ||
	fail "setpriv did not drop the DAC capabilities"

REAL_COMPSIZE=$COMPSIZE
wrap()
{
	cat >"$TESTDIR/$1" <<EOS
#!/bin/sh
exec ${*:2} "\$@"
EOS
	chmod 755 "$TESTDIR/$1"
}
wrap nodac-ours "${NODAC[@]}" "$REAL_COMPSIZE"
wrap nodac-oracle "${NODAC[@]}" "$ORACLE"

COMPSIZE=$TESTDIR/nodac-ours
ORACLE_REAL=$ORACLE
ORACLE=$TESTDIR/nodac-oracle

expect_ours 1 '*' acc
sort "$OUT/ours.err" >"$OUT/sorted.err"
cat >"$OUT/want.err" <<EOS
compsize: acc/locked: Permission denied
compsize: acc/noexec/f: Permission denied
compsize: acc/noread: Permission denied
compsize: acc/open/secret: Permission denied
EOS
CHECKS=$((CHECKS + 1))
cmp -s "$OUT/sorted.err" "$OUT/want.err" ||
	{ fail "stderr under EACCES:"; diff "$OUT/want.err" "$OUT/sorted.err" >&2 || true; }
ours_stdout_matches_oracle acc
grep -q '^Processed 3 files' "$OUT/ours-kept.out" ||
	fail "expected 3 readable files: $(head -n 1 "$OUT/ours-kept.out")"
expect_ours 1 '*' -b acc/open acc/locked/h acc/noread/f acc/later
ours_stderr_is "compsize: acc/open/secret: Permission denied
compsize: acc/locked/h: Permission denied"
ours_stdout_matches_oracle -b acc/open acc/locked/h acc/noread/f acc/later
ORACLE=$ORACLE_REAL

# As nobody: the usage from FIEMAP, the same paths unreadable and said
# after the line on where the figures come from.
chmod 755 "$TESTDIR" . acc acc/open
[ "$(setpriv --reuid=65534 --regid=65534 --clear-groups id -u)" = 65534 ]
COMPSIZE=$(as_nobody "$REAL_COMPSIZE")
expect_ours 1 '*' acc
CHECKS=$((CHECKS + 1))
head -n1 "$OUT/ours.err" | grep -q '^compsize: acc: not root: usage from FIEMAP' ||
	fail "first line as nobody: $(head -n1 "$OUT/ours.err")"
tail -n +2 "$OUT/ours.err" | sort | cmp -s - "$OUT/want.err" ||
	{ fail "stderr as nobody:"; diff "$OUT/want.err" "$OUT/ours.err" >&2 || true; }
grep -q '^Processed 3 files' "$OUT/ours.out" ||
	fail "as nobody, expected 3 readable files: $(head -n 1 "$OUT/ours.out")"
expect_ours 1 '*' acc/locked acc/open
CHECKS=$((CHECKS + 1))
grep -q '^compsize: acc/locked: Permission denied$' "$OUT/ours.err" ||
	fail "acc/locked as nobody: $(cat "$OUT/ours.err")"
COMPSIZE=$REAL_COMPSIZE
