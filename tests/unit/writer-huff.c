/*
 * tests/unit/writer-huff.c: the Huffman coding of chunks (writer/huff.h)
 * gives back every input byte for byte, whatever its distribution (one
 * value, all 256, counts that would make codes longer than the limit),
 * is as short as zlib's Huffman coding alone on skewed bytes, declines
 * what would not fit, and refuses every kind of corrupt payload; and so
 * does the context coding, which takes bytes that depend on the byte
 * before them to fewer bytes than one code.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "writer/huff.h"

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A coding: Huffman coding or the context coding (huff.h). */
struct coding {
	size_t (*encode)(const uint8_t *, size_t, uint8_t *, size_t);
	size_t (*size)(const uint8_t *, size_t);
	int (*decode)(const uint8_t *, size_t, uint8_t *, size_t);
	size_t head;		/* its tables' bytes */
	size_t (*bound)(size_t);
};

static size_t huff_bound(size_t n)
{
	return ST_HUFF_BOUND(n);
}

static size_t ctx_bound(size_t n)
{
	return ST_HUFF_CTX_BOUND(n);
}

static const struct coding huff = { st_huff_encode, st_huff_size,
				    st_huff_decode, ST_HUFF_TABLE,
				    huff_bound };
static const struct coding ctx = { st_huff_ctx_encode, st_huff_ctx_size,
				   st_huff_ctx_decode, ST_HUFF_CTX_HEAD,
				   ctx_bound };

/*
 * Code 'in' with 'c', decode it again, and check both; returns the
 * length.
 */
static size_t coded_roundtrip(const struct coding *c, const uint8_t *in,
			      size_t n)
{
	size_t cap = c->bound(n), len;
	uint8_t *out = malloc(cap), *back = malloc(n + 1);

	cr_assert(out && back);
	len = c->encode(in, n, out, cap);
	cr_assert_gt(len, c->head, "%zu bytes coded to %zu", n, len);
	cr_assert_leq(len, cap);
	cr_assert_eq(c->size(in, n), len, "the size without coding");
	back[n] = 0xa5;
	cr_assert_eq(c->decode(out, len, back, n), 0, "%zu bytes", n);
	cr_assert(!memcmp(back, in, n), "%zu bytes differ", n);
	cr_assert_eq(back[n], 0xa5, "written past the output");
	free(out);
	free(back);
	return len;
}

static size_t roundtrip(const uint8_t *in, size_t n)
{
	return coded_roundtrip(&huff, in, n);
}

/*
 * The valid payload 'out' of 'len' bytes, coding 'n' bytes with 'c', is
 * refused when cut anywhere (too short for its raw length) or with a
 * byte more than it needs, even a zero (out has room for it).
 */
static void expect_cuts_refused(const struct coding *c, uint8_t *out,
				size_t len, uint8_t *back, size_t n)
{
	size_t cut;

	for (cut = 0; cut < len; cut += cut < 200 ? 1 : 97)
		cr_expect_eq(c->decode(out, cut, back, n), -EBADMSG,
			     "cut at %zu of %zu", cut, len);
	out[len] = 0;
	cr_expect_eq(c->decode(out, len + 1, back, n), -EBADMSG);
}

Test(writer_huff, one_value_takes_a_bit_each)
{
	uint8_t in[4000];

	memset(in, 7, sizeof(in));
	cr_expect_eq(roundtrip(in, sizeof(in)),
		     ST_HUFF_TABLE + sizeof(in) / 8);
	cr_expect_eq(roundtrip(in, 1), ST_HUFF_TABLE + 1);
	cr_expect_eq(roundtrip(in, 9), ST_HUFF_TABLE + 2);
}

Test(writer_huff, every_length_and_all_values_round_trip)
{
	uint8_t in[1500];
	uint64_t seed = 11;
	size_t n, i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)rng_next(&seed);
	/* Every tail length of the four-at-a-time loops, and more. */
	for (n = 1; n <= 70; n++)
		roundtrip(in, n);
	for (i = 0; i < 256; i++)
		in[i] = (uint8_t)i;
	roundtrip(in, 256);
	roundtrip(in, sizeof(in));
}

