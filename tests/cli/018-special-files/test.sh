#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report san
# FIFOs, device nodes and sockets inside the tree are skipped; as arguments
# they are opened (non-blocking) and ignored.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir tree
text_data 1M >tree/file
mkfifo tree/fifo
mknod tree/null c 1 3
mknod tree/zero c 1 5
mknod tree/nodev-blk b 250 123
mknod tree/nodev-chr c 250 124
if command -v python3 >/dev/null &&
	python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("tree/sock")' 2>/dev/null; then
	:
fi
compare tree
compare tree/fifo
compare tree/null
compare tree/nodev-blk
compare tree/nodev-chr
compare tree/fifo tree/file tree/null
if [ -S tree/sock ]; then
	compare tree/sock tree/file
fi
