// SPDX-License-Identifier: LGPL-2.1
/*
 * The report's data: each table of a report is one query over the stable
 * views (?1 is the run, ?2 the top-N limit, ?3 the stall threshold), so the
 * report shows exactly what a user would get from the database.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ra_model.h"
#include "ra_sql.h"
#include "report.h"

/*
 * A 'MAJ:MIN' column in the order of the device numbers (major, then minor),
 * where a query's order needs its rows in one order on every engine.
 */
#define RA_SQL_MAJMIN(x) "CAST(" x " AS INTEGER), CAST(substr(" x ", instr(" x ", ':') + 1)" \
	" AS INTEGER)"

struct section {
	const char *key;
	const char *title;
	const char *note;
	const char *sql;
};

/*
 * Columns whose NULL reads "unknown": said here rather than by a COALESCE
 * of a number and a text, which a column of a server's typed SQL cannot hold.
 */
static const struct {
	const char *key, *cols;
} unknown_cols[] = {
	{ "plugs", "unplugs_explicit unplugs_timer" },
};

static const struct section sections[] = {
	{ "run", "Run", NULL,
	  "SELECT r.run_id, r.label, r.origin, r.origin_path, r.workload, r.kernel, r.hostname,"
	  " r.machine, r.started_at, r.wall_ns, r.exit_status, r.exit_signal, r.interrupted,"
	  " v.lost_events, r.cpus, r.mem_bytes, r.page_size, r.trace_clock, r.buffer_kb,"
	  " r.tool_version, r.execution, r.boot_kernel FROM runs r JOIN v_runs v USING (run_id)"
	  " WHERE r.run_id = ?1" },
	{ "devices", "Devices",
	  "readahead setting during the run, the /sys/block stat deltas, the disk's hardware",
	  "SELECT d.name, d.dev, d.role, d.read_ahead_kb_before AS read_ahead_kb,"
	  " d.read_ahead_kb_after, d.rotational, d.scheduler, d.nr_requests, d.max_sectors_kb,"
	  " d.stat_reads_delta, d.stat_sectors_delta, d.transport, d.vendor, d.model, d.firmware"
	  " FROM v_devices d WHERE d.run_id = ?1"
	  " AND (d.role != 'traced' OR d.stat_reads_delta > 0) ORDER BY d.dev" },
	{ "settings", "Settings changed for the run", "path: the file written",
	  "SELECT " RA_SQL_DEV("dev") " AS dev, name, old_value, new_value,"
	  " restored, path FROM settings WHERE run_id = ?1 ORDER BY path, dev, name" },
	{ "setting_changes", "Settings that changed during the run",
	  "seen while the workload ran or at its end; t_ns: since the start",
	  "SELECT " RA_SQL_DEV("c.dev") " AS dev, c.name, c.path,"
	  " c.ts_ns - r.trace_start_ns AS t_ns, c.expected, c.observed FROM setting_changes c"
	  " JOIN runs r USING (run_id) WHERE c.run_id = ?1 ORDER BY c.ts_ns, c.path" },
	{ "filesystems", "File systems and their readahead setting",
	  "bdi: the backing device whose read_ahead_kb sizes the windows of the files",
	  "SELECT " RA_SQL_DEV("f.fs_dev") " AS fs_dev, f.fstype,"
	  " f.mount_point, GROUP_CONCAT(CASE WHEN f.dev = 0 THEN '-' ELSE COALESCE(d.name,"
	  " " RA_SQL_DEV("f.dev") ") END, ' ') AS devices, f.bdi,"
	  " f.read_ahead_kb, (SELECT COUNT(DISTINCT w.ino) FROM windows w WHERE w.run_id = ?1"
	  " AND w.dev = f.fs_dev) AS files, (SELECT MAX(w.ra_pages) FROM windows w"
	  " WHERE w.run_id = ?1 AND w.dev = f.fs_dev AND w.pattern NOT IN ('around', 'forced'))"
	  " AS ra_pages, MAX(f.unrecorded_events) AS unrecorded_events FROM filesystems f"
	  " LEFT JOIN devices d ON d.run_id = f.run_id AND d.dev = f.dev WHERE f.run_id = ?1"
	  " GROUP BY f.fs_dev, f.fstype, f.mount_point, f.bdi, f.read_ahead_kb ORDER BY f.fs_dev" },
	{ "readahead_stats", "Readahead windows by pattern",
	  "sizes in pages; fates of the read-ahead pages (demand pages excluded)",
	  "SELECT pattern, readahead, io, sync_io, mmap_io, cache_hit, eof_hit, size, async_size,"
	  " io_size, ra_pages, used, mapped, evicted_unused, pending, thrashed, hit_ratio,"
	  " hit_ratio_max, readahead_pages FROM v_readahead_stats WHERE run_id = ?1"
	  " ORDER BY pattern = 'all', readahead DESC, pattern" },
	{ "replay", "Replay of the run's accesses",
	  "its series' readahead at its settings: the share of its windows given back; doubts: why not",
	  "SELECT series, windows, replayed, exact, ROUND(share, 4) AS share, doubts"
	  " FROM replay_checks WHERE run_id = ?1" },
	{ "replay_files", "Files the replay does not give back exactly",
	  "first_difference: the first recorded window, and the replayed one in its place",
	  "SELECT COALESCE(f.path, " RA_SQL_DEV("r.dev") " || ' ino ' || r.ino) AS file,"
	  " r.windows, r.replayed, r.exact, r.doubts, r.first_difference FROM replay_files r"
	  " LEFT JOIN files f ON f.run_id = r.run_id AND f.dev = r.dev AND f.ino = r.ino"
	  " WHERE r.run_id = ?1 AND (r.exact < r.windows OR r.replayed != r.windows)"
	  " ORDER BY r.windows - r.exact DESC, r.dev, r.ino LIMIT ?2" },
	{ "whatif", "What-if runs of this run's workload (ra-whatif)",
	  "replayed at other settings; fixed, scaling: hypothetical; MiB/s from the device model",
	  "SELECT w.run_id, w.series, w.policy, w.read_ahead_kb, w.window_kb,"
	  " (SELECT COUNT(*) FROM windows x WHERE x.run_id = w.run_id) AS windows,"
	  " (SELECT ROUND(AVG(size_pages) * 4, 1) FROM windows x WHERE x.run_id = w.run_id)"
	  " AS avg_window_kb, w.requests, ROUND(w.request_bytes / 1024, 1) AS request_kb,"
	  " ROUND(w.device_busy_ns / 1e9, 3) AS device_s, ROUND(w.duration_ns / 1e9, 3)"
	  " AS duration_s, ROUND(w.read_bps / 1048576, 2) AS read_mib_s, w.doubts"
	  " FROM whatif w WHERE w.source_run_id = ?1"
	  " ORDER BY w.series, w.policy, w.read_ahead_kb, w.window_kb" },
	{ "files", "Files by readahead volume", NULL,
	  "SELECT COALESCE(path, dev || ' ino ' || ino) AS file, dev, ino, windows,"
	  " ra_pages AS readahead_pages, used, mapped, evicted_unused, pending, thrashed,"
	  " hit_ratio, hit_ratio_max FROM v_file_fates WHERE run_id = ?1"
	  " ORDER BY ra_pages DESC, windows DESC, " RA_SQL_MAJMIN("dev") ", ino LIMIT ?2" },
	{ "streams", "Streams (windows of one task on one file that continue one another)",
	  "ramp: windows to reach the largest size; collapses: smaller windows that lost the stream",
	  "SELECT s.stream_id, COALESCE(f.path, " RA_SQL_DEV("s.dev") " || ' ino '"
	  " || s.ino) AS file, s.pid, t.comm, s.windows, s.initial_size_pages AS initial,"
	  " s.max_size_pages AS max, s.ra_pages, s.ramp_windows AS ramp, s.collapses, s.sizes"
	  " FROM streams s LEFT JOIN files f ON f.run_id = s.run_id AND f.dev = s.dev"
	  " AND f.ino = s.ino LEFT JOIN tasks t ON t.run_id = s.run_id AND t.pid = s.pid"
	  " WHERE s.run_id = ?1 ORDER BY s.windows DESC, s.stream_id LIMIT ?2" },
	{ "block", "Block I/O per device",
	  "Q2C: bio queued to its last piece completed; D2C: request issued to completed",
	  "SELECT name, role, dev, reads_completed, sectors_read, ra_requests, ra_avg_bytes,"
	  " merges, q2c_avg_ns, q2c_p99_ns, d2c_avg_ns, d2c_p99_ns, stat_reads_delta,"
	  " stat_sectors_delta, stat_match FROM v_device_io WHERE run_id = ?1"
	  " ORDER BY reads_completed DESC, " RA_SQL_MAJMIN("dev") },
	{ "latency", "Block latencies (btt intervals)", "Q2D_RA: readahead bio queued to issued (stalls)",
	  "SELECT " RA_SQL_DEV("dev") " AS dev, interval, n, min_ns, avg_ns,"
	  " p50_ns, p95_ns, p99_ns, max_ns FROM device_latency WHERE run_id = ?1"
	  " ORDER BY dev, CASE interval WHEN 'Q2G' THEN 1 WHEN 'G2I' THEN 2 WHEN 'I2D' THEN 3"
	  " WHEN 'D2C' THEN 4 WHEN 'Q2C' THEN 5 ELSE 6 END" },
	{ "plugs", "Plugging per device",
	  "plugs that held bios of the device; explicit or timer unplugs: only blktrace says",
	  "SELECT " RA_SQL_DEV("dev") " AS dev, plugs, unplugs,"
	  " unplugs_explicit, unplugs_timer,"
	  " ROUND(CAST(unplug_requests AS REAL) / NULLIF(unplugs, 0), 2) AS requests_per_unplug,"
	  " plugged_bios FROM plugs WHERE run_id = ?1 ORDER BY dev" },
	{ "stalls", "Readahead stalls", "readahead bios queued longer than the threshold before issue",
	  "SELECT " RA_SQL_DEV("s.dev") " AS dev, s.q_ts_ns, s.pid, t.comm,"
	  " s.sector, s.nr_sector, s.stall_ns, s.window_id FROM stalls s LEFT JOIN tasks t"
	  " ON t.run_id = s.run_id AND t.pid = s.pid WHERE s.run_id = ?1 AND s.stall_ns >= ?3"
	  " ORDER BY s.stall_ns DESC LIMIT ?2" },
	{ "window_io", "Readahead I/O", "per pattern: the I/O the windows caused",
	  "SELECT w.pattern, COUNT(*) AS windows, SUM(i.requests) AS requests,"
	  " SUM(i.bytes) AS bytes, ROUND(AVG(i.bytes), 1) AS avg_bytes,"
	  " ROUND(AVG(i.last_c_ts_ns - i.first_q_ts_ns), 0) AS avg_io_ns,"
	  " ROUND(AVG(i.sync_wait_ns), 0) AS avg_sync_wait_ns, SUM(i.shared_bios) AS shared_bios"
	  " FROM window_io i JOIN windows w USING (run_id, window_id) WHERE i.run_id = ?1"
	  " GROUP BY w.pattern ORDER BY windows DESC, w.pattern" },
	{ "skipped_events", "Events ratrace did not use",
	  "events the imported trace held that ratrace does not store, by type",
	  "SELECT system, name AS event, n FROM skipped_events WHERE run_id = ?1"
	  " ORDER BY n DESC, system, name" },
	{ "model", "Device service model",
	  "window: device time of a window; d2c: request issue to completion; see metrics.md",
	  "SELECT " RA_SQL_DEV("dev") " AS dev, timing, form, status, runs,"
	  " samples, sizes, ROUND(access_ns / 1e6, 3) AS access_ms,"
	  " ROUND(bandwidth_bps / 1048576, 2) AS bandwidth_mib_s,"
	  " ROUND(rms_rel_err, 4) AS rms_rel_err, ROUND(max_rel_err, 4) AS max_rel_err, chosen,"
	  " ROUND(min_bytes / 1024) AS min_kb, ROUND(max_bytes / 1024) AS max_kb,"
	  " reason FROM device_models WHERE run_id = ?1 ORDER BY dev, timing DESC, chosen DESC" },
	{ "model_table", "I/O size against throughput under the window model",
	  "the table of the 2010 readahead discussion, for this device on this kernel; measured sizes only",
	  "SELECT dev, form, io_kb, access_ms, transfer_ms, latency_ms, utilization,"
	  " throughput_mib_s FROM v_model_table WHERE run_id = ?1 ORDER BY dev, io_kb" },
	{ "predictions", "Predicted and measured throughput per read_ahead_kb",
	  "this run's workload in its pool; measured: benchmark, else device bytes / wall time",
	  "SELECT " RA_SQL_DEV("dev") " AS dev, read_ahead_kb,"
	  " CAST(window_bytes / 1024 AS INTEGER) AS window_kb, runs,"
	  " ROUND(predicted_bps / 1048576, 2) AS predicted_mib_s,"
	  " ROUND(measured_bps / 1048576, 2) AS measured_mib_s,"
	  " ROUND((predicted_bps - measured_bps) * 100 / measured_bps, 1) AS error_pct, pace,"
	  " CASE explained WHEN 1 THEN 'yes' WHEN 0 THEN 'no' END AS explained"
	  " FROM model_sets WHERE run_id = ?1 ORDER BY dev, read_ahead_kb" },
	{ "model_runs", "Runs of the model's pool",
	  "left out: failed, killed, interrupted; pace: who kept the other waiting",
	  "SELECT " RA_SQL_DEV("dev") " AS dev, member AS run, read_ahead_kb,"
	  " CAST(window_bytes / 1024 AS INTEGER) AS window_kb, state, pace,"
	  " ROUND(idle_share * 100, 1) AS idle_pct, ROUND(held_share * 100, 1) AS held_pct,"
	  " ROUND(thrash_share * 100, 1) AS thrash_pct, ROUND(measured_bps / 1048576, 2) AS"
	  " measured_mib_s, ROUND(predicted_bps / 1048576, 2) AS predicted_mib_s, reason"
	  " FROM model_runs WHERE run_id = ?1 ORDER BY dev, state = 'used', member" },
	{ "model_points", "Size classes of the model",
	  "device time per I/O of each size; latency: window opened to last completion",
	  "SELECT " RA_SQL_DEV("p.dev") " AS dev, p.timing,"
	  " p.size_class / 1024.0 AS class_kb, p.n, ROUND(p.bytes, 0) AS avg_bytes,"
	  " ROUND(p.service_ns / 1e6, 3) AS service_ms, ROUND(p.p50_ns / 1e6, 3) AS p50_ms,"
	  " ROUND(p.latency_ns / 1e6, 3) AS latency_ms, p.used FROM model_points p"
	  " WHERE p.run_id = ?1 ORDER BY p.dev, p.timing DESC, p.size_class" },
	/* Series for the charts of the HTML page (and in the JSON), summarized: a few
	 * hundred points each, whatever the length of the trace. */
	{ "chart_window_sizes", "Window size over time (busiest streams)", NULL,
	  "WITH top AS (SELECT stream_id FROM streams WHERE run_id = ?1"
	  "   ORDER BY windows DESC, stream_id LIMIT 4),"
	  " w AS (SELECT w.stream_id, w.ts_ns, w.size_pages, ROW_NUMBER() OVER"
	  "   (PARTITION BY w.stream_id ORDER BY w.window_id) AS rn, COUNT(*) OVER"
	  "   (PARTITION BY w.stream_id) AS n FROM windows w WHERE w.run_id = ?1"
	  "   AND w.stream_id IN (SELECT stream_id FROM top))"
	  " SELECT stream_id, ts_ns - (SELECT MIN(ts_ns) FROM windows WHERE run_id = ?1)"
	  " AS t_ns, size_pages FROM w WHERE (rn - 1) % ((n + 299) / 300) = 0 OR rn = n"
	  " ORDER BY stream_id, t_ns" },
	{ "chart_latency", "Request latency histograms", NULL,
	  "SELECT " RA_SQL_DEV("dev") " AS dev, interval, lo_ns, hi_ns, n"
	  " FROM latency_hist WHERE run_id = ?1 AND interval IN ('D2C', 'Q2C', 'Q2D_RA')"
	  " ORDER BY dev, interval, lo_ns" },
	{ "chart_throughput", "Read throughput and readahead I/O over time", NULL,
	  "WITH r AS (SELECT c_ts_ns, nr_sector * 512 AS bytes, rwbs LIKE '%A%' AS ra"
	  "   FROM requests WHERE run_id = ?1 AND rwbs LIKE '%R%'),"
	  " span AS (SELECT MIN(c_ts_ns) AS t0, MAX(MAX(c_ts_ns) - MIN(c_ts_ns), 1) AS len"
	  "   FROM r)"
	  " SELECT MIN(99, (c_ts_ns - t0) * 100 / len) AS bucket, len / 100 AS bucket_ns,"
	  " SUM(bytes) AS bytes, SUM(CASE WHEN ra THEN bytes ELSE 0 END) AS ra_bytes"
	  " FROM r, span GROUP BY bucket, len ORDER BY bucket" },
	{ "chart_io_sizes", "Readahead I/O sizes", NULL,
	  "SELECT CAST(pow(2, CAST(log2(nr_sector * 512) AS INTEGER)) AS INTEGER) AS size_bytes,"
	  " COUNT(*) AS requests FROM requests WHERE run_id = ?1 AND rwbs LIKE '%A%'"
	  " AND nr_sector > 0 GROUP BY 1 ORDER BY 1" },
};