/*
 * Counts that grow like the Fibonacci numbers give an optimal code as
 * long as the number of values: the lengths must be limited to 12 bits
 * and still decode.
 */
Test(writer_huff, lengths_limited_to_the_maximum)
{
	size_t n = 0, f[20], i, k;
	uint8_t *in;

	f[0] = f[1] = 1;
	for (i = 2; i < 20; i++)
		f[i] = f[i - 1] + f[i - 2];
	for (i = 0; i < 20; i++)
		n += f[i];
	in = malloc(n);
	cr_assert(in);
	for (i = 0, k = 0; i < 20; i++)
		memset(in + k, (int)(3 * i), f[i]), k += f[i];
	roundtrip(in, n);
	/* The table holds every length: none is over the limit. */
	{
		uint8_t *out = malloc(ST_HUFF_BOUND(n));
		size_t len = st_huff_encode(in, n, out, ST_HUFF_BOUND(n));

		cr_assert_gt(len, 0);
		for (i = 0; i < ST_HUFF_TABLE; i++) {
			cr_expect_leq(out[i] & 0xf, ST_HUFF_MAX_BITS);
			cr_expect_leq(out[i] >> 4, ST_HUFF_MAX_BITS);
		}
		/* Value 0, among the rarest, would take 19 bits. */
		cr_expect_geq(out[0] & 0xf, 9, "%u bits", out[0] & 0xf);
		free(out);
	}
	free(in);
}

/* Skewed bytes, like timestamp residuals: zlib's size or less. */
static size_t skewed(uint8_t *in, size_t n, uint64_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t r = rng_next(&seed) % 100;

		in[i] = r < 64 ? 0 : r < 80 ? (uint8_t)(19 + r % 2) :
			r < 95 ? (uint8_t)(r % 8) : (uint8_t)rng_next(&seed);
	}
	return n;
}

Test(writer_huff, skewed_bytes_as_short_as_zlib_huffman_only)
{
	enum { N = 200000 };
	static uint8_t in[N], out[N];
	z_stream z;
	size_t ours, theirs;

	skewed(in, N, 5);
	ours = roundtrip(in, N);
	memset(&z, 0, sizeof(z));
	cr_assert_eq(deflateInit2(&z, 1, Z_DEFLATED, 15, 8, Z_HUFFMAN_ONLY),
		     Z_OK);
	z.next_in = in;
	z.avail_in = N;
	z.next_out = out;
	z.avail_out = N;
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	theirs = N - z.avail_out;
	deflateEnd(&z);
	cr_expect_leq(ours, theirs + theirs / 100, "%zu against zlib's %zu",
		      ours, theirs);
	cr_expect_lt(ours * 2, (size_t)N, "%zu of %d", ours, N);
}

Test(writer_huff, declines_what_does_not_fit)
{
	uint8_t in[2000], out[2000];
	uint64_t seed = 3;
	size_t i, len;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)rng_next(&seed);
	cr_expect_eq(st_huff_encode(in, 0, out, sizeof(out)), 0);
	/* Uniform bytes take 8 bits each, plus the table. */
	cr_expect_eq(st_huff_encode(in, sizeof(in), out, sizeof(in) - 1), 0);
	cr_expect_eq(st_huff_encode(in, 4, out, ST_HUFF_TABLE), 0);
	memset(in, 1, sizeof(in));
	len = st_huff_encode(in, sizeof(in), out, sizeof(out));
	cr_assert_eq(len, ST_HUFF_TABLE + sizeof(in) / 8);
	cr_expect_eq(st_huff_encode(in, sizeof(in), out, len - 1), 0);
	cr_expect_eq(st_huff_encode(in, sizeof(in), out, len), len);
}

/* A valid payload of 'n' skewed bytes in 'out' (ST_HUFF_BOUND(n)). */
static size_t valid(uint8_t *in, size_t n, uint8_t *out)
{
	size_t len;

	skewed(in, n, 9);
	len = st_huff_encode(in, n, out, ST_HUFF_BOUND(n));
	cr_assert_gt(len, ST_HUFF_TABLE);
	return len;
}

