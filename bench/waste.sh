#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What --waste and --find cost (issue #57), on a loop-mounted btrfs of
# FILES files of SIZE bytes of random data written under
# compress-force=zstd (extents of 128 KiB or more), each then overwritten
# with 4 KiB in every STEP bytes (a bookend in every extent), and a
# reflinked copy of half of them taken before the overwrites (their old
# extents stay whole: the backref walk must find the copy to tell).
# Prints one markdown table: median wall time of RUNS warm runs,
# alternating, and peak RSS, for the plain report, --waste (and with every
# extent covered in part sent to the backref walk, COMPSIZE_WASTE=backref),
# --find on the usage alone and --find on waste; and the bytes of peak RSS
# --waste adds per reference.  COPIES=0: no reflinked copies (every
# extent's references are in tree/).
#
#   FILES=400 SIZE=2M STEP=128K COPIES=1 RUNS=5 bench/waste.sh   (root)
set -eu -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

FILES=${FILES:-400}
SIZE=${SIZE:-2M}
STEP=${STEP:-128K}
RUNS=${RUNS:-5}
COPIES=${COPIES:-1}
OURS=${OURS:-$here/../compsize}
WORK=$(mktemp -d /tmp/compsize-bench-waste.XXXXXX)
IMG=$WORK/img
MNT=$WORK/mnt

cleanup()
{
	cd /
	mountpoint -q "$MNT" && umount "$MNT"
	rm -rf "$WORK"
}
trap cleanup EXIT

cc -O2 -std=gnu11 -D_GNU_SOURCE -o "$WORK/peak-rss" "$here/peak-rss.c"
truncate -s 4G "$IMG"
mkfs.btrfs -q -f "$IMG" >/dev/null
mkdir "$MNT"
mount -o loop,compress-force=zstd "$IMG" "$MNT"
mkdir "$MNT/tree" "$MNT/copies"
python3 - "$MNT" "$FILES" "$(numfmt --from=iec "$SIZE")" \
	"$(numfmt --from=iec "$STEP")" "$COPIES" <<'PY'
import fcntl, os, sys
mnt, files, size, step = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
copies = int(sys.argv[5])
FICLONE = 0x40049409
for i in range(files):
    with open(f'{mnt}/tree/f{i}', 'wb') as f:
        f.write(os.urandom(size))
os.sync()
for i in range(0, files if copies else 0, 2):
    with open(f'{mnt}/tree/f{i}', 'rb') as s, open(f'{mnt}/copies/f{i}', 'wb') as d:
        fcntl.ioctl(d.fileno(), FICLONE, s.fileno())
for i in range(files):
    fd = os.open(f'{mnt}/tree/f{i}', os.O_WRONLY)
    for off in range(step // 2, size, step):
        os.pwrite(fd, os.urandom(4096), off // 4096 * 4096)
    os.close(fd)
os.sync()
PY
sync

# one CASE ARGS...: RUNS warm runs; prints a table row
declare -A wall rss
cases=(plain waste waste-walk find-usage find-waste)
args_of()
{
	case $1 in
	plain) echo "" ;;
	waste) echo "--waste" ;;
	waste-walk) echo "--waste" ;;
	find-usage) echo "--find=type=none,size>1M" ;;
	find-waste) echo "--find=waste>0" ;;
	esac
}
"$OURS" "$MNT/tree" >/dev/null	# warm
for ((r = 0; r < RUNS; r++)); do
	for c in "${cases[@]}"; do
		# shellcheck disable=SC2046
		t0=$(now_us)
		w=
		[ "$c" != waste-walk ] || w=backref
		COMPSIZE_WASTE=$w "$WORK/peak-rss" -o "$WORK/hwm" "$OURS" \
			$(args_of "$c") "$MNT/tree" >"$WORK/$c.out"
		t1=$(now_us)
		wall[$c]+="$((t1 - t0)) "
		rss[$c]+="$(cat "$WORK/hwm") "
	done
done
"$OURS" --waste --format=json "$MNT/tree" >"$WORK/json"
refs=$(jq .refs "$WORK/json")
echo "$(date -u +%F) $(uname -r), loadavg $(loadavg), $FILES files of $SIZE, 4K overwritten every $STEP, $([ "$COPIES" = 1 ] && echo "half reflinked first" || echo "no copies")"
echo "files $(jq .files "$WORK/json"), extents $(jq .extents "$WORK/json"), refs $refs, waste $(jq .total.waste "$WORK/json") bytes, disk $(jq .total.disk "$WORK/json") bytes"
echo
echo "| case | wall (median of $RUNS) | peak RSS |"
echo "|---|---:|---:|"
for c in "${cases[@]}"; do
	w=$(tr ' ' '\n' <<<"${wall[$c]}" | grep . | median)
	m=$(tr ' ' '\n' <<<"${rss[$c]}" | grep . | median)
	e=
	[ "$c" != waste-walk ] || e='COMPSIZE_WASTE=backref '
	printf '| `%scompsize %s tree/` | %.3f s | %s KiB |\n' "$e" "$(args_of "$c")" \
		"$(echo "$w / 1000000" | bc -l)" "$m"
done
w0=$(tr ' ' '\n' <<<"${rss[plain]}" | grep . | median)
w1=$(tr ' ' '\n' <<<"${rss[waste]}" | grep . | median)
echo
echo "--waste adds $(( (w1 - w0) * 1024 / refs )) bytes of peak RSS a reference ($((w1 - w0)) KiB for $refs)."
