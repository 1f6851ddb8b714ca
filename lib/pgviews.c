// SPDX-License-Identifier: LGPL-2.1
/*
 * The views of docs/schema.md on a PostgreSQL server: the same names,
 * columns and values as ra_schema_views_sql (lib/schema.c) gives in a
 * SQLite file, written for the server. They pass through ra_pg_dialect()
 * like the reports' SQL (decimal literals, CAST, LIKE, NULLs in order) and
 * use the ratrace schema's functions (lib/pgfuncs.c). What differs from the
 * SQLite text, and why:
 * - an integer as a truth value is compared with 0 (PostgreSQL has no
 *   integer truth), and a truth value in a column is an integer (1, 0); the
 *   windows of a kind are counted (SQLite sums the truth values: the same
 *   count, no condition there is ever NULL);
 * - columns that SQLite takes from an arbitrary row of a group are in the
 *   GROUP BY (they are the same in every row of it);
 * - the sums of doubles go in SQLite's order (ORDER BY in the aggregate),
 *   so that they are the same to the last bit;
 * - a CTE read twice is NOT MATERIALIZED, so that a run's rows are read
 *   for a query of one run (PostgreSQL would compute it for every run);
 * - v_run_metrics reads the windows once per run for the four readahead
 *   figures, the values of v_readahead_stats' row 'all'; its value column
 *   is double precision (SQLite keeps the integers' type per value);
 * - GLOB 'md[0-9]*' is the regular expression it means.
 * A view added to the SQLite schema, or changed there, is added or changed
 * here too: RA_PG_VIEWS_FOLLOW is the hash of the SQLite text these views
 * follow (tests/unit/test_pgdialect.c fails when it changes and says so),
 * and t_fleet_golden compares every view's columns on both.
 */
#include <stddef.h>
#include <stdint.h>

#include "pg_local.h"
#include "pgschema.h"

#define DEV(x) "((" x ") >> 20) || ':' || ((" x ") & 1048575)"

/* ra_pg_views_hash() of ra_schema_views_sql when these views were last brought along */
#define RA_PG_VIEWS_FOLLOW 0xb136adb3u

