#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto robust kernel san
# A nested subvolume deleted while compsize reads the tree (issue #56:
# snapper, timeshift or btrbk pruning a snapshot on a timer).  The shim
# vanish.c, preloaded, deletes it from inside compsize at a fixed point of
# the reading (the first search of its tree, or a later one), so the race
# is the same on every run.  What vanished is left out with one warning
# naming it, "compsize: PATH: subvolume deleted during the scan", and the
# exit status stays 0, as for a file the walk finds gone; every other
# subvolume is counted: the output is what ours prints of the tree once
# it is gone, and the plain report compsize 1.5's.  On the fast scan and
# on --walk, for the report, --exclusive, --depth and --per-file rows and
# --subvolumes (whose listing may meet a subvolume already cleaned).  A
# subvolume deleted half read keeps what was read: the warning, exit 0,
# and at least every other file counted.
. "$(dirname "$0")/../common.sh"

HERE=$_CLI_DIR/119-subvol-vanishes
SHIM=$TESTDIR/vanish.so
"${CC:-cc}" -O2 -Wall -shared -fPIC -o "$SHIM" "$HERE/vanish.c" -ldl ||
	skip "cannot build the preload shim (${CC:-cc})"
# ASan wants its runtime first among the preloaded libraries.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

setup_fs compress-force=zstd:3
# src, outside top, is what every snapshot is taken of: thousands of small
# files (inline) and a few with extents.  Inside top: a directory of its
# own files, a snapshot, a subvolume holding a snapshot, and the snapshot
# most often deleted, two directories down (found last in top's tree: the
# fast scan reads it first of the nested ones).
btrfs -q subvolume create src
btrfs -q subvolume create top
"$PYTHON" - <<'EOF'
import os
for root, n in (("src/x", 2000), ("top/d", 1500)):
    os.makedirs(root)
    for i in range(n):
        with open("%s/f%04d" % (root, i), "w") as f:
            f.write(("%s %d " % (root, i)) * (1 + i % 40))
EOF
text_data 300K >src/text
random_data 100K >src/random
text_data 200K >top/d/text
btrfs -q subvolume snapshot src top/suba
btrfs -q subvolume create top/subb
text_data 100K >top/subb/own
mkdir -p top/p/q
text_data 50K >top/p/q/own
sync

# and one whose name the warning must escape
ODD=top/p/q/$'new\nline'
VICTIMS=(top/p/q/victim top/subb/inner "$ODD")
victims_back()
{
	local v

	for v in "${VICTIMS[@]}"; do
		[ -e "$v" ] || btrfs -q subvolume snapshot src "$v"
	done
	sync
}

# vanish_run LABEL VICTIM ARGS...: ours on ARGS, VICTIM deleted by the
# shim as VANISH_AT and VANISH_ON say; it must have been deleted.
vanish_run()
{
	local label=$1 victim=$2
	shift 2
	VANISH_PATH=$MNT/$victim \
	VANISH_ID=$(btrfs inspect-internal rootid "$victim") \
	VANISH_DEV=$(stat -c %d "$victim") \
	LD_PRELOAD=$SHIM run_prog "$label" "$COMPSIZE" "$@"
	CHECKS=$((CHECKS + 1))
	if [ -e "$victim" ]; then
		fail "compsize $(_quote_args "$@"): $victim was not deleted"
		return 1
	fi
}

# warned LABEL VICTIM ARGS...: exit 0 and the one warning.
warned()
{
	local label=$1 victim=$2 rc
	shift 2
	rc=$(cat "$OUT/$label.rc")
	CHECKS=$((CHECKS + 1))
	[ "$rc" = 0 ] || fail "compsize $(_quote_args "$@"): exit $rc, expected 0"
	printf 'compsize: %s: subvolume deleted during the scan\n' \
		"$(escape_name "$victim")" >"$OUT/warning"
	CHECKS=$((CHECKS + 1))
	if ! cmp -s "$OUT/warning" "$OUT/$label.err"; then
		fail "compsize $(_quote_args "$@"): stderr is not the one warning"
		diff -u --label expected --label ours "$OUT/warning" \
			"$OUT/$label.err" >&2 || true
	fi
}

# vanishes VICTIM ARGS...: on the fast scan and on --walk, VICTIM deleted
# at the first search that reads it (or as VANISH_AT and VANISH_ON say):
# exit 0, the one warning, and stdout what ours prints on ARGS once it is
# gone; with no option but -b, compsize 1.5's stdout too.
vanishes()
{
	local victim=$1 walk plain=1 a
	shift
	for a in "$@"; do
		[[ $a != -* || $a = -b ]] || plain=0
	done
	for walk in "" --walk; do
		victims_back
		vanish_run vanish "$victim" $walk "$@" || continue
		warned vanish "$victim" $walk "$@"
		sync
		run_prog after "$COMPSIZE" $walk "$@"
		CHECKS=$((CHECKS + 1))
		if ! cmp -s "$OUT/after.out" "$OUT/vanish.out"; then
			fail "compsize $(_quote_args $walk "$@"): not the report of the tree without $victim"
			diff -u --label "once gone" --label "deleted during it" \
				"$OUT/after.out" "$OUT/vanish.out" >&2 || true
		fi
		[ "$plain" = 1 ] || continue
		run_prog oracle "$ORACLE" "$@"
		CHECKS=$((CHECKS + 1))
		if ! cmp -s "$OUT/oracle.out" "$OUT/vanish.out"; then
			fail "compsize $(_quote_args $walk "$@"): not compsize 1.5's report of the tree without $victim"
			diff -u --label "compsize 1.5" --label "ours" \
				"$OUT/oracle.out" "$OUT/vanish.out" >&2 || true
		fi
	done
}

