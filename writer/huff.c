/*
 * writer/huff.c: the Huffman coding of a chunk's records (huff.h).
 *
 * Encoding counts the byte values (in four tables, so that runs of one
 * value do not wait on each other's increments; st_huff_size() stops
 * there, the length following from counts and code), builds the code
 * lengths with the two-queue method over the values sorted by count
 * (halving the counts and building again in the rare chunk whose
 * longest code would pass ST_HUFF_MAX_BITS), and writes four codes at a
 * time into a 64-bit accumulator that is stored whole and advanced by
 * the bytes it filled.  Decoding looks up ST_HUFF_MAX_BITS bits at a
 * time in a table of every code's value and length.  The context
 * coding (huff.h) does the same with a code, and a table, per context:
 * both go through pack() and unpack(), whose 'ctx' is a constant.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writer/huff.h"

#define NSYM 256
#define DEC_SIZE (1u << ST_HUFF_MAX_BITS)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Code lengths for the counts 'f' (of which 'n' are not 0), into 'len';
 * the longest is returned.  Ties go to the leaf, and the values are
 * sorted by count and then value, so the lengths depend on the counts
 * alone.
 */
static unsigned build_lengths(const uint64_t *f, unsigned n, uint8_t *len)
{
	uint64_t key[NSYM], w[2 * NSYM];
	unsigned parent[2 * NSYM], depth[2 * NSYM];
	unsigned i, k, leaf = 0, inner, next, max = 0;

	for (i = 0, k = 0; i < NSYM; i++)
		if (f[i])
			key[k++] = f[i] << 8 | i;
	qsort(key, n, sizeof(key[0]), cmp_u64);
	for (i = 0; i < n; i++)
		w[i] = key[i] >> 8;
	inner = next = n;
	for (k = 0; k + 1 < n; k++) {
		unsigned two[2], j;

		for (j = 0; j < 2; j++) {
			if (leaf < n && (inner == next || w[leaf] <= w[inner]))
				two[j] = leaf++;
			else
				two[j] = inner++;
		}
		w[next] = w[two[0]] + w[two[1]];
		parent[two[0]] = parent[two[1]] = next;
		next++;
	}
	/* Parents come after their children: the root is the last. */
	depth[next - 1] = 0;
	for (i = next - 1; i-- > 0;)
		depth[i] = depth[parent[i]] + 1;
	for (i = 0; i < n; i++) {
		len[key[i] & 0xff] = (uint8_t)depth[i];
		if (depth[i] > max)
			max = depth[i];
	}
	return max;
}

/* Code lengths of the byte counts 'count' (not all 0), into 'len'. */
static void code_lengths(const uint64_t *count, uint8_t *len)
{
	uint64_t f[NSYM];
	unsigned i, n = 0;

	memset(len, 0, NSYM);
	for (i = 0; i < NSYM; i++) {
		f[i] = count[i];
		n += f[i] != 0;
	}
	if (n == 1) {
		for (i = 0; f[i] == 0; i++)
			;
		len[i] = 1;
		return;
	}
	while (build_lengths(f, n, len) > ST_HUFF_MAX_BITS)
		for (i = 0; i < NSYM; i++)
			if (f[i])
				f[i] = f[i] >> 1 | 1;
}

/*
 * The canonical codes of the lengths 'len', bit-reversed (the first bit
 * lowest), into 'code'.  Returns -1 when the lengths over-subscribe the
 * code or one passes ST_HUFF_MAX_BITS.
 */
static int canonical(const uint8_t *len, uint16_t *code)
{
	unsigned count[ST_HUFF_MAX_BITS + 1] = { 0 };
	unsigned next[ST_HUFF_MAX_BITS + 1];
	unsigned i, b, c = 0, kraft = 0;

	for (i = 0; i < NSYM; i++) {
		if (len[i] > ST_HUFF_MAX_BITS)
			return -1;
		if (len[i]) {
			count[len[i]]++;
			kraft += DEC_SIZE >> len[i];
		}
	}
	if (kraft > DEC_SIZE)
		return -1;
	for (b = 1; b <= ST_HUFF_MAX_BITS; b++) {
		c = (c + count[b - 1]) << 1;
		next[b] = c;
	}
	for (i = 0; i < NSYM; i++) {
		unsigned v, r = 0, j;

		if (!len[i])
			continue;
		v = next[len[i]]++;
		for (j = 0; j < len[i]; j++)
			r |= (v >> j & 1) << (len[i] - 1 - j);
		code[i] = (uint16_t)r;
	}
	return 0;
}

