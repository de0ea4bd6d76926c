# SPDX-License-Identifier: GPL-2.0
"""clone.py SRC DST OFFSET LENGTH: DST (created) shares SRC's extents of
[OFFSET, OFFSET + LENGTH) at 0 (FICLONERANGE), as a deduplicating tool
leaves a part of an extent run shared."""
import fcntl
import os
import struct
import sys

FICLONERANGE = 0x4020940d
src = os.open(sys.argv[1], os.O_RDONLY)
dst = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT, 0o644)
fcntl.ioctl(dst, FICLONERANGE, struct.pack("qQQQ", src, int(sys.argv[3]),
                                           int(sys.argv[4]), 0))