/* Warnings: each query returns one message per row. */
static const char *const warning_sql[] = {
	"SELECT 'lost events: ' || lost_events || ' events were lost; every count is a lower"
	" bound' FROM v_runs WHERE run_id = ?1 AND lost_events > 0",
	"SELECT 'the run was interrupted by a signal: the trace ends early' FROM runs"
	" WHERE run_id = ?1 AND interrupted != 0",
	/* someone dropped the page cache while the run ran */
	"SELECT 'the page cache was dropped ' || (a.value - b.value) || ' time(s) during the run"
	" (drop_caches, by another program): the pages it took count as evicted unused, or"
	" thrashed' FROM vmstat a JOIN vmstat b ON b.run_id = a.run_id AND b.name = a.name"
	" AND b.phase = 'before' WHERE a.run_id = ?1 AND a.phase = 'after'"
	" AND a.name = 'drop_pagecache' AND a.value > b.value",
	"SELECT 'recorded in a guest under software emulation (qemu TCG, '"
	" || COALESCE(boot_kernel, kernel, 'kernel not known') || '): its times, bandwidths and"
	" latencies are not the machine''s; its windows, fates and requests are the kernel''s'"
	" FROM runs WHERE run_id = ?1 AND execution = 'vm-tcg'",
	/* one line per cause: the replay lacks what the readahead pass lacks; a
	 * what-if run's own model and replay are its source's */
	"SELECT pass || ' analysis unavailable: ' || COALESCE(message, '') FROM analyses a"
	" WHERE run_id = ?1 AND state != 'ok' AND NOT (pass = 'replay' AND EXISTS (SELECT 1"
	" FROM analyses b WHERE b.run_id = a.run_id AND b.pass = 'readahead' AND b.state != 'ok'))"
	" AND NOT (pass IN ('model', 'replay') AND EXISTS (SELECT 1 FROM runs r"
	" WHERE r.run_id = a.run_id AND r.origin = 'whatif'))",
	"SELECT pass || ' analysis: ' || message FROM analyses WHERE run_id = ?1 AND state = 'ok'"
	" AND message IS NOT NULL",
	/* fio's JSON does not say whether its groups ran one after another (stonewall) */
	"SELECT 'fio reported ' || COUNT(*) || ' groups: read_bw_bytes sums their bandwidths,"
	" which overstates it when a stonewall ran them one after another (device_read_bw_bytes"
	" does not)' FROM bench_results WHERE run_id = ?1 AND metric = 'read_bw_bytes'"
	" AND job LIKE '(group %' HAVING COUNT(*) > 1",
	"SELECT 'tracepoint ' || system || ':' || name || ' is not available on this kernel'"
	" || COALESCE((SELECT CASE message WHEN '" RA_NOT_ASKED "' THEN ', and ' ELSE"
	" ', and no dynamic event could be made: ' END || message FROM event_sources e"
	" WHERE e.run_id = t.run_id AND e.system = t.system AND e.name = t.name"
	" AND e.probe = 'none'), '')"
	" FROM tracepoints t WHERE run_id = ?1 AND available = 0 AND system = 'readahead'"
	" AND (SELECT origin FROM runs WHERE run_id = ?1) = 'record'"
	" AND NOT EXISTS (SELECT 1 FROM event_sources e WHERE e.run_id = t.run_id"
	" AND e.system = t.system AND e.name = t.name AND e.probe = 'kprobe')",
	/* events from kprobes, and their self-check */
	"SELECT group_concat(system || ':' || name, ', ') || ' from kprobes (fields '"
	" || REPLACE(MIN(args), '-', ' ') || ')' || COALESCE((SELECT ': self-check ' || state"
	" || ', ' || message FROM self_checks WHERE run_id = ?1 AND name = 'readahead_windows'),"
	" '') FROM event_sources WHERE run_id = ?1 AND probe = 'kprobe' HAVING COUNT(*) > 0",
	/* pages the trace cannot place: reads of the run returned batches without events */
	"SELECT s.pending || ' read-ahead pages were still cached and unread by any traced read"
	" at the end, and reads of this run returned ' || w.i || ' pages in batches the kernel"
	" did not report (docs/metrics.md): some of the ' || s.pending || ' may have been read,"
	" and the hit ratio lies between ' || s.hit_ratio || ' and '"
	" || ROUND(CAST(s.used + s.mapped + s.pending AS REAL) / s.readahead_pages, 4)"
	" FROM v_readahead_stats s, (SELECT SUM(used_inferred) AS i FROM windows"
	" WHERE run_id = ?1) w WHERE s.run_id = ?1 AND s.pattern = 'all' AND s.pending > 0"
	" AND w.i > 0",
	"SELECT 'block totals of ' || dev || ' disagree with /sys/block stat: trace '"
	" || reads_completed || ' reads, ' || sectors_read || ' sectors; stat '"
	" || stat_reads_delta || ' reads, ' || stat_sectors_delta || ' sectors'"
	" FROM v_device_io WHERE run_id = ?1 AND stat_match = 0",
	"SELECT 'ra_pages ' || w.ra_pages || ' in the trace disagrees with read_ahead_kb '"
	" || d.read_ahead_kb_before || ' of ' || d.name || ' (' || (d.read_ahead_kb_before"
	" / w.page_kb) || ' pages): the setting changed during the run, or files were opened'"
	" || ' before it changed, or POSIX_FADV_SEQUENTIAL doubled it'"
	" FROM (SELECT DISTINCT dev, ra_pages, COALESCE((SELECT page_size FROM runs"
	" WHERE run_id = ?1), 4096) / 1024 AS page_kb FROM windows WHERE run_id = ?1"
	" AND ra_pages IS NOT NULL AND pattern NOT IN ('around', 'forced')) w"
	" JOIN devices dv ON dv.run_id = ?1 AND dv.dev = w.dev"
	" JOIN v_devices d ON d.run_id = ?1 AND d.dev = dv.major || ':' || dv.minor"
	" WHERE d.read_ahead_kb_before IS NOT NULL"
	" AND w.ra_pages * w.page_kb != d.read_ahead_kb_before",
	/* readahead off or tiny, by the device setting or by the trace's ra_pages */
	"SELECT 'readahead is disabled on ' || d.name || ': read_ahead_kb 0, so a cache miss"
	" reads only the pages asked for' FROM v_devices d WHERE d.run_id = ?1"
	" AND d.read_ahead_kb_before = 0 AND d.role != 'traced'"
	" UNION ALL SELECT * FROM (SELECT 'readahead is disabled for ' || " RA_SQL_DEV("w.dev")
	" || ' in the trace: ra_pages 0' FROM windows w WHERE w.run_id = ?1"
	" AND w.trigger != 'none' GROUP BY w.dev HAVING MAX(w.ra_pages) = 0"
	" AND NOT EXISTS (SELECT 1 FROM v_devices d WHERE d.run_id = ?1"
	" AND d.dev = " RA_SQL_DEV("w.dev")
	" AND d.read_ahead_kb_before = 0 AND d.role != 'traced') ORDER BY w.dev)",
	"SELECT 'readahead is tiny on ' || d.name || ': read_ahead_kb ' || d.read_ahead_kb_before"
	" || ', under 16 KB (4 KB after boot was reported in 2010); sequential reads reach the"
	" device in I/Os of ' || d.read_ahead_kb_before || ' KB' FROM v_devices d"
	" WHERE d.run_id = ?1 AND d.read_ahead_kb_before BETWEEN 1 AND 15 AND d.role != 'traced'"
	" UNION ALL SELECT * FROM (SELECT 'readahead is tiny for ' || " RA_SQL_DEV("w.dev")
	" || ' in the trace: ra_pages ' || MAX(w.ra_pages) || ' (' || (MAX(w.ra_pages)"
	" * r.page_kb) || ' KB, under 16 KB)' FROM windows w,"
	" (SELECT COALESCE(page_size, 4096) / 1024 AS page_kb FROM runs WHERE run_id = ?1) r"
	" WHERE w.run_id = ?1 AND w.trigger != 'none'"
	" GROUP BY w.dev, r.page_kb HAVING MAX(w.ra_pages) * r.page_kb BETWEEN 1 AND 15"
	" AND NOT EXISTS (SELECT 1 FROM v_devices d WHERE d.run_id = ?1"
	" AND d.dev = " RA_SQL_DEV("w.dev")
	" AND d.read_ahead_kb_before BETWEEN 1 AND 15 AND d.role != 'traced') ORDER BY w.dev)",
	/* a model that does not describe the device, or the measurements */
	"SELECT 'the device model of ' || " RA_SQL_DEV("dev") " || ' fits poorly ('"
	" || CAST(ROUND(rms_rel_err * 100) AS INTEGER) || '% rms over ' || sizes || ' sizes):"
	" its table and advice are rough' FROM device_models WHERE run_id = ?1"
	" AND timing = 'window' AND chosen != 0 AND status = 'ok'"
	" AND rms_rel_err > " RA_STR(RA_MODEL_POOR_FIT),
	"SELECT 'the device model of ' || " RA_SQL_DEV("dev") " || ' does not"
	" explain the measured throughput at read_ahead_kb ' || group_concat(read_ahead_kb, ', ')"
	" || ' (predicted / measured ' || group_concat(printf('%.2f', predicted_bps"
	" / measured_bps), ', ') || '): ' || (SELECT x.reason FROM model_sets x"
	" WHERE x.run_id = ?1 AND x.dev = g.dev AND x.explained = 0 ORDER BY x.read_ahead_kb"
	" LIMIT 1) || '; the advice is unreliable' FROM (SELECT * FROM model_sets"
	" WHERE run_id = ?1 AND explained = 0 ORDER BY dev, read_ahead_kb) g GROUP BY dev"
	" ORDER BY dev",
	"SELECT 'runs left out of the device model of ' || " RA_SQL_DEV("dev")
	" || ': ' || group_concat('run ' || member || ' (read_ahead_kb '"
	" || COALESCE(CAST(read_ahead_kb AS TEXT), '?') || ') ' || reason, '; ')"
	" FROM (SELECT * FROM model_runs WHERE run_id = ?1"
	" AND state IN ('failed', 'killed', 'interrupted') ORDER BY dev, member) GROUP BY dev"
	" ORDER BY dev",
	/* settings: changed under the run, or not the ones that govern its files */
	"SELECT 'read_ahead_kb of ' || COALESCE(c.path, " RA_SQL_DEV("c.dev") ")"
	" || ' changed during the run: ' || c.expected || ' expected, ' || c.observed"
	" || ' found'"
	" || COALESCE(' at ' || ROUND((c.ts_ns - r.trace_start_ns) / 1e9, 2) || ' s', '')"
	" || '; the run was partly recorded at another setting' FROM setting_changes c"
	" JOIN runs r USING (run_id) WHERE c.run_id = ?1 AND c.observed IS NOT c.expected"
	" ORDER BY c.ts_ns",
	"SELECT 'the readahead of ' || f.fstype || ' ' || " RA_SQL_DEV("f.fs_dev")
	" || ' at ' || f.mount_point || ' is governed by bdi ' || f.bdi"
	" || ' (read_ahead_kb ' || f.read_ahead_kb || '), not by ' || d.name || ' (read_ahead_kb '"
	" || d.read_ahead_kb_before || '): the setting of ' || d.name"
	" || ' does not size its windows'"
	" FROM filesystems f JOIN v_devices d ON d.run_id = f.run_id"
	" AND d.dev = " RA_SQL_DEV("f.dev") " AND d.role != 'member'"
	" WHERE f.run_id = ?1 AND f.dev != 0 AND f.bdi IS NOT NULL AND f.read_ahead_kb IS NOT NULL"
	" AND d.read_ahead_kb_before IS NOT NULL AND f.read_ahead_kb != d.read_ahead_kb_before",
	"SELECT 'the ' || f.fstype || ' file system ' || " RA_SQL_DEV("f.fs_dev")
	" || ' at ' || f.mount_point || ' has no block device ratrace can"
	" map: ' || CASE WHEN f.fstype = 'overlay' THEN 'the file systems of its layers are not"
	" known (a layer given by a relative path); the events of its files carry their layers''"
	" own devices' WHEN (SELECT COUNT(*) FROM devices v WHERE v.run_id = ?1"
	" AND v.role = 'filter') > 0 THEN COALESCE(f.unrecorded_events || ' of', 'the') || ' its"
	" page-cache and readahead events were not recorded with --device'"
	" ELSE 'its readahead is not tied to a device or a setting' END"
	" FROM filesystems f WHERE f.run_id = ?1 AND f.dev = 0",
	"SELECT 'ra_pages ' || w.ra_pages || ' in the trace of ' || f.fstype || ' '"
	" || " RA_SQL_DEV("w.dev") " || ' disagrees with read_ahead_kb '"
	" || f.read_ahead_kb"
	" || ' of its bdi ' || f.bdi || ': the setting changed during the run, or files were'"
	" || ' opened before it changed, or POSIX_FADV_SEQUENTIAL doubled it'"
	" FROM (SELECT DISTINCT dev, ra_pages FROM windows WHERE run_id = ?1"
	" AND ra_pages IS NOT NULL AND pattern NOT IN ('around', 'forced')) w"
	" JOIN (SELECT DISTINCT fs_dev, fstype, bdi, read_ahead_kb FROM filesystems"
	" WHERE run_id = ?1) f ON f.fs_dev = w.dev,"
	" (SELECT COALESCE(page_size, 4096) / 1024 AS page_kb FROM runs WHERE run_id = ?1) r"
	" WHERE f.read_ahead_kb IS NOT NULL AND f.bdi IS NOT NULL"
	" AND NOT EXISTS (SELECT 1 FROM devices dv WHERE dv.run_id = ?1 AND dv.dev = w.dev)"
	" AND w.ra_pages * r.page_kb != f.read_ahead_kb",
	"SELECT 'no page-cache or readahead event of ' || d.name || ' was recorded although it"
	" read ' || d.stat_sectors_delta || ' sectors: direct I/O, or files on a file system"
	" ratrace could not relate to ' || d.name FROM v_devices d WHERE d.run_id = ?1"
	" AND d.role = 'filter' AND d.stat_sectors_delta > 0"
	" AND NOT EXISTS (SELECT 1 FROM files WHERE run_id = ?1)"
	" AND (SELECT origin FROM runs WHERE run_id = ?1) = 'record'",
	/* WILLNEED calls the kernel cut short, each named as the program made it */
	"SELECT CASE a.call WHEN 'fadvise64' THEN 'fadvise64(POSIX_FADV_WILLNEED)'"
	" WHEN 'madvise' THEN 'madvise(MADV_WILLNEED)' WHEN 'readahead' THEN 'readahead(2)'"
	" ELSE a.call END || ' of ' || COALESCE(f.path, 'ino ' || a.ino) || ': '"
	" || COUNT(*) || ' call(s) asked ' || (SUM(a.asked_pages) * r.page_kb) || ' KB and the"
	" kernel read ' || (SUM(a.read_pages) * r.page_kb) || ' KB (' || ROUND(SUM(a.read_pages)"
	" * 100.0 / SUM(a.asked_pages), 1) || '%): force_page_cache_ra caps a call at'"
	" || ' max(io_pages, ra_pages); the rest is read on demand'"
	" FROM advice_calls a LEFT JOIN files f ON f.run_id = a.run_id AND f.dev = a.dev"
	" AND f.ino = a.ino,"
	" (SELECT COALESCE(page_size, 4096) / 1024 AS page_kb FROM runs WHERE run_id = ?1) r"
	" WHERE a.run_id = ?1 AND a.windows > 0 AND a.ino IS NOT NULL AND a.asked_pages > 0"
	" AND a.read_pages * 2 < a.asked_pages GROUP BY a.call, a.dev, a.ino, f.path, r.page_kb"
	" ORDER BY a.call, a.dev, a.ino",
};

