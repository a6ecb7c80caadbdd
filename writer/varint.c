/*
 * writer/varint.c: reading LEB128 varints from untrusted input.  Every
 * encoding is accepted in exactly one form (no padding bytes, nothing
 * above 2^64 - 1), so a corrupted byte is more likely to be noticed.
 */
#include <errno.h>

#include "writer/varint.h"

size_t st_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

uint8_t *st_varint_put_slow(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

int st_varint_get_slow(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (p >= end || shift > 63)
			return -EBADMSG;
		b = *p++;
		/* The tenth byte holds bit 63 only. */
		if (shift == 63 && b > 1)
			return -EBADMSG;
		x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (!b && shift > 7)
		return -EBADMSG;
	*v = x;
	*pp = p;
	return 0;
}
