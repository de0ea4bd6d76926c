# SPDX-License-Identifier: GPL-2.0
#
# The definition of exclusive space, computed with compsize 1.5 itself:
#
#   exclusive(S) = Disk(every file) - Disk(every file outside S)
#
# Sourced after common.sh.  $MNT must be the filesystem's top level
# (subvolid=5, as setup_fs mounts it) so that every subvolume and snapshot
# is a path below it; S is given as paths relative to $MNT (the tests run
# there).

shopt -s dotglob nullglob

# _in_set PATH: is the absolute PATH one of $EXCL_SET or below one?
_in_set()
{
	local s
	for s in "${EXCL_SET[@]}"; do
		[[ $1 == "$s" || $1 == "$s"/* ]] && return 0
	done
	return 1
}

# _above_set PATH: does some member of $EXCL_SET lie below PATH?
_above_set()
{
	local s
	for s in "${EXCL_SET[@]}"; do
		[[ $s == "$1"/* ]] && return 0
	done
	return 1
}

# _cover DIR: print (NUL-terminated) the entries that cover everything
# below DIR outside $EXCL_SET.
_cover()
{
	local e
	for e in "$1"/*; do
		_in_set "$e" && continue
		if [ -d "$e" ] && [ ! -L "$e" ] && _above_set "$e"; then
			_cover "$e"
		else
			printf '%s\0' "$e"
		fi
	done
}

# outside_paths S...: the paths covering every file of the filesystem
# outside S (absolute, NUL-terminated).
outside_paths()
{
	local p
	EXCL_SET=()
	for p in "$@"; do
		EXCL_SET+=("$(realpath -s -m "$MNT/$p")")
	done
	_cover "$MNT"
}

# oracle_types LABEL PATH...: "TYPE DISK" lines (TOTAL first) of compsize
# 1.5 -b over the paths; none when there are no paths or no data.
oracle_types()
{
	local label=$1
	shift
	if [ $# -eq 0 ]; then
		: >"$OUT/$label.types"
		return
	fi
	"$ORACLE" -b "$@" >"$OUT/$label.out" 2>"$OUT/$label.err" || true
	awk 'p { print $1, $3 } /^Type/ { p = 1 }' "$OUT/$label.out" \
		>"$OUT/$label.types"
}

# expected_exclusive S...: "TYPE BYTES" lines, TOTAL first then every type
# of the whole filesystem, by the definition.
expected_exclusive()
{
	local -a outside
	mapfile -d '' outside < <(outside_paths "$@")
	oracle_types excl-all "$MNT"
	oracle_types excl-outside "${outside[@]}"
	awk 'FILENAME == ARGV[1] { out[$1] = $2; next } { print $1, $2 - out[$1] }' \
		"$OUT/excl-outside.types" "$OUT/excl-all.types"
}

# ours_exclusive ARGS...: the same lines from our --exclusive JSON report
# (types with no exclusive bytes may be missing), into
# $OUT/excl-ours.lines; the same on --walk (run_ours).
ours_exclusive()
{
	run_ours excl-ours --exclusive --format=json "$@"
	jq -r '"TOTAL \(.total.exclusive)", (.types[] | "\(.type) \(.exclusive)")' \
		"$OUT/excl-ours.out" >"$OUT/excl-ours.lines"
}

# check_exclusive [OPTIONS --] S...: our total and per-type exclusive bytes
# equal the definition's, exactly.  OPTIONS (-x, --walk) go to ours only.
check_exclusive()
{
	local -a opts=()
	if [[ " $* " == *" -- "* ]]; then
		while [ "$1" != -- ]; do
			opts+=("$1")
			shift
		done
		shift
	fi
	local want got
	CHECKS=$((CHECKS + 1))
	want=$(expected_exclusive "$@")
	ours_exclusive "${opts[@]}" "$@"
	got=$(cat "$OUT/excl-ours.lines")
	# every type we report must match; types we omit must be 0
	if ! awk 'NR == FNR { got[$1] = $2; next }
		  ($1 in got) { if (got[$1] != $2) bad = 1; delete got[$1]; next }
		  $2 != 0 { bad = 1 }
		  END { for (t in got) if (got[t] != 0) bad = 1; exit bad }' \
		<(echo "$got") <(echo "$want"); then
		fail "exclusive ${opts[*]} $*: ours [$(echo $got)] definition [$(echo $want)]"
		cat "$OUT/excl-ours.err" >&2
	elif [ "${VERBOSE:-0}" = 1 ]; then
		echo "ok: exclusive ${opts[*]} $*: $(echo $want)"
	fi
}

# check_exclusive_each S...: check_exclusive by each exact method alone
# (COMPSIZE_SHARING: reading the other subvolumes, the kernel's backref
# walk) and by their measured mix.
check_exclusive_each()
{
	local m
	for m in auto read backref; do
		export COMPSIZE_SHARING=$m
		check_exclusive "$@"
	done
	unset COMPSIZE_SHARING
}

# check_rows OPTIONS -- S...: every row of our --exclusive report (e.g.
# --depth=1, --per-file) has the definition's exclusive bytes for its own
# path alone; and the total is the definition's for S.
check_rows()
{
	local -a opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	local row want got n=0
	CHECKS=$((CHECKS + 1))
	run_ours rows --exclusive --format=json "${opts[@]}" "$@"
	cp "$OUT/rows.out" "$OUT/rows.json"
	while IFS=$'\t' read -r row got; do
		want=$(expected_exclusive "$row" | awk '$1 == "TOTAL" { print $2 }')
		[ -n "$want" ] || want=0
		if [ "$got" != "$want" ]; then
			fail "row $row of ${opts[*]} $*: ours $got, definition $want"
		fi
		n=$((n + 1))
	done < <(jq -r '.paths[] | "\(.path)\t\(.total.exclusive)"' "$OUT/rows.json")
	[ "$n" -gt 0 ] || fail "no rows from ${opts[*]} $*"
	want=$(expected_exclusive "$@" | awk '$1 == "TOTAL" { print $2 }')
	got=$(jq -r .total.exclusive "$OUT/rows.json")
	[ "$got" = "$want" ] || fail "total of ${opts[*]} $*: ours $got, definition $want"
}

# snapshot_story: the "which snapshot should I delete?" example's story,
# small, in the current directory: home (a subvolume) snapshotted
# read-only to snapshots/monday, then tuesday after a VM image came,
# then wednesday after it went and a video was deleted.
snapshot_story()
{
	btrfs -q subvolume create home >/dev/null
	mkdir -p home/alice snapshots
	for i in $(seq 1 40); do text_data $((i * 997)) >home/alice/doc$i; done
	random_data 400K >home/alice/video.mkv
	sync
	btrfs -q subvolume snapshot -r home snapshots/monday >/dev/null
	random_data 1200K >home/alice/vm.img
	sync
	btrfs -q subvolume snapshot -r home snapshots/tuesday >/dev/null
	rm home/alice/vm.img
	for i in $(seq 1 20); do text_data $((i * 1499)) >home/alice/man$i; done
	sync
	btrfs -q subvolume snapshot -r home snapshots/wednesday >/dev/null
	rm home/alice/video.mkv
	sync
}
