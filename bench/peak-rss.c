// SPDX-License-Identifier: GPL-2.0
/*
 * peak-rss -o FILE COMMAND [ARG...]: run COMMAND and write its exact peak
 * resident set size, in KiB, to FILE.  Exits with COMMAND's status.
 *
 * Why not GNU time's %M: the kernel keeps a process's RSS in per-CPU
 * counters and the ru_maxrss that wait4() returns is taken from their
 * approximate sum, which lags by up to a counter batch per CPU: compsize
 * 1.5's %M reads below its own VmHWM at exit by more than the two
 * programs differ.  So this stops COMMAND at
 * its exit (ptrace, PTRACE_O_TRACEEXIT: the address space still mapped)
 * and reads VmHWM, which /proc computes from the exact sum.  Tracing
 * stops the child only at exec, at signals and at exit: nothing else
 * is slowed down.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

static long vm_hwm(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	long hwm = -1;
	FILE *out;
	pid_t pid;
	int st;

	if (argc < 4 || strcmp(argv[1], "-o")) {
		fprintf(stderr, "usage: peak-rss -o FILE COMMAND [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("peak-rss: fork");
		return 2;
	}
	if (!pid) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[3], argv + 3);
		fprintf(stderr, "peak-rss: %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	/* The first stop is the exec's SIGTRAP. */
	if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st))
		return 127;
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACEEXIT);
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	for (;;) {
		if (waitpid(pid, &st, 0) < 0) {
			perror("peak-rss: waitpid");
			return 2;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			hwm = vm_hwm(pid);
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		} else {
			/* Deliver the signal that stopped it. */
			ptrace(PTRACE_CONT, pid, NULL,
			       (void *)(long)WSTOPSIG(st));
		}
	}
	out = fopen(argv[2], "w");
	if (!out || fprintf(out, "%ld\n", hwm) < 0 || fclose(out)) {
		perror("peak-rss: output");
		return 2;
	}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
