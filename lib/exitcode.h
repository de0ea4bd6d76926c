/* SPDX-License-Identifier: GPL-2.0 */
/* Process exit codes; listed in man/compsize.8, EXIT STATUS. */
#ifndef COMPSIZE_EXITCODE_H
#define COMPSIZE_EXITCODE_H

enum cs_exit {
	CS_EXIT_OK = 0,		/* report printed, every path read */
	CS_EXIT_ERROR = 1,	/* nothing to report, some path failed, or
				 * stdout could not be written */
	CS_EXIT_USAGE = 2,	/* bad option or argument (a --plot directory
				 * that can't take the file); nothing read */
	CS_EXIT_FATAL = 3,	/* out of memory or another internal failure */
	/* SIGINT and SIGTERM keep their default action: the process ends by
	 * the signal (a shell shows 130, 143) with nothing on stdout. */
};

#endif
