// SPDX-License-Identifier: LGPL-2.1
/*
 * The readahead settings of a run: the read_ahead_kb files it sets
 * (--read-ahead-kb, --sweep read_ahead_kb) and every read_ahead_kb that
 * governs a device or file system it traces, which it only watches.
 *
 * A file system reads ahead through its bdi: the disk's for ext4 or xfs
 * (queue/read_ahead_kb), one of its own for btrfs (/sys/class/bdi/btrfs-N).
 * Setting a device therefore sets its disk's queue and the bdi of every file
 * system on it that has one of its own.
 *
 * A setting a run changes is locked in the restore journal (journal.c) for
 * as long as the recorder runs, so that two recorders never change one bdi
 * at once, and put back after each run, also on errors and signals; after a
 * SIGKILL, the next recorder puts it back. Every setting is read again while
 * the workload runs and once at its end: a value that is not the one the run
 * expects (the one it set, or the one found at its start) is kept as a
 * change, with the time it was first seen.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host.h"

#define LOCK_POLL_MS 100

struct change {
	int64_t ts_ns;
	char expected[32];
	char observed[32];
};

struct knob {
	char path[128];		/* the read_ahead_kb file */
	char key[80];		/* its bdi: the journal entry and lock */
	char name[64];		/* for messages: the disk or the bdi */
	uint32_t dev;		/* the disk, or the s_dev of a file system with its own bdi */
	char want[32];		/* value for the run, "" when only watched */
	bool sweep;		/* want is the --sweep value of the run */
	char start[32];		/* found at the start of the run, "" when unreadable */
	char set[32];		/* read back after it was written */
	char last[32];		/* last value seen */
	bool applied, restored;
	struct ra_journal_entry lock;
	struct change *changes;
	int nchanges;
};

struct ra_settings {
	struct knob *k;
	int n;
	ra_notice_fn notice;
	void *arg;
	bool verbose;
};

static void say(struct ra_settings *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct ra_settings *s, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!s->notice)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->notice(msg, s->arg);
}

struct ra_settings *ra_settings_alloc(ra_notice_fn notice, void *arg, bool verbose)
{
	struct ra_settings *s = calloc(1, sizeof(*s));

	if (!s) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	s->notice = notice;
	s->arg = arg;
	s->verbose = verbose;
	return s;
}

void ra_settings_free(struct ra_settings *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++) {
		ra_journal_unlock(&s->k[i].lock);
		free(s->k[i].changes);
	}
	free(s->k);
	free(s);
}

/* The knob of @key, added when new; NULL when out of memory. */
static struct knob *knob_of(struct ra_settings *s, const char *key)
{
	struct knob *k;

	for (int i = 0; i < s->n; i++)
		if (strcmp(s->k[i].key, key) == 0)
			return &s->k[i];
	k = realloc(s->k, (size_t)(s->n + 1) * sizeof(*k));
	if (!k) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	s->k = k;
	k = &s->k[s->n++];
	memset(k, 0, sizeof(*k));
	k->lock.fd = -1;
	snprintf(k->key, sizeof(k->key), "%s", key);
	return k;
}

/* @value for the run (NULL: watched only); two different values are refused. */
static int knob_want(struct knob *k, const char *value, bool sweep)
{
	if (!value && !sweep)
		return 0;
	if (sweep) {
		k->sweep = true;
		return 0;
	}
	if ((k->want[0] && strcmp(k->want, value) != 0) || k->sweep) {
		ra_set_error(RA_ERR_USAGE, "conflicting read_ahead_kb for '%s': %s and %s", k->name,
			     k->sweep ? "the sweep's" : k->want, value);
		return -1;
	}
	snprintf(k->want, sizeof(k->want), "%s", value);
	return 0;
}

int ra_settings_disk(struct ra_settings *s, const struct ra_blockdev *bd, const char *value,
		     bool sweep)
{
	char key[80], path[PATH_MAX], link[PATH_MAX];
	const char *bdi = NULL;
	struct knob *k;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/block/%s/bdi", bd->parent_name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		bdi = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	}
	if (bdi)
		snprintf(key, sizeof(key), RA_JOURNAL_RA "%s", bdi);
	else
		snprintf(key, sizeof(key), RA_JOURNAL_RA "%u:%u", RA_MAJOR(bd->parent),
			 RA_MINOR(bd->parent));
	k = knob_of(s, key);
	if (!k)
		return -1;
	if (!k->path[0]) {
		snprintf(k->path, sizeof(k->path), "/sys/class/block/%s/queue/read_ahead_kb",
			 bd->parent_name);
		snprintf(k->name, sizeof(k->name), "%s", bd->parent_name);
		k->dev = bd->parent;
	}
	return knob_want(k, value, sweep);
}

