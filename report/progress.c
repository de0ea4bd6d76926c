// SPDX-License-Identifier: GPL-2.0
/*
 * progress: the thread that redraws the progress line (progress.h).  The
 * counts come from the caller's callback, under the caller's own locking;
 * this file only keeps the time, the terminal and its own thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "report/format.h"
#include "report/progress.h"
#include "lib/thread.h"

/* Nothing before this, then a redraw at most this often; not on a
 * terminal (--progress), a full line this often. */
#define PROGRESS_DELAY_NS	1000000000ull
#define PROGRESS_SCAN_DELAY_NS	2000000000ull
#define PROGRESS_TICK_NS	200000000ull
#define PROGRESS_LINE_NS	10000000000ull

struct progress {
	int fd;
	int lines;		/* not a terminal: full lines, no \r */
	const char *prefix;
	progress_counts_fn counts;
	progress_scan_fn scan;	/* the scan's line instead */
	void *arg;
	uint64_t delay_ns;
	uint64_t t0_ns;
	uint64_t rchar0;
	pthread_t th;
	/* lock guards stop; draw_lock the terminal and drawn */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stop;
	pthread_mutex_t draw_lock;
	int drawn;
};

/*
 * SIGINT and SIGTERM end the process by their default action (the exit
 * status a shell expects), but first erase a line drawn on a terminal,
 * so that the prompt doesn't come back after a stale one.  The one
 * static: a signal handler has nowhere else to read the descriptor from.
 * -1: no line drawn.
 */
static volatile sig_atomic_t progress_sig_fd = -1;

