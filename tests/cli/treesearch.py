#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a plain TREE_SEARCH_V2 sees of the live tree, for the CLI tests.

  treesearch.py dirindex DIR   number of DIR_INDEX items of DIR
  treesearch.py nlink FILE     nlink of FILE's INODE_ITEM

The kernel inserts and deletes DIR_INDEX items and updates inode items
lazily (delayed items, flushed at the next commit): a test uses these
numbers to check that its state really has changes a tree search can't see
yet (readdir and stat already show them).
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


def main():
    what, path = sys.argv[1], sys.argv[2]
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    ino = os.fstat(fd).st_ino
    if what == "dirindex":
        print(len(search(fd, ino, DIR_INDEX)))
    elif what == "nlink":
        items = search(fd, ino, INODE_ITEM)
        print(struct.unpack_from("<L", items[0][1], 40)[0] if items else 0)
    else:
        sys.exit("usage: treesearch.py dirindex DIR | nlink FILE")


main()
