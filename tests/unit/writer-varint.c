/*
 * tests/unit/writer-varint.c: LEB128 varints and zigzag coding round-trip
 * at the edges, and malformed input is refused without reading past the
 * end.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "writer/varint.h"

static const uint64_t edges[] = {
	0, 1, 127, 128, 129, 255, 256, 16383, 16384, 0x1fffff, 0x200000,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
	(1ull << 56) - 1, 1ull << 56, (1ull << 63) - 1, 1ull << 63,
	UINT64_MAX - 1, UINT64_MAX,
};
#define NEDGES (sizeof(edges) / sizeof(edges[0]))

Test(writer_varint, roundtrip_u64_edges)
{
	uint8_t buf[ST_VARINT_MAX + 4];
	const uint8_t *p;
	uint64_t v;
	size_t i, n;

	for (i = 0; i < NEDGES; i++) {
		memset(buf, 0xee, sizeof(buf));
		n = (size_t)(st_varint_put(buf, edges[i]) - buf);
		cr_assert_eq(n, st_varint_len(edges[i]));
		cr_assert_leq(n, ST_VARINT_MAX);
		p = buf;
		cr_assert_eq(st_varint_get(&p, buf + n, &v), 0,
			     "cannot read back %llu",
			     (unsigned long long)edges[i]);
		cr_expect_eq(v, edges[i]);
		cr_expect_eq(p, buf + n);
	}
}

Test(writer_varint, lengths_grow_every_seven_bits)
{
	cr_expect_eq(st_varint_len(0), 1);
	cr_expect_eq(st_varint_len(127), 1);
	cr_expect_eq(st_varint_len(128), 2);
	cr_expect_eq(st_varint_len(16383), 2);
	cr_expect_eq(st_varint_len(16384), 3);
	cr_expect_eq(st_varint_len((1ull << 63) - 1), 9);
	cr_expect_eq(st_varint_len(1ull << 63), 10);
	cr_expect_eq(st_varint_len(UINT64_MAX), 10);
}

/* Below 2^14, st_varint_put14() writes the varint, of its length. */
Test(writer_varint, put14_writes_one_or_two_bytes)
{
	uint8_t buf[ST_VARINT_MAX];
	const uint8_t *p;
	uint8_t *end;
	uint64_t v, got;

	for (v = 0; v < 0x4000; v++) {
		end = st_varint_put14(buf, v);
		cr_assert_eq((size_t)(end - buf), st_varint_len(v), "%lu",
			     (unsigned long)v);
		p = buf;
		cr_assert_eq(st_varint_get(&p, end, &got), 0);
		cr_assert_eq(got, v);
		cr_assert_eq(p, end);
	}
}

Test(writer_varint, zigzag_roundtrip_signed_edges)
{
	static const int64_t s[] = {
		0, 1, -1, 63, -64, 64, -65, INT32_MAX, INT32_MIN,
		INT64_MAX, INT64_MIN, INT64_MIN + 1,
	};
	size_t i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		cr_expect_eq((int64_t)st_unzigzag(st_zigzag((uint64_t)s[i])),
			     s[i], "%lld", (long long)s[i]);
	/* Small magnitudes stay small, so they take one byte. */
	cr_expect_eq(st_zigzag(0), 0);
	cr_expect_eq(st_zigzag((uint64_t)-1), 1);
	cr_expect_eq(st_zigzag(1), 2);
	cr_expect_eq(st_zigzag((uint64_t)-64), 127);
	cr_expect_eq(st_zigzag((uint64_t)INT64_MIN), UINT64_MAX);
}

Test(writer_varint, every_cut_is_refused)
{
	uint8_t buf[ST_VARINT_MAX];
	const uint8_t *p;
	uint64_t v = 42;
	size_t i, n, cut;

	for (i = 0; i < NEDGES; i++) {
		n = (size_t)(st_varint_put(buf, edges[i]) - buf);
		for (cut = 0; cut < n; cut++) {
			/* Exactly 'cut' bytes: ASan sees any overread. */
			uint8_t *c = malloc(cut ? cut : 1);

			memcpy(c, buf, cut);
			p = c;
			cr_expect_eq(st_varint_get(&p, c + cut, &v), -EBADMSG);
			cr_expect_eq(p, c, "position moved on failure");
			cr_expect_eq(v, 42, "value written on failure");
			free(c);
		}
	}
}

Test(writer_varint, rejects_overlong_and_overflow)
{
	static const uint8_t eleven[] = {
		0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
		0x00,
	};
	static const uint8_t over[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
	};
	static const uint8_t padded[] = { 0x81, 0x00 };
	static const uint8_t max[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
	};
	const uint8_t *p;
	uint64_t v;

	p = eleven;
	cr_expect_eq(st_varint_get(&p, eleven + sizeof(eleven), &v), -EBADMSG);
	p = over;
	cr_expect_eq(st_varint_get(&p, over + sizeof(over), &v), -EBADMSG);
	p = padded;
	cr_expect_eq(st_varint_get(&p, padded + sizeof(padded), &v), -EBADMSG,
		     "non-shortest form accepted");
	p = max;
	cr_assert_eq(st_varint_get(&p, max + sizeof(max), &v), 0);
	cr_expect_eq(v, UINT64_MAX);
}

Test(writer_varint, reads_consecutive_values)
{
	uint8_t buf[NEDGES * ST_VARINT_MAX], *w = buf;
	const uint8_t *p = buf;
	uint64_t v;
	size_t i;

	for (i = 0; i < NEDGES; i++)
		w = st_varint_put(w, edges[i]);
	for (i = 0; i < NEDGES; i++) {
		cr_assert_eq(st_varint_get(&p, w, &v), 0);
		cr_expect_eq(v, edges[i]);
	}
	cr_expect_eq(p, w);
	cr_expect_eq(st_varint_get(&p, w, &v), -EBADMSG);
}