static void progress_on_signal(int sig)
{
	static const char clear[] = "\r\033[K";
	int fd = progress_sig_fd;
	ssize_t n;

	if (fd >= 0) {
		progress_sig_fd = -1;
		n = write(fd, clear, sizeof(clear) - 1);
		(void)n;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Erase the line on SIGINT and SIGTERM, unless they are ignored (nohup,
 * a background job): then they stay ignored. */
static void progress_catch(int sig)
{
	struct sigaction sa, old;

	if (sigaction(sig, NULL, &old) || old.sa_handler != SIG_DFL)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = progress_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void progress_uncatch(int sig)
{
	struct sigaction old;

	if (!sigaction(sig, NULL, &old) &&
	    old.sa_handler == progress_on_signal)
		signal(sig, SIG_DFL);
}

static uint64_t progress_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Bytes this process has read so far (rchar), which moves inside a large
 * file too; 0 if /proc is not there. */
static uint64_t progress_rchar(void)
{
	char buf[512];
	uint64_t v = 0;
	ssize_t len;
	char *p;
	int fd;

	fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = 0;
	p = strstr(buf, "rchar:");
	if (p)
		v = strtoull(p + 6, NULL, 10);
	return v;
}

/* fmt_size() pads for table columns; the progress line doesn't. */
static const char *progress_size(uint64_t v, char buf[FMT_BUF])
{
	const char *p = fmt_size(v, 0, buf);

	while (*p == ' ')
		p++;
	return p;
}

/* The line of s (a full one when not on a terminal), drawn. */
static void progress_put(struct progress *p, const char *s)
{
	char line[200];
	int len;

	len = snprintf(line, sizeof(line), "%s%s%s%s", p->lines ? "" : "\r",
		       p->prefix, s, p->lines ? "\n" : "\033[K");
	if (len >= (int)sizeof(line))
		len = sizeof(line) - 1;
	pthread_mutex_lock(&p->draw_lock);
	if (write(p->fd, line, len) == len && !p->lines) {
		p->drawn = 1;
		progress_sig_fd = p->fd;
	}
	pthread_mutex_unlock(&p->draw_lock);
}

static void progress_draw_scan(struct progress *p, uint64_t now)
{
	char line[120], a[FMT_BUF];
	uint64_t files, bytes, secs = (now - p->t0_ns) / 1000000000ull;

	p->scan(p->arg, &files, &bytes);
	snprintf(line, sizeof(line),
		 "%" PRIu64 " files, %s referenced, %" PRIu64 ":%02" PRIu64,
		 files, progress_size(bytes, a), secs / 60, secs % 60);
	progress_put(p, line);
}

static void progress_draw(struct progress *p, uint64_t now)
{
	char line[160], a[FMT_BUF], c[FMT_BUF];
	uint64_t done, total, rchar, rate, secs;
	int known;

	p->counts(p->arg, &done, &total, &known);
	rchar = progress_rchar();
	if (rchar > p->rchar0 && rchar - p->rchar0 > done)
		done = rchar - p->rchar0;
	if (known && done > total)
		done = total;
	rate = done * 1000000000ull / (now - p->t0_ns);
	/* MB/s as the estimate table writes speeds (10^6 bytes) */
	if (known) {
		secs = rate ? (total - done) / rate : 0;
		snprintf(line, sizeof(line),
			 "%s of %s read, %" PRIu64 "MB/s, ETA %" PRIu64
			 ":%02" PRIu64, progress_size(done, a),
			 progress_size(total, c), (rate + 500000) / 1000000,
			 secs / 60, secs % 60);
	} else {
		snprintf(line, sizeof(line), "%s read, %" PRIu64 "MB/s",
			 progress_size(done, a), (rate + 500000) / 1000000);
	}
	progress_put(p, line);
}

static void *progress_main(void *arg)
{
	struct progress *p = arg;
	struct timespec ts;
	uint64_t now, next;

	thread_block_signals();
	pthread_mutex_lock(&p->lock);
	next = p->t0_ns + p->delay_ns;
	while (!p->stop) {
		ts.tv_sec = next / 1000000000ull;
		ts.tv_nsec = next % 1000000000ull;
		pthread_cond_timedwait(&p->wake, &p->lock, &ts);
		if (p->stop)
			break;
		now = progress_now_ns();
		if (now < next)
			continue;
		next = now + (p->lines ? PROGRESS_LINE_NS : PROGRESS_TICK_NS);
		pthread_mutex_unlock(&p->lock);
		if (p->scan)
			progress_draw_scan(p, now);
		else
			progress_draw(p, now);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void progress_free(struct progress *p)
{
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->draw_lock);
	pthread_cond_destroy(&p->wake);
	free(p);
}

static struct progress *progress_begin(int fd, const char *prefix,
				       progress_counts_fn counts,
				       progress_scan_fn scan, void *arg,
				       uint64_t delay_ns)
{
	struct progress *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;
	int ret;

	if (!p)
		return NULL;
	p->fd = fd;
	p->lines = !isatty(fd);
	p->prefix = prefix;
	p->counts = counts;
	p->scan = scan;
	p->arg = arg;
	p->delay_ns = delay_ns;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->draw_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	p->t0_ns = progress_now_ns();
	p->rchar0 = progress_rchar();
	if (!p->lines) {
		progress_catch(SIGINT);
		progress_catch(SIGTERM);
	}
	ret = pthread_create(&p->th, NULL, progress_main, p);
	if (ret) {
		progress_free(p);
		errno = ret;
		return NULL;
	}
	return p;
}

struct progress *progress_start(int fd, const char *prefix,
				progress_counts_fn counts, void *arg)
{
	return progress_begin(fd, prefix, counts, NULL, arg,
			      PROGRESS_DELAY_NS);
}

struct progress *progress_start_scan(int fd, const char *prefix,
				     progress_scan_fn counts, void *arg)
{
	return progress_begin(fd, prefix, NULL, counts, arg,
			      PROGRESS_SCAN_DELAY_NS);
}

void progress_clear(struct progress *p)
{
	static const char clear[] = "\r\033[K";

	if (!p)
		return;
	pthread_mutex_lock(&p->draw_lock);
	if (p->drawn && write(p->fd, clear, sizeof(clear) - 1) > 0) {
		p->drawn = 0;
		progress_sig_fd = -1;
	}
	pthread_mutex_unlock(&p->draw_lock);
}

void progress_stop(struct progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->th, NULL);
	progress_clear(p);
	progress_uncatch(SIGINT);
	progress_uncatch(SIGTERM);
	progress_free(p);
}
