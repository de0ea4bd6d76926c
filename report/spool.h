/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spool: an unnamed temporary file that holds rows already rendered, so
 * that a report whose totals come first (JSON, CSV) can stream its rows
 * as they close and still print every byte in its order.  Memory stays
 * flat however many rows there are; the disk holds their text.
 */
#ifndef COMPSIZE_SPOOL_H
#define COMPSIZE_SPOOL_H

#include <stdio.h>

/*
 * An unnamed file (O_TMPFILE, else made and unlinked at once) in $TMPDIR,
 * or /tmp without it, open for reading and writing.  Returns NULL with
 * errno set.
 */
FILE *spool_create(void);

/* Write everything written to spool so far to out.  Returns 0, or -errno
 * (-EIO when none is known) if spool could not be written or read back. */
int spool_copy(FILE *spool, FILE *out);

#endif
