// SPDX-License-Identifier: GPL-2.0
/*
 * A main for a libFuzzer harness without libFuzzer: runs
 * LLVMFuzzerTestOneInput() once on each file named, or on each file of a
 * directory named (a corpus), as libFuzzer does with -runs=0.  Built by
 * any compiler (make fuzz-replay: tests/fuzz/<target>-replay): to rerun a
 * crash under gdb or valgrind, and to measure what a corpus reaches with
 * gcov (tests/coverage.sh).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs the harness on the file at path; 0, or -1 if it can't be read. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;
	int ret = -1;

	if (!f)
		goto out;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET))
		goto out;
	/* one byte more, so that an empty input is a valid pointer too */
	buf = malloc((size_t)len + 1);
	if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len)
		goto out;
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "replay: %s: cannot read it\n", path);
	free(buf);
	if (f)
		fclose(f);
	return ret;
}

/* Every regular file of the directory at path, in name order. */
static int replay_dir(const char *path)
{
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort);
	int ret = 0;

	if (n < 0) {
		fprintf(stderr, "replay: %s: cannot list it\n", path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char *p;
		struct stat st;

		if (asprintf(&p, "%s/%s", path, names[i]->d_name) < 0) {
			ret = -1;
		} else {
			if (!stat(p, &st) && S_ISREG(st.st_mode) &&
			    replay_file(p))
				ret = -1;
			free(p);
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	int ret = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: no such file\n", argv[i]);
			ret = 1;
		} else if (S_ISDIR(st.st_mode) ? replay_dir(argv[i]) :
			   replay_file(argv[i])) {
			ret = 1;
		}
	}
	return ret;
}