int ra_settings_fs(struct ra_settings *s, const struct ra_fs *fs, const char *value, bool sweep)
{
	char key[80];
	struct knob *k;

	if (!fs->own_bdi || !fs->ra_path[0])
		return 0;	/* its disk's bdi, or its layers': set through their devices */
	snprintf(key, sizeof(key), RA_JOURNAL_RA "%s", fs->bdi);
	k = knob_of(s, key);
	if (!k)
		return -1;
	if (!k->path[0]) {
		snprintf(k->path, sizeof(k->path), "%s", fs->ra_path);
		snprintf(k->name, sizeof(k->name), "%s", fs->bdi);
		k->dev = fs->s_dev;
	}
	return knob_want(k, value, sweep);
}

void ra_settings_sweep(struct ra_settings *s, const char *value)
{
	for (int i = 0; i < s->n; i++)
		if (s->k[i].sweep)
			snprintf(s->k[i].want, sizeof(s->k[i].want), "%s", value);
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct knob *)a)->key, ((const struct knob *)b)->key);
}

/* Wait up to LOCK_POLL_MS; -1 when a signal is pending on @sigfd. */
static int lock_pause(int sigfd)
{
	struct pollfd p = { .fd = sigfd, .events = POLLIN };

	if (sigfd < 0) {
		usleep(LOCK_POLL_MS * 1000);
		return 0;
	}
	return poll(&p, 1, LOCK_POLL_MS) > 0 ? -1 : 0;
}

/* Lock one knob the run changes, waiting until @deadline (0: do not wait, -1: forever). */
static int lock_knob(struct ra_settings *s, struct knob *k, int64_t deadline, int sigfd)
{
	bool told = false;

	for (;;) {
		pid_t holder = 0;
		int rc = ra_journal_lock(&k->lock, k->key, &holder, s->notice, s->arg);

		if (rc <= 0)
			return rc;
		if (deadline == 0 || (deadline > 0 && ra_clock_ns(CLOCK_MONOTONIC) >= deadline)) {
			ra_set_error(RA_ERR_ENV, "cannot set read_ahead_kb of '%s': recorder %d"
				     " holds it (%s)%s", k->name, (int)holder, k->path,
				     deadline ? ", waited for it" : "; --wait-settings waits");
			return -1;
		}
		if (!told)
			say(s, "waiting for read_ahead_kb of '%s', held by recorder %d", k->name,
			    (int)holder);
		told = true;
		if (lock_pause(sigfd) < 0) {
			ra_set_error(RA_ERR_ENV, "interrupted while waiting for read_ahead_kb"
				     " of '%s'", k->name);
			return -1;
		}
	}
}

int ra_settings_lock(struct ra_settings *s, int wait_s, int sigfd)
{
	int64_t deadline = wait_s < 0 ? 0 : wait_s == 0 ? -1 : ra_clock_ns(CLOCK_MONOTONIC) + wait_s * 1000000000LL;

	/* one order for every recorder, so that two waiting ones never deadlock */
	qsort(s->k, (size_t)s->n, sizeof(*s->k), cmp_key);
	for (int i = 0; i < s->n; i++)
		if ((s->k[i].want[0] || s->k[i].sweep) &&
		    lock_knob(s, &s->k[i], deadline, sigfd) < 0)
			return -1;
	return 0;
}

static int write_value(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		ra_set_error(RA_ERR_ENV, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, value, strlen(value));
	if (n < 0)
		ra_set_error(RA_ERR_USAGE, "cannot write '%s' to '%s': %s", value, path,
			     strerror(errno));
	close(fd);
	return n < 0 ? -1 : 0;
}

int ra_settings_begin(struct ra_settings *s)
{
	for (int i = 0; i < s->n; i++) {
		struct knob *k = &s->k[i];
		bool unrestored = k->applied && !k->restored;

		k->applied = k->restored = false;
		k->nchanges = 0;
		k->set[0] = '\0';
		if (unrestored) {
			/* what the knob held before the run that could not restore it */
			snprintf(k->last, sizeof(k->last), "%s", k->start);
			continue;
		}
		if (ra_read_small(k->path, k->start, sizeof(k->start)) < 0) {
			k->start[0] = '\0';
			if (k->want[0]) {
				ra_set_error(RA_ERR_ENV, "cannot read '%s': %s", k->path,
					     strerror(errno));
				return -1;
			}
		}
		snprintf(k->last, sizeof(k->last), "%s", k->start);
	}
	return 0;
}

