#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto robust sample
# SIGUSR1 (print the statistics so far) never ends the run, whenever it
# comes (issue #60: --sample's first pass ran with its default action,
# which ends the process, status 138).  Deterministic: the signal is sent,
# again and again until the process is gone, from the moment it has a file
# of the tree open, which is after anything else main() does first; run
# as nobody, the first pass lists the tree with fstatat() and lasts long
# enough to be seen.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
# 12,800 paths cheaply: 200 small files, then hard-linked copies doubling.
linked_tree sig 6
text_data 1M >sig/text
sync
NOBODY=$(as_nobody "$COMPSIZE")

# usr1_early ARGS...: SIGUSR1 from the first open file of the tree on.
usr1_early()
{
	local rc=0 seen=0 sent=0 fd link
	CHECKS=$((CHECKS + 1))
	env --default-signal=USR1 "$NOBODY" "$@" >"$OUT/sig.out" 2>"$OUT/sig.err" </dev/null &
	PID=$!
	while kill -0 "$PID" 2>/dev/null; do
		if [ "$seen" = 0 ]; then
			for fd in /proc/"$PID"/fd/*; do
				link=$(readlink "$fd" 2>/dev/null) || continue
				case $link in
				"$MNT"/* | "$MNT") seen=1; break ;;
				esac
			done
		fi
		if [ "$seen" = 1 ]; then
			kill -USR1 "$PID" 2>/dev/null && sent=$((sent + 1))
			sleep 0.02
		fi
	done
	wait "$PID" || rc=$?
	[ "$sent" -gt 0 ] || fail "SIGUSR1 $3: no file of the tree seen open; make the tree bigger"
	if [ "$rc" = 138 ]; then
		fail "SIGUSR1 $3: killed by the signal (status 138) after $sent signals"
	elif [ "$rc" != 0 ]; then
		{ fail "SIGUSR1 $3: exit status $rc"; head -n 5 "$OUT/sig.err" >&2; }
	fi
	[ "${VERBOSE:-0}" = 1 ] && echo "SIGUSR1 $1 $2 $3: $sent signals, status $rc" >&2
	return 0
}
# The tree given many times: a first pass of a second or so.
mapfile -t MANY < <(for ((i = 0; i < 40; i++)); do echo sig; done)
usr1_early -e zstd:1 --sample=1% --seed=1 "${MANY[@]}"
usr1_early -e zstd:1 --sample=auto --precision=5% --seed=1 "${MANY[@]}"
