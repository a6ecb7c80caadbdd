/*
 * writer/format.h: private; the on-disk trace format, described once,
 * byte by byte, for the writer and the reader.  A file is a small header
 * followed by self-delimiting chunks, each checksummed on its own, so a
 * reader can use every whole chunk of a file whose writer was killed and
 * can tell a cut file from a corrupted one.  Any change to what is
 * described here bumps ST_FORMAT_VERSION.
 *
 * All integers are little-endian.  "CRC-32" is zlib's crc32() (the
 * ISO-HDLC polynomial, as in gzip and PNG).
 *
 * File header, at offset 0:
 *
 *	off  len  field
 *	  0    8  magic "SYNCTRC" and a NUL byte
 *	  8    4  format version, ST_FORMAT_VERSION
 *	 12    4  N, the length of the header text, at most
 *		  ST_HEADER_MAX_TEXT
 *	 16    4  CRC-32 of bytes 8..15 followed by the N text bytes
 *	 20    N  header text: "key=value\n" lines; keys are [a-z0-9_.]+,
 *		  values any bytes but '\n' and NUL
 *
 * The interposer's header keys (the tools read keys by name and pass
 * over any they do not know): run_id, rank, size, host, pid, clock,
 * clock_res_ns, clock_cost_ns, mpi_library, cmdline, config, yield,
 * ncores, thread_level, fn_table, t_start_unix.  'run_id' (since
 * version 6) is the run's id, made
 * once per run by rank 0 (writer/run.h) and written to every rank file
 * and as the first line of the run's index, 'synctrace.run'; 'rank' and
 * 'size' are the rank and MPI_COMM_WORLD's size.  A tool opening a run
 * (st_run_open) refuses a rank file whose run_id, rank or size does not
 * match the index and its own name, so files of two runs are never read
 * as one.
 *
 * Chunks follow from offset 20 + N to the end of the file.  A chunk is
 * ST_CHUNK_HDR_LEN bytes of header and its payload:
 *
 *	off  len  field
 *	  0    4  magic "STCK"
 *	  4    2  stream index (the writing thread), reported as ev->thread
 *	  6    1  method: ST_CHUNK_STORED (payload is the records),
 *		  ST_CHUNK_DEFLATE (payload is a zlib stream, RFC 1950,
 *		  that inflates to the records), since version 10
 *		  ST_CHUNK_HUFF (payload is the records' bytes Huffman
 *		  coded, writer/huff.h) or, since version 12,
 *		  ST_CHUNK_HUFF_CTX (the records' bytes each coded with
 *		  the code of its context, one of 16 that the byte before
 *		  it decides, writer/huff.h)
 *	  7    1  reserved, 0
 *	  8    4  raw length: bytes of encoded records, 1..ST_CHUNK_MAX_RAW
 *	 12    4  payload length: equal to the raw length when stored; at
 *		  most zlib's compressBound(raw length) when deflated; at
 *		  most ST_HUFF_BOUND(raw length) when Huffman coded and
 *		  ST_HUFF_CTX_BOUND(raw length) when context coded
 *	 16    4  record count, 1..raw length (a record takes at least a byte)
 *	 20    4  sequence number: the chunk's place among the chunks of
 *		  its stream, 0 for the first, then 1, 2, ... (modulo 2^32)
 *	 24    4  CRC-32 of the payload bytes as stored
 *	 28    4  CRC-32 of bytes 0..27 of this chunk header
 *	 32       payload
 *
 * The chunks of one stream are in the file in the order of their
 * sequence numbers; those of different streams interleave in any order.
 * So a reader knows a chunk deleted, repeated or moved within its stream
 * by its number: a chunk whose number is not one more than that of the
 * previous chunk of its stream (or 0, for a stream's first) is corrupt.
 * Only a stream's last chunks can go missing unnoticed, as when its
 * writer was killed.  A chunk its writer failed to write takes no
 * number (its records are lost, and the writer said so).
 *
 * Version 4 chunk headers (ST_CHUNK_HDR_LEN_V4 bytes) had no sequence
 * number: bytes 20..23 were the payload's CRC-32 and 24..27 that of
 * bytes 0..23; the payload followed at 28.  The reader still reads them
 * (it cannot check their order).
 *
 * A file that ends inside a chunk (fewer bytes than a chunk header that
 * begin like a chunk magic, or a valid chunk header whose payload runs
 * past the end)
 * is truncated: its writer was killed while writing that chunk.
 * Anything else that does not check out is corrupt.
 *
 * Records.  The records of a chunk are concatenated; each is:
 *
 *	tag		1 byte, bits below
 *	fn		varint, if ST_TAG_FN; else the predicted fn (below)
 *	site		zigzag varint, if ST_TAG_FN: the record's call site
 *			minus that of the previous record of the chunk (0
 *			for the first), modulo 2^64; else the predicted site
 *	mask		varint, if ST_TAG_DIFF: the set of fields (bit i =
 *			field i of ST_FIELD_LIST) that differ from their
 *			prediction; never 0
 *	deltas		one zigzag varint per bit of 'mask', in increasing
 *			bit order: field value minus prediction, modulo 2^64
 *	gap		zigzag varint, unless ST_TAG_NOTIME: the record's
 *			gap minus its prediction, modulo 2^64; its gap is t0
 *			minus the t1 of the previous timed record of the
 *			chunk (0 for the first)
 *	duration	zigzag varint, unless ST_TAG_NOTIME: the record's
 *			duration, t1 - t0, minus its prediction, modulo 2^64
 *	frames		if ST_TAG_FRAMES: varint nframes (1..ST_MAX_FRAMES),
 *			varint frames[0], then for i > 0 the zigzag varint
 *			frames[i] - frames[i - 1]
 *	text		if ST_TAG_TEXT: varint text_len (>= 1), then the bytes
 *
 * Tag bits:
 *
 *	0..2	kind - 1 (enum st_rec_kind, 1..8)
 *	3	ST_TAG_NOTIME: t0 = t1 = 0, no gap or duration; the previous
 *		t1 is left as it was
 *	4	ST_TAG_FN: fn and site follow
 *	5	ST_TAG_DIFF: mask and deltas follow; without it every field
 *		equals its prediction
 *	6	ST_TAG_FRAMES: frames follow (else nframes = 0)
 *	7	ST_TAG_TEXT: text follows (else text_len = 0)
 *
 * except the tag ST_TAG_RUN (0x08 alone: a call record without
 * timestamps, fn or differences, which the writer codes with ST_TAG_FN
 * instead), which starts a run, and since version 9 the eight tags
 * whose bits 0..4 are ST_TAG_LOOP (0x09: start records without
 * timestamps or ST_TAG_FN; the writer spells out the fn and site of a
 * start record without timestamps), which start a loop run (below).
 * A run:
 *
 *	tag		ST_TAG_RUN
 *	count		1 byte, 1..ST_RUN_MAX: the run's members
 *	members		each a gap and a duration (zigzag varints, as above)
 *
 * Each member is a record decoded as if its tag were ST_REC_CALL - 1
 * with the fn and site of the previous record of the chunk, whatever
 * the prediction (a timed call record of the previous record's
 * context, every field as predicted), and those two timestamps.  The
 * writer runs a loop's repeated collective so: its records then cost
 * their timestamp residuals and nothing else.  A run also ends where
 * its chunk's record count does (the count byte may say more when a
 * fatal signal's flush cut the run short).
 *
 * A loop run (version 9):
 *
 *	tag		bits 0..4 ST_TAG_LOOP, bits 5..7 k: k + 1 members
 *			(1..7) when k < 7; when k = 7 (ST_TAG_LOOP_LONG)
 *	count		1 byte, 1..ST_RUN_MAX: the members
 *	members		each a gap and a duration (zigzag varints, as above)
 *
 * Each member is the record the previous record of the chunk predicts
 * (below), kind included: one decoded as if its tag were that kind - 1
 * (the successor's kind, fn and site, every field as predicted, no
 * frames or text) with those two timestamps.  A member whose previous
 * record predicts no kind (the chunk's first record) is corrupt.  The
 * writer makes a record that is exactly that a member when the record
 * before it is one, or when the two records before it were exactly that
 * too and each was coded as its bare tag and timestamps: the records of
 * a loop (a halo exchange's Irecv, Isend, the Waitall's done records
 * and call record; a Put and its flush) then cost their timestamp
 * residuals, the run's tag costs what the third record's would have,
 * and no record costs more than without loop runs.  Any other record
 * ends the run.  A run of 7 members that goes on is followed by runs
 * with a count byte.  As for runs, a chunk's record count may end a
 * loop run before its tag or count says (a fatal signal's flush).
 *
 * A varint is LEB128: 7 bits a byte, low bits first, the high bit set on
 * every byte but the last; at most 10 bytes, and the last byte of a
 * multi-byte varint is never 0.  zigzag(d) = (d << 1) ^ (d >> 63 ? ~0 : 0)
 * maps small signed numbers to small unsigned ones.  A site, fn or field
 * whose value does not fit its type (ST_FIELD_LIST; site: 32 bits
 * unsigned, fn: 16) is corrupt.
 *
 * Contexts.  A record's context is its (kind, fn, site), as the key
 *
 *	site << 32 | kind << 16 | fn
 *
 * held in slot
 *
 *	(key * 0x9e3779b97f4a7c15 mod 2^64) >> (64 - ST_CTX_BITS)
 *
 * of a table of 2^ST_CTX_BITS slots that also remembers the key.  So the
 * calls of one function from several call sites (a halo exchange's
 * receives from the left and from the right) are predicted apart.
 * A done record's key also holds, in bits 27..31, its ordinal k: 0,
 * unless the previous record of the chunk is a done record of the same
 * fn and site, whose k is one less (at most 31), so that the requests
 * one completion call completes in turn (the receive and then the send
 * of a halo exchange's Waitall) are predicted apart too:
 *
 *	site << 32 | k << 27 | kind << 16 | fn
 *
 * A slot not yet filled in this chunk, or filled for another key, is
 * empty; a record whose slot is empty fills it, evicting what it held.
 *
 * Fn and site.  A slot also remembers a successor: the kind, fn and
 * site of the record that came after the last record of its context, or
 * its own until one has.  A record's fn and site are predicted as the
 * successor's in the slot of the previous record of the chunk (fn 0 and
 * site 0, and no kind, for the first record): in a loop, where calls
 * follow each other in the same order, neither is coded.  The kind is
 * predicted only for a loop run's members: any other record's tag says
 * its kind.
 *
 * Fields and predictions.  Every field of ST_FIELD_LIST is taken as a
 * 64-bit number (signed fields sign-extended) and predicted from the
 * record's context: equal to its value in the previous record of the
 * context, or for an empty slot the "does not apply" value: 0 for every
 * field but 'peer', 'peer2' and 'root', which are ST_RANK_NONE.  Except
 * these counters, predicted as the context's value + 1 when it is not 0:
 * 'inst'; 'seq', unless the context's 'inst' is not 0 (an instance of a
 * persistent request carries its init call's seq); 'req' in
 * ST_REC_CALL records; and in ST_REC_DONE records 'req', predicted as
 * the context's value + L - L0 when none of the three is 0, where L is
 * the last non-zero req of a call record of the chunk so far and L0
 * what L was after the context's previous record (a loop that makes
 * two requests and completes them moves each done record's req by two;
 * one that starts persistent requests again, by none); and except
 * 'rbytes', predicted
 * from the record's own 'sbytes' s (field 0, decoded first) and the
 * context's sbytes s0 and rbytes r0: r0 / s0 * s when s0 is not 0 and
 * divides r0, else r0 (so an Allreduce, Allgather or Reduce of a new
 * size costs its sbytes delta only).  And in ST_REC_CALL records whose
 * context predicts a non-zero 'seq' or 'req': 'seq' is predicted as the
 * seq of the last call record of the chunk on the record's own
 * communicator (field 7: every delta is read before these three
 * predictions are made) + 1, when there is one (sequence numbers count
 * per communicator, whatever the function; the codec remembers the last
 * one of 2^ST_CSEQ_BITS communicators, in slot
 *
 *	((comm xor comm >> 32) mod 2^32 * 0x9e3779b1 mod 2^32)
 *	    >> (32 - ST_CSEQ_BITS)
 *
 * which holds one communicator at a time); and 'req' as the last non-zero
 * req of a call record of the chunk + 1, when there is one (requests
 * count per rank).
 * After each record its slot holds its context's fields, counted on.
 * So a collective repeated with the same arguments costs the tag and
 * the two timestamp varints, and a fixed neighbour pattern (peer = rank
 * + 1, say) costs nothing, since peers are coded relative to the
 * previous peer of the same call site.
 *
 * Timestamps.  A slot also holds a timing, a gap and a duration, and a
 * size class: that of its context's last record, the bit length of
 * (sbytes | rbytes), 0..64 (a collective of 4096 doubles takes far
 * longer than one of 1).  The timings of a context's other classes are
 * kept in a table of 2^ST_TCLS_BITS entries, class k of key K in entry
 *
 *	((K | k << 20) * 0x9e3779b97f4a7c15 mod 2^64) >> (64 - ST_TCLS_BITS)
 *
 * which remembers K | k << 20 and holds one class at a time.  Once a
 * record's fields are known, if its class k is not its slot's, or its
 * slot was empty: the slot's new timing is that of the entry for k if
 * the entry holds it, else the slot's own (0 and 0 in an empty slot);
 * then, unless the slot was empty, its old timing is stored in the entry
 * for its old class; and the slot takes class k and the new timing.  A
 * timed record's gap and duration are predicted as its slot's timing,
 * which then becomes the record's gap and duration; except right after
 * a timed ST_REC_DONE record of the same fn (a completion call's
 * records, its ST_REC_DONE records and then its call record, all carry
 * its t0 and t1), and for a timed ST_REC_START record right after any
 * timed record but a done one (MPI_Start's or MPI_Startall's call
 * record, then a start record for each request, all carry its t0 and
 * t1; version 11 on; a member of a run, ST_TAG_RUN, is not such a
 * record): there they are predicted as that record's t0 and
 * t1 (the gap as minus its duration, the duration as its duration), and
 * the slot's timing is left as it was.  A loop's timings jitter around
 * their typical values, so the residuals are small: a repeated
 * collective mostly costs three bytes before zlib, two in a run.
 * All state, slots, table entries, previous record and previous t1,
 * starts empty in every chunk, so every chunk decodes on its own.
 *
 * Version 12 (this one) added the chunk method ST_CHUNK_HUFF_CTX; the
 * records are as in version 11.  Done records may carry 'arg' since
 * (ST_DONE_CANCELLED, writer/event.h); it is coded as every field is,
 * so readers of version 12 from before decode it, and take such a
 * receive for one of no bytes.  Version 11 predicts a start record's
 * timestamps as the previous timed record's (above), which a start
 * record took from its
 * slot's timing before.  Version 10 added the chunk method ST_CHUNK_HUFF, which
 * the writer uses where zlib's Huffman coding alone was used before;
 * the records are as in version 9.  Version 9 added loop runs, and the kind to the successor
 * a slot remembers, for them; a file of version 8 or older decodes as
 * before: ST_TAG_LOOP's tags are records there.  Version 8 added the
 * ordinal of done records to their context, the prediction of their 'req' by the requests made since,
 * and left the 'seq' of instances uncounted.  Version 7 added the
 * fields 'arg' and 'offset' (one-sided, I/O, partitioned and phase
 * records), window and file records as ST_REC_COMM records, and text in
 * call records; older files never set their mask bits, so they read as
 * before.  Version 6 added the header key 'run_id', and its line in the
 * run index; chunks are as in version 5, which added the chunk
 * sequence number.  Version 4 added the call site to the context, coded
 * with
 * fn, the successor prediction of both, the size classes of timings and
 * the prediction of a completion call's shared timestamps, and took
 * 'site' out of ST_FIELD_LIST.  Version 3 added runs.  Version 2 added
 * the timestamp and rbytes predictions; version 1 wrote gap and
 * duration as they are and predicted rbytes like any other field.
 */
