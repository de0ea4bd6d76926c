# SPDX-License-Identifier: GPL-2.0
#
# Issue #56: the kernel is the oracle of exclusive space.
#
#   - a subvolume's "exclusive" is the "excl" of its level-0 qgroup after
#     a rescan (btrfs quota enable; btrfs quota rescan -w; btrfs qgroup
#     show --raw), its "qgroup_referenced" the "rfer"; exclusive_data +
#     exclusive_metadata == exclusive (data extents, tree blocks);
#   - a set of paths' exclusive_data is what deleting the set frees in
#     Data "Used" of btrfs filesystem usage.
#
# Sourced after common.sh by 054 and 055.  Every run of the program under
# test is in ours_subvols and ours_pathset below.
#
# Environment (stand-ins, while compsize does not do it yet):
#   QGROUP_PROTO    the issue's prototype (proto MOUNTPOINT: a header, then
#                   "id rfer excl [being deleted...]" a subvolume) instead of
#                   compsize --subvolumes: no data/metadata split and no
#                   paths, so those checks are left out ("-")
#   QGROUP_PATHSET  the reference prototype of exclusive_data of a set of
#                   paths (pathset.py IMG MNT PATH...: its last line
#                   "exclusive_data N") instead of compsize --exclusive, with
#                   QGROUP_PROTO; without it the path-set checks are left out

# ours_subvols OUTFILE MNT: a line a subvolume of the filesystem at MNT,
# by id: "id excl rfer excl_data excl_meta being_deleted path" (path
# JSON-quoted: "" for a subvolume being deleted; "-" where the stand-in
# has no figure).  Quotas must be off: what we report may not come from
# the kernel's accounting.  Our exit code must be 0.
ours_subvols()
{
	local out=$1 mnt=$2
	if btrfs qgroup show "$mnt" >/dev/null 2>&1; then
		echo "ours_subvols: quotas are on at $mnt" >&2
		return 1
	fi
	sync
	CHECKS=$((CHECKS + 1))
	if [ -n "${QGROUP_PROTO:-}" ]; then
		run_prog qg-ours "$QGROUP_PROTO" "$mnt"
		awk 'NR > 1 { print $1, $3, $2, "-", "-",
			($4 == "being" ? "true" : "false"), "-" }' \
			"$OUT/qg-ours.out" | sort -n >"$out"
	else
		run_ours qg-ours --subvolumes --format=json "$mnt"
		jq -r '.subvolumes[] | "\(.id) \(.total.exclusive) \(.total.qgroup_referenced) \(.total.exclusive_data) \(.total.exclusive_metadata) \(.being_deleted) \(.path | @json)"' \
			"$OUT/qg-ours.out" | sort -n >"$out"
	fi
	[ "$(cat "$OUT/qg-ours.rc")" = 0 ] && [ -s "$out" ] ||
		fail "ours on $mnt: exit $(cat "$OUT/qg-ours.rc"), $(wc -l <"$out") rows: $(head -c 500 "$OUT/qg-ours.err")"
}

# kernel_qgroups OUTFILE MNT: "id excl rfer" a level-0 qgroup, by id, after
# a rescan; quotas off again after.  Run it after ours, never before: the
# quota tree is gone when ours runs.
kernel_qgroups()
{
	local out=$1 mnt=$2
	btrfs quota enable "$mnt"
	btrfs quota rescan -w "$mnt" >/dev/null
	btrfs qgroup show --raw "$mnt" |
		awk '$1 ~ /^0\// { split($1, a, "/"); print a[2], $3, $2 }' |
		sort -n >"$out"
	btrfs quota disable "$mnt"
}

# fs_image MNT: the image file behind the loop device of MNT (read it,
# not the device: the loop driver writes through the file's page cache,
# btrfs past the device's).
fs_image()
{
	local dev
	dev=$(findmnt -no SOURCE --target "$1" | sed 's/\[.*//')
	losetup -nO BACK-FILE "$dev"
}

