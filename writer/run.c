/*
 * writer/run.c: a run directory, as the tools see it.  The index file
 * is a list of key=value lines that rank 0 writes at start and appends
 * to later ('complete=1' once every rank has finished), so a later line
 * overrides an earlier one with the same key.  Rank file names are made
 * on first use: a run may declare many ranks and a tool look at few.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writer/format.h"
#include "writer/reader.h"
#include "writer/writer.h"

/* Caps on what an index may declare. */
#define RUN_MAX_INDEX (1u << 20)
#define RUN_MAX_RANKS (1 << 22)

struct st_run {
	char *dir;
	char *text;		/* the index file, split into 'kv' */
	struct st_kv *kv;
	size_t nkv;
	int nranks;
	char **paths;		/* rank file paths, made on first use */
};

static int read_index(const char *path, char **out, size_t *len)
{
	struct stat st;
	char *buf;
	size_t done = 0;
	ssize_t n;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		rc = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > RUN_MAX_INDEX) {
		rc = -EBADMSG;
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		rc = -ENOMEM;
		goto out;
	}
	while (done < (size_t)st.st_size) {
		n = read(fd, buf + done, (size_t)st.st_size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			free(buf);
			goto out;
		}
		if (!n)
			break;
		done += (size_t)n;
	}
	buf[done] = '\0';
	*out = buf;
	*len = done;
out:
	close(fd);
	return rc;
}

/* Parse a decimal rank count, 1..RUN_MAX_RANKS; -1 when it is not one. */
static int parse_nranks(const char *s)
{
	long n = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (*s - '0');
		if (n > RUN_MAX_RANKS)
			return -1;
	}
	return n ? (int)n : -1;
}

static int parse_index(struct st_run *run, size_t len, const char *path,
		       char *err, size_t errlen)
{
	char *line = run->text, *end = run->text + len, *nl, *eq;
	const char *v;
	size_t lineno = 0, n = 1;

	for (nl = line; nl < end; nl++)
		n += *nl == '\n';
	run->kv = calloc(n, sizeof(*run->kv));
	if (!run->kv)
		return -ENOMEM;
	for (; line < end; line = nl + 1) {
		lineno++;
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;	/* last line, no newline */
		if (nl == line)
			continue;
		eq = memchr(line, '=', (size_t)(nl - line));
		if (!eq || !st_header_key_ok(line, (size_t)(eq - line)) ||
		    memchr(eq, '\0', (size_t)(nl - eq))) {
			if (err && errlen)
				snprintf(err, errlen,
					 "'%s': bad entry on line %zu", path,
					 lineno);
			return -EBADMSG;
		}
		*eq = '\0';
		*nl = '\0';
		run->kv[run->nkv].key = line;
		run->kv[run->nkv].value = eq + 1;
		run->nkv++;
	}
	v = st_run_get(run, "nranks");
	if (!v || (run->nranks = parse_nranks(v)) < 0) {
		if (err && errlen)
			snprintf(err, errlen, "'%s': %s", path,
				 v ? "bad nranks entry" : "no nranks entry");
		return -EBADMSG;
	}
	return 0;
}

int st_run_open(struct st_run **out, const char *dir, char *err,
		size_t errlen)
{
	struct st_run *run;
	char *path = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	run = calloc(1, sizeof(*run));
	if (!run || !(run->dir = strdup(dir)) ||
	    asprintf(&path, "%s/%s", dir, ST_RUN_INDEX) < 0) {
		path = NULL;
		rc = -ENOMEM;
		goto fail;
	}
	rc = read_index(path, &run->text, &len);
	if (rc == -ENOENT) {
		if (err && errlen)
			snprintf(err, errlen,
				 "'%s': not a synctrace run (no %s)", dir,
				 ST_RUN_INDEX);
		goto fail;
	}
	if (rc == -EBADMSG) {
		if (err && errlen)
			snprintf(err, errlen,
				 "'%s': not a regular file of at most %u "
				 "bytes", path, RUN_MAX_INDEX);
		goto fail;
	}
	if (!rc)
		rc = parse_index(run, len, path, err, errlen);
	if (!rc) {
		run->paths = calloc((size_t)run->nranks, sizeof(*run->paths));
		if (!run->paths)
			rc = -ENOMEM;
	}
	if (rc)
		goto fail;
	free(path);
	*out = run;
	return 0;
fail:
	if (rc != -ENOENT && rc != -EBADMSG && err && errlen)
		snprintf(err, errlen, "'%s': %s", path ? path : dir,
			 strerror(-rc));
	free(path);
	st_run_close(run);
	return rc;
}

int st_run_nranks(const struct st_run *run)
{
	return run->nranks;
}

const char *st_run_get(const struct st_run *run, const char *key)
{
	size_t i;

	/* Later lines override earlier ones. */
	for (i = run->nkv; i--;)
		if (!strcmp(run->kv[i].key, key))
			return run->kv[i].value;
	return NULL;
}

const char *st_run_rank_path(const struct st_run *run, int rank)
{
	char *p;

	if (rank < 0 || rank >= run->nranks)
		return NULL;
	if (!run->paths[rank]) {
		if (asprintf(&p, "%s/" ST_RUN_RANK_FMT, run->dir, rank) < 0)
			return NULL;
		run->paths[rank] = p;
	}
	return run->paths[rank];
}

void st_run_close(struct st_run *run)
{
	int i;

	if (!run)
		return;
	if (run->paths)
		for (i = 0; i < run->nranks; i++)
			free(run->paths[i]);
	free(run->paths);
	free(run->kv);
	free(run->text);
	free(run->dir);
	free(run);
}
