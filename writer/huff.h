/*
 * writer/huff.h: private; the Huffman coding of a chunk's records
 * (ST_CHUNK_HUFF, writer/format.h), which takes what zlib's Huffman
 * coding alone would take off a chunk (its bytes coded one by one, a
 * code for each byte value fitted to the chunk) in a quarter of its time:
 * where the ranks fill every core, the writer's coding is on their
 * critical path (docs/hotpath.md).
 *
 * The payload: ST_HUFF_TABLE bytes, the code length of byte value 2i in
 * the low four bits of byte i and of value 2i + 1 in the high four (0:
 * the value does not occur; at most ST_HUFF_MAX_BITS), then the codes of
 * the raw bytes in order, packed from the lowest bit of each byte up,
 * each code's first bit first, and zero bits to the end of the last
 * byte.  The codes are canonical (as deflate's, RFC 1951 3.2.2): those
 * of one length are consecutive numbers in the order of their values,
 * and shorter codes come first.  A payload whose lengths over-subscribe
 * the code, which holds a code that is not assigned, runs out before
 * its raw length is decoded, or holds a byte more than it needs or a
 * set padding bit, is corrupt.
 */
#ifndef ST_WRITER_HUFF_H
#define ST_WRITER_HUFF_H

#include <stddef.h>
#include <stdint.h>

#define ST_HUFF_TABLE 128
#define ST_HUFF_MAX_BITS 12

/* The longest payload of 'n' raw bytes. */
#define ST_HUFF_BOUND(n) \
	(ST_HUFF_TABLE + ((size_t)(n) * ST_HUFF_MAX_BITS + 7) / 8)

/*
 * Code the 'n' bytes at 'in' into 'out': returns the payload's length,
 * or 0 when it would take more than 'cap' bytes (or n is 0).  'out' may
 * be written up to 'cap' bytes.
 */
size_t st_huff_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

/*
 * The length of st_huff_encode()'s payload of the 'n' bytes at 'in'
 * with room enough (0 when n is 0), without coding them: about half the
 * work.
 */
size_t st_huff_size(const uint8_t *in, size_t n);

/*
 * Decode the payload of 'len' bytes at 'in' into the 'n' bytes at
 * 'out'.  Returns 0, or -EBADMSG when it is corrupt (see above).
 */
int st_huff_decode(const uint8_t *in, size_t len, uint8_t *out, size_t n);

/*
 * The context coding (ST_CHUNK_HUFF_CTX, format version 12): each byte
 * coded with one of ST_HUFF_CTX codes, the one of the context the byte
 * before it belongs to (a byte of value 0 for the first).  A record's
 * bytes depend on the bytes before them (a tag, then the fields and
 * residuals it announces), so that a code per context takes a chunk of
 * records to a fifth fewer bytes than one code (docs/hotpath.md), as
 * few as deflate's string matching at a fourth to a fifth of its time.
 *
 * The payload: ST_HUFF_TABLE bytes, the context of byte value 2i in the
 * low four bits of byte i and of value 2i + 1 in the high four; then
 * ST_HUFF_CTX tables of ST_HUFF_TABLE bytes, the code lengths of
 * contexts 0, 1... as in a Huffman payload (a context no byte follows
 * has all its lengths 0); then the codes, packed as in a Huffman
 * payload.  The encoder gives the ST_HUFF_CTX - 1 commonest byte values
 * a context each and all other values the last.  Corrupt as a Huffman
 * payload is, and also when a byte's code is not in its context's
 * table.
 */
#define ST_HUFF_CTX 16
#define ST_HUFF_CTX_HEAD ((1 + ST_HUFF_CTX) * ST_HUFF_TABLE)

/* The longest context payload of 'n' raw bytes. */
#define ST_HUFF_CTX_BOUND(n) \
	(ST_HUFF_CTX_HEAD + ((size_t)(n) * ST_HUFF_MAX_BITS + 7) / 8)

/* st_huff_encode(), st_huff_size() and st_huff_decode() of the context
   coding. */
size_t st_huff_ctx_encode(const uint8_t *in, size_t n, uint8_t *out,
			  size_t cap);
size_t st_huff_ctx_size(const uint8_t *in, size_t n);
int st_huff_ctx_decode(const uint8_t *in, size_t len, uint8_t *out,
		       size_t n);

#endif
