// SPDX-License-Identifier: LGPL-2.1
/*
 * Schema version 2. docs/schema.md describes every table, column and view;
 * a change here bumps RA_SCHEMA_VERSION and that document in the same commit.
 * ra_schema_v2_sql holds what version 2 added; a version 1 database opened
 * for writing is upgraded with ra_schema_upgrade_v1_sql.
 */
#include "schema.h"

const char ra_schema_sql[] =
	"CREATE TABLE runs (\n"
	"  run_id INTEGER PRIMARY KEY,\n"
	"  label TEXT,\n"
	"  source TEXT NOT NULL,\n"
	"  source_path TEXT,\n"
	"  workload TEXT,\n"
	"  started_at TEXT,\n"
	"  start_unix_ns INTEGER,\n"
	"  wall_ns INTEGER,\n"
	"  exit_status INTEGER,\n"
	"  exit_signal INTEGER,\n"
	"  interrupted INTEGER NOT NULL DEFAULT 0,\n"
	"  complete INTEGER NOT NULL DEFAULT 0,\n"
	"  kernel TEXT,\n"
	"  hostname TEXT,\n"
	"  machine TEXT,\n"
	"  page_size INTEGER,\n"
	"  cpus INTEGER,\n"
	"  mem_bytes INTEGER,\n"
	"  trace_clock TEXT,\n"
	"  trace_start_ns INTEGER,\n"
	"  trace_end_ns INTEGER,\n"
	"  buffer_kb INTEGER,\n"
	"  tool_version TEXT,\n"
	"  workload_output TEXT,\n"
	"  seq_first INTEGER,\n"
	"  seq_last INTEGER\n"
	");\n"
	"CREATE TABLE run_args (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  pos INTEGER NOT NULL,\n"
	"  arg TEXT NOT NULL,\n"
	"  PRIMARY KEY (run_id, pos)\n"
	");\n"
	"CREATE TABLE event_types (\n"
	"  event_id INTEGER PRIMARY KEY,\n"
	"  system TEXT NOT NULL,\n"
	"  name TEXT NOT NULL,\n"
	"  tbl TEXT NOT NULL\n"
	");\n"
	"CREATE TABLE tracepoints (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  system TEXT NOT NULL,\n"
	"  name TEXT NOT NULL,\n"
	"  available INTEGER NOT NULL,\n"
	"  enabled INTEGER NOT NULL,\n"
	"  PRIMARY KEY (run_id, system, name)\n"
	");\n"
	"CREATE TABLE devices (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  dev INTEGER NOT NULL,\n"
	"  major INTEGER NOT NULL,\n"
	"  minor INTEGER NOT NULL,\n"
	"  name TEXT,\n"
	"  role TEXT NOT NULL,\n"
	"  PRIMARY KEY (run_id, dev)\n"
	");\n"
	"CREATE TABLE device_snapshots (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  dev INTEGER NOT NULL,\n"
	"  phase TEXT NOT NULL CHECK (phase IN ('before', 'after')),\n"
	"  read_ahead_kb INTEGER,\n"
	"  rotational INTEGER,\n"
	"  scheduler TEXT,\n"
	"  nr_requests INTEGER,\n"
	"  max_sectors_kb INTEGER,\n"
	"  logical_block_size INTEGER,\n"
	"  reads_completed INTEGER,\n"
	"  reads_merged INTEGER,\n"
	"  sectors_read INTEGER,\n"
	"  read_ticks_ms INTEGER,\n"
	"  writes_completed INTEGER,\n"
	"  writes_merged INTEGER,\n"
	"  sectors_written INTEGER,\n"
	"  write_ticks_ms INTEGER,\n"
	"  in_flight INTEGER,\n"
	"  io_ticks_ms INTEGER,\n"
	"  time_in_queue_ms INTEGER,\n"
	"  discards_completed INTEGER,\n"
	"  discards_merged INTEGER,\n"
	"  sectors_discarded INTEGER,\n"
	"  discard_ticks_ms INTEGER,\n"
	"  flushes_completed INTEGER,\n"
	"  flush_ticks_ms INTEGER,\n"
	"  PRIMARY KEY (run_id, dev, phase)\n"
	");\n"
	"CREATE TABLE vmstat (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  phase TEXT NOT NULL CHECK (phase IN ('before', 'after')),\n"
	"  name TEXT NOT NULL,\n"
	"  value INTEGER NOT NULL,\n"
	"  PRIMARY KEY (run_id, phase, name)\n"
	");\n"
	"CREATE TABLE settings (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  dev INTEGER NOT NULL,\n"
	"  name TEXT NOT NULL,\n"
	"  old_value TEXT,\n"
	"  new_value TEXT,\n"
	"  restored INTEGER NOT NULL,\n"
	"  PRIMARY KEY (run_id, dev, name)\n"
	");\n"
	"CREATE TABLE lost_events (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  cpu INTEGER NOT NULL,\n"
	"  overrun INTEGER,\n"
	"  dropped INTEGER,\n"
	"  missed INTEGER NOT NULL,\n"
	"  entries_read INTEGER,\n"
	"  PRIMARY KEY (run_id, cpu)\n"
	");\n"
	"CREATE TABLE tasks (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  pid INTEGER NOT NULL,\n"
	"  comm TEXT NOT NULL,\n"
	"  PRIMARY KEY (run_id, pid)\n"
	");\n"
	"CREATE TABLE files (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  dev INTEGER NOT NULL,\n"
	"  ino INTEGER NOT NULL,\n"
	"  path TEXT,\n"
	"  size_bytes INTEGER,\n"
	"  PRIMARY KEY (run_id, dev, ino)\n"
	");\n"
	/* The three event tables share one seq space: seq orders all events of a run in time. */
	"CREATE TABLE ra_events (\n"
	"  seq INTEGER PRIMARY KEY,\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  ts_ns INTEGER NOT NULL,\n"
	"  cpu INTEGER NOT NULL,\n"
	"  pid INTEGER NOT NULL,\n"
	"  event_id INTEGER NOT NULL REFERENCES event_types(event_id),\n"
	"  dev INTEGER NOT NULL,\n"
	"  ino INTEGER NOT NULL,\n"
	"  page_index INTEGER NOT NULL,\n"
	"  req_count_pages INTEGER,\n"
	"  folio_order INTEGER,\n"
	"  size_pages INTEGER,\n"
	"  async_size_pages INTEGER,\n"
	"  ra_pages INTEGER,\n"
	"  mmap_miss INTEGER,\n"
	"  prev_pos_bytes INTEGER\n"
	");\n"
	"CREATE TABLE page_events (\n"
	"  seq INTEGER PRIMARY KEY,\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  ts_ns INTEGER NOT NULL,\n"
	"  cpu INTEGER NOT NULL,\n"
	"  pid INTEGER NOT NULL,\n"
	"  event_id INTEGER NOT NULL REFERENCES event_types(event_id),\n"
	"  dev INTEGER NOT NULL,\n"
	"  ino INTEGER NOT NULL,\n"
	"  page_index INTEGER NOT NULL,\n"
	"  last_index INTEGER,\n"
	"  folio_order INTEGER,\n"
	"  pfn INTEGER\n"
	");\n"
	"CREATE TABLE blk_events (\n"
	"  seq INTEGER PRIMARY KEY,\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  ts_ns INTEGER NOT NULL,\n"
	"  cpu INTEGER NOT NULL,\n"
	"  pid INTEGER NOT NULL,\n"
	"  event_id INTEGER NOT NULL REFERENCES event_types(event_id),\n"
	"  dev INTEGER,\n"
	"  sector INTEGER,\n"
	"  nr_sector INTEGER,\n"
	"  bytes INTEGER,\n"
	"  rwbs TEXT,\n"
	"  error INTEGER,\n"
	"  nr_rq INTEGER,\n"
	"  explicit_unplug INTEGER,\n"
	"  new_sector INTEGER,\n"
	"  old_dev INTEGER,\n"
	"  old_sector INTEGER\n"
	");\n"
	/* Derived tables: written by the analysis passes (ra-analyze), rebuilt at will. */
	"CREATE TABLE analyses (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  pass TEXT NOT NULL,\n"
	"  state TEXT NOT NULL CHECK (state IN ('ok', 'unavailable')),\n"
	"  message TEXT,\n"
	"  params TEXT,\n"
	"  tool_version TEXT,\n"
	"  PRIMARY KEY (run_id, pass)\n"
	");\n"
	"CREATE TABLE windows (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  window_id INTEGER NOT NULL,\n"
	"  seq INTEGER NOT NULL,\n"
	"  ts_ns INTEGER NOT NULL,\n"
	"  pid INTEGER NOT NULL,\n"
	"  dev INTEGER NOT NULL,\n"
	"  ino INTEGER NOT NULL,\n"
	"  stream_id INTEGER NOT NULL,\n"
	"  trigger TEXT NOT NULL CHECK (trigger IN ('sync', 'async', 'none')),\n"
	"  trigger_seq INTEGER,\n"
	"  trigger_index INTEGER,\n"
	"  req_count_pages INTEGER,\n"
	"  pattern TEXT NOT NULL,\n"
	"  mmap INTEGER NOT NULL,\n"
	"  start_page INTEGER NOT NULL,\n"
	"  size_pages INTEGER NOT NULL,\n"
	"  async_size_pages INTEGER NOT NULL,\n"
	"  folio_order INTEGER,\n"
	"  ra_pages INTEGER,\n"
	"  fallback INTEGER NOT NULL,\n"
	"  demand_start INTEGER,\n"
	"  demand_pages INTEGER NOT NULL,\n"
	"  eof_page INTEGER,\n"
	"  pages_added INTEGER NOT NULL,\n"
	"  ra_pages_added INTEGER NOT NULL,\n"
	"  used INTEGER NOT NULL,\n"
	"  evicted_unused INTEGER NOT NULL,\n"
	"  thrashed INTEGER NOT NULL,\n"
	"  pending INTEGER NOT NULL,\n"
	"  end_ts_ns INTEGER,\n"
	"  PRIMARY KEY (run_id, window_id)\n"
	");\n"
	"CREATE TABLE streams (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  stream_id INTEGER NOT NULL,\n"
	"  dev INTEGER NOT NULL,\n"
	"  ino INTEGER NOT NULL,\n"
	"  pid INTEGER NOT NULL,\n"
	"  windows INTEGER NOT NULL,\n"
	"  first_ts_ns INTEGER NOT NULL,\n"
	"  last_ts_ns INTEGER NOT NULL,\n"
	"  initial_size_pages INTEGER NOT NULL,\n"
	"  max_size_pages INTEGER NOT NULL,\n"
	"  ramp_windows INTEGER NOT NULL,\n"
	"  collapses INTEGER NOT NULL,\n"
	"  ra_pages INTEGER,\n"
	"  sizes TEXT NOT NULL,\n"
	"  PRIMARY KEY (run_id, stream_id)\n"
	");\n"
	"CREATE TABLE requests (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  dev INTEGER NOT NULL,\n"
	"  req_id INTEGER NOT NULL,\n"
	"  sector INTEGER NOT NULL,\n"
	"  nr_sector INTEGER NOT NULL,\n"
	"  rwbs TEXT,\n"
	"  bios INTEGER NOT NULL,\n"
	"  q_ts_ns INTEGER,\n"
	"  g_ts_ns INTEGER,\n"
	"  i_ts_ns INTEGER,\n"
	"  d_ts_ns INTEGER,\n"
	"  c_ts_ns INTEGER NOT NULL,\n"
	"  error INTEGER NOT NULL,\n"
	"  window_id INTEGER,\n"
	"  windows INTEGER NOT NULL,\n"
	"  PRIMARY KEY (run_id, req_id)\n"
	");\n"
	"CREATE TABLE stalls (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  dev INTEGER NOT NULL,\n"
	"  q_ts_ns INTEGER NOT NULL,\n"
	"  pid INTEGER NOT NULL,\n"
	"  sector INTEGER NOT NULL,\n"
	"  nr_sector INTEGER NOT NULL,\n"
	"  stall_ns INTEGER NOT NULL,\n"
	"  window_id INTEGER\n"
	");\n"
	"CREATE TABLE device_io (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  dev INTEGER NOT NULL,\n"
	"  reads_completed INTEGER NOT NULL,\n"
	"  sectors_read INTEGER NOT NULL,\n"
	"  writes_completed INTEGER NOT NULL,\n"
	"  sectors_written INTEGER NOT NULL,\n"
	"  bios_queued INTEGER NOT NULL,\n"
	"  getrq INTEGER NOT NULL,\n"
	"  inserts INTEGER NOT NULL,\n"
	"  issues INTEGER NOT NULL,\n"
	"  back_merges INTEGER NOT NULL,\n"
	"  front_merges INTEGER NOT NULL,\n"
	"  requeues INTEGER NOT NULL,\n"
	"  splits INTEGER NOT NULL,\n"
	"  remaps INTEGER NOT NULL,\n"
	"  unmatched_completions INTEGER NOT NULL,\n"
	"  errors INTEGER NOT NULL,\n"
	"  ra_requests INTEGER NOT NULL,\n"
	"  ra_bytes INTEGER NOT NULL,\n"
	"  PRIMARY KEY (run_id, dev)\n"
	");\n"
	"CREATE TABLE device_latency (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  dev INTEGER NOT NULL,\n"
	"  interval TEXT NOT NULL,\n"
	"  n INTEGER NOT NULL,\n"
	"  min_ns INTEGER NOT NULL,\n"
	"  avg_ns REAL NOT NULL,\n"
	"  p50_ns INTEGER NOT NULL,\n"
	"  p95_ns INTEGER NOT NULL,\n"
	"  p99_ns INTEGER NOT NULL,\n"
	"  max_ns INTEGER NOT NULL,\n"
	"  PRIMARY KEY (run_id, dev, interval)\n"
	");\n"
	"CREATE TABLE latency_hist (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  dev INTEGER NOT NULL,\n"
	"  interval TEXT NOT NULL,\n"
	"  lo_ns INTEGER NOT NULL,\n"
	"  hi_ns INTEGER NOT NULL,\n"
	"  n INTEGER NOT NULL,\n"
	"  PRIMARY KEY (run_id, dev, interval, lo_ns)\n"
	");\n"
	"CREATE TABLE window_io (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  window_id INTEGER NOT NULL,\n"
	"  bios INTEGER NOT NULL,\n"
	"  requests INTEGER NOT NULL,\n"
	"  bytes INTEGER NOT NULL,\n"
	"  first_q_ts_ns INTEGER,\n"
	"  last_c_ts_ns INTEGER,\n"
	"  sync_wait_ns INTEGER,\n"
	"  shared_bios INTEGER NOT NULL,\n"
	"  service_ns INTEGER,\n"
	"  PRIMARY KEY (run_id, window_id)\n"
	");\n"
	"CREATE TABLE plugs (\n"
	"  run_id INTEGER PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  plugs INTEGER NOT NULL,\n"
	"  unplugs INTEGER NOT NULL,\n"
	"  unplugs_explicit INTEGER NOT NULL,\n"
	"  unplugs_timer INTEGER NOT NULL,\n"
	"  unplug_requests INTEGER NOT NULL\n"
	");\n"
	"CREATE TABLE bench_results (\n"
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n"
	"  job TEXT NOT NULL,\n"
	"  metric TEXT NOT NULL,\n"
	"  value REAL NOT NULL,\n"
	"  PRIMARY KEY (run_id, job, metric)\n"
	");\n"
	"CREATE VIEW v_runs AS\n"
	"  SELECT r.run_id, r.label, r.kernel, r.started_at, r.wall_ns, r.workload,\n"
	"         r.exit_status,\n"
	"         (SELECT COALESCE(SUM(MAX(COALESCE(l.overrun, 0) + COALESCE(l.dropped, 0),\n"
	"                                  l.missed)), 0)\n"
	"            FROM lost_events l WHERE l.run_id = r.run_id) AS lost_events\n"
	"    FROM runs r;\n"
	"CREATE VIEW v_event_counts AS\n"
	"  SELECT c.run_id, t.name AS event, t.system, c.n FROM (\n"
	"    SELECT run_id, event_id, COUNT(*) AS n FROM ra_events GROUP BY run_id, event_id\n"
	"    UNION ALL\n"
	"    SELECT run_id, event_id, COUNT(*) FROM page_events GROUP BY run_id, event_id\n"
	"    UNION ALL\n"
	"    SELECT run_id, event_id, COUNT(*) FROM blk_events GROUP BY run_id, event_id\n"
	"  ) c JOIN event_types t USING (event_id);\n"
	"CREATE VIEW v_windows AS\n"
	"  SELECT w.run_id, w.window_id, w.ts_ns, w.pid, t.comm,\n"
	"         (w.dev >> 20) || ':' || (w.dev & 1048575) AS dev, w.ino, f.path,\n"
	"         w.stream_id, w.trigger, w.pattern, w.mmap, w.start_page AS start,\n"
	"         w.size_pages AS size, w.async_size_pages AS async_size, w.ra_pages,\n"
	"         w.req_count_pages AS req_count, w.demand_pages, w.pages_added,\n"
	"         w.ra_pages_added AS readahead_pages, w.used, w.evicted_unused, w.thrashed,\n"
	"         w.pending, w.fallback, w.folio_order\n"
	"    FROM windows w\n"
	"    LEFT JOIN tasks t ON t.run_id = w.run_id AND t.pid = w.pid\n"
	"    LEFT JOIN files f ON f.run_id = w.run_id AND f.dev = w.dev AND f.ino = w.ino;\n"
	"CREATE VIEW v_readahead_stats AS\n"
	"  WITH s AS (\n"
	"    SELECT run_id, pattern, COUNT(*) AS readahead,\n"
	"           SUM(pages_added > 0) AS io,\n"
	"           SUM(pages_added > 0 AND trigger = 'sync') AS sync_io,\n"
	"           SUM(pages_added > 0 AND mmap) AS mmap_io,\n"
	"           SUM(pages_added < MAX(0, MIN(start_page + size_pages, COALESCE(eof_page,\n"
	"               start_page + size_pages)) - start_page)) AS cache_hit,\n"
	"           SUM(eof_page IS NOT NULL AND start_page + size_pages >= eof_page) AS eof_hit,\n"
	"           AVG(size_pages) AS size, AVG(async_size_pages) AS async_size,\n"
	"           SUM(pages_added) AS added, MAX(ra_pages) AS ra_pages,\n"
	"           SUM(ra_pages_added) AS ra_added, SUM(used) AS used,\n"
	"           SUM(evicted_unused) AS evicted_unused, SUM(pending) AS pending,\n"
	"           SUM(thrashed) AS thrashed\n"
	"      FROM windows GROUP BY run_id, pattern\n"
	"  ), a AS (\n"
	"    SELECT run_id, 'all' AS pattern, SUM(readahead) AS readahead, SUM(io) AS io,\n"
	"           SUM(sync_io) AS sync_io, SUM(mmap_io) AS mmap_io, SUM(cache_hit) AS cache_hit,\n"
	"           SUM(eof_hit) AS eof_hit, SUM(size * readahead) / SUM(readahead) AS size,\n"
	"           SUM(async_size * readahead) / SUM(readahead) AS async_size,\n"
	"           SUM(added) AS added, MAX(ra_pages) AS ra_pages, SUM(ra_added) AS ra_added,\n"
	"           SUM(used) AS used, SUM(evicted_unused) AS evicted_unused,\n"
	"           SUM(pending) AS pending, SUM(thrashed) AS thrashed\n"
	"      FROM s GROUP BY run_id\n"
	"  )\n"
	"  SELECT run_id, pattern, readahead, io, sync_io, mmap_io, cache_hit, eof_hit,\n"
	"         ROUND(size, 1) AS size, ROUND(async_size, 1) AS async_size,\n"
	"         ROUND(CAST(added AS REAL) / NULLIF(io, 0), 1) AS io_size, ra_pages,\n"
	"         used, evicted_unused, pending, thrashed,\n"
	"         ROUND(CAST(used AS REAL) / NULLIF(ra_added, 0), 4) AS hit_ratio,\n"
	"         ra_added AS readahead_pages\n"
	"    FROM (SELECT * FROM s UNION ALL SELECT * FROM a);\n"
	"CREATE VIEW v_file_fates AS\n"
	"  SELECT w.run_id, (w.dev >> 20) || ':' || (w.dev & 1048575) AS dev, w.ino, f.path,\n"
	"         COUNT(*) AS windows, SUM(w.ra_pages_added) AS ra_pages, SUM(w.used) AS used,\n"
	"         SUM(w.evicted_unused) AS evicted_unused, SUM(w.pending) AS pending,\n"
	"         SUM(w.thrashed) AS thrashed,\n"
	"         ROUND(CAST(SUM(w.used) AS REAL) / NULLIF(SUM(w.ra_pages_added), 0), 4)\n"
	"           AS hit_ratio\n"
	"    FROM windows w\n"
	"    LEFT JOIN files f ON f.run_id = w.run_id AND f.dev = w.dev AND f.ino = w.ino\n"
	"   GROUP BY w.run_id, w.dev, w.ino;\n"
	"CREATE VIEW v_device_io AS\n"
	"  SELECT d.run_id, (d.dev >> 20) || ':' || (d.dev & 1048575) AS dev,\n"
	"         d.reads_completed, d.sectors_read, d.ra_requests,\n"
	"         ROUND(CAST(d.ra_bytes AS REAL) / NULLIF(d.ra_requests, 0), 1) AS ra_avg_bytes,\n"
	"         q.avg_ns AS q2c_avg_ns, c.avg_ns AS d2c_avg_ns, q.p99_ns AS q2c_p99_ns,\n"
	"         c.p99_ns AS d2c_p99_ns, d.back_merges + d.front_merges AS merges,\n"
	"         sa.reads_completed - sb.reads_completed AS stat_reads_delta,\n"
	"         sa.sectors_read - sb.sectors_read AS stat_sectors_delta,\n"
	"         CASE WHEN sa.reads_completed IS NULL OR sb.reads_completed IS NULL THEN NULL\n"
	"              ELSE d.reads_completed = sa.reads_completed - sb.reads_completed\n"
	"               AND d.sectors_read = sa.sectors_read - sb.sectors_read END AS stat_match\n"
	"    FROM device_io d\n"
	"    LEFT JOIN device_latency q ON q.run_id = d.run_id AND q.dev = d.dev\n"
	"         AND q.interval = 'Q2C'\n"
	"    LEFT JOIN device_latency c ON c.run_id = d.run_id AND c.dev = d.dev\n"
	"         AND c.interval = 'D2C'\n"
	"    LEFT JOIN device_snapshots sb ON sb.run_id = d.run_id AND sb.dev = d.dev\n"
	"         AND sb.phase = 'before'\n"
	"    LEFT JOIN device_snapshots sa ON sa.run_id = d.run_id AND sa.dev = d.dev\n"
	"         AND sa.phase = 'after';\n"
	/* One value per run and metric: the benchmark's, the device's, readahead's. */
	"CREATE VIEW v_run_metrics AS\n"
	"  SELECT run_id, metric, SUM(value) AS value FROM bench_results\n"
	"   WHERE metric IN ('read_bw_bytes', 'read_iops') GROUP BY run_id, metric\n"
	"  UNION ALL\n"
	"  SELECT run_id, metric, MAX(value) FROM bench_results\n"
	"   WHERE metric NOT IN ('read_bw_bytes', 'read_iops') GROUP BY run_id, metric\n"
	"  UNION ALL\n"
	"  SELECT run_id, 'wall_s', wall_ns / 1e9 FROM runs WHERE wall_ns > 0\n"
	"  UNION ALL\n"
	"  SELECT d.run_id, 'device_read_bw_bytes',\n"
	"         SUM(d.stat_sectors_delta) * 512.0 / (r.wall_ns / 1e9)\n"
	"    FROM v_devices d JOIN runs r USING (run_id)\n"
	"   WHERE d.role = 'filter' AND r.wall_ns > 0 AND d.stat_sectors_delta IS NOT NULL\n"
	"   GROUP BY d.run_id\n"
	"  UNION ALL\n"
	"  SELECT run_id, 'hit_ratio', hit_ratio FROM v_readahead_stats\n"
	"   WHERE pattern = 'all' AND hit_ratio IS NOT NULL\n"
	"  UNION ALL\n"
	"  SELECT run_id, 'thrashed_pages', thrashed FROM v_readahead_stats WHERE pattern = 'all'\n"
	"  UNION ALL\n"
	"  SELECT run_id, 'windows', readahead FROM v_readahead_stats WHERE pattern = 'all'\n"
	"  UNION ALL\n"
	"  SELECT run_id, 'ra_requests', SUM(ra_requests) FROM device_io GROUP BY run_id\n"
	"  UNION ALL\n"
	"  SELECT run_id, 'ra_avg_bytes', CAST(SUM(ra_bytes) AS REAL) / SUM(ra_requests)\n"
	"    FROM device_io GROUP BY run_id HAVING SUM(ra_requests) > 0\n"
	"  UNION ALL\n"
	"  SELECT run_id, LOWER(interval) || '_avg_ns', SUM(avg_ns * n) / SUM(n) FROM device_latency\n"
	"   WHERE interval IN ('Q2C', 'D2C') GROUP BY run_id, interval;\n"
	"CREATE VIEW v_devices AS\n"
	"  SELECT d.run_id, d.major || ':' || d.minor AS dev, d.name, d.role,\n"
	"         b.read_ahead_kb AS read_ahead_kb_before, a.read_ahead_kb AS read_ahead_kb_after,\n"
	"         b.rotational, b.scheduler, b.nr_requests, b.max_sectors_kb,\n"
	"         b.logical_block_size,\n"
	"         a.reads_completed - b.reads_completed AS stat_reads_delta,\n"
	"         a.sectors_read - b.sectors_read AS stat_sectors_delta\n"
	"    FROM devices d\n"
	"    LEFT JOIN device_snapshots b\n"
	"      ON b.run_id = d.run_id AND b.dev = d.dev AND b.phase = 'before'\n"
	"    LEFT JOIN device_snapshots a\n"
	"      ON a.run_id = d.run_id AND a.dev = d.dev AND a.phase = 'after';\n";