static const char *const views[] = {
	"CREATE VIEW v_runs AS\n"
	"  SELECT r.run_id, r.label, r.kernel, r.started_at, r.wall_ns, r.workload,\n"
	"         r.exit_status,\n"
	"         (SELECT COALESCE(SUM(MAX(COALESCE(l.overrun, 0) + COALESCE(l.dropped, 0),\n"
	"                                  l.missed)), 0)\n"
	"            FROM lost_events l WHERE l.run_id = r.run_id) AS lost_events,\n"
	"         r.execution\n"
	"    FROM runs r",

	"CREATE VIEW v_event_counts AS\n"
	"  SELECT c.run_id, t.name AS event, t.system, c.n\n"
	"    FROM event_counts c JOIN event_types t USING (event_id)",

	"CREATE VIEW v_windows AS\n"
	"  SELECT w.run_id, w.window_id, w.ts_ns, w.pid, t.comm,\n"
	"         " DEV("w.dev") " AS dev, w.ino, f.path,\n"
	"         w.stream_id, w.trigger, w.pattern, w.mmap, w.start_page AS start,\n"
	"         w.size_pages AS size, w.async_size_pages AS async_size, w.ra_pages,\n"
	"         w.req_count_pages AS req_count, w.demand_pages, w.pages_added,\n"
	"         w.ra_pages_added AS readahead_pages, w.used, w.evicted_unused, w.thrashed,\n"
	"         w.pending, w.fallback, w.folio_order, w.mapped, w.used_inferred\n"
	"    FROM windows w\n"
	"    LEFT JOIN tasks t ON t.run_id = w.run_id AND t.pid = w.pid\n"
	"    LEFT JOIN files f ON f.run_id = w.run_id AND f.dev = w.dev AND f.ino = w.ino",

	"CREATE VIEW v_readahead_stats AS\n"
	"  WITH s AS NOT MATERIALIZED (\n"
	"    SELECT run_id, pattern, COUNT(*) AS readahead,\n"
	"           COUNT(*) FILTER (WHERE pages_added > 0) AS io,\n"
	"           COUNT(*) FILTER (WHERE pages_added > 0 AND trigger = 'sync') AS sync_io,\n"
	"           COUNT(*) FILTER (WHERE pages_added > 0 AND mmap <> 0) AS mmap_io,\n"
	"           COUNT(*) FILTER (WHERE pages_added < MAX(0, MIN(start_page + size_pages,\n"
	"               COALESCE(eof_page, start_page + size_pages)) - start_page)) AS cache_hit,\n"
	"           COUNT(*) FILTER (WHERE eof_page IS NOT NULL\n"
	"               AND start_page + size_pages >= eof_page) AS eof_hit,\n"
	"           AVG(size_pages) AS size, AVG(async_size_pages) AS async_size,\n"
	"           SUM(pages_added) AS added, MAX(ra_pages) AS ra_pages,\n"
	"           SUM(ra_pages_added) AS ra_added, SUM(used) AS used,\n"
	"           SUM(evicted_unused) AS evicted_unused, SUM(pending) AS pending,\n"
	"           SUM(thrashed) AS thrashed, SUM(mapped) AS mapped\n"
	"      FROM windows GROUP BY run_id, pattern\n"
	"  ), a AS NOT MATERIALIZED (\n"
	"    SELECT run_id, 'all'::text AS pattern, SUM(readahead) AS readahead, SUM(io) AS io,\n"
	"           SUM(sync_io) AS sync_io, SUM(mmap_io) AS mmap_io, SUM(cache_hit) AS cache_hit,\n"
	"           SUM(eof_hit) AS eof_hit,\n"
	"           SUM(size * readahead ORDER BY pattern) / SUM(readahead) AS size,\n"
	"           SUM(async_size * readahead ORDER BY pattern) / SUM(readahead) AS async_size,\n"
	"           SUM(added) AS added, MAX(ra_pages) AS ra_pages, SUM(ra_added) AS ra_added,\n"
	"           SUM(used) AS used, SUM(evicted_unused) AS evicted_unused,\n"
	"           SUM(pending) AS pending, SUM(thrashed) AS thrashed, SUM(mapped) AS mapped\n"
	"      FROM s GROUP BY run_id\n"
	"  )\n"
	"  SELECT run_id, pattern, readahead, io, sync_io, mmap_io, cache_hit, eof_hit,\n"
	"         ROUND(size, 1) AS size, ROUND(async_size, 1) AS async_size,\n"
	"         ROUND(CAST(added AS REAL) / NULLIF(io, 0), 1) AS io_size, ra_pages,\n"
	"         used, evicted_unused, pending, thrashed,\n"
	"         ROUND(CAST(used AS REAL) / NULLIF(ra_added, 0), 4) AS hit_ratio,\n"
	"         ra_added AS readahead_pages, mapped,\n"
	"         ROUND(CAST(used + mapped AS REAL) / NULLIF(ra_added, 0), 4) AS hit_ratio_max\n"
	"    FROM (SELECT * FROM s UNION ALL SELECT * FROM a) u",

	"CREATE VIEW v_file_fates AS\n"
	"  SELECT run_id, dev, ino, path, windows, ra_pages, used, evicted_unused, pending,\n"
	"         thrashed, ROUND(CAST(used AS REAL) / NULLIF(ra_pages, 0), 4) AS hit_ratio,\n"
	"         mapped, ROUND(CAST(used + mapped AS REAL) / NULLIF(ra_pages, 0), 4)\n"
	"           AS hit_ratio_max\n"
	"    FROM (SELECT w.run_id, " DEV("w.dev") " AS dev, w.ino, f.path,\n"
	"                 COUNT(*) AS windows, SUM(w.ra_pages_added) AS ra_pages,\n"
	"                 SUM(w.used) AS used, SUM(w.evicted_unused) AS evicted_unused,\n"
	"                 SUM(w.pending) AS pending, SUM(w.thrashed) AS thrashed,\n"
	"                 SUM(w.mapped) AS mapped\n"
	"            FROM windows w\n"
	"            LEFT JOIN files f ON f.run_id = w.run_id AND f.dev = w.dev AND f.ino = w.ino\n"
	"           GROUP BY w.run_id, w.dev, w.ino, f.path) g",

	"CREATE VIEW v_devices AS\n"
	"  SELECT d.run_id, d.major || ':' || d.minor AS dev, d.name, d.role,\n"
	"         b.read_ahead_kb AS read_ahead_kb_before, a.read_ahead_kb AS read_ahead_kb_after,\n"
	"         b.rotational, b.scheduler, b.nr_requests, b.max_sectors_kb,\n"
	"         b.logical_block_size,\n"
	"         a.reads_completed - b.reads_completed AS stat_reads_delta,\n"
	"         a.sectors_read - b.sectors_read AS stat_sectors_delta,\n"
	"         CASE WHEN d.disk IS NOT NULL THEN " DEV("d.disk") " END AS disk,\n"
	"         d.start_sector, d.nr_sectors, d.transport, d.vendor, d.model, d.firmware\n"
	"    FROM devices d\n"
	"    LEFT JOIN device_snapshots b\n"
	"      ON b.run_id = d.run_id AND b.dev = d.dev AND b.phase = 'before'\n"
	"    LEFT JOIN device_snapshots a\n"
	"      ON a.run_id = d.run_id AND a.dev = d.dev AND a.phase = 'after'",

	"CREATE VIEW v_device_io AS\n"
	"  SELECT d.run_id, " DEV("d.dev") " AS dev,\n"
	"         d.reads_completed, d.sectors_read, d.ra_requests,\n"
	"         ROUND(CAST(d.ra_bytes AS REAL) / NULLIF(d.ra_requests, 0), 1) AS ra_avg_bytes,\n"
	"         q.avg_ns AS q2c_avg_ns, c.avg_ns AS d2c_avg_ns, q.p99_ns AS q2c_p99_ns,\n"
	"         c.p99_ns AS d2c_p99_ns, d.back_merges + d.front_merges AS merges,\n"
	"         sa.reads_completed - sb.reads_completed AS stat_reads_delta,\n"
	"         sa.sectors_read - sb.sectors_read AS stat_sectors_delta,\n"
	"         CASE WHEN sa.reads_completed IS NULL OR sb.reads_completed IS NULL THEN NULL\n"
	"              ELSE (d.reads_completed = sa.reads_completed - sb.reads_completed\n"
	"               AND d.sectors_read = sa.sectors_read - sb.sectors_read)::int END\n"
	"           AS stat_match,\n"
	"         v.name, v.role\n"
	"    FROM device_io d\n"
	"    LEFT JOIN devices v ON v.run_id = d.run_id AND v.dev = d.dev\n"
	"    LEFT JOIN device_latency q ON q.run_id = d.run_id AND q.dev = d.dev\n"
	"         AND q.interval = 'Q2C'\n"
	"    LEFT JOIN device_latency c ON c.run_id = d.run_id AND c.dev = d.dev\n"
	"         AND c.interval = 'D2C'\n"
	"    LEFT JOIN device_snapshots sb ON sb.run_id = d.run_id AND sb.dev = d.dev\n"
	"         AND sb.phase = 'before'\n"
	"    LEFT JOIN device_snapshots sa ON sa.run_id = d.run_id AND sa.dev = d.dev\n"
	"         AND sa.phase = 'after'",

	"CREATE VIEW v_run_metrics AS\n"
	"  SELECT run_id, metric, SUM(value ORDER BY job) AS value FROM bench_results\n"
	"   WHERE metric IN ('read_bw_bytes', 'read_iops') AND job LIKE '(group %'\n"
	"   GROUP BY run_id, metric\n"
	"  UNION ALL\n"
	"  SELECT b.run_id, b.metric, SUM(b.value ORDER BY b.job) FROM bench_results b\n"
	"   WHERE b.metric IN ('read_bw_bytes', 'read_iops') AND NOT EXISTS (SELECT 1\n"
	"     FROM bench_results g WHERE g.run_id = b.run_id AND g.job LIKE '(group %')\n"
	"   GROUP BY b.run_id, b.metric\n"
	"  UNION ALL\n"
	"  SELECT run_id, metric, MAX(value) FROM bench_results\n"
	"   WHERE metric NOT IN ('read_bw_bytes', 'read_iops') AND job NOT LIKE '(group %'\n"
	"   GROUP BY run_id, metric\n"
	"  UNION ALL\n"
	"  SELECT run_id, 'wall_s', wall_ns / 1e9 FROM runs WHERE wall_ns > 0\n"
	"  UNION ALL\n"
	"  SELECT run_id, 'device_read_bw_bytes', requests * request_bytes / (duration_ns / 1e9)\n"
	"    FROM whatif WHERE timed <> 0 AND duration_ns > 0 AND requests > 0\n"
	"  UNION ALL\n"
	"  SELECT d.run_id, 'device_read_bw_bytes',\n"
	"         SUM(d.stat_sectors_delta) * 512.0 / (r.wall_ns / 1e9)\n"
	"    FROM v_devices d JOIN runs r USING (run_id)\n"
	"   WHERE r.wall_ns > 0 AND d.stat_sectors_delta IS NOT NULL\n"
	"     AND (d.role = 'member' OR (d.role = 'filter'\n"
	"          AND NOT ((d.name LIKE 'dm-%' OR d.name ~ '^md[0-9]')\n"
	"                   AND EXISTS (SELECT 1 FROM devices m\n"
	"                                WHERE m.run_id = d.run_id AND m.role = 'member'))))\n"
	"   GROUP BY d.run_id, r.wall_ns\n"
	"  UNION ALL\n"
	"  SELECT w.run_id, x.metric, x.value\n"
	"    FROM (SELECT run_id, COUNT(*) AS n, SUM(used) AS used, SUM(mapped) AS mapped,\n"
	"                 SUM(ra_pages_added) AS ra_added, SUM(thrashed) AS thrashed\n"
	"            FROM windows GROUP BY run_id) w\n"
	"   CROSS JOIN LATERAL (VALUES\n"
	"         ('hit_ratio', ROUND(CAST(w.used AS REAL) / NULLIF(w.ra_added, 0), 4)),\n"
	"         ('hit_ratio_max',\n"
	"          ROUND(CAST(w.used + w.mapped AS REAL) / NULLIF(w.ra_added, 0), 4)),\n"
	"         ('thrashed_pages', CAST(w.thrashed AS REAL)),\n"
	"         ('windows', CAST(w.n AS REAL))) AS x(metric, value)\n"
	"   WHERE x.value IS NOT NULL\n"
	"  UNION ALL\n"
	"  SELECT run_id, 'ra_requests', SUM(ra_requests) FROM device_io GROUP BY run_id\n"
	"  UNION ALL\n"
	"  SELECT run_id, 'ra_avg_bytes', CAST(SUM(ra_bytes) AS REAL) / SUM(ra_requests)\n"
	"    FROM device_io GROUP BY run_id HAVING SUM(ra_requests) > 0\n"
	"  UNION ALL\n"
	"  SELECT run_id, LOWER(interval) || '_avg_ns', SUM(avg_ns * n ORDER BY dev) / SUM(n)\n"
	"    FROM device_latency\n"
	"   WHERE interval IN ('Q2C', 'D2C') GROUP BY run_id, interval",

	"CREATE VIEW v_device_models AS\n"
	"  SELECT m.run_id, " DEV("m.dev") " AS dev, m.timing, m.form,\n"
	"         m.status, m.runs, m.samples, m.sizes,\n"
	"         ROUND(m.access_ns / 1e6, 3) AS access_ms,\n"
	"         ROUND(m.bandwidth_bps / 1048576, 2) AS bandwidth_mib_s,\n"
	"         ROUND(m.rms_rel_err, 4) AS rms_rel_err, m.chosen, m.reason\n"
	"    FROM device_models m",

	"CREATE VIEW v_model_table AS\n"
	"  WITH RECURSIVE sz(kb) AS (SELECT 4 UNION ALL SELECT kb * 2 FROM sz WHERE kb < 1048576),\n"
	"  t AS (\n"
	"    SELECT m.run_id, m.dev, m.form, sz.kb, m.access_ns / 1e6 AS access_ms,\n"
	"           sz.kb * 1024.0 / m.bandwidth_bps * 1e3 AS transfer_ms\n"
	"      FROM device_models m, sz\n"
	"     WHERE m.timing = 'window' AND m.chosen <> 0 AND m.status = 'ok'\n"
	"       AND sz.kb * 1024.0 BETWEEN COALESCE(m.min_bytes, 4096) / 1.4142\n"
	"                              AND COALESCE(m.max_bytes, 4194304) * 1.4142\n"
	"  ), l AS (\n"
	"    SELECT *, CASE form WHEN 'max' THEN MAX(access_ms, transfer_ms)\n"
	"                        ELSE access_ms + transfer_ms END AS latency_ms FROM t\n"
	"  )\n"
	"  SELECT run_id, " DEV("dev") " AS dev, form, kb AS io_kb,\n"
	"         ROUND(access_ms, 3) AS access_ms, ROUND(transfer_ms, 3) AS transfer_ms,\n"
	"         ROUND(latency_ms, 3) AS latency_ms,\n"
	"         ROUND(transfer_ms / latency_ms, 4) AS utilization,\n"
	"         ROUND(kb * 1024.0 / latency_ms * 1e3 / 1048576, 2) AS throughput_mib_s\n"
	"    FROM l",

	"CREATE VIEW v_model_predictions AS\n"
	"  WITH k AS (\n"
	"    SELECT m.run_id, m.dev, m.form, m.access_ns / 1e9 AS a, m.bandwidth_bps AS bw,\n"
	"           COALESCE((SELECT s.dev FROM device_snapshots s WHERE s.run_id = m.run_id\n"
	"                       AND s.dev = m.dev AND s.phase = 'before'),\n"
	"                    (SELECT q.dev FROM requests q JOIN windows w\n"
	"                       ON w.run_id = q.run_id AND w.window_id = q.window_id\n"
	"                      WHERE q.run_id = m.run_id AND w.dev = m.dev LIMIT 1)) AS sdev,\n"
	"           (SELECT w.size_pages * COALESCE(r.page_size, 4096) FROM windows w\n"
	"              JOIN streams t ON t.run_id = w.run_id AND t.stream_id = w.stream_id\n"
	"              JOIN runs r ON r.run_id = w.run_id\n"
	"             WHERE w.run_id = m.run_id AND w.dev = m.dev\n"
	"               AND w.size_pages >= t.max_size_pages AND w.pages_added > 0\n"
	"             GROUP BY w.size_pages, r.page_size ORDER BY COUNT(*) DESC, w.size_pages DESC\n"
	"             LIMIT 1) AS window_bytes,\n"
	"           (SELECT COUNT(*) FROM device_models d WHERE d.run_id = m.run_id\n"
	"               AND d.timing = 'window' AND d.chosen <> 0 AND d.status = 'ok') AS ndevs\n"
	"      FROM device_models m\n"
	"     WHERE m.timing = 'window' AND m.chosen <> 0 AND m.status = 'ok'\n"
	"  ), m AS (\n"
	"    SELECT k.*, b.read_ahead_kb,\n"
	"           COALESCE(k.window_bytes, b.read_ahead_kb * 1024.0) AS x,\n"
	"           (e.sectors_read - b.sectors_read) * 512.0 / (r.wall_ns / 1e9) AS dev_bps\n"
	"      FROM k JOIN runs r ON r.run_id = k.run_id\n"
	"      LEFT JOIN device_snapshots b ON b.run_id = k.run_id AND b.dev = k.sdev\n"
	"           AND b.phase = 'before'\n"
	"      LEFT JOIN device_snapshots e ON e.run_id = k.run_id AND e.dev = k.sdev\n"
	"           AND e.phase = 'after'\n"
	"  )\n"
	"  SELECT m.run_id, " DEV("m.dev") " AS dev,\n"
	"         m.read_ahead_kb, CAST(m.x / 1024 AS INTEGER) AS window_kb,\n"
	"         m.x / CASE m.form WHEN 'max' THEN MAX(m.a, m.x / m.bw)\n"
	"                           ELSE m.a + m.x / m.bw END AS predicted_bps,\n"
	"         CASE WHEN m.ndevs = 1 THEN COALESCE((SELECT value FROM v_run_metrics v\n"
	"                WHERE v.run_id = m.run_id AND v.metric = 'read_bw_bytes'), m.dev_bps)\n"
	"              ELSE m.dev_bps END AS measured_bps\n"
	"    FROM m WHERE m.x > 0",

	"CREATE VIEW v_filesystems AS\n"
	"  SELECT f.run_id, " DEV("f.fs_dev") " AS fs_dev,\n"
	"         " DEV("f.dev") " AS dev,\n"
	"         COALESCE(d.name, f.dev_name) AS device, f.fstype,\n"
	"         f.mount_point, f.bdi, f.read_ahead_kb, f.unrecorded_events\n"
	"    FROM filesystems f\n"
	"    LEFT JOIN devices d ON d.run_id = f.run_id AND d.dev = f.dev",

	"CREATE VIEW v_run_params AS\n"
	"  SELECT run_id, name, scope, value FROM run_params\n"
	"  UNION ALL\n"
	"  SELECT run_id, 'kernel', '', kernel FROM runs WHERE kernel IS NOT NULL\n"
	"  UNION ALL\n"
	"  SELECT s.run_id, 'read_ahead_kb', COALESCE(d.name, " DEV("s.dev") "), s.new_value\n"
	"    FROM settings s LEFT JOIN devices d ON d.run_id = s.run_id AND d.dev = s.dev\n"
	"   WHERE s.name = 'read_ahead_kb' AND s.new_value IS NOT NULL\n"
	"     AND (s.path IS NULL OR s.path LIKE '%/queue/read_ahead_kb'\n"
	"          OR NOT EXISTS (SELECT 1 FROM settings q WHERE q.run_id = s.run_id\n"
	"                  AND q.name = 'read_ahead_kb' AND q.path LIKE '%/queue/read_ahead_kb'))\n"
	"  UNION ALL\n"
	"  SELECT s.run_id, CASE s.name WHEN 'blkio.throttle.read_iops_device'\n"
	"         THEN 'throttle_iops' ELSE 'throttle_bps' END,\n"
	"         COALESCE(d.name, " DEV("s.dev") "), s.new_value\n"
	"    FROM settings s LEFT JOIN devices d ON d.run_id = s.run_id AND d.dev = s.dev\n"
	"   WHERE s.name IN ('blkio.throttle.read_iops_device', 'blkio.throttle.read_bps_device')\n"
	"     AND s.new_value IS NOT NULL",
	NULL
};

const char *const *ra_pg_views(void)
{
	return views;
}

uint32_t ra_pg_views_hash(const char *sql)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)sql; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

uint32_t ra_pg_views_follow(void)
{
	return RA_PG_VIEWS_FOLLOW;
}