# The default report, --exclusive, the rows: the victim two directories
# down (its path from its ROOT_REF) and one level deeper, in a nested
# subvolume (the path through that one's).
vanishes top/p/q/victim top
vanishes top/p/q/victim -b top
vanishes top/subb/inner -b top
vanishes top/p/q/victim --exclusive -b top
vanishes top/subb/inner --exclusive --format=json top
vanishes top/p/q/victim --depth=1 -b top
vanishes top/subb/inner --depth=1 --format=csv top
vanishes top/p/q/victim --per-file --depth=3 -b top
vanishes top/subb/inner --per-file -b top/subb
# a directory below a subvolume's root: the path from that directory
vanishes top/p/q/victim -b top/p
vanishes "$ODD" -b top

# --subvolumes: a row for each other subvolume.  Deleted as its row is
# about to be read, and deleted and cleaned away once the listing met it
# (the look-up of its root item then finds nothing).  The Exclusive
# column is the kernel's figures as they were before the deletion (what
# the victim shared becomes the others' own once it is cleaned): left out
# of the comparison, and so are the rows of subvolumes deleted earlier
# that the cleaner had not dropped yet then.
no_exclusive()
{
	awk '/<being deleted>$/ { next }
	     /^Type/ { types = 1 }
	     $1 ~ /^[0-9]+$/ && NF >= 9 { $8 = "" }
	     types && $1 != "Type" && NF { $NF = "" }
	     { print }' "$1"
}
victims_back
vanish_run sv top/subb/inner --subvolumes -b top || true
warned sv /top/subb/inner --subvolumes -b top
btrfs filesystem sync top	# else --subvolumes waits for the commit
run_prog after "$COMPSIZE" --subvolumes -b top
CHECKS=$((CHECKS + 1))
cmp -s <(no_exclusive "$OUT/after.out") <(no_exclusive "$OUT/sv.out") ||
	fail "--subvolumes: not the rows of the subvolumes left: $(diff <(no_exclusive "$OUT/after.out") <(no_exclusive "$OUT/sv.out") || true)"
victims_back
VANISH_ON=info vanish_run sv top/p/q/victim --subvolumes --exclusive -b top || true
warned sv /top/p/q/victim --subvolumes --exclusive -b top
btrfs filesystem sync top
run_prog after "$COMPSIZE" --subvolumes --exclusive -b top
CHECKS=$((CHECKS + 1))
cmp -s <(no_exclusive "$OUT/after.out") <(no_exclusive "$OUT/sv.out") ||
	fail "--subvolumes --exclusive: not the rows of the subvolumes left: $(diff <(no_exclusive "$OUT/after.out") <(no_exclusive "$OUT/sv.out") || true)"
# --exclusive reads every other subvolume: one cleaned away as it lists
# them is left out
victims_back
VANISH_ON=info vanish_run ex top/p/q/victim --exclusive -b top/d || true
CHECKS=$((CHECKS + 1))
# (the deletion is not committed yet: the inline data in the leaves it
# touched is said to count as shared until the commit)
[ "$(cat "$OUT/ex.rc")" = 0 ] &&
	! grep -v '^compsize: --exclusive: changes not yet committed: ' "$OUT/ex.err" ||
	fail "--exclusive: a subvolume gone as the others are listed: exit $(cat "$OUT/ex.rc"), $(cat "$OUT/ex.err")"
run_prog after "$COMPSIZE" --exclusive -b top/d
CHECKS=$((CHECKS + 1))
cmp -s "$OUT/after.out" "$OUT/ex.out" ||
	fail "--exclusive: another report than with the subvolume gone"

# Deleted half read: at the fast scan's tenth search of its tree (the first
# ones are its directory's entries), the walk's 300th file in it.  What was
# read stays counted; every other file is.
for walk in "" --walk; do
	victims_back
	run_prog before "$COMPSIZE" -b top
	at=10
	[ -z "$walk" ] || at=300
	VANISH_AT=$at vanish_run half top/p/q/victim $walk -b top || continue
	warned half top/p/q/victim $walk -b top
	run_prog after "$COMPSIZE" -b top
	lo=$(numbers after) hi=$(numbers before) got=$(numbers half)
	lo=${lo%% *} hi=${hi%% *} got=${got%% *}
	[ "${VERBOSE:-0}" = 1 ] &&
		echo "$walk deleted half read: $got files ($lo to $hi)" >&2
	CHECKS=$((CHECKS + 1))
	[ -n "$got" ] && [ "$got" -ge "$lo" ] && [ "$got" -le "$hi" ] ||
		fail "compsize $(_quote_args $walk -b top), its victim deleted half read: $got files, not $lo to $hi"
done