# fs_nodesize MNT, fs_sectorsize MNT: from the superblock.
_super_field()
{
	btrfs inspect-internal dump-super "$(fs_image "$1")" |
		awk -v f="$2" '$1 == f { print $2 }'
}
fs_nodesize() { _super_field "$1" nodesize; }
fs_sectorsize() { _super_field "$1" sectorsize; }

# check_qgroups LABEL OURS KERNEL MNT: every subvolume's exclusive and
# qgroup_referenced equal the kernel's to the byte, and the kernel has a
# qgroup for every row of ours not being deleted, and ours a row for every
# qgroup; exclusive_data + exclusive_metadata == exclusive, the metadata a
# whole number of tree blocks, the data of sectors.  A row being deleted
# has no qgroup (quotas were off when it was deleted): its figures are the
# caller's to check.
check_qgroups()
{
	local label=$1 ours=$2 kernel=$3 mnt=$4 ns ss
	local id excl rfer d m dead path kid kexcl krfer
	ns=$(fs_nodesize "$mnt")
	ss=$(fs_sectorsize "$mnt")
	while read -r id excl rfer d m dead path; do
		CHECKS=$((CHECKS + 1))
		read -r kid kexcl krfer < <(awk -v id="$id" '$1 == id' "$kernel") || true
		[ "$dead" = true ] || [ "$dead" = false ] ||
			fail "$label: subvolume $id $path: being_deleted is '$dead'"
		if [ "$dead" = true ]; then
			[ -z "$kid" ] ||
				fail "$label: subvolume $id being deleted, yet the kernel has qgroup 0/$id ($kexcl $krfer)"
		elif [ -z "$kid" ]; then
			fail "$label: subvolume $id $path: no qgroup 0/$id in the kernel"
		elif [ "$excl" != "$kexcl" ] || [ "$rfer" != "$krfer" ]; then
			fail "$label: subvolume $id $path: exclusive $excl qgroup_referenced $rfer, kernel excl $kexcl rfer $krfer"
		elif [ "${VERBOSE:-0}" = 1 ]; then
			echo "ok: $label: subvolume $id $path: excl $excl rfer $rfer (data $d, metadata $m)"
		fi
		[ "$d" != - ] || continue
		CHECKS=$((CHECKS + 1))
		if ! [[ $d =~ ^[0-9]+$ && $m =~ ^[0-9]+$ && $excl =~ ^[0-9]+$ ]]; then
			fail "$label: subvolume $id $path: exclusive_data '$d', exclusive_metadata '$m', exclusive '$excl'"
		elif [ $((d + m)) != "$excl" ]; then
			fail "$label: subvolume $id $path: exclusive_data $d + exclusive_metadata $m != exclusive $excl"
		elif [ $((m % ns)) != 0 ] || [ $((d % ss)) != 0 ]; then
			fail "$label: subvolume $id $path: exclusive_metadata $m not whole $ns-byte tree blocks or exclusive_data $d not whole $ss-byte sectors"
		fi
	done <"$ours"
	while read -r kid kexcl krfer; do
		CHECKS=$((CHECKS + 1))
		awk -v id="$kid" '$1 == id { f = 1 } END { exit !f }' "$ours" ||
			fail "$label: qgroup 0/$kid (excl $kexcl rfer $krfer): no row of ours"
	done <"$kernel"
}

# row OURS ID: the row of subvolume ID in an ours_subvols file.
row()
{
	awk -v id="$2" '$1 == id' "$1"
}

