# SPDX-License-Identifier: GPL-2.0
# Helpers of the tests of the usage report without root (121, 122; issue
# #59, docs/rootless.md), sourced after common.sh.

NOBODY=$(as_nobody "$COMPSIZE")
chmod 755 "$TESTDIR"

# check_tree DIR TOTAL_PCT TYPE_PCT [ARGS...]: ours as nobody (with ARGS)
# against compsize 1.5 as root on DIR (rootless_compare.py): files,
# inline extents, Uncompressed and Referenced equal, Disk Usage within
# TOTAL_PCT% in TOTAL and TYPE_PCT% in each type.
check_tree()
{
	local dir=$1 tot=$2 typ=$3
	shift 3
	sync
	run_prog oracle "$ORACLE" -b "$dir"
	COMPSIZE=$NOBODY run_ours ours -b "$@" "$dir"
	CHECKS=$((CHECKS + 1))
	[ "$(cat "$OUT/ours.rc")" = 0 ] || fail "$dir: exit $(cat "$OUT/ours.rc")"
	"$PYTHON" "$_CLI_DIR/rootless_compare.py" "$OUT/oracle.out" \
		"$OUT/ours.out" "$tot" "$typ" >&2 ||
		fail "$dir ($*): against compsize 1.5 as root"
}

# stderr_says REGEX: the first line on stderr (where the figures come from)
stderr_says()
{
	CHECKS=$((CHECKS + 1))
	head -n1 "$OUT/ours.err" | grep -q -- "$1" ||
		fail "stderr: wanted '$1', got: $(head -n1 "$OUT/ours.err")"
}

# mktree DIR SEED [FILES]: plain copies (rootless_tree.py), readable by all
mktree()
{
	_CLI_DIR=$_CLI_DIR "$PYTHON" "$_CLI_DIR/rootless_tree.py" "$@"
	chmod -R a+rX "$1"
}