/* What to put back, in the journal before the value is changed. */
static int note_knob(struct knob *k)
{
	char line[512];

	snprintf(line, sizeof(line), "read_ahead_kb %s %u:%u %s %s %d\n", k->name,
		 RA_MAJOR(k->dev), RA_MINOR(k->dev), k->path, k->start, (int)getpid());
	if (ra_journal_note(&k->lock, line) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot write '%s': %s", k->lock.file, strerror(errno));
		return -1;
	}
	return 0;
}

int ra_settings_apply(struct ra_settings *s)
{
	for (int i = 0; i < s->n; i++) {
		struct knob *k = &s->k[i];

		if (!k->want[0])
			continue;
		if (note_knob(k) < 0)
			return -1;
		k->applied = true;	/* from here on ra_settings_restore() writes it back */
		if (write_value(k->path, k->want) < 0)
			return -1;
		/* the kernel keeps whole pages: 5 reads back as 4 */
		if (ra_read_small(k->path, k->set, sizeof(k->set)) < 0)
			snprintf(k->set, sizeof(k->set), "%s", k->want);
		snprintf(k->last, sizeof(k->last), "%s", k->set);
		if (s->verbose)
			say(s, "%s read_ahead_kb %s -> %s", k->name, k->start, k->set);
	}
	return 0;
}

static int add_change(struct knob *k, int64_t ts_ns, const char *expected, const char *observed)
{
	struct change *c = realloc(k->changes, (size_t)(k->nchanges + 1) * sizeof(*c));

	if (!c)
		return -1;
	k->changes = c;
	c = &c[k->nchanges++];
	c->ts_ns = ts_ns;
	snprintf(c->expected, sizeof(c->expected), "%s", expected);
	snprintf(c->observed, sizeof(c->observed), "%s", observed);
	return 0;
}

static const char *expected(const struct knob *k)
{
	return k->applied ? k->set : k->start;
}

int ra_settings_check(struct ra_settings *s, int64_t ts_ns)
{
	int changed = 0;

	for (int i = 0; i < s->n; i++) {
		struct knob *k = &s->k[i];
		char v[32];

		if (!k->start[0] || ra_read_small(k->path, v, sizeof(v)) < 0 ||
		    strcmp(v, k->last) == 0)
			continue;
		if (add_change(k, ts_ns, expected(k), v) == 0)
			changed++;
		snprintf(k->last, sizeof(k->last), "%s", v);
	}
	return changed;
}

int ra_settings_restore(struct ra_settings *s)
{
	int ret = 0;

	for (int i = s->n - 1; i >= 0; i--) {
		struct knob *k = &s->k[i];
		char v[32] = "";

		if (!k->applied || k->restored)
			continue;
		if (k->set[0] && ra_read_small(k->path, v, sizeof(v)) == 0 &&
		    strcmp(v, k->set) != 0)
			say(s, "read_ahead_kb of '%s' is %s, not the %s set for the run: it changed"
			    " during the run; putting back %s", k->name, v, k->set, k->start);
		if (write_value(k->path, k->start) < 0) {
			say(s, "cannot restore read_ahead_kb of '%s' to %s: %s", k->name, k->start,
			    ra_last_error());
			ret = -1;
			/* gone with its device or file system: no later recorder can put it
			 * back either, and this one has said so */
			if (access(k->path, F_OK) < 0 && errno == ENOENT)
				ra_journal_note(&k->lock, NULL);
			continue;
		}
		k->restored = true;
		if (ra_journal_note(&k->lock, NULL) < 0)
			ret = -1;
	}
	return ret;
}

int ra_settings_store(const struct ra_settings *s, struct ra_db *db, int64_t run_id,
		      bool timed)
{
	for (int i = 0; i < s->n; i++) {
		const struct knob *k = &s->k[i];

		if (k->applied && ra_db_add_setting(db, run_id, k->dev, "read_ahead_kb", k->path,
						    k->start, k->set, k->restored) < 0)
			return -1;
		for (int c = 0; c < k->nchanges; c++)
			if (ra_db_add_setting_change(db, run_id, k->dev, "read_ahead_kb", k->path,
						     timed ? k->changes[c].ts_ns : -1,
						     k->changes[c].expected,
						     k->changes[c].observed) < 0)
				return -1;
	}
	return 0;
}

const char *ra_settings_value(const struct ra_settings *s, const char *path)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->k[i].path, path) == 0 && s->k[i].start[0])
			return expected(&s->k[i]);
	return NULL;
}

int ra_settings_count(const struct ra_settings *s, bool changed_only)
{
	int n = 0;

	for (int i = 0; i < s->n; i++)
		n += !changed_only || s->k[i].want[0] || s->k[i].sweep;
	return n;
}