/*
 * Eight bytes, least significant first: on a little-endian machine one
 * unaligned move.  gcc 12 made the byte loop eight shifted byte stores,
 * which doubled the time the encoder takes to pack its codes
 * (docs/hotpath.md).
 */
static inline void put_le64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, sizeof(v));
#else
	unsigned i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> 8 * i);
#endif
}

static inline uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&v, p, sizeof(v));
#else
	unsigned i;

	for (i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << 8 * i;
#endif
	return v;
}

/*
 * The ST_HUFF_TABLE bytes at 'out' of a value of four bits for each
 * byte value, 'v' (a code length, or a context), and back.
 */
static void put_nibbles(uint8_t *out, const uint8_t *v)
{
	unsigned i;

	for (i = 0; i < ST_HUFF_TABLE; i++)
		out[i] = (uint8_t)(v[2 * i] | v[2 * i + 1] << 4);
}

static void get_nibbles(const uint8_t *in, uint8_t *v)
{
	unsigned i;

	for (i = 0; i < ST_HUFF_TABLE; i++) {
		v[2 * i] = in[i] & 0xf;
		v[2 * i + 1] = in[i] >> 4;
	}
}

/* The counts of the byte values of the 'n' bytes at 'in' into 'count'. */
static void count_bytes(const uint8_t *in, size_t n, uint64_t *count)
{
	uint32_t cnt[4][NSYM];
	size_t i;

	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i + 4 <= n; i += 4) {
		cnt[0][in[i]]++;
		cnt[1][in[i + 1]]++;
		cnt[2][in[i + 2]]++;
		cnt[3][in[i + 3]]++;
	}
	for (; i < n; i++)
		cnt[0][in[i]]++;
	for (i = 0; i < NSYM; i++)
		count[i] = (uint64_t)cnt[0][i] + cnt[1][i] + cnt[2][i] +
			   cnt[3][i];
}

/*
 * The code of the 'n' bytes at 'in' (n > 0): their counts into 'count'
 * and the code lengths into 'len'; returns the payload's length.
 */
static size_t fit(const uint8_t *in, size_t n, uint64_t *count, uint8_t *len)
{
	uint64_t bits = 0;
	size_t i;

	count_bytes(in, n, count);
	code_lengths(count, len);
	for (i = 0; i < NSYM; i++)
		bits += count[i] * len[i];
	return ST_HUFF_TABLE + (size_t)((bits + 7) / 8);
}

size_t st_huff_size(const uint8_t *in, size_t n)
{
	uint64_t count[NSYM];
	uint8_t len[NSYM];

	return n ? fit(in, n, count, len) : 0;
}

/*
 * Pack the codes of the 'n' bytes at 'in' at 'o', before 'end': each
 * byte's entry (code | length << 16) in 'tab', at 256 times its
 * context (that of the byte before it, 0 for the first, by 'map') when
 * 'ctx'.  Returns the end of the codes, or NULL when they pass 'end'.
 */
static inline __attribute__((always_inline)) uint8_t *
pack(const uint8_t *in, size_t n, const uint32_t *tab, const uint8_t *map,
     uint8_t *o, const uint8_t *end, int ctx)
{
	uint64_t acc = 0;
	unsigned nb = 0, prev = 0;
	size_t i;

	/*
	 * Four codes of at most 12 bits on at most 7 left (55 bits), stored
	 * as 8 bytes while 8 fit; then a code and its whole bytes at a time.
	 */
#define PUT(b) do { \
		unsigned v_ = (b); \
		uint32_t e = tab[ctx ? (unsigned)map[prev] << 8 | v_ : v_]; \
		prev = v_; \
		acc |= (uint64_t)(e & 0xffff) << nb; \
		nb += e >> 16; \
	} while (0)
	for (i = 0; i + 4 <= n && end - o >= 8; i += 4) {
		PUT(in[i]);
		PUT(in[i + 1]);
		PUT(in[i + 2]);
		PUT(in[i + 3]);
		put_le64(o, acc);
		o += nb >> 3;
		acc >>= nb & ~7u;
		nb &= 7;
	}
	for (; i < n; i++) {
		PUT(in[i]);
		for (; nb >= 8; nb -= 8) {
			if (o == end)
				return NULL;
			*o++ = (uint8_t)acc;
			acc >>= 8;
		}
	}
