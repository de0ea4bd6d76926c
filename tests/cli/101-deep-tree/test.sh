#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto robust
# A tree 1,200 directories deep with files before and after each subdirectory
# (so every level is read again after its subtree, from where it stopped), and
# a path longer than PATH_MAX.  Ours runs with 64 descriptors at most: the walk
# must keep a bounded number of directories open (compsize 1.5 needs one per
# level and dies with EMFILE; it can't open paths past PATH_MAX at all).
. "$(dirname "$0")/../common.sh"

DEPTH=1200

# Ours under "ulimit -n 64" (soft and hard, so compsize can't raise it).
REAL_COMPSIZE=$COMPSIZE
cat >"$TESTDIR/fd-limited" <<EOS
#!/bin/bash
ulimit -n 64 || exit 99
exec -a compsize "$REAL_COMPSIZE" "\$@"
EOS
chmod 755 "$TESTDIR/fd-limited"

setup_fs compress-force=zstd:3
text_data 8K >"$TESTDIR/text8k"
text_data 1K >"$TESTDIR/text1k"

text_data 100K >"$TESTDIR/text100k"

# Relative mkdir/chdir steps: no step ever names a long path.  In one
# process: three for each of 1,200 levels took most of the test's time.
"$PYTHON" - "$TESTDIR" "$DEPTH" <<'PY'
import os, sys
tmp, depth = sys.argv[1], int(sys.argv[2])
text = {n: open("%s/text%s" % (tmp, n), "rb").read()
        for n in ("8k", "1k", "100k")}
os.mkdir("deep")
os.chdir("deep")
for i in range(depth):
    with open("a", "wb") as f:
        f.write(text["8k"])
    os.mkdir("d")
    # Created after d: readdir returns it once d's subtree is done.
    with open("z", "wb") as f:
        f.write(text["1k"] if i % 3 else os.urandom(5 * 1024))
    os.chdir("d")
with open("leaf", "wb") as f:
    f.write(text["100k"])
PY

# The default reads directories from metadata; --walk (where the binary
# has it) opens every level, keeping only a few open at once.
WALK=()
if "$REAL_COMPSIZE" --walk deep/d/d/d/d/d/d/a >/dev/null 2>&1; then
	WALK=(--walk)
fi

# 1,200 levels of "d/" fit in PATH_MAX: the oracle can do it unlimited.
compare deep
COMPSIZE=$TESTDIR/fd-limited
for mode in "" "${WALK[@]}"; do
	expect_ours 0 '' $mode deep
	ours_stdout_matches_oracle deep
	expect_ours 0 '' $mode -b deep
	ours_stdout_matches_oracle -b deep
	expect_ours 0 '' $mode -x deep/d/d/d .
	ours_stdout_matches_oracle -x deep/d/d/d .
	grep -q "^Processed $((2 * DEPTH + 1 + 2 * (DEPTH - 3) + 1)) files, " "$OUT/ours.out" ||
		fail "unexpected file count: $(head -n 1 "$OUT/ours.out")"
done
COMPSIZE=$REAL_COMPSIZE

# 20 levels of 250-byte names: over 5,000 bytes, past PATH_MAX (4096).
name=$(printf 'n%.0s' $(seq 250))
mkdir long
cd long
for ((i = 0; i < 20; i++)); do
	cp "$TESTDIR/text1k" "f$i"
	mkdir "$name"
	cp "$TESTDIR/text8k" "g$i"
	cd "$name"
done
text_data 300K >leaf
random_data 64K >leaf2
# The oracle can't open that path; it can from inside, with a short one.
# Both ways must report the same three files here.
COMPSIZE=$TESTDIR/fd-limited
for mode in "" "${WALK[@]}"; do
	cd "$MNT"
	expect_ours 0 '' $mode -b long
	cp "$OUT/ours.out" "$OUT/long-all.out"
	grep -q '^Processed 42 files, ' "$OUT/long-all.out" ||
		fail "long: expected 42 files: $(head -n 1 "$OUT/long-all.out")"
	cd long
	for ((i = 0; i < 20; i++)); do cd "$name"; done
	expect_ours 0 '' $mode -b .
	ours_stdout_matches_oracle -b .
done
cd "$MNT"
COMPSIZE=$REAL_COMPSIZE
