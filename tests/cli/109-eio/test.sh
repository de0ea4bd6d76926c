#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick robust san
# EIO on read: a file whose data no longer matches its checksum (its bytes
# overwritten in the image while unmounted) fails to read with EIO.  The
# usage report doesn't read data and is unaffected; --estimate reports the
# file in one line naming it, estimates the others, and exits 1.
. "$(dirname "$0")/../common.sh"

setup_fs ""
marker=compsize-eio-marker-$RANDOM$RANDOM
mkdir d
# uncompressed on purpose: the marker must be findable in the image
for i in $(seq 20000); do echo "$marker $i"; done >d/bad
text_data 300K >d/good1
text_data 100K >d/good2
sync
img=$TESTDIR/img$((FS_COUNT - 1))	# setup_fs's naming
run_ours before -b d
cd /
umount "$MNT"

# Overwrite the marker's first occurrence (every copy: data is single,
# but look at all of them) with other bytes of the same length.
python3 - "$img" "$marker" <<'PY'
import sys
path, marker = sys.argv[1], sys.argv[2].encode()
hits = 0
with open(path, "r+b") as f:
    data = f.read()
    pos = data.find(marker)
    while pos >= 0:
        f.seek(pos)
        f.write(b"X" * len(marker))
        hits += 1
        pos = data.find(marker, pos + 1)
assert hits > 0, "marker not found in the image"
PY
mount -o loop,noatime "$img" "$MNT"
cd "$MNT"

# The metadata scan reads no file data: same report as before.
expect_ours 0 '' -b d
cmp -s "$OUT/ours.out" "$OUT/before.out" || fail "usage report changed after corrupting data"
compare d

# --estimate: one line for the bad file, the others estimated, exit 1.
expect_ours 1 '^compsize: d/bad: Input/output error$' -e zstd:1 --format=json d
[ "$(wc -l <"$OUT/ours.err")" = 1 ] || { fail "expected one error line:"; cat "$OUT/ours.err" >&2; }
jq -e '.errors == [{"path": "d/bad", "error": "Input/output error"}] and
	.estimates[0].input > 0' "$OUT/ours.out" >/dev/null ||
	fail "JSON after EIO: $(head -c 400 "$OUT/ours.out")"
run_ours good -e zstd:1 --format=json d/good1 d/good2
[ "$(jq .estimates[0].disk "$OUT/ours.out")" = "$(jq .estimates[0].disk "$OUT/good.out")" ] ||
	fail "the other files' estimate differs from theirs alone"
# threads or not
expect_ours 1 '^compsize: d/bad: Input/output error$' -e zstd:1 -j 1 d