#undef PUT
	if (nb) {
		if (o == end)
			return NULL;
		*o++ = (uint8_t)acc;
	}
	return o;
}

size_t st_huff_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	uint64_t count[NSYM];
	uint8_t len[NSYM];
	uint16_t code[NSYM];
	uint32_t tab[NSYM];
	uint8_t *o;
	size_t i;

	if (!n || cap <= ST_HUFF_TABLE)
		return 0;
	fit(in, n, count, len);
	if (canonical(len, code))
		return 0;	/* cannot happen: the lengths were fitted */
	for (i = 0; i < NSYM; i++)
		tab[i] = code[i] | (uint32_t)len[i] << 16;
	put_nibbles(out, len);
	o = pack(in, n, tab, NULL, out + ST_HUFF_TABLE, out + cap, 0);
	return o ? (size_t)(o - out) : 0;
}

/*
 * The decoding table of the code lengths in the ST_HUFF_TABLE bytes at
 * 'in' into 'dec' (DEC_SIZE entries: value | length << 8, length 0 for
 * no code).  Returns 0, or -1 when the lengths are not a code.
 */
static int dec_table(const uint8_t *in, uint16_t *dec)
{
	uint8_t lens[NSYM];
	uint16_t code[NSYM];
	unsigned i;

	get_nibbles(in, lens);
	if (canonical(lens, code))
		return -1;
	memset(dec, 0, DEC_SIZE * sizeof(*dec));
	for (i = 0; i < NSYM; i++) {
		unsigned step, j;

		if (!lens[i])
			continue;
		step = 1u << lens[i];
		for (j = code[i]; j < DEC_SIZE; j += step)
			dec[j] = (uint16_t)(i | (unsigned)lens[i] << 8);
	}
	return 0;
}

/*
 * Decode the codes from 'p' to 'end' into the 'n' bytes at 'out', each
 * looked up in 'dec', or when 'ctx' in the table at DEC_SIZE times its
 * context (that of the byte before it by 'map', 0 for the first).
 * Returns 0 or -EBADMSG.
 */
static inline __attribute__((always_inline)) int
unpack(const uint8_t *p, const uint8_t *end, const uint16_t *dec,
       const uint8_t *map, uint8_t *out, size_t n, int ctx)
{
	uint64_t acc = 0;
	unsigned nb = 0, prev = 0;
	size_t k = 0;

#define TAB (ctx ? dec + (size_t)map[prev] * DEC_SIZE : dec)
	/*
	 * Four codes a refill of at least 56 bits while 8 bytes are left
	 * (the bits past the whole bytes loaded come again with the next
	 * load), then one at a time.
	 */
	while (n - k >= 4 && end - p >= 8) {
		unsigned j;

		acc |= get_le64(p) << nb;
		p += (63 - nb) >> 3;
		nb |= 56;
		for (j = 0; j < 4; j++) {
			unsigned e = TAB[acc & (DEC_SIZE - 1)], l = e >> 8;

			if (!l)
				return -EBADMSG;
			out[k++] = (uint8_t)e;
			prev = e & 0xff;
			acc >>= l;
			nb -= l;
		}
	}
	for (; k < n; k++) {
		unsigned e, l;

		while (nb <= 56 && p < end) {
			acc |= (uint64_t)*p++ << nb;
			nb += 8;
		}
		e = TAB[acc & (DEC_SIZE - 1)];
		l = e >> 8;
		if (!l || l > nb)
			return -EBADMSG;
		out[k] = (uint8_t)e;
		prev = e & 0xff;
		acc >>= l;
		nb -= l;
	}
#undef TAB
	/* Every byte used, and the padding bits of the last one clear. */
	if (p != end || nb >= 8 || acc)
		return -EBADMSG;
	return 0;
}

int st_huff_decode(const uint8_t *in, size_t len, uint8_t *out, size_t n)
{
	uint16_t dec[DEC_SIZE];

	if (len < ST_HUFF_TABLE || dec_table(in, dec))
		return -EBADMSG;
	return unpack(in + ST_HUFF_TABLE, in + len, dec, NULL, out, n, 0);
}

/*
 * The context coding's fit of the 'n' bytes at 'in' (n > 0): the
 * context of each byte value into 'map' (the ST_HUFF_CTX - 1 commonest
 * values one each, by count and then value, the others the last) and
 * the code lengths of each context into 'len'; returns the payload's
 * length.
 */
