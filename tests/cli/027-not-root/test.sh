#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick errors san
# Deliberate improvement: without CAP_SYS_ADMIN, TREE_SEARCH_V2 fails with
# EPERM; compsize 1.5 prints "PATH: SEARCH_V2: Operation not permitted"
# (or "PATH: Permission denied" then "No files." for an unreadable
# directory).  Ours reports from FIEMAP, saying so first (121 checks the
# figures against compsize 1.5 as root); what needs the rest of the
# filesystem's metadata (--exclusive, --subvolumes) still needs root, and
# says so.
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

expect_ours 1 '*' private
ours_stderr_is 'compsize: private: Permission denied
No files.'
ours_stdout_is ""
expect_ours 0 '^compsize: public: not root: usage from FIEMAP; .* at zstd:3 \(the mount option\)$' public
CHECKS=$((CHECKS + 1))
grep -q '^TOTAL ' "$OUT/ours.out" || fail "no report as nobody: $(cat "$OUT/ours.out")"
# --exclusive reads the rest of the filesystem's metadata: root, also
# with --estimate
expect_ours 1 'needs root \(CAP_SYS_ADMIN\)' --exclusive public
ours_stdout_is ""
expect_ours 1 'needs root \(CAP_SYS_ADMIN\)' --exclusive -e zstd:1 public
ours_stdout_is ""
# Prometheus and ncdu print what they can: the metrics with the private
# directory counted as a read error, the tree with it marked.
expect_ours 1 '*' --format=prometheus public private
CHECKS=$((CHECKS + 1))
grep -qx 'compsize_read_errors 1' "$OUT/ours.out" || fail "prometheus as nobody: $(cat "$OUT/ours.out")"
if command -v promtool >/dev/null; then
	promtool check metrics <"$OUT/ours.out" >&2 || fail "promtool: metrics as nobody"
fi
expect_ours 1 '*' --format=ncdu private
CHECKS=$((CHECKS + 1))
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d[3][1] == {"name": "private", "read_error": True}, d' \
	"$OUT/ours.out" || fail "ncdu as nobody: $(cat "$OUT/ours.out")"
