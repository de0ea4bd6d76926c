#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Random file operations on a btrfs mount, checked against the oracles.

  ops.py MNT SEED STEPS

MNT is the top level of a btrfs filesystem mounted with a long commit=
interval, so that most checks see changes not yet committed.  Each step is
one operation: a write of one of five kinds of data, a reflinked copy, a
hard link, a rename, a delete, an overwrite in place, a truncate, a
fallocate, a punched hole, a new subvolume or snapshot, a sync.  Every few
steps, with the data written back first (FIEMAP_FLAG_SYNC: extents in the
tree, no commit):

  - the report on the whole filesystem and on random paths equals compsize
    1.5's ($ORACLE): stdout, stderr and exit code, with and without -b;
  - --exclusive's exclusive_data on 1-2 random paths equals its
    definition through compsize 1.5, Disk(every file with data extents) -
    Disk(every such file outside S), by a random method
    (COMPSIZE_SHARING) and sometimes with --walk;
  - every row of --subvolumes (after a sync) equals the kernel's qgroup
    figures for the subvolume: rfer and excl after a rescan;
  - every row of --depth (with or without --per-file, --exclusive,
    --walk) on a random directory or subvolume equals compsize 1.5 on
    that path (counts and sizes by type), its exclusive bytes the
    definition;
  - a sample's estimates and intervals equal the --walk's.