static size_t fit_ctx(const uint8_t *in, size_t n, uint8_t *map,
		      uint8_t (*len)[NSYM])
{
	uint32_t cnt[2][ST_HUFF_CTX][NSYM];
	uint64_t count[NSYM], key[NSYM], bits = 0;
	unsigned i, t, prev = 0, prev2;
	size_t k, h = n / 2;

	count_bytes(in, n, count);
	for (i = 0; i < NSYM; i++)
		key[i] = count[i] << 8 | (NSYM - 1 - i);
	qsort(key, NSYM, sizeof(key[0]), cmp_u64);
	memset(map, ST_HUFF_CTX - 1, NSYM);
	for (t = 0; t < ST_HUFF_CTX - 1; t++)
		map[NSYM - 1 - (key[NSYM - 1 - t] & 0xff)] = (uint8_t)t;
	/*
	 * The two halves counted side by side, into tables of their own:
	 * a pair that repeats (the same context and value) then waits on
	 * its last increment half as often.
	 */
	memset(cnt, 0, sizeof(cnt));
	prev2 = h ? in[h - 1] : 0;
	for (k = 0; k < h; k++) {
		cnt[0][map[prev]][in[k]]++;
		cnt[1][map[prev2]][in[h + k]]++;
		prev = in[k];
		prev2 = in[h + k];
	}
	if (n & 1)
		cnt[1][map[prev2]][in[n - 1]]++;
	for (t = 0; t < ST_HUFF_CTX; t++) {
		for (i = 0; i < NSYM; i++)
			count[i] = (uint64_t)cnt[0][t][i] + cnt[1][t][i];
		for (i = 0; i < NSYM && !count[i]; i++)
			;
		if (i == NSYM) {
			memset(len[t], 0, NSYM);
			continue;
		}
		code_lengths(count, len[t]);
		for (i = 0; i < NSYM; i++)
			bits += count[i] * len[t][i];
	}
	return ST_HUFF_CTX_HEAD + (size_t)((bits + 7) / 8);
}

size_t st_huff_ctx_size(const uint8_t *in, size_t n)
{
	uint8_t map[NSYM], len[ST_HUFF_CTX][NSYM];

	return n ? fit_ctx(in, n, map, len) : 0;
}

size_t st_huff_ctx_encode(const uint8_t *in, size_t n, uint8_t *out,
			  size_t cap)
{
	uint8_t map[NSYM], len[ST_HUFF_CTX][NSYM];
	uint16_t code[NSYM];
	uint32_t *tab;
	uint8_t *o = NULL;
	unsigned i, t;

	if (!n || cap <= ST_HUFF_CTX_HEAD)
		return 0;
	tab = malloc(ST_HUFF_CTX * NSYM * sizeof(*tab));
	if (!tab)
		return 0;
	fit_ctx(in, n, map, len);
	put_nibbles(out, map);
	for (t = 0; t < ST_HUFF_CTX; t++) {
		if (canonical(len[t], code))
			goto done;	/* cannot happen: fitted */
		for (i = 0; i < NSYM; i++)
			tab[t * NSYM + i] = code[i] | (uint32_t)len[t][i] << 16;
		put_nibbles(out + (1 + t) * ST_HUFF_TABLE, len[t]);
	}
	o = pack(in, n, tab, map, out + ST_HUFF_CTX_HEAD, out + cap, 1);
done:
	free(tab);
	return o ? (size_t)(o - out) : 0;
}

int st_huff_ctx_decode(const uint8_t *in, size_t len, uint8_t *out,
		       size_t n)
{
	uint8_t map[NSYM];
	uint16_t *dec;
	unsigned t;
	int rc = -EBADMSG;

	if (len < ST_HUFF_CTX_HEAD)
		return -EBADMSG;
	dec = malloc(ST_HUFF_CTX * DEC_SIZE * sizeof(*dec));
	if (!dec)
		return -ENOMEM;
	get_nibbles(in, map);
	for (t = 0; t < ST_HUFF_CTX; t++)
		if (dec_table(in + (1 + t) * ST_HUFF_TABLE,
			      dec + (size_t)t * DEC_SIZE))
			goto done;
	rc = unpack(in + ST_HUFF_CTX_HEAD, in + len, dec, map, out, n, 1);
done:
	free(dec);
	return rc;
}
