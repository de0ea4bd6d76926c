#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto slow sample stats
# Report rows under --sample are regression estimates of each row
# (docs/sampling.md, Report rows), not Horvitz-Thompson sums: on a tree of
# system files in directories of every size (--depth=2: some 1,300 rows,
# most of them with no unit drawn at 5%), with a snapshot of part of it,
# the full estimate's rows are the truth, and over SEEDS seeds, at 5% and
# 30%, for the same layout's figure (disk) and the fresh copy's
# (disk_fresh) (at 5%, the floors of a tree this size read 21% of its
# data, as 20% would; 30% reads 29%):
# - no row whose full estimate is more than 0 comes out 0 (the plain sums
#   give 0 to every row with no unit drawn: most rows at 5%);
# - the rows' absolute errors add up to at most MAX_ERR% of their total
#   on average (the plain sums' errors are ten times that);
# - each row holding much of the data is right on average: the mean of
#   its estimates over the seeds within MAX_BIAS% of the full estimate.
# The means are checked under make check-stats (30 seeds); make check
# draws 4 seeds (pick_seeds, common.sh), and the first's rows the same on
# --walk.
. "$(dirname "$0")/../common.sh"

pick_seeds 30 4
MAX_ERR=${MAX_ERR:-6}
MAX_BIAS=${MAX_BIAS:-5}
SETTINGS=zstd:3,compress-force=zstd:3
bin=$COMPSIZE

setup_fs compress=zstd:1 -U 5a3b1e00-0075-4c0f-8e5a-c0ffee000075
btrfs -q subvolume create t
# 6,000 files of /usr/include and /usr/share/doc in a fixed tree
# (corpus.py: t/g0 and t/g1): some 1,300 rows at --depth=2 on every
# machine
python3 "$_CLI_DIR/corpus.py" t 6000 262144 /usr/include /usr/share/doc
mkdir t/rand
# incompressible: 400 of the compressed changelogs (the list taken
# whole first: head closing the pipe early is no failure)
files=$(find /usr/share/doc -type f -name '*.gz' -size +4k 2>/dev/null | sort | head -400 || true)
while read -r f; do
	if [ -n "$f" ]; then
		cp "$f" "t/rand/$(echo "$f" | md5sum | cut -c1-12).gz"
	fi
done <<<"$files"
sync
btrfs -q subvolume snapshot t t/snap
rm -rf t/snap/g1 t/snap/rand
sync

run_prog full "$bin" -b -e "$SETTINGS" --depth=2 --format=json t
[ "$(cat "$OUT/full.rc")" = 0 ] || fail "full estimate: $(cat "$OUT/full.err")"
for pct in 5 30; do
	for seed in $(seq 1 "$SEEDS"); do
		run_prog "s$pct-$seed" "$bin" -b -e "$SETTINGS" --sample="$pct%" \
			--seed="$seed" --depth=2 --format=json t
		[ "$seed" != 1 ] ||
			walk_twin "s$pct-$seed" -b -e "$SETTINGS" --sample="$pct%" \
				--seed="$seed" --depth=2 --format=json t
		[ "$(cat "$OUT/s$pct-$seed.rc")" = 0 ] ||
			fail "--sample=$pct% --seed=$seed: exit $(cat "$OUT/s$pct-$seed.rc"): $(cat "$OUT/s$pct-$seed.err")"
	done
done

CHECKS=$((CHECKS + 1))
python3 - "$OUT" "$SEEDS" "$MAX_ERR" "$MAX_BIAS" <<'EOF' || fail "the rows' estimates (above)"
import json, sys
out, seeds, max_err, max_bias = sys.argv[1], int(sys.argv[2]), \
    float(sys.argv[3]), float(sys.argv[4])

def rows(label):
    with open(f"{out}/{label}.out") as f:
        d = json.load(f)
    return {(p["path"], e["setting"]): e
            for p in d["paths"] for e in p["estimates"]}

truth = rows("full")
bad = 0
for pct in (5, 30):
    for field in ("disk", "disk_fresh"):
        total = sum(e[field] for e in truth.values())
        errs, sums, zero = [], {}, 0
        for seed in range(1, seeds + 1):
            got = rows(f"s{pct}-{seed}")
            assert got.keys() == truth.keys(), "not the same rows"
            err = 0
            for k, e in got.items():
                t = truth[k][field]
                err += abs(e[field] - t)
                sums[k] = sums.get(k, 0) + e[field]
                if t > 0 and e[field] == 0:
                    zero += 1
                    if zero <= 3:
                        print(f"{pct}% seed {seed}: {k[0]} {k[1]} {field} 0, "
                              f"full estimate {t}")
            errs.append(100 * err / total)
        mean = sum(errs) / len(errs)
        print(f"--sample={pct}% {field}: rows' absolute error "
              f"{min(errs):.1f}-{max(errs):.1f}% (mean {mean:.1f}%) of "
              f"their total, {zero} rows 0 where the full estimate is not")
        if zero or mean > max_err:
            bad = 1
        big = [k for k, e in truth.items()
               if e["input"] >= 0.02 * sum(x["input"] for (p, s), x in
                                           truth.items() if s == k[1])]
        for k in big:
            t = truth[k][field]
            m = sums[k] / seeds
            dev = 100 * (m - t) / t if t else 0
            print(f"  {k[0]} {k[1]}: mean {m:.0f} against {t} ({dev:+.1f}%)")
            if seeds >= 20 and abs(dev) > max_bias:
                bad = 1
sys.exit(bad)
EOF
