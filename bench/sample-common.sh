# SPDX-License-Identifier: GPL-2.0
# Sourced by bench/sample-auto.sh and bench/sample-real.sh: their
# arguments, [COMPSIZE] PATH SETTINGS, into COMPSIZE, TREE and SETTINGS
# (SEEDS defaulting to $1, BEFORE from the environment), jq checked, a
# temporary directory $work removed at exit, and in $work/full.json the
# full estimate of TREE under SETTINGS (--no-sample: the truth, never a
# sample however long it takes; it also brings the files into the cache).
# shellcheck shell=bash disable=SC2034

sample_setup()
{
	SEEDS=${SEEDS:-$1}
	shift
	COMPSIZE=./compsize
	if [ $# = 3 ]; then
		COMPSIZE=$1
		shift
	fi
	[ $# = 2 ] || { echo "usage: $0 [COMPSIZE] PATH SETTINGS" >&2; exit 2; }
	TREE=$1
	SETTINGS=$2
	BEFORE=${BEFORE:-}
	command -v jq >/dev/null || { echo "$0: needs jq" >&2; exit 2; }
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	"$COMPSIZE" -b -e "$SETTINGS" --no-sample --format=json "$TREE" \
		>"$work/full.json" 2>/dev/null
}