Prints the number of checks; on the first difference, what differs and
the operations so far, and exits 1.
"""
import json
import os
import random
import subprocess
import sys

MNT, SEED, STEPS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
OURS = os.environ["COMPSIZE"]
ORACLE = os.environ.get("ORACLE", "/usr/sbin/compsize")
SIZES = [0, 1, 100, 2047, 2048, 2049, 4095, 4096, 5000, 65536, 131072,
         200000, 600000, 1500000]
SAMPLE_KEYS = ("setting", "disk", "uncompressed", "input", "disk_ci95",
               "disk_fresh", "sample_units_read", "sample_units")

rnd = random.Random(SEED)
# the row checks draw from their own: they leave the operations as they were
rrnd = random.Random(SEED + 1000)
files, dirs, log = [], [MNT], []
checks = 0


def run(cmd, env=None):
    return subprocess.run(cmd, capture_output=True, env=env)


def failed(what):
    print(f"seed {SEED}: {what}")
    print("operations: " + "; ".join(log[-40:]))
    sys.exit(1)


def data(n):
    k = rnd.random()
    if k < 0.3:
        return os.urandom(n)
    if k < 0.6:
        return (b"the quick brown fox %d " % rnd.randrange(1000)) * (n // 24 + 1)
    if k < 0.8:
        return bytes(n)
    return bytes(rnd.randrange(4) for _ in range(min(n, 65536))) * (n // 65536 + 1)


def name_in(d):
    return os.path.join(d, "f%d" % rnd.randrange(10**6))


def step():
    op = rnd.randrange(14)
    if op <= 3 or not files:
        p, n = name_in(rnd.choice(dirs)), rnd.choice(SIZES)
        with open(p, "wb") as f:
            f.write(data(n)[:n])
        files.append(p)
        return f"write {p} {n}"
    s = rnd.choice(files)
    if op == 4:
        d = os.path.join(rnd.choice(dirs), "d%d" % rnd.randrange(10**6))
        os.mkdir(d)
        dirs.append(d)
        return f"mkdir {d}"
    if op == 5:
        p = name_in(rnd.choice(dirs))
        if run(["cp", "--reflink=always", s, p]).returncode == 0:
            files.append(p)
        return f"reflink {s} {p}"
    if op == 6:
        p = name_in(rnd.choice(dirs))
        os.link(s, p)
        files.append(p)
        return f"link {s} {p}"
    if op == 7:
        os.unlink(s)
        files.remove(s)
        return f"rm {s}"
    if op == 8:
        p = name_in(rnd.choice(dirs))
        os.rename(s, p)
        files[files.index(s)] = p
        return f"mv {s} {p}"
    if op == 9:
        n, at = rnd.choice(SIZES), rnd.randrange(os.path.getsize(s) + 1)
        with open(s, "r+b") as f:
            f.seek(at)
            f.write(data(n)[:n])
        return f"overwrite {s} {at} {n}"
    if op == 10:
        n = rnd.randrange(os.path.getsize(s) + 1)
        os.truncate(s, n)
        return f"truncate {s} {n}"
    if op == 11:
        n = rnd.choice(SIZES) + 4096
        run(["fallocate", "-l", str(n), s])
        return f"fallocate {s} {n}"
    if op == 12:
        size = os.path.getsize(s)
        if size > 8192:
            n = rnd.randrange(4096, size) // 4096 * 4096
            run(["fallocate", "-p", "-o", "4096", "-l", str(n), s])
            return f"punch {s} {n}"
        return "nothing"
    k = rnd.random()
    if k < 0.3:
        run(["sync"])
        return "sync"
    if k < 0.6:
        d = os.path.join(MNT, "sv%d" % rnd.randrange(10**6))
        if rnd.random() < 0.5:
            run(["btrfs", "-q", "subvolume", "snapshot", MNT, d])
            return f"snapshot {d}"
        run(["btrfs", "-q", "subvolume", "create", d])
        dirs.append(d)
        return f"subvolume {d}"
    return "nothing"


def settle():
    every = [f for f in files if os.path.isfile(f)]
    for i in range(0, len(every), 200):
        run(["filefrag", "-s"] + every[i:i + 200])


def oracle_of(paths):
    """compsize 1.5 -b over paths: (exit code, its "Processed" line,
    TYPE -> (disk, uncompressed, referenced))."""
    r = run([ORACLE, "-b"] + paths)
    out, head, seen = {}, None, False
    for line in r.stdout.decode().splitlines():
        w = line.split()
        if line.startswith("Processed"):
            head = line
        elif line.startswith("Type"):
            seen = True
        elif seen and w:
            out[w[0]] = (int(w[2]), int(w[3]), int(w[4]))
    return r.returncode, head, out


def disk_by_type(paths):
    """TYPE -> Disk Usage of compsize 1.5 -b over paths."""
    if not paths:
        return {}
    return {t: v[0] for t, v in oracle_of(paths)[2].items()}


def all_files():
    out = []
    for root, _, names in os.walk(MNT):
        for n in names:
            p = os.path.join(root, n)
            if os.path.isfile(p) and not os.path.islink(p):
                out.append(p)
    return out


def has_inline(path):
    """What the kernel's FIEMAP says of the file's data: 0 no inline
    extent, 1 inline only (in a metadata leaf), 2 inline and data extents
    (a prealloc after an inline extent, say)."""
    import fcntl
    import struct
    FS_IOC_FIEMAP, FIEMAP_EXTENT_DATA_INLINE = 0xC020660B, 0x200
    n = 32
    buf = bytearray(struct.pack("=QQLLLL", 0, 2**64 - 1, 0, 0, n, 0) +
                    bytes(56 * n))
    try:
        with open(path, "rb") as f:
            fcntl.ioctl(f.fileno(), FS_IOC_FIEMAP, buf)
    except OSError:
        return False
    mapped = min(struct.unpack_from("=L", buf, 20)[0], n)
    inl = sum(1 for i in range(mapped)
              if struct.unpack_from("=L", buf, 32 + 56 * i + 40)[0] &
              FIEMAP_EXTENT_DATA_INLINE)
    return 0 if not inl else 1 if inl == mapped else 2


def exclusive_by_definition(inside):
    """TYPE -> exclusive_data by the definition, the files for which
    inside() holds being S: Disk of compsize 1.5 over every file with
    data extents less over those outside S.  (Inline data is metadata,
    in leaves snapshots may share: exclusive_metadata, checked against
    the kernel by tests 054 and 055.)"""
    kinds = {f: has_inline(f) for f in all_files()}
    if 2 in kinds.values():
        return None  # 1.5 cannot tell such a file's two parts apart
    every = [f for f, k in kinds.items() if not k]
    whole = disk_by_type(every)
    outside = disk_by_type([f for f in every if not inside(f)])
    return {t: v - outside.get(t, 0) for t, v in whole.items()}


def under(p, base):
    return p == base or p.startswith(base + "/")


def check_report():
    global checks
    targets = [MNT] + rnd.sample(dirs, min(2, len(dirs))) + \
        rnd.sample(files, min(2, len(files)))
    for extra in ([], ["-b"]):
        a, b = run([ORACLE] + extra + targets), run([OURS] + extra + targets)
        checks += 1
        if (a.returncode, a.stdout, a.stderr) != (b.returncode, b.stdout, b.stderr):
            failed(f"report {extra} {targets}:\n compsize 1.5: {a.returncode} "
                   f"{a.stdout.decode()[-500:]} {a.stderr.decode()[-200:]}\n"
                   f" ours: {b.returncode} {b.stdout.decode()[-500:]} "
                   f"{b.stderr.decode()[-200:]}")


def check_exclusive():
    global checks
    cands = [d for d in dirs if d != MNT] + files
    if not cands:
        return  # everything was deleted: no path to ask about
    S = sorted(rnd.sample(cands, min(len(cands), rnd.choice([1, 2]))))
    S = [s for s in S if not any(s != t and under(s, t) for t in S)]
    want = exclusive_by_definition(lambda f: any(under(f, s) for s in S))
    if want is None:
        return
    method = rnd.choice(["auto", "read", "backref"])
    extra = rnd.choice([[], [], ["--walk"]])
    b = run([OURS, "--exclusive", "--format=json"] + extra + S,
            env=dict(os.environ, COMPSIZE_SHARING=method))
    try:
        j = json.loads(b.stdout)
        got = {"TOTAL": j["total"]["exclusive_data"]}
        got.update({t["type"]: t["exclusive_data"]
                    for t in j.get("types", []) if t["exclusive_data"]})
    except (ValueError, KeyError):
        failed(f"--exclusive {S}: {b.returncode} {b.stderr.decode()[:300]}")
    checks += 1
    want = {t: v for t, v in want.items() if v or t == "TOTAL"}
    if any(got.get(t, 0) != v for t, v in want.items()) or \
       any(v != want.get(t, 0) for t, v in got.items()):
        failed(f"--exclusive {method} {extra} {S}: ours data {got}, "
               f"definition {want}")


def check_subvolumes():
    """Every row of --subvolumes against the kernel's qgroups: quotas
    enabled and rescanned after ours ran (a commit first: the kernel's
    rescan counts the committed trees), then disabled again."""
    global checks
    run(["btrfs", "filesystem", "sync", MNT])
    b = run([OURS, "--subvolumes", "--format=json", MNT])
    try:
        rows = json.loads(b.stdout)["subvolumes"]
    except (ValueError, KeyError):
        failed(f"--subvolumes: {b.returncode} {b.stderr.decode()[:300]}")
    run(["btrfs", "quota", "enable", MNT])
    run(["btrfs", "quota", "rescan", "-w", MNT])
    show = run(["btrfs", "qgroup", "show", "--raw", MNT]).stdout.decode()
    run(["btrfs", "quota", "disable", MNT])
    kernel = {}
    for line in show.splitlines():
        f = line.split()
        if f and f[0].startswith("0/"):
            kernel[int(f[0][2:])] = (int(f[1]), int(f[2]))
    for row in rows:
        t = row["total"]
        checks += 1
        want = kernel.get(row["id"])
        got = (t["qgroup_referenced"], t["exclusive"])
        if want != got or t["exclusive"] != \
           t["exclusive_data"] + t["exclusive_metadata"]:
            failed(f"--subvolumes row {row['path']} (id {row['id']}): "
                   f"ours rfer, excl {got} (data {t['exclusive_data']}, "
                   f"metadata {t['exclusive_metadata']}), kernel {want}")


def check_rows():
    global checks
    cands = dirs + [MNT + "/" + l.split(" path ", 1)[1] for l in
                    run(["btrfs", "subvolume", "list", MNT]).stdout.decode().splitlines()
                    if " path " in l]
    D = rrnd.choice(cands)
    args = ["--format=json", "--depth=%d" % rrnd.randrange(3)]
    if rrnd.random() < 0.5:
        args.append("--per-file")
    excl = rrnd.random() < 0.5
    if excl:
        args.append("--exclusive")
    if rrnd.random() < 0.3:
        args.append("--walk")
    b = run([OURS] + args + [D])
    try:
        j = json.loads(b.stdout)
    except ValueError:
        failed(f"rows {args} {D}: {b.returncode} {b.stderr.decode()[:300]}")
    rows = j.get("paths", []) + [dict(j, path=D)]
    for row in rows:
        rc, head, want = oracle_of([row["path"]])
        got = {"TOTAL": (row["total"]["disk"], row["total"]["uncompressed"],
                         row["total"]["referenced"])}
        got.update({t["type"]: (t["disk"], t["uncompressed"], t["referenced"])
                    for t in row.get("types", [])})
        if rc != 0:
            want = {}
            got = {k: v for k, v in got.items() if v != (0, 0, 0)}
        checks += 1
        if got != want:
            failed(f"rows {args} {D}: row {row['path']}: ours {got}, 1.5 {want} ({head})")
        if head:
            h = "Processed %d file%s, %d regular extents (%d refs), %d inline." % (
                row["files"], "" if row["files"] == 1 else "s", row["extents"], row["refs"], row["inline"])
            if h != head:
                failed(f"rows {args} {D}: row {row['path']}: ours {h!r}, 1.5 {head!r}")
        if excl:
            p = row["path"]
            w = exclusive_by_definition(lambda f: under(f, p))
            if w is None:
                continue
            w = w.get("TOTAL", 0)
            checks += 1
            if row["total"]["exclusive_data"] != w:
                failed(f"rows {args} {D}: row {p} exclusive_data: ours "
                       f"{row['total']['exclusive_data']}, definition {w}")


def check_sample():
    global checks
    args = ["--format=json", "-e",
            rnd.choice(["zstd:3", "lzo", "zlib:1,zstd:1", "compress-force=zstd:3"]),
            "--sample=" + rnd.choice(["5%", "20%", "50%"]),
            "--seed=%d" % rnd.randrange(100), rnd.choice(dirs)]
    got = []
    for extra in ([], ["--walk"]):
        b = run([OURS] + extra + args)
        try:
            got.append([{k: e.get(k) for k in SAMPLE_KEYS}
                        for e in json.loads(b.stdout)["estimates"]])
        except (ValueError, KeyError):
            failed(f"sample {extra} {args}: {b.returncode} "
                   f"{b.stderr.decode()[:300]}")
    checks += 1
    if got[0] != got[1]:
        failed(f"sample {args}: fast {got[0]}, --walk {got[1]}")


for i in range(STEPS):
    try:
        log.append(step())
    except (OSError, ValueError) as e:
        log.append(f"(failed: {e})")
    if i % 5 == 4:
        settle()
        check_report()
        check_exclusive()
    if i % 10 == 9:
        check_rows()
    if i % 20 == 19:
        check_subvolumes()
        check_sample()
print(f"checks {checks}")
