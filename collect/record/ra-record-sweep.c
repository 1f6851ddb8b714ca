// SPDX-License-Identifier: GPL-2.0
/*
 * ra-record: the run sets: --repeat, --sweep, --sweep-env, the auto sweep.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ra-record.h"

/* ---- run sets ---- */

/* The next comma-separated value of *list into @buf; false at the end. */
static bool next_value(const char **list, char *buf, size_t len)
{
	size_t n;

	if (!*list || !**list)
		return false;
	n = strcspn(*list, ",");
	snprintf(buf, len, "%.*s", (int)n, *list);
	*list += n + ((*list)[n] == ',');
	return true;
}

static void compose_label(struct rec *r, char *buf, size_t len, const char *kb, const char *env)
{
	size_t off = 0;

	buf[0] = '\0';
	if (r->opt->label)
		off += (size_t)snprintf(buf + off, len - off, "%s", r->opt->label);
	if (kb)
		off += (size_t)snprintf(buf + off, len - off, "%sread_ahead_kb=%s", off ? "," : "",
					kb);
	if (env && off < len)
		snprintf(buf + off, len - off, "%s%s", off ? "," : "", env);
	r->run_label = buf[0] ? buf : NULL;
}

static int sweep_env_value(struct rec *r, const char *value, char *pair, size_t len)
{
	size_t nl = strcspn(r->opt->sweep_env, "=");
	char name[128];

	snprintf(name, sizeof(name), "%.*s", (int)nl, r->opt->sweep_env);
	snprintf(pair, len, "%s=%s", name, value);
	if (setenv(name, value, 1) < 0) {
		ra_set_error(RA_ERR_ENV, "cannot set %s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

static void print_advice(struct rec *r, const struct ra_sweep_state *s)
{
	const struct ra_advice *a = &s->advice;

	printf("read_ahead_kb %s: %d run%s; advice for %u:%u: ", r->opt->sweep_kb, s->runs,
	       s->runs == 1 ? "" : "s", RA_MAJOR(s->dev), RA_MINOR(s->dev));
	if (a->recommended_kb)
		printf("read_ahead_kb %d (%s)\n", a->recommended_kb, ra_advice_status_name(a->status));
	else
		printf("none (%s)\n", ra_advice_status_name(a->status));
	printf("  %s\n  %s\n", s->why, a->reasoning);
}

/*
 * --sweep read_ahead_kb=auto: the analysis says which setting to record
 * next (ra_sweep_step) until the advice is decided; the worst exit status wins.
 */
static int record_auto(struct rec *r)
{
	struct ra_sweep_state s;
	char kb[32], label[512];
	int worst = 0, rc;

	for (;;) {
		if (ra_sweep_step(r->db, r->last_run, RA_ADVICE_FRACTION, &r->opt->sweep_limits, &s) < 0)
			return rec_error_status(ra_last_error());
		if (!s.next_kb)
			break;
		if (r->opt->verbose >= 0)
			fprintf(stderr, "ra-record: read_ahead_kb %d next: %s\n", s.next_kb, s.why);
		snprintf(kb, sizeof(kb), "%d", s.next_kb);
		ra_settings_sweep(r->settings, kb);
		compose_label(r, label, sizeof(label), kb, NULL);
		rc = rec_record_one(r);
		worst = rc > worst ? rc : worst;
		if (rc >= 128 || rc == EXIT_ERROR)
			return worst;	/* interrupted, or cannot record */
	}
	print_advice(r, &s);
	return worst;
}

/* Every value of the sweeps, each --repeat times; the worst exit status wins. */
int rec_record_all(struct rec *r)
{
	const char *kbs = r->opt->sweep_kb, *envs;
	char kb[32], env[256], pair[400], label[512];
	bool have_kb, have_env;
	int worst = 0;

	if (r->opt->sweep_auto)
		return record_auto(r);
	do {
		have_kb = next_value(&kbs, kb, sizeof(kb));
		if (have_kb)
			ra_settings_sweep(r->settings, kb);
		envs = r->opt->sweep_env ? strchr(r->opt->sweep_env, '=') + 1 : NULL;
		do {
			have_env = next_value(&envs, env, sizeof(env));
			if (have_env && sweep_env_value(r, env, pair, sizeof(pair)) < 0)
				return rec_error_status(ra_last_error());
			compose_label(r, label, sizeof(label), have_kb ? kb : NULL,
				      have_env ? pair : NULL);
			r->env_pair = have_env ? pair : NULL;
			for (int rep = 0; rep < (r->opt->repeat ? r->opt->repeat : 1); rep++) {
				int rc;

				r->rep = rep + 1;
				rc = rec_record_one(r);

				if (rc > worst)
					worst = rc;
				if (rc >= 128 || rc == EXIT_ERROR)
					return worst;	/* interrupted, or cannot record */
				if (rec_stop_requested(r))	/* while the run was stored */
					return 128 + r->forwarded_sig;
			}
		} while (have_env && envs && *envs);
	} while (have_kb && kbs && *kbs);
	return worst;
}

void rec_release_all(struct rec *r)
{
	char cgroup[sizeof(r->thr.cgroup)];

	snprintf(cgroup, sizeof(cgroup), "%s", r->thr.cgroup);
	if (ra_throttle_remove(&r->thr) < 0)
		fprintf(stderr, "ra-record: %s\n", ra_last_error());
	else if (cgroup[0] && r->db && r->first_run &&
		 ra_db_setting_restored(r->db, cgroup, r->first_run) < 0)
		fprintf(stderr, "ra-record: %s\n", ra_last_error());
	ra_settings_free(r->settings);
	r->settings = NULL;
	free(r->snaps);
	r->snaps = NULL;
	ra_fsmap_free(r->fsmap);
	r->fsmap = NULL;
}