#ifndef ST_WRITER_FORMAT_H
#define ST_WRITER_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define ST_FORMAT_VERSION 12
#define ST_FORMAT_VERSION_MIN 4	/* the oldest this reader reads */

#define ST_FILE_MAGIC "SYNCTRC"		/* with its NUL: 8 bytes */
#define ST_FILE_MAGIC_LEN 8
#define ST_FILE_HDR_LEN 20		/* fixed part of the file header */
#define ST_HEADER_MAX_TEXT (1u << 20)

#define ST_CHUNK_MAGIC "STCK"
#define ST_CHUNK_MAGIC_LEN 4
#define ST_CHUNK_HDR_LEN 32
#define ST_CHUNK_HDR_LEN_V4 28
#define ST_CHUNK_MAX_RAW (64u << 20)

#define ST_CHUNK_STORED 0
#define ST_CHUNK_DEFLATE 1
#define ST_CHUNK_HUFF 2		/* since version 10 */
#define ST_CHUNK_HUFF_CTX 3	/* since version 12 */

#define ST_TAG_KIND 0x07
#define ST_TAG_NOTIME 0x08
#define ST_TAG_FN 0x10
#define ST_TAG_DIFF 0x20
#define ST_TAG_FRAMES 0x40
#define ST_TAG_TEXT 0x80
#define ST_TAG_RUN 0x08
#define ST_TAG_LOOP 0x09		/* tag & ST_TAG_LOOP_MASK: a loop run */
#define ST_TAG_LOOP_MASK 0x1f
#define ST_TAG_LOOP_STEP 0x20		/* a member more, in a short one */
#define ST_TAG_LOOP_FULL 0xc9		/* a short one of 7 members */
#define ST_TAG_LOOP_LONG 0xe9		/* a count byte follows */
#define ST_RUN_MAX 255