/* a statement of the report: ?1 the run, ?2 the top N and ?3 the stall threshold, as it has them */
static struct ra_stmt *prepare(struct ra_db *db, const char *sql, int64_t run_id,
			       const struct ra_report_opts *o)
{
	static const char *const by_params[] = { "", "i", "ix", "ixi" };
	struct ra_stmt *st = ra_sql_prepare(db, sql);
	int n = st ? ra_sql_params(st) : 0;

	if (st && ra_sql_bind(st, by_params[n < 3 ? n : 3], run_id, o->top > 0 ? o->top : 10,
			      o->stall_ns > 0 ? o->stall_ns : (int64_t)1000000) < 0) {
		ra_sql_finalize(st);
		return NULL;
	}
	return st;
}

static int copy_value(struct ra_value *v, struct ra_stmt *st, int col)
{
	switch (ra_sql_type(st, col)) {
	case RA_SQL_INT:
		v->type = RA_VALUE_INT;
		v->i = ra_sql_int(st, col);
		break;
	case RA_SQL_REAL:
		v->type = RA_VALUE_REAL;
		v->d = ra_sql_real(st, col);
		break;
	case RA_SQL_NULL:
		v->type = RA_VALUE_NULL;
		break;
	case RA_SQL_TEXT:
		v->type = RA_VALUE_TEXT;
		v->s = strdup(ra_sql_text(st, col));
		if (!v->s)
			return -1;
	}
	return 0;
}

