// SPDX-License-Identifier: LGPL-2.1
/*
 * libFuzzer harness: the event decoder (collect/decode/decode.c) fed event formats
 * and records, as a trace.dat or a live ring buffer gives them.
 *
 * Input: a flags byte (bit 0: the records are big-endian; bit 1: longs of 4
 * bytes), then event formats as "SYSTEM\0FORMAT TEXT\0" pairs ended by an
 * empty system ("\0"), then records, each a little-endian u16 length and that
 * many bytes of record data (common fields first). Each record is decoded
 * from a buffer of exactly its size, so that a read past its end is caught.
 */
#include <string.h>

#include <traceevent/event-parse.h>

#include "decode.h"
#include "trace.h"
#include "fuzz.h"

#define MAX_FORMATS 16

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	tep_set_loglevel(TEP_LOG_NONE);
	return 0;
}

/* The NUL-terminated string at *@p before @end; NULL when there is none. */
static const char *next_string(const uint8_t **p, const uint8_t *end, size_t *len)
{
	const uint8_t *nul = memchr(*p, 0, (size_t)(end - *p));
	const char *s = (const char *)*p;

	if (!nul)
		return NULL;
	*len = (size_t)(nul - *p);
	*p = nul + 1;
	return s;
}

/* Parse the formats into @tep; returns where the records begin. */
static const uint8_t *parse_formats(struct tep_handle *tep, const uint8_t *p, const uint8_t *end)
{
	for (int i = 0; i < MAX_FORMATS && p < end; i++) {
		const char *sys, *fmt;
		size_t syslen, fmtlen;

		sys = next_string(&p, end, &syslen);
		if (!sys || !syslen)
			break;
		fmt = next_string(&p, end, &fmtlen);
		if (!fmt)
			break;
		tep_parse_event(tep, fmt, fmtlen, sys);
	}
	return p;
}

static void decode_records(struct ra_decoder *dec, const uint8_t *p, const uint8_t *end)
{
	for (unsigned long long ts = 1; end - p >= 2; ts++) {
		size_t len = (size_t)p[0] | (size_t)p[1] << 8;
		struct tep_record rec = { .ts = ts };
		struct ra_event ev;

		p += 2;
		if (len > (size_t)(end - p))
			len = (size_t)(end - p);
		rec.data = malloc(len ? len : 1);
		if (!rec.data)
			abort();
		memcpy(rec.data, p, len);
		rec.size = (int)len;
		rec.record_size = (int)len;
		if (ra_decode(dec, &rec, &ev) == 1 && (ev.type <= RA_EV_NONE || ev.type >= RA_EV_MAX))
			abort();
		free(rec.data);
		p += len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct tep_handle *tep;
	struct ra_decoder *dec;

	if (!size)
		return 0;
	tep = tep_alloc();
	if (!tep)
		abort();
	tep_set_file_bigendian(tep, (p[0] & 1) ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, (p[0] & 2) ? 4 : 8);
	tep_set_page_size(tep, 4096);
	p = parse_formats(tep, p + 1, end);
	dec = ra_decoder_alloc(tep, ra_dyn_lookup);
	if (dec) {
		for (int t = 0; t < RA_EV_MAX; t++)
			ra_decoder_has(dec, t);
		decode_records(dec, p, end);
		ra_decoder_skipped(dec, NULL, NULL);
		ra_decoder_free(dec);
	}
	tep_free(tep);
	return 0;
}
