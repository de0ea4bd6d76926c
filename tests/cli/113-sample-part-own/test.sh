#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto sample stats san
# --sample and a big file away of which a write of its own counts
# (docs/sampling.md, The same layout).  A 6 MiB file of text and random
# runs, a reflinked copy of it, and 1 MiB of the copy's middle
# overwritten with text: in the same layout the copy counts only that
# write.  Read in parts, the copy used to count by its file's factor
# (what its own extents take now over what all of it takes, times the
# file's prediction): under compress=zstd:1 the text takes a fraction of
# what the raw runs take, under lzo more, so the write was counted short:
# a 99% sample 1.8% under with an interval 0.06-0.13% wide, and at 10%
# none of 40 intervals held the full estimate.  Now the pre-pass gives
# each part its own share and stratum, and each part read counts by the
# write groups it holds: a 99% sample is the full estimate, and at 10%
# the interval held it 193 times of 200 under lzo, 192 under zstd:3.
#
# The bounds: a right 95% interval holds 38 +- 1.4 times of 40; 33 or
# fewer happens with probability 0.3%.  The data is deterministic (a
# seeded generator), and so is the filesystem's UUID, which names it in
# the draws: a run here always gives the same counts (37 and 40).
# The counts over 40 seeds run under make check-stats; make check draws
# 4 seeds with every other check (pick_seeds, common.sh).
. "$(dirname "$0")/../common.sh"

pick_seeds 40 4
MIN_HIT=${MIN_HIT:-34}

setup_fs compress=zstd:1 -U 5a3b1e00-0113-4c0f-8e5a-c0ffee000113
PYTHONPATH=$_CLI_DIR python3 - <<'PY'
import random
import words
rng = random.Random(113)
def text(n):
    return words.text(rng, n)
with open("a", "wb") as f:
    for i in range(6):
        f.write(text(768 << 10))
        f.write(rng.randbytes(256 << 10))
open("w", "wb").write(text(1 << 20))
for i in range(30):
    open("t%d" % i, "wb").write(text(40000 + 997 * i))
PY
sync
cp --reflink=always a b
sync
dd if=w of=b bs=1M seek=2 conv=notrunc status=none
rm w
sync

for s in lzo zstd:3; do
	sample_against_full "$s" 1 "$SEEDS" "$MIN_HIT"
done

true