# ours_pathset OUTFILE MNT PATH...: "excl excl_data excl_meta" of the set
# of paths (compsize --exclusive), "-" where the stand-in has no figure.
ours_pathset()
{
	local out=$1 mnt=$2 dev img
	shift 2
	sync
	CHECKS=$((CHECKS + 1))
	if [ -n "${QGROUP_PROTO:-}" ]; then
		if [ -z "${QGROUP_PATHSET:-}" ]; then
			echo "- - -" >"$out"
			return 0
		fi
		img=$(fs_image "$mnt")
		echo 0 >"$OUT/qg-set.rc"
		"$PYTHON" "$QGROUP_PATHSET" "$img" "$mnt" "$@" >"$OUT/qg-set.out" \
			2>"$OUT/qg-set.err" || echo $? >"$OUT/qg-set.rc"
		awk '$1 == "exclusive_data" { print "-", $2, "-" }' "$OUT/qg-set.out" >"$out"
	else
		run_ours qg-set --exclusive --format=json "$@"
		jq -r '"\(.total.exclusive) \(.total.exclusive_data) \(.total.exclusive_metadata)"' \
			"$OUT/qg-set.out" >"$out"
	fi
	[ "$(cat "$OUT/qg-set.rc")" = 0 ] && [ -s "$out" ] ||
		fail "ours --exclusive $*: exit $(cat "$OUT/qg-set.rc"): $(head -c 500 "$OUT/qg-set.err")"
}

# fs_used MNT: "DATA METADATA", the Used of the Data and of the Metadata
# block groups (btrfs filesystem usage -b, the per-profile lines), once
# two reads a commit apart agree.  The per-profile Used is the bytes
# allocated to extents once, whatever the profile's copies (metadata is
# DUP here: its "Used" is a tree block's nodesize once, as a qgroup counts
# it; the Overall section's Used counts both copies).  A commit frees what
# the last transaction pinned; btrfs filesystem sync also wakes the
# cleaner.
fs_used()
{
	local prev=x cur i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		btrfs filesystem sync "$1"
		cur=$(btrfs filesystem usage -b "$1" 2>/dev/null | awk '
			/^(Data|Metadata),/ {
				match($0, /Used:[0-9]+/)
				v = substr($0, RSTART + 5, RLENGTH - 5)
				if ($1 ~ /^Data,/) d += v; else m += v
			}
			END { print d + 0, m + 0 }')
		[ "$cur" = "$prev" ] && break
		prev=$cur
		sleep 0.3
	done
	echo "$cur"
}

# other_blocks MNT: "TOTAL ROOT EXTENT DEV CSUM UUID FREE-SPACE BLOCK-GROUP
# DATA-RELOC", the tree blocks on disk (committed: fs_used first) of the
# trees in the Metadata block groups that are no subvolume's, which no
# qgroup counts.
other_blocks()
{
	local img t c n=0 all=
	img=$(fs_image "$1")
	for t in 1 2 4 7 9 10 11 data_reloc; do
		c=$(btrfs inspect-internal dump-tree -t "$t" "$img" 2>/dev/null |
			awk '($1 == "node" || $1 == "leaf") && / items / { n++ }
				END { print n + 0 }')
		n=$((n + c))
		all+=" $c"
	done
	echo "$n$all"
}

# dead_roots MNT: the ids of subvolumes deleted and not yet cleaned.
dead_roots()
{
	btrfs subvolume list -d "$1" | awk '{ print $2 }' | sort -n | xargs
}

# small_files DIR N SEED [MIN MAX]: N files DIR/fI of MIN..MAX (default
# 10..2000) seeded random bytes: inline extents (max_inline 2048).
small_files()
{
	"$PYTHON" - "$@" <<'EOF'
import os, random, sys
d, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lo, hi = (int(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) > 5 else (10, 2000)
r = random.Random(seed)
os.makedirs(d, exist_ok=True)
for i in range(n):
    with open(os.path.join(d, "f%d" % i), "wb") as f:
        f.write(r.randbytes(r.randint(lo, hi)))
EOF
}

# poke FILE FIRST STEP COUNT SEED: overwrite COUNT 4 KiB blocks of FILE
# (created if missing) with seeded random bytes, blocks FIRST, FIRST+STEP,
# ...: with STEP 2, a file of COUNT one-block extents; inside a big
# extent, bookends.
poke()
{
	"$PYTHON" - "$@" <<'EOF'
import os, random, sys
path, first, step, count, seed = sys.argv[1], *map(int, sys.argv[2:])
r = random.Random(seed)
fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
for i in range(count):
    os.pwrite(fd, r.randbytes(4096), (first + i * step) * 4096)
os.close(fd)
EOF
}