/* A new row of @t, its cells NULL (counted, so that a free frees what it gets); NULL out of memory */
static struct ra_value *append_row(struct ra_table *t)
{
	struct ra_value *cells = realloc(t->cells, (size_t)(t->nrows + 1) * (size_t)t->ncols *
							   sizeof(*cells));

	if (!cells)
		return NULL;
	t->cells = cells;
	cells += (size_t)t->nrows++ * (size_t)t->ncols;
	memset(cells, 0, (size_t)t->ncols * sizeof(*cells));
	return cells;
}

/* Whether column @name is one of the words of @list. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

static int add_row(struct ra_table *t, struct ra_stmt *st)
{
	struct ra_value *v = append_row(t);
	const char *unknown = NULL;

	if (!v)
		return -1;
	for (size_t i = 0; i < sizeof(unknown_cols) / sizeof(unknown_cols[0]); i++)
		if (strcmp(unknown_cols[i].key, t->key) == 0)
			unknown = unknown_cols[i].cols;
	for (int c = 0; c < t->ncols; c++) {
		if (copy_value(&v[c], st, c) < 0)
			return -1;
		if (v[c].type == RA_VALUE_NULL && listed(unknown, t->cols[c])) {
			v[c].type = RA_VALUE_TEXT;
			if (!(v[c].s = strdup("unknown")))
				return -1;
		}
	}
	return 0;
}

static int load_table(struct ra_db *db, struct ra_table *t, const struct section *s,
		      int64_t run_id, const struct ra_report_opts *o)
{
	struct ra_stmt *st = prepare(db, s->sql, run_id, o);
	int rc;

	if (!st)
		return -1;
	t->key = s->key;
	t->title = s->title;
	t->note = s->note;
	t->ncols = ra_sql_columns(st);
	t->cols = calloc((size_t)t->ncols, sizeof(*t->cols));
	if (!t->cols)
		goto nomem;
	for (int c = 0; c < t->ncols; c++)
		if (!(t->cols[c] = strdup(ra_sql_name(st, c))))
			goto nomem;
	while ((rc = ra_sql_step(st)) == 1)
		if (add_row(t, st) < 0)
			goto nomem;
	ra_sql_finalize(st);
	return rc;
nomem:
	ra_sql_finalize(st);
	ra_set_error(RA_ERR_IO, "out of memory");
	return -1;
}

/* The analysis pass each table comes from: an unavailable one is said, never shown as empty. */
static const struct {
	const char *key, *pass;
} table_pass[] = {
	{ "readahead_stats", "readahead" },	{ "files", "readahead" },
	{ "streams", "readahead" },		{ "window_io", "readahead" },
	{ "chart_window_sizes", "readahead" },	{ "block", "block" },
	{ "latency", "block" },			{ "plugs", "block" },
	{ "stalls", "block" },			{ "chart_latency", "block" },
	{ "chart_throughput", "block" },	{ "chart_io_sizes", "block" },
	{ "model", "model" },			{ "model_table", "model" },
	{ "predictions", "model" },		{ "advice", "model" },
	{ "model_points", "model" },
};

