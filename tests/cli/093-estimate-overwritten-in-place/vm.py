#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# vm.py FILE MIB ROUNDS: a disk image as a VM leaves it: MIB MiB of zeros,
# text and random data in turns, then ROUNDS transactions of 100 blocks
# of 4-64 KiB rewritten in place at random (random data, text, zeros),
# each round synced.  Seeded: the same bytes and writes every time, so a
# fresh filesystem mounted with another setting can replay it.
import os
import random
import sys

path, mib, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(93)


def text(n):
    out = bytearray()
    while len(out) < n:
        out += b" ".join(b"word%d" % rng.randrange(500)
                         for _ in range(50)) + b"\n"
    return bytes(out[:n])


size = mib << 20
with open(path, "wb") as f:
    for i in range(mib):
        k = i % 4
        f.write(text(1 << 20) if k == 1 else
                rng.randbytes(1 << 20) if k == 3 else bytes(1 << 20))
os.sync()
with open(path, "r+b") as f:
    for r in range(rounds):
        for _ in range(100):
            n = rng.choice((4, 4, 4, 8, 16, 32, 64)) << 10
            f.seek(rng.randrange(0, (size - n) >> 12) << 12)
            x = rng.random()
            f.write(rng.randbytes(n) if x < 0.3 else
                    text(n) if x < 0.8 else bytes(n))
        f.flush()
        os.fsync(f.fileno())
        os.sync()
