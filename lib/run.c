// SPDX-License-Identifier: LGPL-2.1
/*
 * Runs and their metadata: devices, settings, snapshots, tasks, files.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_local.h"

/*
 * Run one statement with arguments described by @types:
 * 'i' int64_t, 'n' int64_t where -1 binds NULL, 't' const char * (NULL binds NULL).
 */
static int exec_args(struct ra_db *db, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc, i;

	st = ra_db_prepare(db, sql);
	if (!st)
		return -1;
	va_start(ap, types);
	for (i = 0; types[i]; i++) {
		int64_t v;
		const char *s;

		switch (types[i]) {
		case 'i':
			sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t));
			break;
		case 'n':
			v = va_arg(ap, int64_t);
			if (v == -1)
				sqlite3_bind_null(st, i + 1);
			else
				sqlite3_bind_int64(st, i + 1, v);
			break;
		case 't':
			s = va_arg(ap, const char *);
			if (s)
				sqlite3_bind_text(st, i + 1, s, -1, SQLITE_TRANSIENT);
			else
				sqlite3_bind_null(st, i + 1);
			break;
		}
	}
	va_end(ap);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ra_db_fail(db, "cannot write to");
	return 0;
}

static char *join_argv(char *const *argv)
{
	size_t len = 1;
	char *s, *p;

	for (int i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	for (int i = 0; argv[i]; i++) {
		size_t n = strlen(argv[i]);

		if (i)
			*p++ = ' ';
		memcpy(p, argv[i], n);
		p += n;
	}
	*p = '\0';
	return s;
}

static void iso8601(int64_t unix_ns, char *buf, size_t len)
{
	time_t t = (time_t)(unix_ns / 1000000000);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int64_t ra_db_run_create(struct ra_db *db, const struct ra_run_info *info)
{
	char *workload = NULL;
	char started[32] = "";
	int64_t run_id;
	int ret;

	if (info->argv && !(workload = join_argv(info->argv))) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (info->start_unix_ns > 0)
		iso8601(info->start_unix_ns, started, sizeof(started));
	ret = exec_args(db,
			"INSERT INTO runs (label, origin, origin_path, workload, started_at,"
			" start_unix_ns, kernel, hostname, machine, page_size, cpus, mem_bytes,"
			" trace_clock, buffer_kb, tool_version, execution)"
			" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			"tttttntttnnntntt", info->label, info->origin, info->origin_path, workload,
			started[0] ? started : NULL, info->start_unix_ns ? info->start_unix_ns : -1,
			info->kernel, info->hostname, info->machine, info->page_size ?: -1,
			info->cpus ?: -1, info->mem_bytes ?: -1, info->trace_clock,
			info->buffer_kb ?: -1, info->tool_version, info->execution);
	free(workload);
	if (ret < 0)
		return -1;
	run_id = sqlite3_last_insert_rowid(db->db);
	for (int i = 0; info->argv && info->argv[i]; i++)
		if (exec_args(db, "INSERT INTO run_args (run_id, pos, arg) VALUES (?, ?, ?)", "iit",
			      run_id, (int64_t)i, info->argv[i]) < 0)
			return -1;
	return run_id;
}

int ra_db_run_finish(struct ra_db *db, int64_t run_id, const struct ra_run_end *end)
{
	return exec_args(db,
			 "UPDATE runs SET wall_ns = ?, exit_status = ?, exit_signal = ?,"
			 " interrupted = ?, trace_start_ns = ?, trace_end_ns = ?, complete = 1"
			 " WHERE run_id = ?",
			 "nnnnnni", end->wall_ns, (int64_t)end->exit_status,
			 end->exit_signal ? (int64_t)end->exit_signal : -1,
			 (int64_t)end->interrupted, end->trace_start_ns, end->trace_end_ns, run_id);
}

int ra_db_run_set_text(struct ra_db *db, int64_t run_id, const char *column, const char *value)
{
	static const char *const allowed[] = { "workload_output", "label", "kernel", NULL };
	char sql[128];

	for (int i = 0; allowed[i]; i++) {
		if (strcmp(allowed[i], column) != 0)
			continue;
		snprintf(sql, sizeof(sql), "UPDATE runs SET %s = ? WHERE run_id = ?", column);
		return exec_args(db, sql, "ti", value, run_id);
	}
	ra_set_error(RA_ERR_USAGE, "unknown run column '%s'", column);
	return -1;
}

int ra_db_run_set_start(struct ra_db *db, int64_t run_id, int64_t unix_ns)
{
	char started[32];

	iso8601(unix_ns, started, sizeof(started));
	return exec_args(db, "UPDATE runs SET started_at = ?, start_unix_ns = ? WHERE run_id = ?",
			 "tii", started, unix_ns, run_id);
}

/* NULL for a string the device does not have. */
static const char *or_null(const char *s)
{
	return s && *s ? s : NULL;
}

int ra_db_add_device(struct ra_db *db, int64_t run_id, const struct ra_db_device *d)
{
	return exec_args(db, "INSERT OR REPLACE INTO devices (run_id, dev, major, minor, name,"
			 " role, disk, start_sector, nr_sectors, transport, vendor, model, firmware)"
			 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			 "iiiittnnntttt", run_id, (int64_t)d->dev, (int64_t)RA_MAJOR(d->dev),
			 (int64_t)RA_MINOR(d->dev), d->name, d->role,
			 d->disk ? (int64_t)d->disk : -1, d->start_sector, d->nr_sectors,
			 or_null(d->transport), or_null(d->vendor), or_null(d->model),
			 or_null(d->firmware));
}

int ra_db_add_dev_snapshot(struct ra_db *db, int64_t run_id, uint32_t dev, const char *phase,
			   const struct ra_dev_snapshot *s)
{
	int64_t st[17];

	for (int i = 0; i < 17; i++)
		st[i] = i < s->nstat ? s->stat[i] : -1;
	return exec_args(
		db,
		"INSERT OR REPLACE INTO device_snapshots (run_id, dev, phase, read_ahead_kb,"
		" rotational, scheduler, nr_requests, max_sectors_kb, logical_block_size,"
		" reads_completed, reads_merged, sectors_read, read_ticks_ms,"
		" writes_completed, writes_merged, sectors_written, write_ticks_ms,"
		" in_flight, io_ticks_ms, time_in_queue_ms, discards_completed,"
		" discards_merged, sectors_discarded, discard_ticks_ms, flushes_completed,"
		" flush_ticks_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
		" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		"iitnntnnnnnnnnnnnnnnnnnnnn", run_id, (int64_t)dev, phase, s->read_ahead_kb,
		s->rotational, s->scheduler[0] ? s->scheduler : NULL, s->nr_requests,
		s->max_sectors_kb, s->logical_block_size, st[0], st[1], st[2], st[3], st[4], st[5],
		st[6], st[7], st[8], st[9], st[10], st[11], st[12], st[13], st[14], st[15], st[16]);
}

int ra_db_add_vmstat(struct ra_db *db, int64_t run_id, const char *phase, const char *name,
		     int64_t value)
{
	return exec_args(db,
			 "INSERT OR REPLACE INTO vmstat (run_id, phase, name, value)"
			 " VALUES (?, ?, ?, ?)",
			 "itti", run_id, phase, name, value);
}

int ra_db_add_setting(struct ra_db *db, int64_t run_id, uint32_t dev, const char *name,
		      const char *path, const char *old_value, const char *new_value,
		      int restored)
{
	return exec_args(db, "INSERT OR REPLACE INTO settings (run_id, dev, name, old_value,"
			 " new_value, restored, path) VALUES (?, ?, ?, ?, ?, ?, ?)", "iitttnt",
			 run_id, (int64_t)dev, name, old_value, new_value, (int64_t)restored, path);
}

int ra_db_add_param(struct ra_db *db, int64_t run_id, const char *name, const char *scope,
		    const char *value)
{
	return exec_args(db, "INSERT OR REPLACE INTO run_params (run_id, name, scope, value)"
			 " VALUES (?, ?, ?, ?)", "ittt", run_id, name, scope ? scope : "", value);
}

int ra_db_setting_restored(struct ra_db *db, const char *path, int64_t first_run)
{
	if (ra_db_load_begin(db) < 0)
		return -1;
	if (exec_args(db, "UPDATE settings SET restored = 1 WHERE path = ? AND run_id >= ?", "ti",
		      path, first_run) < 0) {
		ra_db_load_abort(db);
		return -1;
	}
	return ra_db_load_commit(db);
}

int ra_db_add_setting_change(struct ra_db *db, int64_t run_id, uint32_t dev, const char *name,
			     const char *path, int64_t ts_ns, const char *expected,
			     const char *observed)
{
	return exec_args(db, "INSERT INTO setting_changes (run_id, dev, name, path, ts_ns,"
			 " expected, observed) VALUES (?, ?, ?, ?, ?, ?, ?)", "iittntt", run_id,
			 (int64_t)dev, name, path, ts_ns, expected, observed);
}

int ra_db_add_filesystem(struct ra_db *db, int64_t run_id, const struct ra_db_filesystem *f)
{
	return exec_args(db, "INSERT OR REPLACE INTO filesystems (run_id, fs_dev, dev, fstype,"
			 " mount_point, bdi, read_ahead_kb, unrecorded_events, dev_name)"
			 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", "iiitttnnt", run_id,
			 (int64_t)f->fs_dev, (int64_t)f->dev, f->fstype, f->mount_point, f->bdi,
			 f->read_ahead_kb, f->unrecorded_events, f->dev_name);
}

int ra_db_add_skipped(struct ra_db *db, int64_t run_id, const char *system, const char *name,
		      int64_t n)
{
	return exec_args(db, "INSERT INTO skipped_events (run_id, system, name, n)"
			 " VALUES (?, ?, ?, ?) ON CONFLICT (run_id, system, name)"
			 " DO UPDATE SET n = n + excluded.n", "itti", run_id, system, name, n);
}

int ra_db_add_tracepoint(struct ra_db *db, int64_t run_id, const char *system, const char *name,
			 int available, int enabled)
{
	return exec_args(db,
			 "INSERT OR REPLACE INTO tracepoints (run_id, system, name, available,"
			 " enabled) VALUES (?, ?, ?, ?, ?)",
			 "ittii", run_id, system, name, (int64_t)available, (int64_t)enabled);
}

int ra_db_add_event_source(struct ra_db *db, int64_t run_id, const char *system,
			   const char *name, const char *probe, const char *args,
			   const char *definition, const char *message)
{
	return exec_args(db,
			 "INSERT OR REPLACE INTO event_sources (run_id, system, name, probe, args,"
			 " definition, message) VALUES (?, ?, ?, ?, ?, ?, ?)",
			 "ittttt" "t", run_id, system, name, probe, args, definition, message);
}

int ra_db_add_self_check(struct ra_db *db, int64_t run_id, const char *name, const char *state,
			 int64_t checked, int64_t failed, const char *message)
{
	return exec_args(db,
			 "INSERT OR REPLACE INTO self_checks (run_id, name, state, checked, failed,"
			 " message) VALUES (?, ?, ?, ?, ?, ?)",
			 "ittnnt", run_id, name, state, checked, failed, message);
}

int ra_db_add_lost(struct ra_db *db, int64_t run_id, int cpu, int64_t overrun, int64_t dropped,
		   int64_t missed, int64_t entries_read)
{
	return exec_args(
		db,
		"INSERT OR REPLACE INTO lost_events (run_id, cpu, overrun, dropped, missed,"
		" entries_read) VALUES (?, ?, ?, ?, ?, ?)",
		"iinnin", run_id, (int64_t)cpu, overrun, dropped, missed, entries_read);
}

int ra_db_add_task(struct ra_db *db, int64_t run_id, int pid, const char *comm)
{
	return exec_args(db, "INSERT OR REPLACE INTO tasks (run_id, pid, comm) VALUES (?, ?, ?)",
			 "iit", run_id, (int64_t)pid, comm);
}

int ra_db_set_task_tgid(struct ra_db *db, int64_t run_id, int pid, int tgid)
{
	return exec_args(db, "UPDATE tasks SET tgid = ? WHERE run_id = ? AND pid = ?", "iii",
			 (int64_t)tgid, run_id, (int64_t)pid);
}

int ra_db_add_file(struct ra_db *db, int64_t run_id, uint32_t dev, uint64_t ino, const char *path,
		   int64_t size_bytes)
{
	return exec_args(db,
			 "INSERT OR REPLACE INTO files (run_id, dev, ino, path, size_bytes)"
			 " VALUES (?, ?, ?, ?, ?)",
			 "iiitn", run_id, (int64_t)dev, (int64_t)ino, path, size_bytes);
}
