// SPDX-License-Identifier: LGPL-2.1
/*
 * A run's own inputs to the device models of the pools it is in, kept with
 * the run so that a pool reads each member's once instead of its windows and
 * requests again (which made a sweep of N runs cost N^2 passes over windows):
 * - model_facts: per device of its windows (or, without windows, of its page
 *   events), what the run read, how fast and who set the pace (struct
 *   ra_member, modelsets.c); per device of its requests, how many;
 * - model_samples: its samples of device time by device, timing and size
 *   class, in ascending order, in parts of PART samples with their sums.
 *
 * What a run's inputs hold depends on its own rows only. The pool's classes
 * are the union of its members': their sums add up, and the median of a
 * union is found by a search over the values, counting each member's samples
 * at or below a value through the part that holds it, so that memory does
 * not grow with the samples.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_local.h"
#include "pagemap.h"
#include "ra_model.h"
#include "ra_sql.h"

#define PART 1024		/* samples of a model_samples row at most */
#define SORT_MEM (512u << 10)	/* each sorter's memory */
#define FEED_SORT_MEM (256u << 10)	/* fed: while the passes hold their state */

/*
 * One sample: sorted by timing, device, class, device time (then the rest).
 * A window's sample fed as its row is written carries its stream and size:
 * whether it is at its stream's largest size is known at the end.
 */
struct sample {
	uint8_t timing;		/* 0 window, 1 d2c */
	uint8_t cls;
	uint32_t dev;
	int32_t stream;
	uint32_t size;
	int64_t ns, bytes, lat;	/* lat -1: not known */
};

static const char *const timing_name[2] = { "window", "d2c" };

static int size_class(double bytes)
{
	int c = (int)lround(log2(bytes > 1 ? bytes : 1));

	return c < 0 ? 0 : c >= RA_MODEL_CLASSES ? RA_MODEL_CLASSES - 1 : c;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->timing != y->timing)
		return x->timing < y->timing ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	/* the same samples make the same parts, whatever order they came in */
	if (x->lat != y->lat)
		return x->lat < y->lat ? -1 : 1;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

static void put_le64(unsigned char *p, int64_t v)
{
	uint64_t u = (uint64_t)v;

	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(u >> (8 * i));
}

static int64_t get_le64(const unsigned char *p)
{
	uint64_t u = 0;

	for (int i = 0; i < 8; i++)
		u |= (uint64_t)p[i] << (8 * i);
	return (int64_t)u;
}

/* A part being filled: the samples of one (timing, dev, class) in order. */
struct part {
	struct sample key;	/* its timing, dev and class */
	int64_t part, n, n_lat;
	double bytes, sum_ns, sum_lat;
	int64_t lo, hi;
	unsigned char ns[PART * 8];
};

static int part_flush(struct ra_stmt *ins, int64_t run_id, struct part *p)
{
	int rc;

	if (!p->n)
		return 0;
	rc = ra_sql_put(ins, "iitxiiffifiib", run_id, (int64_t)p->key.dev,
			timing_name[p->key.timing], (int)p->key.cls, p->part, p->n, p->bytes,
			p->sum_ns, p->n_lat, p->sum_lat, p->lo, p->hi, (const void *)p->ns,
			(size_t)p->n * 8);
	p->part++;
	p->n = p->n_lat = 0;
	p->bytes = p->sum_ns = p->sum_lat = 0;
	return rc;
}

