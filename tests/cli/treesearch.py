#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a plain TREE_SEARCH_V2 sees of the live tree, for the CLI tests.

  treesearch.py index DIR...   exit 0 if a tree search finds another number
                               of DIR_INDEX items in one DIR than readdir
                               finds names, else 1
  treesearch.py nlink FILE...  exit 0 if a tree search finds another nlink
                               in one FILE's INODE_ITEM than stat, else 1

The kernel inserts and deletes DIR_INDEX items and updates inode items
lazily (delayed items, flushed at the next commit): a test checks so that
its state really has changes a tree search can't see yet.
"""
import fcntl
import os
import struct
import sys

# _IOWR(0x94, 17, struct btrfs_ioctl_search_args_v2): a 104-byte key and
# a u64 buffer size, then the buffer.
TREE_SEARCH_V2 = 0xC0709411
KEY = struct.Struct("=7Q4L4Q")
HEADER = struct.Struct("=3Q2L")
INODE_ITEM, DIR_INDEX = 1, 96
BUF = 65536


def search(fd, objectid, typ):
    """The (header, data) of every item (objectid, typ, *) of fd's tree."""
    items, offset = [], 0
    while True:
        args = bytearray(KEY.size + 8 + BUF)
        KEY.pack_into(args, 0, 0, objectid, objectid, offset, 2**64 - 1,
                      0, 2**64 - 1, typ, typ, 2**32 - 1, 0, 0, 0, 0, 0)
        struct.pack_into("=Q", args, KEY.size, BUF)
        fcntl.ioctl(fd, TREE_SEARCH_V2, args, True)
        n = KEY.unpack_from(args, 0)[9]
        pos = KEY.size + 8
        for _ in range(n):
            h = HEADER.unpack_from(args, pos)
            pos += HEADER.size
            items.append((h, bytes(args[pos:pos + h[4]])))
            pos += h[4]
        if n == 0 or items[-1][0][2] == 2**64 - 1:
            return items
        offset = items[-1][0][2] + 1


def differs(what, path):
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if what == "index":
            return len(search(fd, st.st_ino, DIR_INDEX)) != len(os.listdir(path))
        items = search(fd, st.st_ino, INODE_ITEM)
        return not items or struct.unpack_from("<L", items[0][1], 40)[0] != st.st_nlink
    finally:
        os.close(fd)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("index", "nlink"):
        sys.exit("usage: treesearch.py index DIR... | nlink FILE...")
    sys.exit(0 if any(differs(sys.argv[1], p) for p in sys.argv[2:]) else 1)


main()