#define V2_TABLES \
	"CREATE TABLE model_points (\n" \
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n" \
	"  dev INTEGER NOT NULL,\n" \
	"  source TEXT NOT NULL CHECK (source IN ('window', 'd2c')),\n" \
	"  size_class INTEGER NOT NULL,\n" \
	"  n INTEGER NOT NULL,\n" \
	"  bytes REAL NOT NULL,\n" \
	"  service_ns REAL NOT NULL,\n" \
	"  p50_ns INTEGER NOT NULL,\n" \
	"  latency_ns REAL,\n" \
	"  used INTEGER NOT NULL,\n" \
	"  PRIMARY KEY (run_id, dev, source, size_class)\n" \
	");\n" \
	"CREATE TABLE device_models (\n" \
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n" \
	"  dev INTEGER NOT NULL,\n" \
	"  source TEXT NOT NULL CHECK (source IN ('window', 'd2c')),\n" \
	"  form TEXT NOT NULL CHECK (form IN ('sum', 'max')),\n" \
	"  status TEXT NOT NULL CHECK (status IN ('ok', 'unidentifiable')),\n" \
	"  reason TEXT,\n" \
	"  runs INTEGER NOT NULL,\n" \
	"  samples INTEGER NOT NULL,\n" \
	"  sizes INTEGER NOT NULL,\n" \
	"  access_ns REAL,\n" \
	"  bandwidth_bps REAL,\n" \
	"  rms_rel_err REAL,\n" \
	"  max_rel_err REAL,\n" \
	"  chosen INTEGER NOT NULL,\n" \
	"  PRIMARY KEY (run_id, dev, source, form)\n" \
	");\n" \
	"CREATE TABLE device_advice (\n" \
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n" \
	"  dev INTEGER NOT NULL,\n" \
	"  fraction REAL NOT NULL,\n" \
	"  form TEXT,\n" \
	"  target_bytes REAL,\n" \
	"  model_kb INTEGER,\n" \
	"  thrash_kb INTEGER,\n" \
	"  current_kb INTEGER,\n" \
	"  recommended_kb INTEGER,\n" \
	"  reasoning TEXT NOT NULL,\n" \
	"  PRIMARY KEY (run_id, dev)\n" \
	");\n" \
	"CREATE TABLE advice_calls (\n" \
	"  run_id INTEGER NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,\n" \
	"  seq INTEGER NOT NULL,\n" \
	"  ts_ns INTEGER NOT NULL,\n" \
	"  pid INTEGER NOT NULL,\n" \
	"  call TEXT NOT NULL,\n" \
	"  dev INTEGER,\n" \
	"  ino INTEGER,\n" \
	"  offset_pages INTEGER NOT NULL,\n" \
	"  asked_pages INTEGER,\n" \
	"  windows INTEGER NOT NULL,\n" \
	"  read_pages INTEGER NOT NULL,\n" \
	"  pages_added INTEGER NOT NULL,\n" \
	"  PRIMARY KEY (run_id, seq)\n" \
	");\n" \
	"CREATE VIEW v_device_models AS\n" \
	"  SELECT m.run_id, (m.dev >> 20) || ':' || (m.dev & 1048575) AS dev, m.source, m.form,\n" \
	"         m.status, m.runs, m.samples, m.sizes,\n" \
	"         ROUND(m.access_ns / 1e6, 3) AS access_ms,\n" \
	"         ROUND(m.bandwidth_bps / 1048576, 2) AS bandwidth_mib_s,\n" \
	"         ROUND(m.rms_rel_err, 4) AS rms_rel_err, m.chosen, m.reason\n" \
	"    FROM device_models m;\n" \
	"CREATE VIEW v_model_table AS\n" \
	"  WITH RECURSIVE sz(kb) AS (SELECT 4 UNION ALL SELECT kb * 2 FROM sz WHERE kb < 4096),\n" \
	"  t AS (\n" \
	"    SELECT m.run_id, m.dev, m.form, sz.kb, m.access_ns / 1e6 AS access_ms,\n" \
	"           sz.kb * 1024.0 / m.bandwidth_bps * 1e3 AS transfer_ms\n" \
	"      FROM device_models m, sz\n" \
	"     WHERE m.source = 'window' AND m.chosen AND m.status = 'ok'\n" \
	"  ), l AS (\n" \
	"    SELECT *, CASE form WHEN 'max' THEN MAX(access_ms, transfer_ms)\n" \
	"                        ELSE access_ms + transfer_ms END AS latency_ms FROM t\n" \
	"  )\n" \
	"  SELECT run_id, (dev >> 20) || ':' || (dev & 1048575) AS dev, form, kb AS io_kb,\n" \
	"         ROUND(access_ms, 3) AS access_ms, ROUND(transfer_ms, 3) AS transfer_ms,\n" \
	"         ROUND(latency_ms, 3) AS latency_ms,\n" \
	"         ROUND(transfer_ms / latency_ms, 4) AS utilization,\n" \
	"         ROUND(kb * 1024.0 / latency_ms * 1e3 / 1048576, 2) AS throughput_mib_s\n" \
	"    FROM l;\n" \
	"CREATE VIEW v_model_predictions AS\n" \
	"  WITH k AS (\n" \
	"    SELECT m.run_id, m.dev, m.form, m.access_ns / 1e9 AS a, m.bandwidth_bps AS bw,\n" \
	"           COALESCE((SELECT s.dev FROM device_snapshots s WHERE s.run_id = m.run_id\n" \
	"                       AND s.dev = m.dev AND s.phase = 'before'),\n" \
	"                    (SELECT q.dev FROM requests q JOIN windows w\n" \
	"                       ON w.run_id = q.run_id AND w.window_id = q.window_id\n" \
	"                      WHERE q.run_id = m.run_id AND w.dev = m.dev LIMIT 1)) AS sdev,\n" \
	"           (SELECT w.size_pages * COALESCE(r.page_size, 4096) FROM windows w\n" \
	"              JOIN streams t ON t.run_id = w.run_id AND t.stream_id = w.stream_id\n" \
	"              JOIN runs r ON r.run_id = w.run_id\n" \
	"             WHERE w.run_id = m.run_id AND w.dev = m.dev\n" \
	"               AND w.size_pages >= t.max_size_pages AND w.pages_added > 0\n" \
	"             GROUP BY w.size_pages ORDER BY COUNT(*) DESC, w.size_pages DESC\n" \
	"             LIMIT 1) AS window_bytes,\n" \
	"           (SELECT COUNT(*) FROM device_models d WHERE d.run_id = m.run_id\n" \
	"               AND d.source = 'window' AND d.chosen AND d.status = 'ok') AS ndevs\n" \
	"      FROM device_models m\n" \
	"     WHERE m.source = 'window' AND m.chosen AND m.status = 'ok'\n" \
	"  ), m AS (\n" \
	"    SELECT k.*, b.read_ahead_kb,\n" \
	"           COALESCE(k.window_bytes, b.read_ahead_kb * 1024.0) AS x,\n" \
	"           (e.sectors_read - b.sectors_read) * 512.0 / (r.wall_ns / 1e9) AS dev_bps\n" \
	"      FROM k JOIN runs r ON r.run_id = k.run_id\n" \
	"      LEFT JOIN device_snapshots b ON b.run_id = k.run_id AND b.dev = k.sdev\n" \
	"           AND b.phase = 'before'\n" \
	"      LEFT JOIN device_snapshots e ON e.run_id = k.run_id AND e.dev = k.sdev\n" \
	"           AND e.phase = 'after'\n" \
	"  )\n" \
	"  SELECT m.run_id, (m.dev >> 20) || ':' || (m.dev & 1048575) AS dev,\n" \
	"         m.read_ahead_kb, CAST(m.x / 1024 AS INTEGER) AS window_kb,\n" \
	"         m.x / CASE m.form WHEN 'max' THEN MAX(m.a, m.x / m.bw)\n" \
	"                           ELSE m.a + m.x / m.bw END AS predicted_bps,\n" \
	"         CASE WHEN m.ndevs = 1 THEN COALESCE((SELECT value FROM v_run_metrics v\n" \
	"                WHERE v.run_id = m.run_id AND v.metric = 'read_bw_bytes'), m.dev_bps)\n" \
	"              ELSE m.dev_bps END AS measured_bps\n" \
	"    FROM m WHERE m.x > 0;\n"

const char ra_schema_v2_sql[] = V2_TABLES;

const char ra_schema_upgrade_v1_sql[] =
	"ALTER TABLE window_io ADD COLUMN service_ns INTEGER;\n"
	V2_TABLES;
