#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto estimate kernel san
#
# Kernel oracle for --rewrite (rewrite.h): on a filesystem written under
# compress=zstd:1 with a subvolume holding a corpus, hard links, a
# reflinked copy, a read-only snapshot of it all, a file reflinked from
# another subvolume, a directory written after the snapshot (whose old
# extents the rewrite frees) and a nested subvolume (defragment -r does not
# enter it: FTW_MOUNT), `compsize -e SETTINGS --rewrite` on the
# subvolume predicts how the whole filesystem's Disk Usage (compsize 1.5
# on all of it) changes when the real `btrfs filesystem defragment -r -c`
# runs on it, each setting on its own copy of the image.  btrfs-progs
# before 6.14 passes no level: -czstd is zstd:3, -czlib zlib:3.
# Where the rewrite leaves items in place: 1 MB of text then 0.98 MB of
# random bytes, the last raw in extents of 512 KiB contiguous on disk,
# the last of which defrag leaves past its first 256 KiB cluster
# (rewrite.c defrag_stop()); the same with a second name, in a directory
# defrag walks long before (its second pass rewrites the rest), and as
# the subvolume's newest file (its last item ends the tree: rewritten
# whole); a preallocated extent written in part, which its
# preallocated ranges keep; and text files of 3000 bytes flagged
# nocompress, in a sector each, with four names: defrag compresses them
# inline, counted at each name.
# Target: within 1% of the change measured.
#
# Usage (as root): bash tests/cli/estimate/rewrite.sh
# Environment: COMPSIZE, ORACLE, KEEP=1 as in sharing.sh.
# Exit status: 0 all targets met, 1 a target missed, 2 setup failure.

NAME=rewrite.sh
. "$(dirname "$0")/lib.sh"
A=compress=zstd:1

c=$tmp/corpus
text_files "$c/text" 200
cat "$c"/text/* | head -c 1500000 >"$c/big-text"
head -c 1000000 /usr/bin/bash >"$c/bash-head" || die "no /usr/bin/bash"
head -c 500000 /dev/urandom >"$c/random"
{ head -c 300000 "$c/big-text"; head -c 300000 /dev/urandom; } >"$c/half"

# tail_file PATH: text, then random bytes written raw in extents of
# 512 KiB (compress='s pieces), the last one longer than 256 KiB
tail_file()
{
	{ head -c 1000000 "$c/big-text"; head -c 982464 /dev/urandom; } >"$1"
}

truncate -s 512M "$tmp/img" && mkfs.btrfs -q -f "$tmp/img" >/dev/null 2>&1 &&
	mount -o "loop,$A" "$tmp/img" "$mnt" || die "cannot mount a btrfs image"
m=$mnt
btrfs -q subvolume create "$m/sv" >/dev/null &&
	btrfs -q subvolume create "$m/other" >/dev/null &&
	cp -a "$c" "$m/sv/a" &&
	ln "$m/sv/a/bash-head" "$m/sv/bash.l1" &&
	cp -a --reflink=always "$m/sv/a" "$m/sv/b" &&
	cp --reflink=always "$m/sv/a/big-text" "$m/other/big-text.ref" &&
	sync && btrfs -q subvolume snapshot -r "$m/sv" "$m/snap" >/dev/null &&
	cp -a "$c" "$m/sv/after" &&
	fallocate -l 1M "$m/sv/after/prealloc" &&
	dd if="$c/big-text" of="$m/sv/after/prealloc" bs=256K seek=1 count=1 \
		conv=notrunc status=none &&
	tail_file "$m/sv/after/tail" && tail_file "$m/sv/after/tail.l1" &&
	ln "$m/sv/after/tail.l1" "$m/sv/a/tail.l2" &&
	for i in $(seq 0 39); do
		f=$m/sv/after/nocomp$i
		touch "$f" && chattr +m "$f" &&
			head -c 3000 "$c/text/t$i" >"$f" &&
			ln "$f" "$f.2" && ln "$f" "$f.3" && ln "$f" "$f.4" ||
			die "building the layout failed"
	done &&
	tail_file "$m/sv/after/tail.newest" &&
	btrfs -q subvolume create "$m/sv/nested" >/dev/null &&
	cp -a "$c/big-text" "$c/half" "$m/sv/nested" &&
	sync || die "building the layout failed"

settings=(zstd:3 lzo zlib:3)
list=$(IFS=,; echo "${settings[*]}")
"$COMPSIZE" -e "$list" --rewrite --format=json "$m/sv" >"$tmp/est.json" \
	2>"$tmp/est.err" || { cat "$tmp/est.err" >&2; die "compsize failed"; }
[ -s "$tmp/est.err" ] && { cat "$tmp/est.err" >&2; die "compsize warned"; }
umount "$mnt"


failed=0
printf '%-18s %12s %12s %9s\n' setting predicted kernel error
for s in "${settings[@]}"; do
	alg=${s%%:*}
	pred=$(jq -r --arg s "compress=$s" \
		'.estimates[] | select(.setting == $s) | .rewrite_change' \
		"$tmp/est.json")
	fresh=$(jq -r --arg s "compress=$s" \
		'.estimates[] | select(.setting == $s) | .disk_fresh' \
		"$tmp/est.json")
	cp --sparse=always "$tmp/img" "$tmp/img2" &&
		mount -o "loop,$A" "$tmp/img2" "$mnt" || die "mount failed"
	before=$(usage "$mnt")
	btrfs filesystem defragment -r "-c$alg" "$mnt/sv" ||
		die "defragment -c$alg failed"
	sync
	after=$(usage "$mnt")
	umount "$mnt"
	rm -f "$tmp/img2"
	kernel=$((after - before))
	res=$(awk -v p="$pred" -v k="$kernel" -v f="$fresh" 'BEGIN {
		d = p - k; if (d < 0) d = -d
		base = k < 0 ? -k : k
		printf "%+.3f %s", (p - k) * 100 / (k ? (k < 0 ? -k : k) : 1),
			d <= base / 100 ? "ok" : "FAIL"
	}')
	printf '%-18s %12s %12s %9s%% %s\n' "$s" "$pred" "$kernel" ${res% *} \
		"${res#* }"
	[ "${res#* }" = ok ] || failed=$((failed + 1))
done
echo "rewrite: ${#settings[@]} checks, $failed failed"
[ $failed = 0 ]
