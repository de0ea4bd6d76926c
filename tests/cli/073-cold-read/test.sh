#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A full --estimate of files not in the page cache, with the next files'
# reads started ahead (docs/estimate.md, Reading): the same predictions as
# with every file cached, and the page-cache policy holds file by file:
# a file all cached before stays cached, one that was not (or in part) is
# dropped again, read ahead or not.  Files are dropped one by one with
# POSIX_FADV_DONTNEED, not the whole machine's caches.
. "$(dirname "$0")/../common.sh"

setup_fs compress=zstd:1
mkdir -p d/sub
python3 - <<'PY'
import os, random
r = random.Random(73)
words = [b"alpha", b"beta", b"gamma", b"delta", b"btrfs", b"extent"]
for i in range(400):
    d = "d/sub" if i % 3 else "d"
    n = r.choice([3000, 20000, 90000, 300000])
    text = b" ".join(r.choice(words) for _ in range(n // 5))[:n]
    with open("%s/f%03d" % (d, i), "wb") as f:
        f.write(text if i % 4 else r.randbytes(n))
for i in range(2):
    with open("d/big%d" % i, "wb") as f:
        for k in range(24):
            f.write(r.randbytes(65536) if k % 3 == 0 else
                    b" ".join(r.choice(words) for _ in range(13000))[:65536])
PY
sync
mapfile -t files < <(find d -type f | sort)

# pages FILE: its pages in the page cache
pages() { fincore --noheadings --output PAGES "$1" | tr -d " "; }
# drop FILE...: out of the page cache (clean after the sync)
drop() { python3 -c 'import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$@"; }
sizes() { jq -c '[.estimates[] | {setting, input, disk, uncompressed, disk_fresh}]' "$1"; }
est=(-e zstd:1,zstd:3,lzo,zlib:3 --format=json)

# Pages may also leave the page cache without us: on this kind of virtual
# machine a few pages of a few files go now and then (seen with no
# program reading them at all).  So "cached whole stays cached" asks that
# at least 90% of those files keep at least half of their pages (dropping
# them, as a file not cached before is, leaves none); "not cached before
# is dropped" holds whatever else evicts.
# kept NAME COUNT OF: fail unless COUNT >= 90% of OF
kept()
{
	CHECKS=$((CHECKS + 1))
	[ $(($2 * 10)) -ge $(($3 * 9)) ] ||
		fail "$1: only $2 of $3 files cached whole before keep half of it"
}

# every file cached: the reference, and every file stays cached
cat "${files[@]}" >/dev/null
expect_ours 0 '' "${est[@]}" "$MNT/d"
sizes "$OUT/ours.out" >"$OUT/warm.sizes"
n=0
for f in "${files[@]}"; do
	total=$(( ($(stat -c %s "$f") + 4095) / 4096 ))
	[ $(($(pages "$f") * 2)) -lt "$total" ] || n=$((n + 1))
done
kept "all cached" $n ${#files[@]}

drop "${files[@]}"
sleep 0.2
drop "${files[@]}"
left=0
for f in "${files[@]}"; do
	[ "$(pages "$f")" = 0 ] || left=$((left + 1))
done
[ $left -le 4 ] ||
	skip "POSIX_FADV_DONTNEED leaves the pages of $left clean files here"

# cold, but for every fifth file (cached whole) and every seventh (its
# first 4 KiB, readahead off); what each holds is taken from fincore
python3 - "${files[@]}" <<'PY'
import os, sys
for i, p in enumerate(sys.argv[1:]):
    if i % 5 and i % 7:
        continue
    fd = os.open(p, os.O_RDONLY)
    if i % 5:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        os.pread(fd, 4096, 0)
    else:
        while os.read(fd, 1 << 20):
            pass
    os.close(fd)
PY
before=()
for f in "${files[@]}"; do
	before+=("$(pages "$f")")
done
expect_ours 0 '' "${est[@]}" "$MNT/d"
CHECKS=$((CHECKS + 1))
[ "$(sizes "$OUT/ours.out")" = "$(cat "$OUT/warm.sizes")" ] ||
	fail "cold: $(sizes "$OUT/ours.out"), cached: $(cat "$OUT/warm.sizes")"

# the policy, file by file: cached whole stays, anything else goes (a
# file's last pages may linger in per-CPU LRU batches: a quarter, or one
# page, allowed)
CHECKS=$((CHECKS + 1))
bad=() whole=0 kept_half=0 part=0
for ((i = 0; i < ${#files[@]}; i++)); do
	f=${files[i]}
	total=$(( ($(stat -c %s "$f") + 4095) / 4096 ))
	p=$(pages "$f")
	if [ "${before[i]}" = "$total" ]; then
		whole=$((whole + 1))
		[ $((p * 2)) -lt "$total" ] || kept_half=$((kept_half + 1))
	else
		[ "${before[i]}" = 0 ] || part=$((part + 1))
		[ "$p" -le 1 ] || [ $((p * 4)) -le "$total" ] ||
			bad+=("$f: ${before[i]} of $total pages cached before, $p after")
	fi
done
[ ${#bad[@]} = 0 ] || fail "page cache: ${#bad[@]} files: ${bad[*]:0:3}"
kept "some cached" $kept_half $whole
# the three cases were there
CHECKS=$((CHECKS + 1))
[ $whole -ge 50 ] && [ $part -ge 20 ] ||
	fail "setup: $whole files cached whole, $part in part before the run"