/* The sorted samples of @x into model_samples of @run_id, of the devices @take takes. */
static int store_samples(struct ra_db *db, int64_t run_id, struct ra_xsort *x,
			 bool (*take)(const struct sample *s, void *arg), void *arg)
{
	struct ra_stmt *ins = ra_sql_prepare(db, "INSERT INTO model_samples (run_id, dev, timing,"
					     " size_class, part, n, bytes, sum_ns, n_latency,"
					     " sum_latency_ns, lo_ns, hi_ns, ns) VALUES (?, ?, ?, ?,"
					     " ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	struct part *p = calloc(1, sizeof(*p));
	struct sample s;
	int rc = -1;

	if (!ins || !p)
		goto out;
	while ((rc = ra_xsort_next(x, &s)) == 1) {
		if (!take(&s, arg))
			continue;
		if (p->n && (s.timing != p->key.timing || s.dev != p->key.dev ||
			     s.cls != p->key.cls)) {
			if (part_flush(ins, run_id, p) < 0)
				break;
			p->part = 0;
		}
		if (p->n == PART && part_flush(ins, run_id, p) < 0)
			break;
		if (!p->n) {
			p->key = s;
			p->lo = s.ns;
		}
		put_le64(p->ns + p->n * 8, s.ns);
		p->hi = s.ns;
		p->n++;
		p->bytes += (double)s.bytes;
		p->sum_ns += (double)s.ns;
		if (s.lat >= 0) {
			p->sum_lat += (double)s.lat;
			p->n_lat++;
		}
	}
	if (rc == 0 && part_flush(ins, run_id, p) < 0)
		rc = -1;
out:
	if (!p)
		ra_set_error(RA_ERR_IO, "out of memory");
	free(p);
	ra_sql_finalize(ins);
	return rc == 0 ? 0 : -1;
}

/*
 * The run's windows and their I/O, each in window order, merged: what the
 * facts sum (ra_member_sums() has them in SQL, window by window the same) and
 * the window samples. Windows: id, dev, size, stream, pages added, readahead
 * pages added, thrashed, pages covered inside the file, ra_pages of a
 * readahead, pages pending or evicted unused, opened. Their I/O: id,
 * service, idle, held, last completion, bytes.
 */
static const char windows_sql[] =
	"SELECT window_id, dev, size_pages, stream_id, pages_added, ra_pages_added, thrashed,"
	" MAX(MIN(start_page + size_pages, COALESCE(eof_page, start_page + size_pages))"
	" - start_page, 0), CASE WHEN pattern NOT IN ('around', 'forced') THEN ra_pages END,"
	" pending + evicted_unused, ts_ns FROM windows WHERE run_id = ?1 ORDER BY window_id";
static const char window_io_sql[] =
	"SELECT window_id, service_ns, idle_ns, held_ns, last_c_ts_ns, bytes FROM window_io"
	" WHERE run_id = ?1 ORDER BY window_id";

/* the requests: dev, bytes, D2C, whether a read with D2C */
static const char d2c_sql[] =
	"SELECT dev, nr_sector * 512.0, c_ts_ns - d_ts_ns, d_ts_ns IS NOT NULL AND rwbs LIKE '%R%'"
	" FROM requests WHERE run_id = ?1";

/* the windows of one size on a device */
struct size_sums {
	int64_t steady;		/* at their stream's largest size, pages added */
	int64_t ra_added, thrashed;
};

/* windows with I/O: how many, their times, the first opened, the last completed */
struct io_sums {
	int64_t n, service, idle, held, first_ts, last_c;
	bool have_c;
};

/* A device of the run: its requests, and of a device of its windows what its facts sum. */
struct rdev {
	uint32_t dev;
	int64_t requests;
	bool facts;		/* a device of its windows (or, without, of its page events) */
	struct io_sums all;	/* every window with I/O: who set the pace */
	struct io_sums timed;	/* those with device time */
	int64_t covered, added, ra_pages, count, unused;
	bool have_ra_pages, paced;
	struct ra_map sizes;	/* size + 1 -> struct size_sums */
};

struct rdevs {
	struct rdev *d;
	size_t n, cap;
	size_t last;		/* the device found last: rows come device after device */
};

static struct rdev *rdev_of(struct rdevs *s, uint32_t dev)
{
	if (s->last < s->n && s->d[s->last].dev == dev)
		return &s->d[s->last];
	for (size_t i = 0; i < s->n; i++)
		if (s->d[i].dev == dev) {
			s->last = i;
			return &s->d[i];
		}
	if (ra_grow((void **)&s->d, &s->cap, s->n + 1, sizeof(*s->d)) < 0)
		return NULL;
	s->d[s->n] = (struct rdev){ .dev = dev };
	if (ra_map_init(&s->d[s->n].sizes, sizeof(struct size_sums)) < 0) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	return &s->d[s->n++];
}

static void rdevs_release(struct rdevs *s)
{
	for (size_t i = 0; i < s->n; i++)
		ra_map_release(&s->d[i].sizes);
	free(s->d);
}

static int cmp_rdev(const void *a, const void *b)
{
	const struct rdev *x = a, *y = b;

	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

static int put_sample(struct ra_xsort *x, int timing, int64_t dev, double bytes, int64_t ns,
		      int64_t lat, int64_t stream, int64_t size)
{
	struct sample s = { .timing = (uint8_t)timing, .dev = (uint32_t)dev,
			    .stream = (int32_t)stream, .size = (uint32_t)size, .ns = ns,
			    .bytes = (int64_t)bytes, .lat = lat };

	if (!(bytes > 0 && ns > 0))
		return 0;
	s.cls = (uint8_t)size_class(bytes);
	return ra_xsort_put(x, &s);
}

/* The samples of the run: of windows without and with their idle time, of requests. */
struct sorters {
	struct ra_xsort *plain, *paced, *d2c;
};

/* A window's I/O. */
struct wio {
	int64_t id, service, idle, held, last_c, bytes;
	bool has_service, has_c;
};

/* The stream @id's largest window, -1 when the run has no such stream. */
static int64_t stream_max(struct ra_map *streams, int64_t id)
{
	const int64_t *max = ra_map_get(streams, (uint64_t)id + 1);

	return max ? *max : -1;
}

static void io_add(struct io_sums *z, const struct wio *io, int64_t ts)
{
	if (!z->n || ts < z->first_ts)
		z->first_ts = ts;
	z->n++;
	z->service += io->service;
	z->idle += io->idle;
	z->held += io->held;
	if (io->has_c && (!z->have_c || io->last_c > z->last_c)) {
		z->last_c = io->last_c;
		z->have_c = true;
	}
}

/*
 * A window's I/O @io on device @d (opened at @ts) into its sums, and its
 * samples into @x where it has device time and @sample says (a window of
 * stream @stream and @size pages, for the store to take or not).
 */
static int add_io(struct rdev *d, struct sorters *x, const struct wio *io, int64_t ts,
		  bool sample, int64_t stream, int64_t size)
{
	int64_t lat;

	io_add(&d->all, io, ts);
	if (!io->has_service)
		return 0;	/* no device time */
	io_add(&d->timed, io, ts);
	if (!sample)
		return 0;
	/* who set the device's pace is known at the end: a sample either way */
	lat = io->has_c ? io->last_c - ts : -1;
	return put_sample(x->plain, 0, d->dev, (double)io->bytes, io->service, lat, stream,
			  size) < 0 ||
	       put_sample(x->paced, 0, d->dev, (double)io->bytes, io->service + io->idle, lat,
			  stream, size) < 0 ? -1 : 0;
}

/* One row of windows_sql, with its I/O @io (NULL: none), into its device's sums and @x. */
static int add_window(struct ra_stmt *q, const struct wio *io, struct ra_map *streams,
		      struct rdevs *devs, struct sorters *x)
{
	int64_t id, dev, size, stream, added, ra_added, thrashed, covered, ra_pages, unused, ts;
	int64_t max;
	struct size_sums *z;
	struct rdev *d;
	bool fresh, steady;

	ra_sql_row(q, "iiiiiiiiiii", &id, &dev, &size, &stream, &added, &ra_added, &thrashed,
		   &covered, &ra_pages, &unused, &ts);
	if (!(d = rdev_of(devs, (uint32_t)dev)) ||
	    !(z = ra_map_put(&d->sizes, (uint64_t)size + 1, &fresh)))
		return -1;
	d->facts = true;
	max = stream_max(streams, stream);
	steady = max >= 0 && size >= max;
	z->steady += steady && added > 0;
	z->ra_added += ra_added;
	z->thrashed += thrashed;
	d->covered += covered;
	d->added += added;
	if (!ra_sql_null(q, 8) && (!d->have_ra_pages || ra_pages > d->ra_pages)) {
		d->ra_pages = ra_pages;
		d->have_ra_pages = true;
	}
	d->count++;
	d->unused += unused;
	return io ? add_io(d, x, io, ts, steady, 0, 0) : 0;
}

/*
 * Whether the device set the pace of @d's windows: held at least as long as
 * idle, or RA_MODEL_HELD_SHARE of its I/O time (as in SQL, where a time not
 * known makes it false)
 */
static bool dev_paced(const struct rdev *d)
{
	const struct io_sums *z = &d->all;
	double idle = (double)z->idle;

	if (!z->have_c)
		return false;
	if (RA_MODEL_HELD_SHARE * (double)(z->last_c - z->first_ts) < idle)
		idle = RA_MODEL_HELD_SHARE * (double)(z->last_c - z->first_ts);
	return (double)z->held >= idle;
}

/* The next row of window_io_sql into @io: 1, 0 none left, -1 */
static int next_io(struct ra_stmt *q, struct wio *io)
{
	int rc = ra_sql_step(q);

	if (rc != 1)
		return rc;
	ra_sql_row(q, "iiiiii", &io->id, &io->service, &io->idle, &io->held, &io->last_c,
		   &io->bytes);
	io->has_service = !ra_sql_null(q, 1);
	io->has_c = !ra_sql_null(q, 4);
	return 1;
}

/* The run's streams' largest windows into @streams. */
static int load_streams(struct ra_db *db, int64_t run_id, struct ra_map *streams)
{
	struct ra_stmt *q = ra_sql_prepare(db, "SELECT stream_id, max_size_pages FROM streams"
					   " WHERE run_id = ?1 AND max_size_pages IS NOT NULL");
	int rc = -1;

	if (q && ra_sql_bind(q, "i", run_id) == 0)
		while ((rc = ra_sql_step(q)) == 1) {
			bool fresh;
			int64_t *max = ra_map_put(streams, (uint64_t)ra_sql_int(q, 0) + 1, &fresh);

			if (!max) {
				ra_set_error(RA_ERR_IO, "out of memory");
				rc = -1;
				break;
			}
			*max = ra_sql_int(q, 1);
		}
	ra_sql_finalize(q);
	return rc < 0 ? -1 : 0;
}

/* The run's windows with their I/O into @devs and @x. */
static int collect_windows(struct ra_db *db, int64_t run_id, struct sorters *x,
			   struct rdevs *devs)
{
	struct ra_stmt *w = NULL, *q = NULL;
	struct ra_map streams;
	struct wio io = { 0 };
	int rc = -1, rio = 0;

	if (ra_map_init(&streams, sizeof(int64_t)) < 0) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (load_streams(db, run_id, &streams) < 0 || !(w = ra_sql_prepare(db, windows_sql)) ||
	    !(q = ra_sql_prepare(db, window_io_sql)) || ra_sql_bind(w, "i", run_id) < 0 ||
	    ra_sql_bind(q, "i", run_id) < 0 || (rio = next_io(q, &io)) < 0)
		goto out;
	while ((rc = ra_sql_step(w)) == 1) {
		int64_t id = ra_sql_int(w, 0);

		while (rio == 1 && io.id < id)	/* the I/O of no window joins none */
			rio = next_io(q, &io);
		if (rio < 0 || add_window(w, rio == 1 && io.id == id ? &io : NULL, &streams, devs,
					  x) < 0) {
			rc = -1;
			break;
		}
	}
out:
	ra_sql_finalize(w);
	ra_sql_finalize(q);
	ra_map_release(&streams);
	return rc == 0 ? 0 : -1;
}

/* The run's samples into @x, its devices and their sums into @devs. */
static int collect(struct ra_db *db, int64_t run_id, struct sorters *x, struct rdevs *devs)
{
	struct ra_stmt *q;
	int rc = 0;

	if (collect_windows(db, run_id, x, devs) < 0)
		return -1;
	for (size_t i = 0; i < devs->n; i++)
		devs->d[i].paced = dev_paced(&devs->d[i]);
	if (!(q = ra_sql_prepare(db, d2c_sql)) || ra_sql_bind(q, "i", run_id) < 0)
		rc = -1;
	while (rc == 0 && (rc = ra_sql_step(q)) == 1) {
		int64_t dev, ns, read;
		double bytes;
		struct rdev *d;

		ra_sql_row(q, "ifii", &dev, &bytes, &ns, &read);
		if (!(d = rdev_of(devs, (uint32_t)dev)))
			rc = -1;
		else {
			d->requests++;
			rc = read && put_sample(x->d2c, 1, dev, bytes, ns, -1, 0, 0) < 0 ? -1 : 0;
		}
	}
	ra_sql_finalize(q);
	return rc < 0 ? -1 : 0;
}

static int page_dev(const struct ra_event *ev, int64_t seq, void *arg)
{
	struct rdev *d = rdev_of(arg, ev->page.dev);

	(void)seq;
	if (!d)
		return -1;
	d->facts = true;
	return 0;
}

/* The sums of @d as ra_member_sums() makes them; @io_devs: devices with windows with I/O. */
static void dev_sums(struct rdev *d, int io_devs, struct ra_member_sums *w)
{
	int64_t best = -1, best_n = 0, ra_added = 0, thrashed = 0;
	bool any = false;

	w->io[0] = (double)d->timed.n;
	w->io[1] = (double)d->timed.service;
	w->io[2] = (double)d->timed.idle;
	w->io[3] = (double)d->timed.held;
	w->io[4] = d->timed.n ? (double)d->timed.first_ts : NAN;
	w->io[5] = d->timed.have_c ? (double)d->timed.last_c : NAN;
	/* the size most steady windows had, the larger on a tie */
	for (size_t i = 0; i < d->sizes.cap; i++) {
		const struct size_sums *z = (const struct size_sums *)((const char *)d->sizes.vals +
								       i * d->sizes.val_size);
		int64_t size = (int64_t)d->sizes.keys[i] - 1;

		if (d->sizes.keys[i] && z->steady > 0 &&
		    (z->steady > best_n || (z->steady == best_n && size > best))) {
			best = size;
			best_n = z->steady;
		}
	}
	w->steady = best >= 0 ? (double)best : NAN;
	for (size_t i = 0; i < d->sizes.cap; i++) {
		const struct size_sums *z = (const struct size_sums *)((const char *)d->sizes.vals +
								       i * d->sizes.val_size);
		int64_t size = (int64_t)d->sizes.keys[i] - 1;

		if (d->sizes.keys[i] && (double)(size * 2) > (best >= 0 ? (double)best : 0)) {
			ra_added += z->ra_added;
			thrashed += z->thrashed;
			any = true;
		}
	}
	w->fates[0] = any ? (double)ra_added : NAN;
	w->fates[1] = any ? (double)thrashed : NAN;
	w->fates[2] = (double)d->covered;
	w->fates[3] = (double)d->added;
	w->fates[4] = d->have_ra_pages ? (double)d->ra_pages : NAN;
	w->fates[5] = (double)d->count;
	w->fates[6] = (double)d->unused;
	w->io_devs = io_devs;
}

static int store_facts(struct ra_db *db, int64_t run_id, struct rdevs *devs)
{
	struct ra_stmt *ins = ra_sql_prepare(db, "INSERT INTO model_facts (run_id, dev, requests,"
					     " state, reason, read_ahead_kb, ra_kb, window_bytes,"
					     " windows, all_windows, io_ns, idle_share, held_share,"
					     " device_paced, samples_paced, thrash_share,"
					     " thrashed_pages, cached_share, unused_share,"
					     " app_measured, measured_bps) VALUES (?, ?, ?, ?, ?, ?,"
					     " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	int rc = ins ? 0 : -1, io_devs = 0;

	for (size_t i = 0; i < devs->n; i++)
		io_devs += devs->d[i].all.n > 0;
	if (devs->n)
		qsort(devs->d, devs->n, sizeof(*devs->d), cmp_rdev);
	for (size_t i = 0; rc == 0 && i < devs->n; i++) {
		struct rdev *d = &devs->d[i];
		struct ra_member m = { .run_id = run_id };
		struct ra_member_sums w;

		if (!d->facts) {
			/* a device of its requests only: the other columns NULL */
			rc = ra_sql_put(ins, "iii" "nnnnnnnnnnnnnnnnnn", run_id, (int64_t)d->dev,
					d->requests);
			continue;
		}
		dev_sums(d, io_devs, &w);
		if (ra_member_finish(db, d->dev, &w, &m) < 0) {
			rc = -1;
			break;
		}
		rc = ra_sql_put(ins, "iiittxxfxxfffxxfiffxf", run_id, (int64_t)d->dev,
				d->requests, m.state, m.reason[0] ? m.reason : NULL,
				m.setting_kb, m.ra_kb, m.window_bytes, m.windows, m.all_windows,
				m.io_ns, m.idle_share, m.held_share, (int)m.device_paced,
				(int)d->paced, m.thrash_share, m.thrashed_pages,
				m.cached_share, m.unused_share, (int)m.app_measured, m.measured_bps);
	}
	ra_sql_finalize(ins);
	return rc;
}

/*
 * Which sorter's window samples a device's are: with its idle time where it
 * set the pace. Fed samples are the run's only at their stream's largest
 * size (@streams; NULL: the samples are those already).
 */
struct take_ctx {
	struct rdevs *devs;
	bool paced;
	struct ra_map *streams;
};

static bool take_paced(const struct sample *s, void *arg)
{
	struct take_ctx *t = arg;
	const struct rdev *d = rdev_of(t->devs, s->dev);	/* a device of a sample is one */
	int64_t max;

	if (!d || d->paced != t->paced)
		return false;
	if (!t->streams)
		return true;
	max = stream_max(t->streams, s->stream);
	return max >= 0 && s->size >= max;
}

static bool take_all(const struct sample *s, void *arg)
{
	(void)s, (void)arg;
	return true;
}

/* The run's sorted samples @x and the facts of @devs, into its model_samples and model_facts. */
static int store_inputs(struct ra_db *db, int64_t run_id, struct sorters *x, struct rdevs *devs,
			struct ra_map *streams)
{
	struct take_ctx plain = { devs, false, streams }, paced = { devs, true, streams };
	bool windows = false, want[2] = { false, false };

	/* a sorter of window samples no device takes from is not read */
	for (size_t i = 0; i < devs->n; i++)
		if (devs->d[i].all.n)
			want[devs->d[i].paced] = true;
	if ((want[0] && (ra_xsort_end(x->plain) < 0 ||
			 store_samples(db, run_id, x->plain, take_paced, &plain) < 0)) ||
	    (want[1] && (ra_xsort_end(x->paced) < 0 ||
			 store_samples(db, run_id, x->paced, take_paced, &paced) < 0)) ||
	    ra_xsort_end(x->d2c) < 0 || store_samples(db, run_id, x->d2c, take_all, NULL) < 0)
		return -1;
	for (size_t i = 0; i < devs->n; i++)
		windows |= devs->d[i].facts;
	/* without windows, the devices of its page events */
	if (!windows && ra_evstream_each(db, run_id, RA_STREAM_PAGE, page_dev, devs) < 0)
		return -1;
	return store_facts(db, run_id, devs);
}

static struct ra_xsort *sorter_new(size_t mem)
{
	return ra_xsort_new(sizeof(struct sample), cmp_sample, mem);
}

static void sorters_free(struct sorters *x)
{
	ra_xsort_free(x->plain);
	ra_xsort_free(x->paced);
	ra_xsort_free(x->d2c);
}

int ra_model_inputs_store(struct ra_db *db, int64_t run_id)
{
	struct sorters x = { sorter_new(SORT_MEM), sorter_new(SORT_MEM), sorter_new(SORT_MEM) };
	struct rdevs devs = { 0 };
	int ret = -1;

	if (!x.plain || !x.paced || !x.d2c)
		ra_set_error(RA_ERR_IO, "out of memory");
	else if (collect(db, run_id, &x, &devs) == 0)
		ret = store_inputs(db, run_id, &x, &devs, NULL);
	sorters_free(&x);
	rdevs_release(&devs);
	return ret;
}

/* ---- the same inputs, fed as the run's rows are written ---- */

/* A stream's windows at the largest size it has had so far that added pages. */
struct stream_top {
	uint32_t dev;
	int64_t max, n;
};

struct ra_model_feed {
	struct rdevs devs;
	struct sorters x;	/* the window samples of every size */
	struct ra_map tops;	/* stream_id + 1 -> struct stream_top */
	bool spoiled, stored;
	char why[160];
};

void ra_model_feed_spoil(struct ra_model_feed *f, const char *why)
{
	if (f && !f->spoiled) {
		f->spoiled = true;
		snprintf(f->why, sizeof(f->why), "%s", why);
	}
}

struct ra_model_feed *ra_model_feed_new(void)
{
	struct ra_model_feed *f = calloc(1, sizeof(*f));

	if (!f || ra_map_init(&f->tops, sizeof(struct stream_top)) < 0) {
		free(f);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	f->x = (struct sorters){ sorter_new(FEED_SORT_MEM), sorter_new(FEED_SORT_MEM),
				 sorter_new(FEED_SORT_MEM) };
	if (!f->x.plain || !f->x.paced || !f->x.d2c) {
		ra_model_feed_free(f);
		ra_set_error(RA_ERR_IO, "out of memory");
		return NULL;
	}
	return f;
}

void ra_model_feed_free(struct ra_model_feed *f)
{
	if (!f)
		return;
	sorters_free(&f->x);
	rdevs_release(&f->devs);
	ra_map_release(&f->tops);
	free(f);
}

static bool feed_failed(struct ra_model_feed *f, int rc)
{
	if (rc < 0 || ra_xsort_failed(f->x.plain) || ra_xsort_failed(f->x.paced) ||
	    ra_xsort_failed(f->x.d2c))
		ra_model_feed_spoil(f, ra_last_error());
	return f->spoiled;
}

void ra_model_feed_window(struct ra_model_feed *f, const struct ra_feed_window *now,
			  const struct ra_feed_window *was)
{
	struct size_sums *z;
	struct stream_top *top, no_stream = { .dev = now->dev, .max = -1 };
	struct rdev *d;
	bool fresh, top_fresh;

	if (!f || f->spoiled)
		return;
	if (was && (was->size != now->size || was->stream != now->stream ||
		    was->ra_pages != now->ra_pages)) {
		ra_model_feed_spoil(f, "a window's row was written again with another size,"
				    " stream or ra_pages");
		return;
	}
	top_fresh = false;
	top = &no_stream;	/* a window of no stream is never steady */
	if (!(d = rdev_of(&f->devs, now->dev)) ||
	    !(z = ra_map_put(&d->sizes, (uint64_t)now->size + 1, &fresh)) ||
	    (now->stream > 0 && !(top = ra_map_put(&f->tops, (uint64_t)now->stream + 1,
						   &top_fresh)))) {
		ra_model_feed_spoil(f, "out of memory");
		return;
	}
	d->facts = true;
	z->ra_added += now->ra_added - (was ? was->ra_added : 0);
	z->thrashed += now->thrashed - (was ? was->thrashed : 0);
	d->covered += now->covered - (was ? was->covered : 0);
	d->added += now->added - (was ? was->added : 0);
	d->unused += now->unused - (was ? was->unused : 0);
	if (was) {
		if (now->size == top->max)
			top->n += (now->added > 0) - (was->added > 0);
		return;
	}
	d->count++;
	if (now->ra_pages >= 0 && (!d->have_ra_pages || now->ra_pages > d->ra_pages)) {
		d->ra_pages = now->ra_pages;
		d->have_ra_pages = true;
	}
	if (!top_fresh && top->dev != now->dev) {
		ra_model_feed_spoil(f, "a stream's windows were on two devices");
		return;
	}
	if (top_fresh || now->size > top->max)
		*top = (struct stream_top){ .dev = now->dev, .max = now->size };
	if (now->size == top->max)
		top->n += now->added > 0;
}

void ra_model_feed_io(struct ra_model_feed *f, const struct ra_feed_io *io)
{
	struct wio w = { .service = io->service >= 0 ? io->service : 0,
			 .idle = io->idle >= 0 ? io->idle : 0,
			 .held = io->held >= 0 ? io->held : 0, .last_c = io->last_c,
			 .bytes = io->bytes, .has_service = io->service >= 0,
			 .has_c = io->last_c != 0 };
	struct rdev *d;

	if (!f || f->spoiled)
		return;
	if (!(d = rdev_of(&f->devs, io->dev))) {
		ra_model_feed_spoil(f, "out of memory");
		return;
	}
	feed_failed(f, add_io(d, &f->x, &w, io->ts, true, io->stream, io->size));
}

void ra_model_feed_io_again(struct ra_model_feed *f)
{
	if (!f || f->spoiled)
		return;
	for (size_t i = 0; i < f->devs.n; i++)
		f->devs.d[i].all = f->devs.d[i].timed = (struct io_sums){ 0 };
	ra_xsort_free(f->x.plain);
	ra_xsort_free(f->x.paced);
	f->x.plain = sorter_new(FEED_SORT_MEM);
	f->x.paced = sorter_new(FEED_SORT_MEM);
	if (!f->x.plain || !f->x.paced)
		ra_model_feed_spoil(f, "out of memory");
}

void ra_model_feed_request(struct ra_model_feed *f, uint32_t dev, int64_t sectors,
			   int64_t d2c_ns, bool read)
{
	struct rdev *d;

	if (!f || f->spoiled)
		return;
	if (!(d = rdev_of(&f->devs, dev))) {
		ra_model_feed_spoil(f, "out of memory");
		return;
	}
	d->requests++;
	if (read)
		feed_failed(f, put_sample(f->x.d2c, 1, dev, (double)sectors * 512.0, d2c_ns, -1, 0,
					  0));
}

/*
 * The steady windows of the feed's streams, at their largest size in the
 * run's streams rows @streams: 0, or 1 where a stream's rows had another
 * largest window (@why).
 */
static int feed_steady(struct ra_model_feed *f, struct ra_map *streams, char *why, size_t len)
{
	for (size_t i = 0; i < f->tops.cap; i++) {
		const struct stream_top *top = (const struct stream_top *)((const char *)f->tops.vals +
									   i * f->tops.val_size);
		int64_t id = (int64_t)f->tops.keys[i] - 1, max;
		struct size_sums *z;
		struct rdev *d;
		bool fresh;

		if (!f->tops.keys[i] || (max = stream_max(streams, id)) < 0)
			continue;	/* not a stream of the run's: none of its windows is steady */
		if (max != top->max) {
			snprintf(why, len, "stream %lld's largest window is %lld pages, its rows"
				 " had %lld", (long long)id, (long long)max, (long long)top->max);
			return 1;
		}
		if (!(d = rdev_of(&f->devs, top->dev)))
			return -1;
		if (!(z = ra_map_put(&d->sizes, (uint64_t)max + 1, &fresh))) {
			ra_set_error(RA_ERR_IO, "out of memory");
			return -1;
		}
		z->steady += top->n;
	}
	return 0;
}

int ra_model_inputs_store_fed(struct ra_db *db, int64_t run_id, struct ra_model_feed *f,
			      char *why, size_t len)
{
	struct ra_map streams;
	int ret = -1, rc;

	if (!f || f->spoiled || f->stored) {
		snprintf(why, len, "%s", !f ? "none was fed" : f->stored ? "they were stored" :
			 f->why);
		return 0;
	}
	if (ra_map_init(&streams, sizeof(int64_t)) < 0) {
		ra_set_error(RA_ERR_IO, "out of memory");
		return -1;
	}
	if (load_streams(db, run_id, &streams) < 0 ||
	    (rc = feed_steady(f, &streams, why, len)) < 0)
		goto out;
	if (rc > 0) {
		ret = 0;
		goto out;
	}
	for (size_t i = 0; i < f->devs.n; i++)
		f->devs.d[i].paced = dev_paced(&f->devs.d[i]);
	f->stored = true;
	ret = store_inputs(db, run_id, &f->x, &f->devs, &streams) < 0 ? -1 : 1;
out:
	ra_map_release(&streams);
	return ret;
}

/* ---- a pool's classes, from its members' inputs ---- */

/* runs that count: not failed, killed or interrupted */
#define RUN_OK                                                                              \
	" (SELECT run_id FROM runs WHERE COALESCE(exit_status, 0) = 0"                     \
	" AND exit_signal IS NULL AND NOT interrupted)"

/*
 * The classes of the pool's members that count (the runs that count; of the
 * window samples, where some runs of the pool were device-paced, only those:
 * a reader-paced run of a rate limiter shows what its credit let through, not
 * the limit), by member and class.
 */
#define CLASSES_SQL                                                                         \
	"SELECT s.run_id, s.size_class, SUM(s.n), SUM(s.bytes), SUM(s.sum_ns),"             \
	" SUM(s.n_latency), SUM(s.sum_latency_ns), MIN(s.lo_ns), MAX(s.hi_ns)"              \
	" FROM model_samples s WHERE s.dev = ?2 AND s.timing = ?3 AND s.run_id IN (%s)"     \
	" AND s.run_id IN" RUN_OK " AND (s.timing = 'd2c' OR EXISTS (SELECT 1 FROM"         \
	" model_facts f WHERE f.run_id = s.run_id AND f.dev = s.dev AND f.samples_paced)"   \
	" OR NOT EXISTS (SELECT 1 FROM model_facts f WHERE f.dev = ?2 AND f.samples_paced"  \
	" AND f.run_id IN (%s) AND f.run_id IN" RUN_OK "))"                                 \
	" GROUP BY 1, 2 ORDER BY 1, 2"

/* A member's class in a pool's class. */
struct member_class {
	int64_t run_id, n, lo, hi;
};

struct pool {
	struct ra_db *db;
	uint32_t dev;
	const char *timing;
	struct ra_stmt *q_part, *q_le;
	struct member_class *mc[RA_MODEL_CLASSES];
	size_t nmc[RA_MODEL_CLASSES], capmc[RA_MODEL_CLASSES];
};

/* The staged classes of one member. */
struct staged {
	int64_t run_id;
	struct ra_pool_class c[RA_MODEL_CLASSES];
	struct member_class mc[RA_MODEL_CLASSES];
};

/*
 * A member's class counts when it holds RUN_CLASS_SHARE of its samples of the
 * device: a ramp-up leaves one window per size, often served by an idle
 * device or a throttle's burst allowance; such a handful must not stand for
 * a size.
 */
static int merge_member(struct pool *p, struct staged *st, struct ra_pool_class *cls,
			int *nruns)
{
	int64_t total = 0;
	bool gave = false;

	for (int c = 0; c < RA_MODEL_CLASSES; c++)
		total += st->c[c].n;
	for (int c = 0; c < RA_MODEL_CLASSES; c++) {
		const struct ra_pool_class *k = &st->c[c];

		if (!k->n || (double)k->n < RA_MODEL_RUN_CLASS_SHARE * (double)total)
			continue;
		if (ra_grow((void **)&p->mc[c], &p->capmc[c], p->nmc[c] + 1, sizeof(*p->mc[c])) < 0)
			return -1;
		p->mc[c][p->nmc[c]++] = st->mc[c];
		cls[c].n += k->n;
		cls[c].bytes += k->bytes;
		cls[c].sum_ns += k->sum_ns;
		cls[c].n_lat += k->n_lat;
		cls[c].sum_lat += k->sum_lat;
		gave = true;
	}
	*nruns += gave;
	memset(st, 0, sizeof(*st));
	return 0;
}

/* The samples of @m's class @c in part @part, in @buf (PART of them); how many, -1 */
static int load_part(struct pool *p, const struct member_class *m, int c, int64_t part,
		     int64_t *buf)
{
	const void *b = NULL;
	size_t len = 0;
	int rc, n = 0;

	ra_sql_reset(p->q_part);
	if (ra_sql_bind(p->q_part, "iitxi", m->run_id, (int64_t)p->dev, p->timing, c, part) < 0)
		return -1;
	rc = ra_sql_step(p->q_part);
	if (rc == 1) {
		ra_sql_row(p->q_part, "b", &b, &len);
		for (n = 0; (size_t)n < len / 8 && n < PART; n++)
			buf[n] = get_le64((const unsigned char *)b + 8 * n);
	}
	return rc < 0 ? -1 : n;
}

/* How many of @m's samples of class @c are at most @v: the part that holds the last of them. */
static int64_t count_le(struct pool *p, const struct member_class *m, int c, int64_t v)
{
	const void *b = NULL;
	int64_t part, n, lo = 0, hi;
	size_t len = 0;
	int rc;

	ra_sql_reset(p->q_le);
	if (ra_sql_bind(p->q_le, "iitxi", m->run_id, (int64_t)p->dev, p->timing, c, v) < 0)
		return -1;
	if ((rc = ra_sql_step(p->q_le)) != 1)
		return rc < 0 ? -1 : 0;
	ra_sql_row(p->q_le, "iib", &part, &n, &b, &len);
	hi = n < (int64_t)(len / 8) ? n : (int64_t)(len / 8);
	while (lo < hi) {	/* the first sample above v */
		int64_t mid = lo + (hi - lo) / 2;

		if (get_le64((const unsigned char *)b + 8 * mid) <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return part * PART + lo;
}

/* The @k-th smallest (from 0) of the samples of the pool's class @c; -1 on error. */
static int64_t kth(struct pool *p, int c, int64_t k)
{
	const struct member_class *m = p->mc[c];
	int64_t lo = INT64_MAX, hi = INT64_MIN, buf[PART];
	int n;

	if (p->nmc[c] == 1) {
		n = load_part(p, &m[0], c, k / PART, buf);
		if (n < 0)
			return -1;
		if (k % PART >= n) {
			ra_set_error(RA_ERR_DATA, "the samples of run %lld in '%s' are damaged",
				     (long long)m[0].run_id, ra_db_path(p->db));
			return -1;
		}
		return buf[k % PART];
	}
	for (size_t i = 0; i < p->nmc[c]; i++) {
		lo = m[i].lo < lo ? m[i].lo : lo;
		hi = m[i].hi > hi ? m[i].hi : hi;
	}
	while (lo < hi) {	/* the smallest value with more than k samples at or below it */
		int64_t mid = lo + (hi - lo) / 2, below = 0;

		for (size_t i = 0; i < p->nmc[c]; i++) {
			int64_t le = count_le(p, &m[i], c, mid);

			if (le < 0)
				return -1;
			below += le;
		}
		if (below > k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int ra_model_pool_classes(struct ra_db *db, int64_t run_id, uint32_t dev, const char *timing,
			  struct ra_pool_class *cls, int *nruns)
{
	struct pool p = { .db = db, .dev = dev, .timing = timing };
	struct staged *st = calloc(1, sizeof(*st));
	struct ra_stmt *q = NULL;
	char sql[4096];
	int rc = -1;

	memset(cls, 0, RA_MODEL_CLASSES * sizeof(*cls));
	*nruns = 0;
	snprintf(sql, sizeof(sql), CLASSES_SQL, ra_model_pool_sql, ra_model_pool_sql);
	if (!st || !(q = ra_sql_prepare(db, sql)) ||
	    ra_sql_bind(q, "iit", run_id, (int64_t)dev, timing) < 0)
		goto out;
	while ((rc = ra_sql_step(q)) == 1) {
		struct ra_pool_class k = { 0 };
		int64_t r, c, lo, hi;

		ra_sql_row(q, "iiiffifii", &r, &c, &k.n, &k.bytes, &k.sum_ns, &k.n_lat, &k.sum_lat,
			   &lo, &hi);
		if (st->run_id && r != st->run_id && merge_member(&p, st, cls, nruns) < 0) {
			rc = -1;
			break;
		}
		if (c < 0 || c >= RA_MODEL_CLASSES)
			continue;	/* not a class this build makes */
		st->run_id = r;
		st->c[c] = k;
		st->mc[c] = (struct member_class){ .run_id = r, .n = k.n, .lo = lo, .hi = hi };
	}
	if (rc == 0 && st->run_id && merge_member(&p, st, cls, nruns) < 0)
		rc = -1;
	ra_sql_finalize(q);
	q = NULL;
	if (rc < 0)
		goto out;
	p.q_part = ra_sql_prepare(db, "SELECT ns FROM model_samples WHERE run_id = ?1 AND dev = ?2"
				  " AND timing = ?3 AND size_class = ?4 AND part = ?5");
	p.q_le = ra_sql_prepare(db, "SELECT part, n, ns FROM model_samples WHERE run_id = ?1"
				" AND dev = ?2 AND timing = ?3 AND size_class = ?4 AND lo_ns <= ?5"
				" ORDER BY lo_ns DESC, part DESC LIMIT 1");
	rc = p.q_part && p.q_le ? 0 : -1;
	for (int c = 0; rc == 0 && c < RA_MODEL_CLASSES; c++)
		if (cls[c].n > 0 && (cls[c].p50 = kth(&p, c, (cls[c].n - 1) / 2)) < 0)
			rc = -1;
out:
	if (!st)
		ra_set_error(RA_ERR_IO, "out of memory");
	ra_sql_finalize(q);
	ra_sql_finalize(p.q_part);
	ra_sql_finalize(p.q_le);
	for (int c = 0; c < RA_MODEL_CLASSES; c++)
		free(p.mc[c]);
	free(st);
	return rc == 0 ? 0 : -1;
}
