// SPDX-License-Identifier: LGPL-2.1
/*
 * SQLite's meaning on a PostgreSQL server: the functions, aggregates and
 * operators of the ratrace schema that the reports' SQL (SQLite's dialect,
 * rewritten by lib/pgdialect.c) finds before PostgreSQL's own, so that a
 * report reads the same values from the server as from the file, down to
 * the last bit of a double and the text of a real:
 *
 * - ROUND(x, n) as SQLite 3.40 rounds: it prints x with "%.*f" and reads the
 *   text back. Its printf works in the x87's 80-bit long double and its text
 *   to double conversion divides in it, so both are done here in exact
 *   decimal arithmetic (numeric) rounded to 64 bits at each step where the
 *   C code rounds (sqlite_format, sqlite_atof): bit for bit the same.
 * - a real as text ("'...' || x", CAST(x AS TEXT), group_concat): "%!.15g".
 * - printf('%.2f', x) for one f or g conversion.
 * - SUM of integers or of truth values an integer, as SQLite adds (AVG,
 *   which SQLite adds in doubles, is PostgreSQL's of a double: the dialect
 *   makes its value one).
 * - MAX(a, b), MIN(a, b) of two values (NULL when one is), IFNULL, INSTR,
 *   LOG2, group_concat, json_each of an array of integers.
 * - CAST(x AS INTEGER) toward zero; CAST of text: its leading number.
 *
 * tests/e2e/t_fleet_sqlite.sh compares each with SQLite on many values.
 */
#include <stddef.h>

#include "pg_local.h"
#include "pgschema.h"

#define S RA_PG_SCHEMA "."

