#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto sample stats
# --sample beside snapshots of small files (docs/sampling.md, Allocation).
# A snapshot's copy of a file stored inline shares no extent, only its
# inline item's bytes, and compsize 1.5 counts inline data with every
# file: in the same layout the copy counts in full where the setting
# keeps the file inline, and nothing where it makes an extent of it
# (counted once, with the first file).  Files of 2-4 KiB go either way
# by the setting: the copies of a few of them jump, and decide their
# stratum's total.  Their copies have away strata of their own, drawn in
# full and at 8 times the floor (SAMPLE_JUMP_DRAWS), and in the same
# layout such a stratum's variance carries up to 3 / n of its units
# jumping unseen (the rule of three).  Here, under lzo at 1% (80 files
# of 2-4 KiB, a fifth with an incompressible tail, beside 40 snapshots),
# the interval held the full estimate 96 times of 200 (mean half-width
# 3.1%) with the copies drawn among the files that count; 164 times
# (1.9%) in strata of their own at 128 draws; 188 times (2.6%) now.
#
# The bounds: a right 95% interval holds 190 +- 3.1 times of 200; 180 or
# fewer happens with probability 0.1%.  The data is deterministic (a seeded
# generator), and so is the filesystem's UUID, which names it in the
# draws: a run here always gives the same counts.  Those are counted
# under make check-stats; make check draws 10 seeds with no counts over
# them (pick_seeds, common.sh), each seed's estimate and interval the
# same on --walk as on the fast scan.
. "$(dirname "$0")/../common.sh"

pick_seeds 200 10
MIN_HIT=${MIN_HIT:-181}
# the mean half-width, in 1/10000 of the full estimate
MAX_WIDTH=${MAX_WIDTH:-500}

setup_fs compress=zstd:1 -U 5a3b1e00-0081-4c0f-8e5a-c0ffee000081
btrfs -q subvolume create sv
python3 - sv <<'PY'
import random, sys
rng = random.Random(81)
words = ("the quick brown fox jumps over the lazy dog while compsize "
         "counts every extent once and a sample draws a few of them "
         "from each stratum by a hash of its filesystem and inode").split()
def text(n):
    return " ".join(rng.choice(words) for _ in range(n // 4))[:n].encode()
for i in range(80):
    n = 2100 + i * 37 % 1900
    b = text(n)
    if i % 5 == 0:
        b = b[:n - 700] + rng.randbytes(700)
    open("%s/f%d" % (sys.argv[1], i), "wb").write(b)
for i in range(20):
    open("%s/big%d" % (sys.argv[1], i), "wb").write(text(100000))
PY
sync
for i in $(seq 1 40); do
	btrfs -q subvolume snapshot sv "s$i" >/dev/null
done
sync

expect_ours 0 '' -b -e lzo --format=json .
full=$(jq '.estimates[0].disk' "$OUT/ours.out")
held=0 width=0
for seed in $(seq 1 "$SEEDS"); do
	# (and its twin on --walk: the same estimates)
	expect_ours 0 '' -b -e lzo --sample=1% --seed="$seed" --format=json .
	read -r h w < <(jq -r --argjson t "$full" '.estimates[0] |
		"\(if ((.disk - $t) | fabs) <= .disk_ci95 then 1 else 0 end) \(.disk_ci95 * 10000 / $t | floor)"' \
		"$OUT/ours.out")
	held=$((held + h))
	width=$((width + w))
done
[ -z "${VERBOSE:-}" ] || echo "held $held of $SEEDS, mean half-width $((width / SEEDS)) / 10000" >&2
[ "$COUNT" = 1 ] || exit 0
CHECKS=$((CHECKS + 1))
[ "$held" -ge "$MIN_HIT" ] ||
	fail "lzo at 1%: the interval held the full estimate $held times of $SEEDS (at least $MIN_HIT)"
CHECKS=$((CHECKS + 1))
[ $((width / SEEDS)) -le "$MAX_WIDTH" ] ||
	fail "lzo at 1%: mean half-width $((width / SEEDS)) / 10000 of the full estimate (at most $MAX_WIDTH)"

true