Test(writer_huff, corrupt_payloads_refused)
{
	enum { N = 3000 };
	static uint8_t in[N], out[ST_HUFF_BOUND(N) + 8], back[N];
	size_t len = valid(in, N, out), i;
	int ok = 0;

	cr_assert_eq(st_huff_decode(out, len, back, N), 0);
	expect_cuts_refused(&huff, out, len, back, N);
	/* Nine bytes of one value: 9 bits, the last 7 bits padding. */
	{
		uint8_t one[9], pad[ST_HUFF_BOUND(9)];
		size_t plen;

		memset(one, 4, sizeof(one));
		plen = st_huff_encode(one, 9, pad, sizeof(pad));
		cr_assert_eq(plen, ST_HUFF_TABLE + 2);
		cr_assert_eq(st_huff_decode(pad, plen, back, 9), 0);
		pad[plen - 1] |= 0x80;
		cr_expect_eq(st_huff_decode(pad, plen, back, 9), -EBADMSG,
			     "a padding bit set");
	}
	/* A length over the maximum. */
	out[5] = (uint8_t)((out[5] & 0xf0) | 13);
	cr_expect_eq(st_huff_decode(out, len, back, N), -EBADMSG);
	/* Lengths that over-subscribe the code: three codes of 1 bit. */
	memset(out, 0, ST_HUFF_TABLE);
	out[0] = 0x11;
	out[1] = 0x01;
	cr_expect_eq(st_huff_decode(out, len, back, N), -EBADMSG);
	/* No code at all. */
	memset(out, 0, ST_HUFF_TABLE);
	cr_expect_eq(st_huff_decode(out, len, back, N), -EBADMSG);
	/*
	 * One code of 1 bit ("0") for value 0: a "1" bit is no code.
	 * Payload: table, then 0x02 (bits 0, 1).
	 */
	out[0] = 0x01;
	out[ST_HUFF_TABLE] = 0x02;
	cr_expect_eq(st_huff_decode(out, ST_HUFF_TABLE + 1, back, 2),
		     -EBADMSG);
	out[ST_HUFF_TABLE] = 0x00;
	cr_expect_eq(st_huff_decode(out, ST_HUFF_TABLE + 1, back, 2), 0);
	cr_expect(back[0] == 0 && back[1] == 0);
	/* Flipped bits: refused, or decoded to some bytes, never a crash. */
	len = valid(in, N, out);
	for (i = ST_HUFF_TABLE; i < len; i += 7) {
		out[i] ^= 0x10;
		ok += st_huff_decode(out, len, back, N) == 0;
		out[i] ^= 0x10;
	}
	cr_expect_lt(ok, (int)((len - ST_HUFF_TABLE) / 7),
		     "every flipped payload decoded");
}

static size_t ctx_roundtrip(const uint8_t *in, size_t n)
{
	return coded_roundtrip(&ctx, in, n);
}

/*
 * 'n' bytes like records': each byte drawn from a few values that
 * depend on the byte before it (a tag, then the bytes it announces).
 */
static void ctx_bytes(uint8_t *in, size_t n, uint64_t seed)
{
	unsigned tag = 0;
	size_t i;

	/* One of four tags, then one of the two bytes that tag allows. */
	for (i = 0; i < n; i++) {
		uint64_t r = rng_next(&seed);

		if (i % 2 == 0) {
			tag = (unsigned)(r % 4);
			in[i] = (uint8_t)(0xa0 + tag);
		} else {
			in[i] = (uint8_t)(11 + 2 * tag + (r >> 8 & 1));
		}
	}
}

/*
 * The context coding gives back every input, whatever its length and
 * distribution, and takes bytes that depend on the byte before them to
 * fewer bytes than one code does, as deflate would.
 */
