# SPDX-License-Identifier: GPL-2.0
# A name as compsize escapes it in the table, in messages and in CSV (man
# page: --depth), written here from the man page alone: backslash,
# newline, tab as \\ \n \t; other C0, DEL and C1 control characters and
# bytes that are not valid UTF-8 as \xHH.  As a program: the escape of
# argv[1] on stdout (common.sh's escape_name); as a module: table_escape().
import os
import sys


def table_escape(raw):
    """raw: bytes; returns the escaped str."""
    out = []
    for ch in raw.decode('utf-8', 'surrogateescape'):
        o = ord(ch)
        if 0xdc80 <= o <= 0xdcff:
            out.append('\\x%02x' % (o - 0xdc00))
        elif ch == '\\':
            out.append('\\\\')
        elif ch == '\n':
            out.append('\\n')
        elif ch == '\t':
            out.append('\\t')
        elif o < 0x20 or o == 0x7f:
            out.append('\\x%02x' % o)
        elif 0x80 <= o <= 0x9f:
            out.append('\\xc2\\x%02x' % o)
        else:
            out.append(ch)
    return ''.join(out)


if __name__ == '__main__':
    sys.stdout.buffer.write(table_escape(os.fsencode(sys.argv[1])).encode('utf-8'))
