/*
 * tests/fuzz/split.c: seeds for the fuzz targets from real rank files.
 *
 *	split OUTDIR RANKFILE...
 *
 * writes into OUTDIR/chunk/ each file's chunks (what follows its
 * header), into OUTDIR/records/ each chunk's records behind their count
 * (fuzz-records' input, whatever the chunk's method), into OUTDIR/sync/
 * the text of each sync record, and into OUTDIR/chunk/ and OUTDIR/rank/
 * the file made again with every chunk deflated, Huffman-coded and
 * context-coded (one file each); and prints how many chunks it saw of
 * each method,
 *
 *	chunks: stored S deflate D huff H ctx C
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "writer/event.h"
#include "writer/format.h"
#include "writer/huff.h"
#include "writer/reader.h"

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(buf = malloc((size_t)n + 1)) ||
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "split: cannot read '%s'\n", path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void put(const char *dir, const char *sub, const char *name, int i,
		const void *a, size_t alen, const void *b, size_t blen)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s-%d", dir, sub, name, i);
	f = fopen(path, "wb");
	if (!f || fwrite(a, 1, alen, f) != alen ||
	    (blen && fwrite(b, 1, blen, f) != blen) || fclose(f)) {
		fprintf(stderr, "split: cannot write '%s'\n", path);
		exit(1);
	}
}

/* Chunks seen of each method (ST_CHUNK_*). */
static unsigned methods[4];

/* A file made again with every chunk in one coding. */
struct recoded {
	int method;		/* ST_CHUNK_DEFLATE, _HUFF or _HUFF_CTX */
	const char *tag;
	uint8_t *p;
	size_t len;
};

/*
 * Append to 'o' the chunk whose header is 'hdr' and whose records are
 * the 'n' bytes at 'rec', coded with o->method (stored when that coding
 * does not shorten them); its checksums are left as they were (every
 * target fixes them, tests/fuzz/fuzz.h).
 */
static void recode(struct recoded *o, const uint8_t *hdr, const uint8_t *rec,
		   size_t n)
{
	size_t cap = ST_HUFF_CTX_BOUND(n) + compressBound(n), plen = 0;
	uint8_t *pay = malloc(cap), *p;
	uLongf z = cap;
	int method = o->method;

	p = realloc(o->p, o->len + ST_CHUNK_HDR_LEN + cap);
	if (!pay || !p) {
		fprintf(stderr, "split: out of memory\n");
		exit(1);
	}
	o->p = p;
	if (method == ST_CHUNK_DEFLATE)
		plen = compress2(pay, &z, rec, n, 6) == Z_OK ? z : 0;
	else if (method == ST_CHUNK_HUFF)
		plen = st_huff_encode(rec, n, pay, cap);
	else
		plen = st_huff_ctx_encode(rec, n, pay, cap);
	if (!plen || plen >= n) {
		method = ST_CHUNK_STORED;
		memcpy(pay, rec, n);
		plen = n;
	}
	memcpy(p + o->len, hdr, ST_CHUNK_HDR_LEN);
	p[o->len + 6] = (uint8_t)method;
	st_put_le32(p + o->len + 12, (uint32_t)plen);
	memcpy(p + o->len + ST_CHUNK_HDR_LEN, pay, plen);
	o->len += ST_CHUNK_HDR_LEN + plen;
	free(pay);
}

static void split(const char *dir, const char *path, int k)
{
	int method;
	size_t len, off, plen, raw;
	uint8_t *buf = slurp(path, &len), *rec, cnt[2];
	struct st_reader *r;
	struct st_event ev;
	char err[512], name[32], vname[48];
	struct recoded rc[] = { { ST_CHUNK_DEFLATE, "deflate", NULL, 0 },
				{ ST_CHUNK_HUFF, "huff", NULL, 0 },
				{ ST_CHUNK_HUFF_CTX, "ctx", NULL, 0 } };
	int i = 0, j;
	uLongf rlen;

	snprintf(name, sizeof(name), "f%d", k);
	if (len < ST_FILE_HDR_LEN)
		return;
	off = ST_FILE_HDR_LEN + st_get_le32(buf + 12);
	if (off > len)
		return;
	put(dir, "chunk", name, 0, buf + off, len - off, NULL, 0);
	while (len - off >= ST_CHUNK_HDR_LEN) {
		plen = st_get_le32(buf + off + 12);
		raw = st_get_le32(buf + off + 8);
		if (plen > len - off - ST_CHUNK_HDR_LEN || raw > 1 << 24)
			break;
		rec = malloc(raw ? raw : 1);
		rlen = raw;
		method = buf[off + 6];
		if (method < 4)
			methods[method]++;
		if (method == ST_CHUNK_STORED)
			memcpy(rec, buf + off + ST_CHUNK_HDR_LEN, raw);
		else if (method == ST_CHUNK_HUFF ||
			 method == ST_CHUNK_HUFF_CTX)
			rlen = (method == ST_CHUNK_HUFF
					? st_huff_decode
					: st_huff_ctx_decode)(
				       buf + off + ST_CHUNK_HDR_LEN, plen, rec,
				       raw)
				       ? 0
				       : raw;
		else if (uncompress(rec, &rlen, buf + off + ST_CHUNK_HDR_LEN,
				    plen) != Z_OK)
			rlen = 0;
		memcpy(cnt, buf + off + 16, 2);
		if (rlen)
			put(dir, "records", name, i++, cnt, 2, rec, rlen);
		for (j = 0; rlen == raw && j < 3; j++)
			recode(&rc[j], buf + off, rec, raw);
		free(rec);
		off += ST_CHUNK_HDR_LEN + plen;
	}
	/*
	 * The file with its chunks in each coding, as a chunk sequence and
	 * as a rank file: seeds of every coding whatever the writer chose.
	 */
	for (j = 0; j < 3; j++) {
		snprintf(vname, sizeof(vname), "%s-%s", name, rc[j].tag);
		put(dir, "chunk", vname, 0, rc[j].p, rc[j].len, NULL, 0);
		put(dir, "rank", vname, 0, buf,
		    ST_FILE_HDR_LEN + st_get_le32(buf + 12), rc[j].p,
		    rc[j].len);
		free(rc[j].p);
	}
	if (st_reader_open_mem(&r, buf, len, path, err, sizeof(err))) {
		fprintf(stderr, "split: %s\n", err);
		exit(1);
	}
	i = 0;
	while (st_reader_next(r, &ev) == 1)
		if (ev.kind == ST_REC_SYNC && ev.text_len)
			put(dir, "sync", name, i++, ev.text, ev.text_len,
			    NULL, 0);
	st_reader_close(r);
	free(buf);
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: split OUTDIR RANKFILE...\n");
		return 2;
	}
	for (i = 2; i < argc; i++)
		split(argv[1], argv[i], i - 2);
	printf("chunks: stored %u deflate %u huff %u ctx %u\n", methods[0],
	       methods[1], methods[2], methods[3]);
	return 0;
}
