# SPDX-License-Identifier: GPL-2.0
# The shape of compsize --format=ncdu against the tree on disk, read as
# ncdu reads it: names are bytes (surrogateescape keeps the odd ones).
# Usage: check.py EXPORT DIR DISK_TOTAL; prints "DSIZE ASIZE" (the sums
# ncdu should show: hard links once) and exits 1 with a message on error.
import json, os, stat, sys

export, top, disk_total = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(export, 'rb') as f:
    data = f.read()
doc = json.loads(data.decode('utf-8', 'surrogateescape'))
errors = []
if doc[:2] != [1, 2] or doc[2].get('progname') != 'compsize':
    errors.append('header %r' % doc[:3])
root = doc[3]
dsum = 0
inodes = {}


def walk(entry, path, dev):
    global dsum
    if isinstance(entry, list):
        info = entry[0]
        dev = info.get('dev', dev)
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode):
            errors.append('%r: a directory in the export' % path)
        if (info.get('ino'), dev) != (st.st_ino, st.st_dev):
            errors.append('%r: ino/dev %r' % (path, info))
        names = sorted(os.fsencode(e[0]['name'] if isinstance(e, list)
                                   else e['name']) for e in entry[1:])
        ondisk = sorted(n for n in os.listdir(os.fsencode(path))
                        if stat.S_ISREG(os.lstat(os.path.join(os.fsencode(path), n)).st_mode)
                        or stat.S_ISDIR(os.lstat(os.path.join(os.fsencode(path), n)).st_mode))
        if names != ondisk:
            errors.append('%r: entries %r, on disk %r' % (path, names, ondisk))
        for e in entry[1:]:
            name = e[0]['name'] if isinstance(e, list) else e['name']
            walk(e, os.path.join(path, name), dev)
        return
    dev = entry.get('dev', dev)
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        errors.append('%r: not a regular file' % path)
    if entry.get('asize') != st.st_size or entry.get('ino') != st.st_ino:
        errors.append('%r: %r, stat size %d ino %d' % (path, entry, st.st_size, st.st_ino))
    if st.st_nlink > 1 and (entry.get('hlnkc') is not True or entry.get('nlink') != st.st_nlink):
        errors.append('%r: hard link without hlnkc/nlink: %r' % (path, entry))
    if st.st_nlink == 1 and 'hlnkc' in entry:
        errors.append('%r: hlnkc on a single link' % path)
    dsum += entry['dsize']
    key = (dev, st.st_ino) if st.st_nlink > 1 else id(entry)
    inodes.setdefault(key, (entry['dsize'], st.st_size))


walk(root, top, None)
if root[0]['name'] != top:
    errors.append('root named %r, not %r' % (root[0]['name'], top))
if dsum != disk_total:
    errors.append('dsize adds up to %d, Disk Usage is %d' % (dsum, disk_total))
if errors:
    print('\n'.join(errors), file=sys.stderr)
    sys.exit(1)
print(sum(d for d, a in inodes.values()), sum(a for d, a in inodes.values()))