static const char *const funcs[] = {
	/*
	 * The packed events (lib/chunk.c): @nbits bits at bit @at of @d, read
	 * from at most 8 bytes little-endian as bits_get() reads them; a value,
	 * its base plus that distance (less one, 0 NULL, where the column may be
	 * NULL) as a uint64_t adds, then as an int64_t; a text, its length in the
	 * low 3 bits and 7 bits a character.
	 */
	"CREATE FUNCTION " S "chunk_bits(d bytea, at bigint, nbits bigint) RETURNS numeric"
	" LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$\n"
	"DECLARE\n"
	"  off int := (at >> 3)::int;\n"
	"  sh int := (at & 7)::int;\n"
	"  v numeric := 0;\n"
	"BEGIN\n"
	"  IF nbits <= 0 THEN RETURN 0; END IF;\n"
	"  FOR k IN REVERSE least((sh + nbits + 7) / 8, 8) - 1 .. 0 LOOP\n"
	"    v := v * 256 + CASE WHEN off + k < length(d) THEN get_byte(d, off + k) ELSE 0 END;\n"
	"  END LOOP;\n"
	"  RETURN mod(div(v, 2::numeric ^ sh), 2::numeric ^ least(nbits, 64));\n"
	"END $$",

	"CREATE FUNCTION " S "chunk_value(base bigint, p numeric, nullok boolean) RETURNS bigint"
	" LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$\n"
	"DECLARE\n"
	"  v numeric;\n"
	"BEGIN\n"
	"  IF p IS NULL OR (nullok AND p = 0) THEN RETURN NULL; END IF;\n"
	"  v := mod(mod(COALESCE(base, 0)::numeric + p - CASE WHEN nullok THEN 1 ELSE 0 END,\n"
	"               2::numeric ^ 64) + 2::numeric ^ 64, 2::numeric ^ 64);\n"
	"  RETURN (CASE WHEN v >= 2::numeric ^ 63 THEN v - 2::numeric ^ 64 ELSE v END)::bigint;\n"
	"END $$",

	"CREATE FUNCTION " S "chunk_text(v bigint) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT NULLIF(string_agg(chr(((v >> (3 + 7 * j)) & 127)::int), ''"
	" ORDER BY j), '') FROM generate_series(0, (v & 7)::int - 1) AS j $$",

	/* exact numbers: 2^k, a double's value, a value rounded to a binary significand */
	"CREATE FUNCTION " S "sqlite_pow2(k int) RETURNS numeric LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN k >= 0 THEN 2::numeric ^ k"
	" ELSE (5::numeric ^ (-k)) * pg_catalog.textcat('1e', k::text)::numeric END $$",

	"CREATE FUNCTION " S "sqlite_exact(x float8) RETURNS numeric LANGUAGE plpgsql IMMUTABLE"
	" STRICT PARALLEL SAFE AS $$\n"
	"DECLARE\n"
	"  b bigint := ('x' || encode(float8send(x), 'hex'))::bit(64)::bigint;\n"
	"  e int := ((b >> 52) & 2047)::int;\n"
	"  m bigint := b & 4503599627370495;\n"
	"  v numeric;\n"
	"BEGIN\n"
	"  IF e = 0 THEN v := m * " S "sqlite_pow2(-1074);\n"
	"  ELSE v := (m + 4503599627370496) * " S "sqlite_pow2(e - 1075);\n"
	"  END IF;\n"
	"  RETURN CASE WHEN b < 0 THEN -v ELSE v END;\n"
	"END $$",

	/* @v rounded to @nbits bits, ties to even; @sticky: the value is a little above |v| */
	"CREATE FUNCTION " S "sqlite_bits(v numeric, nbits int, sticky bool) RETURNS numeric"
	" LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$\n"
	"DECLARE\n"
	"  a numeric := abs(v);\n"
	"  e int;\n"
	"  m numeric;\n"
	"  r numeric;\n"
	"  f numeric;\n"
	"BEGIN\n"
	"  IF a = 0 THEN RETURN v; END IF;\n"
	"  IF a < 1e-300 THEN\n"
	"    e := floor(ln((a * " S "sqlite_pow2(1100))::float8) / ln(2::float8))::int - 1100;\n"
	"  ELSIF a > 1e300 THEN\n"
	"    e := floor(ln((a * " S "sqlite_pow2(-1100))::float8) / ln(2::float8))::int + 1100;\n"
	"  ELSE\n"
	"    e := floor(ln(a::float8) / ln(2::float8))::int;\n"
	"  END IF;\n"
	"  WHILE " S "sqlite_pow2(e) > a LOOP e := e - 1; END LOOP;\n"
	"  WHILE " S "sqlite_pow2(e + 1) <= a LOOP e := e + 1; END LOOP;\n"
	"  m := a * " S "sqlite_pow2(nbits - 1 - e);\n"
	"  r := trunc(m);\n"
	"  f := m - r;\n"
	"  IF f > 0.5 OR (f = 0.5 AND (sticky OR mod(r, 2) = 1)) THEN r := r + 1; END IF;\n"
	"  r := r * " S "sqlite_pow2(e + 1 - nbits);\n"
	"  RETURN CASE WHEN v < 0 THEN -r ELSE r END;\n"
	"END $$",

	/* the x87's long double: 64 bits */
	"CREATE FUNCTION " S "sqlite_ld(v numeric) RETURNS numeric LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT " S "sqlite_bits(v, 64, false) $$",

	/* a / b rounded to nbits bits */
	"CREATE FUNCTION " S "sqlite_div(a numeric, b numeric, nbits int) RETURNS numeric"
	" LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$\n"
	"DECLARE\n"
	"  n numeric := a * 1e80;\n"
	"  q numeric := div(n, b);\n"
	"BEGIN\n"
	"  RETURN " S "sqlite_bits(q * 1e-80, nbits, n - q * b <> 0);\n"
	"END $$",

	/*
	 * SQLite 3.40's printf of a double: "%.Nf" (generic false) or "%.Ng"
	 * (generic true), "%!.Ng" with alt2: the rounder added, the value
	 * brought between 1 and 10, its digits taken one by one, all in long
	 * double (sqlite3_str_vappendf, etFLOAT and etGENERIC).
	 */
	"CREATE FUNCTION " S "sqlite_format(x float8, prec int, generic bool, alt2 bool)"
	" RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$\n"
	"DECLARE\n"
	"  rv numeric := " S "sqlite_exact(x);\n"
	"  prefix text := '';\n"
	"  rounder float8;\n"
	"  idx int;\n"
	"  ex int;\n"
	"  e int := 0;\n"
	"  scale numeric;\n"
	"  xtype text;\n"
	"  rtz bool;\n"
	"  nsd int;\n"
	"  dp bool;\n"
	"  e2 int;\n"
	"  o text;\n"
	"  d int;\n"
	"BEGIN\n"
	"  IF x = 'NaN'::float8 THEN RETURN 'NaN'; END IF;\n"
	"  IF rv < 0 THEN rv := -rv; prefix := '-'; END IF;\n"
	"  IF generic AND prec > 0 THEN prec := prec - 1; END IF;\n"
	"  idx := prec & 4095;\n"
	"  rounder := ('{5.0e-01,5.0e-02,5.0e-03,5.0e-04,5.0e-05,5.0e-06,5.0e-07,5.0e-08,"
	"5.0e-09,5.0e-10}'::float8[])[idx % 10 + 1];\n"
	"  WHILE idx >= 10 LOOP rounder := rounder * '1.0e-10'::float8; idx := idx - 10; END LOOP;\n"
	"  IF NOT generic THEN\n"
	"    ex := (((('x' || encode(float8send(x), 'hex'))::bit(64)::bigint >> 52) & 2047)"
	" - 1023)::int;\n"
	"    IF prec + (ex / 3) < 15 THEN\n"
	"      rounder := " S "sqlite_bits(" S "sqlite_ld(" S "sqlite_exact(rounder) +"
	" " S "sqlite_ld(rv * " S "sqlite_exact('3e-16'::float8))), 53, false)::float8;\n"
	"    END IF;\n"
	"    rv := " S "sqlite_ld(rv + " S "sqlite_exact(rounder));\n"
	"  END IF;\n"
	"  IF rv > 0 THEN\n"
	"    scale := 1;\n"
	"    WHILE rv >= " S "sqlite_ld(" S "sqlite_exact('1e100'::float8) * scale) AND e <= 350 LOOP\n"
	"      scale := " S "sqlite_ld(scale * " S "sqlite_exact('1e100'::float8)); e := e + 100;\n"
	"    END LOOP;\n"
	"    WHILE rv >= " S "sqlite_ld(1e10 * scale) AND e <= 350 LOOP\n"
	"      scale := " S "sqlite_ld(scale * 1e10); e := e + 10;\n"
	"    END LOOP;\n"
	"    WHILE rv >= " S "sqlite_ld(10 * scale) AND e <= 350 LOOP\n"
	"      scale := " S "sqlite_ld(scale * 10); e := e + 1;\n"
	"    END LOOP;\n"
	"    IF scale <> 1 THEN rv := " S "sqlite_div(rv, scale, 64); END IF;\n"
	"    WHILE rv < " S "sqlite_exact('1e-8'::float8) LOOP\n"
	"      rv := " S "sqlite_ld(rv * 1e8); e := e - 8;\n"
	"    END LOOP;\n"
	"    WHILE rv < 1 LOOP rv := " S "sqlite_ld(rv * 10); e := e - 1; END LOOP;\n"
	"    IF e > 350 THEN RETURN prefix || 'Inf'; END IF;\n"
	"  END IF;\n"
	"  IF generic THEN\n"
	"    rv := " S "sqlite_ld(rv + " S "sqlite_exact(rounder));\n"
	"    IF rv >= 10 THEN\n"
	"      rv := " S "sqlite_ld(rv * " S "sqlite_exact('0.1'::float8)); e := e + 1;\n"
	"    END IF;\n"
	"    rtz := true;\n"
	"    IF e < -4 OR e > prec THEN xtype := 'e'; ELSE prec := prec - e; xtype := 'f'; END IF;\n"
	"  ELSE\n"
	"    rtz := alt2;\n"
	"    xtype := 'f';\n"
	"  END IF;\n"
	"  e2 := CASE WHEN xtype = 'e' THEN 0 ELSE e END;\n"
	"  nsd := 16 + CASE WHEN alt2 THEN 10 ELSE 0 END;\n"
	"  dp := prec > 0 OR alt2;\n"
	"  o := prefix;\n"
	"  IF e2 < 0 THEN\n"
	"    o := o || '0';\n"
	"  ELSE\n"
	"    WHILE e2 >= 0 LOOP\n"
	"      IF nsd <= 0 THEN o := o || '0';\n"
	"      ELSE\n"
	"        nsd := nsd - 1; d := trunc(rv)::int; o := o || d::text;\n"
	"        rv := " S "sqlite_ld((rv - d) * 10);\n"
	"      END IF;\n"
	"      e2 := e2 - 1;\n"
	"    END LOOP;\n"
	"  END IF;\n"
	"  IF dp THEN o := o || '.'; END IF;\n"
	"  e2 := e2 + 1;\n"
	"  WHILE e2 < 0 LOOP o := o || '0'; prec := prec - 1; e2 := e2 + 1; END LOOP;\n"
	"  WHILE prec > 0 LOOP\n"
	"    IF nsd <= 0 THEN o := o || '0';\n"
	"    ELSE\n"
	"      nsd := nsd - 1; d := trunc(rv)::int; o := o || d::text;\n"
	"      rv := " S "sqlite_ld((rv - d) * 10);\n"
	"    END IF;\n"
	"    prec := prec - 1;\n"
	"  END LOOP;\n"
	"  IF rtz AND dp THEN\n"
	"    o := rtrim(o, '0');\n"
	"    IF right(o, 1) = '.' THEN o := CASE WHEN alt2 THEN o || '0' ELSE left(o, -1) END;"
	" END IF;\n"
	"  END IF;\n"
	"  IF xtype = 'e' THEN\n"
	"    o := o || 'e' || CASE WHEN e < 0 THEN '-' ELSE '+' END ||\n"
	"         CASE WHEN abs(e) >= 100 THEN abs(e)::text ELSE lpad(abs(e)::text, 2, '0') END;\n"
	"  END IF;\n"
	"  RETURN o;\n"
	"END $$",

	/* SQLite 3.40's text to double (sqlite3AtoF) of what sqlite_format makes with 'f' */
	"CREATE FUNCTION " S "sqlite_atof(t text) RETURNS float8 LANGUAGE plpgsql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$\n"
	"DECLARE\n"
	"  neg bool := left(t, 1) = '-';\n"
	"  s bigint := 0;\n"
	"  d int := 0;\n"
	"  i int := CASE WHEN left(t, 1) = '-' THEN 2 ELSE 1 END;\n"
	"  c text;\n"
	"  frac bool := false;\n"
	"  e int;\n"
	"  scale numeric := 1;\n"
	"  r numeric;\n"
	"BEGIN\n"
	"  WHILE i <= length(t) LOOP\n"
	"    c := substr(t, i, 1);\n"
	"    IF c = '.' THEN frac := true;\n"
	"    ELSIF NOT frac THEN\n"
	"      IF s >= (9223372036854775807 - 9) / 10 THEN d := d + 1;\n"
	"      ELSE s := s * 10 + c::int; END IF;\n"
	"    ELSIF s < (9223372036854775807 - 9) / 10 THEN\n"
	"      s := s * 10 + c::int; d := d - 1;\n"
	"    END IF;\n"
	"    i := i + 1;\n"
	"  END LOOP;\n"
	"  IF s = 0 THEN RETURN CASE WHEN neg THEN '-0'::float8 ELSE 0::float8 END; END IF;\n"
	"  e := -d;\n"
	"  IF d > 0 THEN\n"
	"    r := " S "sqlite_bits(s * 10::numeric ^ d, 53, false);\n"
	"  ELSE\n"
	"    WHILE e > 0 AND s % 10 = 0 LOOP s := s / 10; e := e - 1; END LOOP;\n"
	"    IF e = 0 THEN\n"
	"      r := " S "sqlite_bits(s, 53, false);\n"
	"    ELSE\n"
	"      WHILE e % 22 <> 0 LOOP scale := " S "sqlite_ld(scale * 10); e := e - 1; END LOOP;\n"
	"      WHILE e > 0 LOOP scale := " S "sqlite_ld(scale * 1e22); e := e - 22; END LOOP;\n"
	"      r := " S "sqlite_bits(" S "sqlite_div(s, scale, 64), 53, false);\n"
	"    END IF;\n"
	"  END IF;\n"
	"  RETURN (CASE WHEN neg THEN -r ELSE r END)::float8;\n"
	"END $$",

	/* ROUND: a whole number near 2^52 or beyond is left; n 0 without printf */
	"CREATE FUNCTION " S "round(x float8, n int) RETURNS float8 LANGUAGE plpgsql IMMUTABLE"
	" PARALLEL SAFE COST 1000 AS $$\n"
	"BEGIN\n"
	"  IF x IS NULL OR n IS NULL THEN RETURN NULL; END IF;\n"
	"  IF n > 30 THEN n := 30; END IF;\n"
	"  IF n < 0 THEN n := 0; END IF;\n"
	"  IF x < -4503599627370496.0 OR x > 4503599627370496.0 THEN RETURN x; END IF;\n"
	"  IF n = 0 THEN\n"
	"    RETURN trunc(x + CASE WHEN x < 0 THEN -0.5::float8 ELSE 0.5::float8 END)"
	" + 0::float8;\n"
	"  END IF;\n"
	"  RETURN " S "sqlite_atof(" S "sqlite_format(x, n, false, false));\n"
	"END $$",
	"CREATE FUNCTION " S "round(x float8) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE"
	" AS $$ SELECT " S "round(x, 0) $$",
	"CREATE FUNCTION " S "round(x bigint, n int) RETURNS float8 LANGUAGE sql IMMUTABLE"
	" PARALLEL SAFE AS $$ SELECT " S "round(x::float8, n) $$",
	"CREATE FUNCTION " S "round(x bigint) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE"
	" AS $$ SELECT " S "round(x::float8, 0) $$",

	/* a real as text */
	"CREATE FUNCTION " S "real_text(x float8) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE COST 1000 AS $$ SELECT " S "sqlite_format(x, 15, true, true) $$",

	"CREATE FUNCTION " S "printf(fmt text, x float8) RETURNS text LANGUAGE plpgsql IMMUTABLE"
	" PARALLEL SAFE COST 1000 AS $$\n"
	"DECLARE\n"
	"  m text[] := regexp_match(fmt, '^([^%]*)%(!?)(?:\\.([0-9]+))?([fg])([^%]*)$');\n"
	"BEGIN\n"
	"  IF fmt IS NULL THEN RETURN NULL; END IF;\n"
	"  IF m IS NULL THEN\n"
	"    RAISE EXCEPTION 'printf: the format ''%'' has no single f or g conversion', fmt;\n"
	"  END IF;\n"
	"  RETURN m[1] || " S "sqlite_format(COALESCE(x, 0), COALESCE(m[3]::int, 6), m[4] = 'g',"
	" m[2] = '!') || m[5];\n"
	"END $$",
	"CREATE FUNCTION " S "printf(fmt text, x bigint) RETURNS text LANGUAGE sql IMMUTABLE"
	" PARALLEL SAFE AS $$ SELECT " S "printf(fmt, x::float8) $$",

	/* CAST with SQLite's conversions */
	"CREATE FUNCTION " S "cast_integer(x float8) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN x = 'NaN'::float8 THEN 0"
	" WHEN x <= -9223372036854775808::float8 THEN -9223372036854775807 - 1"
	" WHEN x >= 9223372036854775807::float8 THEN 9223372036854775807"
	" ELSE trunc(x)::bigint END $$",
	"CREATE FUNCTION " S "cast_integer(x bigint) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT x $$",
	"CREATE FUNCTION " S "cast_integer(x integer) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT x::bigint $$",
	"CREATE FUNCTION " S "cast_integer(x boolean) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN x THEN 1::bigint ELSE 0::bigint END $$",
	"CREATE FUNCTION " S "cast_integer(x text) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT COALESCE(LEAST(GREATEST((regexp_match(x,"
	" '^[ \\t\\n\\f\\r]*([+-]?[0-9]+)'))[1]::numeric, -9223372036854775808),"
	" 9223372036854775807)::bigint, 0) $$",
	"CREATE FUNCTION " S "cast_real(x float8) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT x $$",
	"CREATE FUNCTION " S "cast_real(x bigint) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT x::float8 $$",
	"CREATE FUNCTION " S "cast_real(x integer) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT x::float8 $$",
	"CREATE FUNCTION " S "cast_real(x boolean) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN x THEN 1::float8 ELSE 0::float8 END $$",
	"CREATE FUNCTION " S "cast_real(x text) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT COALESCE((regexp_match(x, '^[ \\t\\n\\f\\r]*([+-]?([0-9]+\\.?"
	"[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?)'))[1]::float8, 0) $$",
	"CREATE FUNCTION " S "cast_text(x float8) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT " S "real_text(x) $$",
	"CREATE FUNCTION " S "cast_text(x bigint) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT x::text $$",
	"CREATE FUNCTION " S "cast_text(x integer) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT x::text $$",
	"CREATE FUNCTION " S "cast_text(x boolean) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN x THEN '1' ELSE '0' END $$",
	"CREATE FUNCTION " S "cast_text(x text) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT x $$",

	/* "||" with a number or a truth value: its text as SQLite writes it */
	"CREATE FUNCTION " S "cat(a text, b float8) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT pg_catalog.textcat(a, " S "real_text(b)) $$",
	"CREATE FUNCTION " S "cat(a float8, b text) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT pg_catalog.textcat(" S "real_text(a), b) $$",
	"CREATE FUNCTION " S "cat(a text, b bigint) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT pg_catalog.textcat(a, b::text) $$",
	"CREATE FUNCTION " S "cat(a bigint, b text) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT pg_catalog.textcat(a::text, b) $$",
	"CREATE FUNCTION " S "cat(a text, b integer) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT pg_catalog.textcat(a, b::text) $$",
	"CREATE FUNCTION " S "cat(a integer, b text) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT pg_catalog.textcat(a::text, b) $$",
	"CREATE FUNCTION " S "cat(a text, b boolean) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT pg_catalog.textcat(a, CASE WHEN b THEN '1' ELSE '0' END) $$",
	"CREATE FUNCTION " S "cat(a boolean, b text) RETURNS text LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT pg_catalog.textcat(CASE WHEN a THEN '1' ELSE '0' END, b) $$",
	"CREATE OPERATOR " S "|| (LEFTARG = text, RIGHTARG = float8, FUNCTION = " S "cat)",
	"CREATE OPERATOR " S "|| (LEFTARG = float8, RIGHTARG = text, FUNCTION = " S "cat)",
	"CREATE OPERATOR " S "|| (LEFTARG = text, RIGHTARG = bigint, FUNCTION = " S "cat)",
	"CREATE OPERATOR " S "|| (LEFTARG = bigint, RIGHTARG = text, FUNCTION = " S "cat)",
	"CREATE OPERATOR " S "|| (LEFTARG = text, RIGHTARG = integer, FUNCTION = " S "cat)",
	"CREATE OPERATOR " S "|| (LEFTARG = integer, RIGHTARG = text, FUNCTION = " S "cat)",
	"CREATE OPERATOR " S "|| (LEFTARG = text, RIGHTARG = boolean, FUNCTION = " S "cat)",
	"CREATE OPERATOR " S "|| (LEFTARG = boolean, RIGHTARG = text, FUNCTION = " S "cat)",

	/* MAX and MIN of two values: NULL when either is */
	"CREATE FUNCTION " S "max(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN b > a THEN b"
	" ELSE a END $$",
	"CREATE FUNCTION " S "max(a integer, b integer) RETURNS integer LANGUAGE sql IMMUTABLE"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN b > a THEN b"
	" ELSE a END $$",
	"CREATE FUNCTION " S "max(a float8, b float8) RETURNS float8 LANGUAGE sql IMMUTABLE"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN b > a THEN b"
	" ELSE a END $$",
	"CREATE FUNCTION " S "max(a text, b text) RETURNS text LANGUAGE sql IMMUTABLE"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN b > a THEN b"
	" ELSE a END $$",
	"CREATE FUNCTION " S "min(a bigint, b bigint) RETURNS bigint LANGUAGE sql IMMUTABLE"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN b <= a THEN b"
	" ELSE a END $$",
	"CREATE FUNCTION " S "min(a integer, b integer) RETURNS integer LANGUAGE sql IMMUTABLE"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN b <= a THEN b"
	" ELSE a END $$",
	"CREATE FUNCTION " S "min(a float8, b float8) RETURNS float8 LANGUAGE sql IMMUTABLE"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN b <= a THEN b"
	" ELSE a END $$",
	"CREATE FUNCTION " S "min(a text, b text) RETURNS text LANGUAGE sql IMMUTABLE"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN b <= a THEN b"
	" ELSE a END $$",

	/* SUM of integers an integer; of truth values their count (AVG: lib/pgdialect.c) */
	"CREATE AGGREGATE " S "sum(bigint) (SFUNC = pg_catalog.int8pl, STYPE = bigint,"
	" COMBINEFUNC = pg_catalog.int8pl, PARALLEL = SAFE)",
	"CREATE FUNCTION " S "sum_step(s bigint, b boolean) RETURNS bigint LANGUAGE sql IMMUTABLE"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN b IS NULL THEN s"
	" ELSE COALESCE(s, 0) + CASE WHEN b THEN 1 ELSE 0 END END $$",
	"CREATE AGGREGATE " S "sum(boolean) (SFUNC = " S "sum_step, STYPE = bigint)",
	/* group_concat: the values as text, the separator before each but the first */
	"CREATE FUNCTION " S "concat_step(s text, v text, sep text) RETURNS text LANGUAGE sql"
	" IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN v IS NULL THEN s WHEN s IS NULL THEN v"
	" ELSE pg_catalog.textcat(pg_catalog.textcat(s, COALESCE(sep, '')), v) END $$",
	"CREATE FUNCTION " S "concat_step(s text, v bigint, sep text) RETURNS text LANGUAGE sql"
	" IMMUTABLE PARALLEL SAFE AS $$ SELECT " S "concat_step(s, v::text, sep) $$",
	"CREATE FUNCTION " S "concat_step(s text, v integer, sep text) RETURNS text LANGUAGE sql"
	" IMMUTABLE PARALLEL SAFE AS $$ SELECT " S "concat_step(s, v::text, sep) $$",
	"CREATE FUNCTION " S "concat_step(s text, v float8, sep text) RETURNS text LANGUAGE sql"
	" IMMUTABLE PARALLEL SAFE AS $$ SELECT " S "concat_step(s, " S "real_text(v), sep) $$",
	"CREATE FUNCTION " S "concat_step(s text, v text) RETURNS text LANGUAGE sql"
	" IMMUTABLE PARALLEL SAFE AS $$ SELECT " S "concat_step(s, v, ',') $$",
	"CREATE AGGREGATE " S "group_concat(text, text) (SFUNC = " S "concat_step, STYPE = text)",
	"CREATE AGGREGATE " S "group_concat(bigint, text) (SFUNC = " S "concat_step, STYPE = text)",
	"CREATE AGGREGATE " S "group_concat(integer, text) (SFUNC = " S "concat_step,"
	" STYPE = text)",
	"CREATE AGGREGATE " S "group_concat(float8, text) (SFUNC = " S "concat_step, STYPE = text)",
	"CREATE AGGREGATE " S "group_concat(text) (SFUNC = " S "concat_step, STYPE = text)",

	"CREATE FUNCTION " S "ifnull(a anycompatible, b anycompatible) RETURNS anycompatible"
	" LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT COALESCE(a, b) $$",
	"CREATE FUNCTION " S "instr(a text, b text) RETURNS integer LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT pg_catalog.strpos(a, b) $$",
	/* exact at the powers of two, where a CAST of it must not fall below */
	"CREATE FUNCTION " S "log2(x float8) RETURNS float8 LANGUAGE sql IMMUTABLE STRICT"
	" PARALLEL SAFE AS $$ SELECT CASE WHEN x <= 0 THEN NULL"
	" WHEN x = 2::float8 ^ pg_catalog.round(ln(x) / ln(2::float8))"
	" THEN pg_catalog.round(ln(x) / ln(2::float8))"
	" ELSE ln(x) / ln(2::float8) END $$",
	/* the values of a JSON array of integers (a run set's runs) */
	"CREATE FUNCTION " S "json_each(j text) RETURNS TABLE (value bigint) LANGUAGE sql"
	" IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT e::bigint"
	" FROM pg_catalog.jsonb_array_elements_text(j::jsonb) AS e $$",
	NULL
};

const char *const *ra_pg_funcs(void)
{
	return funcs;
}