Test(writer_huff, context_coding_round_trips_and_pays_on_dependent_bytes)
{
	enum { N = 65536 };
	static uint8_t in[N];
	uint64_t seed = 13;
	size_t n, i, ctx, one;

	for (i = 0; i < N; i++)
		in[i] = (uint8_t)rng_next(&seed);
	for (n = 1; n <= 70; n++)
		ctx_roundtrip(in, n);
	ctx_roundtrip(in, N);
	memset(in, 7, 4000);
	cr_expect_eq(ctx_roundtrip(in, 4000), ST_HUFF_CTX_HEAD + 4000 / 8);
	for (i = 0; i < 256; i++)
		in[i] = (uint8_t)i;
	ctx_roundtrip(in, 256);
	ctx_bytes(in, N, 5);
	ctx = ctx_roundtrip(in, N);
	one = roundtrip(in, N);
	cr_expect_lt(ctx * 3, one * 2, "context %zu bytes, one code %zu", ctx,
		     one);
}

/* The context coding's corrupt payloads, as Huffman coding's. */
Test(writer_huff, context_coding_refuses_corrupt_payloads)
{
	enum { N = 3000 };
	static uint8_t in[N], out[ST_HUFF_CTX_BOUND(N) + 8], back[N];
	size_t len, i;
	int ok = 0;

	ctx_bytes(in, N, 7);
	len = st_huff_ctx_encode(in, N, out, ST_HUFF_CTX_BOUND(N));
	cr_assert_gt(len, ST_HUFF_CTX_HEAD);
	cr_assert_eq(st_huff_ctx_decode(out, len, back, N), 0);
	expect_cuts_refused(&ctx, out, len, back, N);
	cr_expect_eq(st_huff_ctx_decode(out, ST_HUFF_CTX_HEAD, back, N),
		     -EBADMSG, "the tables alone");
	/*
	 * The contexts of tags 0xa0 and 0xa1 swapped: what follows them
	 * cannot decode as it was.
	 */
	{
		uint8_t map = out[0xa0 / 2];

		cr_assert_neq(map & 0xf, map >> 4);
		out[0xa0 / 2] = (uint8_t)(map >> 4 | (map & 0xf) << 4);
		ok = st_huff_ctx_decode(out, len, back, N) == 0 &&
		     !memcmp(back, in, N);
		cr_expect(!ok, "decoded as it was with other contexts");
		out[0xa0 / 2] = map;
	}
	/* A table's length over the maximum. */
	out[ST_HUFF_TABLE + 3] = (uint8_t)((out[ST_HUFF_TABLE + 3] & 0xf0) | 13);
	cr_expect_eq(st_huff_ctx_decode(out, len, back, N), -EBADMSG);
	/*
	 * Flipped bits: refused, or decoded to other bytes (its codes all
	 * one or two bits long, every bit string decodes), never a crash.
	 */
	len = st_huff_ctx_encode(in, N, out, ST_HUFF_CTX_BOUND(N));
	for (i = ST_HUFF_CTX_HEAD; i < len; i += 7) {
		out[i] ^= 0x10;
		if (st_huff_ctx_decode(out, len, back, N) == 0)
			cr_expect(memcmp(back, in, N), "byte %zu flipped", i);
		out[i] ^= 0x10;
	}
}

/* The context coding declines what would not fit, and nothing. */
Test(writer_huff, context_coding_declines_what_does_not_fit)
{
	enum { N = 3000 };
	static uint8_t in[N], out[ST_HUFF_CTX_BOUND(N)];
	size_t len;

	ctx_bytes(in, N, 9);
	len = st_huff_ctx_encode(in, N, out, sizeof(out));
	cr_assert_gt(len, ST_HUFF_CTX_HEAD);
	cr_expect_eq(st_huff_ctx_encode(in, N, out, len), len);
	cr_expect_eq(st_huff_ctx_encode(in, N, out, len - 1), 0);
	cr_expect_eq(st_huff_ctx_encode(in, N, out, ST_HUFF_CTX_HEAD), 0);
	cr_expect_eq(st_huff_ctx_encode(in, 0, out, sizeof(out)), 0);
	cr_expect_eq(st_huff_ctx_size(in, 0), 0);
}