#define ST_CTX_BITS 9
#define ST_CTX_SLOTS (1u << ST_CTX_BITS)
#define ST_CSEQ_BITS 4
#define ST_CSEQ_SLOTS (1u << ST_CSEQ_BITS)
#define ST_TCLS_BITS 10
#define ST_TCLS_SLOTS (1u << ST_TCLS_BITS)

/*
 * The predicted fields of a record: X(bit, name of the struct st_event
 * member, its type).  Bits are ordered so that the fields most likely to
 * change from call to call fit in a one-byte mask.
 */
#define ST_FIELD_LIST(X)		\
	X(0, sbytes, U64)		\
	X(1, rbytes, U64)		\
	X(2, peer, S32)			\
	X(3, tag, S32)			\
	X(4, req, U64)			\
	X(5, seq, U64)			\
	X(6, root, S32)			\
	X(7, comm, U64)			\
	X(8, rc, S32)			\
	X(9, op, U16)			\
	X(10, tsize, U32)		\
	X(11, comm_size, U32)		\
	X(12, inst, U32)		\
	X(13, rank, S32)		\
	X(14, remote_size, U32)		\
	X(15, parent, U64)		\
	X(16, addr, U64)		\
	X(17, len, U64)			\
	X(18, peer2, S32)		\
	X(19, tag2, S32)		\
	X(20, arg, S32)			\
	X(21, offset, S64)

#define ST_NFIELDS 22
#define ST_F_SBYTES 0
#define ST_F_RBYTES 1
#define ST_F_PEER 2
#define ST_F_REQ 4
#define ST_F_SEQ 5
#define ST_F_ROOT 6
#define ST_F_COMM 7
#define ST_F_INST 12
#define ST_F_PEER2 18

/* Non-zero when the 'n' bytes at 'k' are a valid header key. */
static inline int st_header_key_ok(const char *k, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') ||
		      (k[i] >= '0' && k[i] <= '9') || k[i] == '_' ||
		      k[i] == '.'))
			return 0;
	return 1;
}

static inline void st_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void st_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint16_t st_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t st_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#endif
