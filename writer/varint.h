/*
 * writer/varint.h: private; LEB128 variable-length integers and zigzag
 * coding for the record encoding (writer/format.h).  Writing is inline,
 * for the interposer's hot path; reading checks every byte against the
 * end of the input, with the one-byte case inline.
 */
#ifndef ST_WRITER_VARINT_H
#define ST_WRITER_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* Longest varint of a 64-bit value. */
#define ST_VARINT_MAX 10

/* Map a signed difference, taken modulo 2^64, to a small unsigned one. */
static inline uint64_t st_zigzag(uint64_t d)
{
	return (d << 1) ^ (0 - (d >> 63));
}

/* Inverse of st_zigzag(). */
static inline uint64_t st_unzigzag(uint64_t u)
{
	return (u >> 1) ^ (0 - (u & 1));
}

/* Out-of-line part of st_varint_put(). */
uint8_t *st_varint_put_slow(uint8_t *p, uint64_t v);

/*
 * st_varint_put() of a 'v' below 2^14, which takes one or two bytes: two
 * are written, the second left over when it is not needed, with no
 * branch on the length: jitter around 128 would make such a branch
 * unpredictable.
 */
static inline __attribute__((always_inline)) uint8_t *
st_varint_put14(uint8_t *p, uint64_t v)
{
	unsigned two = v >= 0x80;

	p[0] = (uint8_t)(v | two << 7);
	p[1] = (uint8_t)(v >> 7);
	return p + 1 + two;
}

/*
 * Write 'v' at 'p', which must have room for ST_VARINT_MAX bytes, and
 * return the byte after it.  Values below 2^14 (timestamp gaps and
 * durations, mostly) are st_varint_put14()'s.
 */
static inline __attribute__((always_inline)) uint8_t *
st_varint_put(uint8_t *p, uint64_t v)
{
	if (v < 0x4000)
		return st_varint_put14(p, v);
	return st_varint_put_slow(p, v);
}

/* Number of bytes st_varint_put() writes for 'v'. */
size_t st_varint_len(uint64_t v);

/* Out-of-line part of st_varint_get(). */
int st_varint_get_slow(const uint8_t **pp, const uint8_t *end, uint64_t *v);

/*
 * Read a varint from '*pp', reading no byte at or past 'end'; store it
 * in '*v' and advance '*pp'.  Returns 0, or -EBADMSG for a varint cut by
 * 'end', longer than 10 bytes, above 2^64 - 1 or not in its shortest
 * form, in which case '*pp' and '*v' are unchanged.
 */
static inline int st_varint_get(const uint8_t **pp, const uint8_t *end,
				uint64_t *v)
{
	const uint8_t *p = *pp;

	if (p < end && *p < 0x80) {
		*v = *p;
		*pp = p + 1;
		return 0;
	}
	return st_varint_get_slow(pp, end, v);
}

#endif
