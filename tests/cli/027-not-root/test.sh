#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick errors san
# Deliberate improvement: without CAP_SYS_ADMIN, TREE_SEARCH_V2 fails with
# EPERM; ours says it needs root and exits 1.  compsize 1.5 prints
# "PATH: SEARCH_V2: Operation not permitted" (or "PATH: Permission denied"
# then "No files." for an unreadable directory).
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir private public
text_data 1M >private/file
text_data 1M >public/file
chmod 700 private
chmod 755 public . "$TESTDIR"
chmod 644 public/file

[ "$(setpriv --reuid=65534 --regid=65534 --clear-groups id -u)" = 65534 ]

COMPSIZE=$(as_nobody "$COMPSIZE")

expect_ours 1 'needs root \(CAP_SYS_ADMIN\)' private
ours_stdout_is ""
expect_ours 1 'needs root \(CAP_SYS_ADMIN\)' public
ours_stdout_is ""
expect_ours 1 'needs root \(CAP_SYS_ADMIN\)' -b public/file
ours_stdout_is ""
# --exclusive reads the rest of the filesystem's metadata: root too, also
# with --estimate (which alone works as any user)
expect_ours 1 'needs root \(CAP_SYS_ADMIN\)' --exclusive public
ours_stdout_is ""
expect_ours 1 'needs root \(CAP_SYS_ADMIN\)' --exclusive -e zstd:1 public
ours_stdout_is ""
# Prometheus and ncdu print what they can, as JSON does: the metrics with
# the arguments counted as read errors, the tree with each one marked.
expect_ours 1 'needs root \(CAP_SYS_ADMIN\)' --format=prometheus public private
CHECKS=$((CHECKS + 1))
grep -qx 'compsize_read_errors 2' "$OUT/ours.out" || fail "prometheus as nobody: $(cat "$OUT/ours.out")"
if command -v promtool >/dev/null; then
	promtool check metrics <"$OUT/ours.out" >&2 || fail "promtool: metrics as nobody"
fi
expect_ours 1 'needs root \(CAP_SYS_ADMIN\)' --format=ncdu public
CHECKS=$((CHECKS + 1))
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d[3][1] == {"name": "public", "read_error": True}, d' \
	"$OUT/ours.out" || fail "ncdu as nobody: $(cat "$OUT/ours.out")"