static int mark_unavailable(struct ra_db *db, struct ra_table *t, int64_t run_id)
{
	static const char sql[] = "SELECT ?2 || ' analysis unavailable: ' || COALESCE(message, '')"
				  " FROM analyses WHERE run_id = ?1 AND pass = ?2 AND state != 'ok'";
	const char *pass = NULL;

	for (size_t i = 0; i < sizeof(table_pass) / sizeof(table_pass[0]) && !pass; i++)
		if (strcmp(table_pass[i].key, t->key) == 0)
			pass = table_pass[i].pass;
	if (!pass)
		return 0;
	return ra_sql_one(db, sql, "it", "T", run_id, pass, &t->unavailable) < 0 ? -1 : 0;
}

static int load_warnings(struct ra_db *db, struct ra_report *r, const struct ra_report_opts *o)
{
	for (size_t i = 0; i < sizeof(warning_sql) / sizeof(warning_sql[0]); i++) {
		struct ra_stmt *st = prepare(db, warning_sql[i], r->run_id, o);
		int rc;

		if (!st)
			return -1;
		while ((rc = ra_sql_step(st)) == 1) {
			char **w;

			if (ra_sql_null(st, 0))
				continue;
			w = realloc(r->warnings, (size_t)(r->nwarnings + 1) * sizeof(*w));
			if (!w) {
				ra_sql_finalize(st);
				return -1;
			}
			r->warnings = w;
			w[r->nwarnings] = strdup(ra_sql_text(st, 0));
			if (w[r->nwarnings])
				r->nwarnings++;
		}
		ra_sql_finalize(st);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int set_text(struct ra_value *v, const char *s)
{
	v->type = RA_VALUE_TEXT;
	v->s = strdup(s);
	return v->s ? 0 : -1;
}

static void set_int(struct ra_value *v, int64_t i, bool null)
{
	v->type = null ? RA_VALUE_NULL : RA_VALUE_INT;
	v->i = i;
}

static int set_kb_list(struct ra_value *v, const int *kb, int n)
{
	char buf[64] = "";

	for (int i = 0; i < n && kb[i]; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%d", i ? "," : "", kb[i]);
	if (!buf[0]) {
		v->type = RA_VALUE_NULL;
		return 0;
	}
	return set_text(v, buf);
}

/* One row of the advice table: @dev's advice at @fraction. */
static int advice_row(struct ra_value *v, const char *dev, double fraction,
		      const struct ra_advice *a)
{
	if (set_text(&v[0], dev) < 0 || set_text(&v[1], ra_advice_status_name(a->status)) < 0)
		return -1;
	v[2].type = RA_VALUE_REAL;
	v[2].d = fraction;
	set_int(&v[3], a->recommended_kb, !a->recommended_kb);
	set_int(&v[4], a->model_kb, !a->model_kb);
	set_int(&v[5], a->measured_kb, !a->measured_kb);
	set_int(&v[6], (int64_t)((a->target_bytes + 1023) / 1024), !(a->target_bytes > 0));
	set_int(&v[7], a->thrash_kb, !a->thrash_kb);
	set_int(&v[8], a->current_kb, a->current_kb < 0);
	v[9].type = a->window_ratio > 0 ? RA_VALUE_REAL : RA_VALUE_NULL;
	v[9].d = a->window_ratio;
	if (set_kb_list(&v[10], a->next_kb, RA_ADVICE_MAX_NEXT) < 0)
		return -1;
	return set_text(&v[11], a->reasoning);
}

/*
 * The advice table: per device of the windows, ra_model_advise() on the
 * pool the model pass stored, at the report's fraction (the stored
 * device_advice is the same at RA_ADVICE_FRACTION).
 */
static int load_advice(struct ra_db *db, struct ra_table *t, int64_t run_id,
		       const struct ra_report_opts *o)
{
	static const char *const cols[] = { "dev", "status", "fraction", "recommended_kb",
					    "model_kb", "measured_kb", "target_kb", "thrash_kb",
					    "current_kb", "window_ratio", "next_kb", "reasoning" };
	double fraction = o->fraction > 0 ? o->fraction : RA_ADVICE_FRACTION;
	struct ra_stmt *st = prepare(db, "SELECT dev, " RA_SQL_DEV("dev")
				   " FROM device_advice WHERE run_id = ?1 ORDER BY dev", run_id, o);
	int ncols = (int)(sizeof(cols) / sizeof(cols[0])), rc;

	if (!st)
		return -1;
	t->key = "advice";
	t->title = "Recommended read_ahead_kb";
	t->note = "the smallest setting reaching the fraction of the best measured, below thrashing";
	t->ncols = ncols;
	t->cols = calloc((size_t)ncols, sizeof(*t->cols));
	if (!t->cols)
		goto nomem;
	for (int c = 0; c < ncols; c++)
		if (!(t->cols[c] = strdup(cols[c])))
			goto nomem;
	while ((rc = ra_sql_step(st)) == 1) {
		struct ra_model_pool p;
		struct ra_value *v;
		struct ra_advice a;

		if (ra_model_pool_load(db, run_id, (uint32_t)ra_sql_int(st, 0), &p) < 0) {
			ra_sql_finalize(st);
			return -1;
		}
		ra_model_advise(&p, fraction, &a);
		ra_model_pool_release(&p);
		if (!(v = append_row(t)) || advice_row(v, ra_sql_text(st, 1), fraction, &a) < 0)
			goto nomem;
	}
	ra_sql_finalize(st);
	return rc;
nomem:
	ra_sql_finalize(st);
	ra_set_error(RA_ERR_IO, "out of memory");
	return -1;
}

struct ra_report *ra_report_load(struct ra_db *db, int64_t run_id, const struct ra_report_opts *o)
{
	size_t n = sizeof(sections) / sizeof(sections[0]) + 1;
	struct ra_report *r = calloc(1, sizeof(*r));

	if (!r || !(r->tables = calloc(n, sizeof(*r->tables)))) {
		free(r);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	r->run_id = run_id;
	for (size_t i = 0; i + 1 < n; i++) {
		if (load_table(db, &r->tables[r->ntables++], &sections[i], run_id, o) < 0)
			goto fail;
		if (strcmp(sections[i].key, "predictions") == 0 &&
		    load_advice(db, &r->tables[r->ntables++], run_id, o) < 0)
			goto fail;
	}
	if (!r->tables[0].nrows) {
		ra_set_error(RA_ERR_USAGE, "no run %lld in '%s'", (long long)run_id,
			     ra_db_path(db));
		goto fail;
	}
	for (int i = 0; i < r->ntables; i++)
		if (mark_unavailable(db, &r->tables[i], run_id) < 0)
			goto fail;
	if (load_warnings(db, r, o) < 0)
		goto fail;
	return r;
fail:
	ra_report_free(r);
	return NULL;
}

void ra_report_free(struct ra_report *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->ntables; i++)
		ra_table_clear(&r->tables[i]);
	for (int i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->tables);
	free(r);
}

const struct ra_table *ra_report_table(const struct ra_report *r, const char *key)
{
	for (int i = 0; i < r->ntables; i++)
		if (strcmp(r->tables[i].key, key) == 0)
			return &r->tables[i];
	return NULL;
}
