/*
 * writer/run.c: run directories.  The index file is a list of key=value
 * lines that rank 0 writes at start and appends to later ('complete=1'
 * once every rank has finished), so a later line overrides an earlier
 * one with the same key.  Rank file names are made on first use: a run
 * may declare many ranks and a tool look at few.
 *
 * A run never shares its directory: the interposer claims a new one by
 * creating its index exclusively (st_run_dir_claim), and every rank
 * file carries the run's id.  Opening a run checks what is there
 * against the index before any tool reads a record: every rank file's
 * number, its 'rank', 'size' and 'run_id', so files of two runs are
 * never read as one, and an index that declares more ranks than the
 * run had is an error, not minutes of looking for files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writer/format.h"
#include "writer/reader.h"
#include "writer/run.h"
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

/*
 * The rank of directory entry 'name' when it is a rank file name,
 * "rank-N.st" with N in decimal without leading zeros (RUN_MAX_RANKS
 * for any N beyond it), else -1.
 */
static long rank_of_name(const char *name)
{
	const char *p = name + 5;
	long n = 0;

	if (strncmp(name, "rank-", 5) || *p < '0' || *p > '9' ||
	    (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		if (n <= RUN_MAX_RANKS)
			n = n * 10 + (*p - '0');
	if (strcmp(p, ".st"))
		return -1;
	return n > RUN_MAX_RANKS ? RUN_MAX_RANKS : n;
}

/*
 * 's' made printable for a message: at most 80 characters, anything
 * but printable ASCII shown as '?'; "(none)" for NULL.
 */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t i;

	if (!s)
		return "(none)";
	for (i = 0; s[i] && i + 1 < len && i < 80; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* Non-zero when 'v' is the decimal number 'n'. */
static int is_number(const char *v, long n)
{
	char want[24];

	snprintf(want, sizeof(want), "%ld", n);
	return !strcmp(v, want);
}

/*
 * Check rank 'rank''s file against the index: its header's rank, size
 * and run id.  A file whose header cannot be read is left to the tool
 * that reads it, which says why.  Returns 0 or -EBADMSG with a message.
 */
static int check_rank_file(struct st_run *run, int rank, char *err,
			   size_t errlen)
{
	const char *path = st_run_rank_path(run, rank);
	const char *id = st_run_get(run, "run_id"), *v;
	char a[96], b[96];
	struct st_reader *r;
	int rc = -EBADMSG;

	if (!path)
		return -ENOMEM;
	if (st_reader_open(&r, path, NULL, 0))
		return 0;
	if ((v = st_reader_get(r, "run_id")) != id &&
	    (!v || !id || strcmp(v, id)))
		snprintf(err, errlen, "'%s' belongs to run %s, '%s/%s' to "
			 "run %s: files of different runs cannot be read as "
			 "one run", path, shown(v, a, sizeof(a)), run->dir,
			 ST_RUN_INDEX, shown(id, b, sizeof(b)));
	else if ((v = st_reader_get(r, "rank")) && !is_number(v, rank))
		snprintf(err, errlen, "'%s' holds rank %s, not rank %d: it "
			 "was renamed or comes from another run", path,
			 shown(v, a, sizeof(a)), rank);
	else if ((v = st_reader_get(r, "size")) &&
		 !is_number(v, run->nranks))
		snprintf(err, errlen, "'%s' is one of %s ranks, but '%s/%s' "
			 "declares nranks=%d: the index does not belong to "
			 "these files", path, shown(v, a, sizeof(a)),
			 run->dir, ST_RUN_INDEX, run->nranks);
	else
		rc = 0;
	st_reader_close(r);
	return rc;
}

/*
 * Check the rank files in the run's directory: no rank beyond the
 * index's nranks, at least one file, every file of this run (above).
 * Returns 0 or a negative errno with a message in 'err'.
 */
static int check_files(struct st_run *run, char *err, size_t errlen)
{
	struct dirent *de;
	DIR *d;
	long rank;
	int rc = 0, nfiles = 0;

	d = opendir(run->dir);
	if (!d) {
		rc = -errno;
		snprintf(err, errlen, "'%s': %s", run->dir, strerror(-rc));
		return rc;
	}
	while (!rc && (de = readdir(d))) {
		rank = rank_of_name(de->d_name);
		if (rank < 0)
			continue;
		if (rank >= run->nranks) {
			snprintf(err, errlen, "'%s/%s' is beyond the %d "
				 "rank%s '%s/%s' declares: a file of another "
				 "run, or an edited index", run->dir,
				 de->d_name, run->nranks,
				 run->nranks == 1 ? "" : "s", run->dir,
				 ST_RUN_INDEX);
			rc = -EBADMSG;
			break;
		}
		nfiles++;
		rc = check_rank_file(run, (int)rank, err, errlen);
	}
	closedir(d);
	if (!rc && !nfiles) {
		snprintf(err, errlen, "'%s': no rank file (rank-N.st) of the "
			 "%d rank%s '%s' declares", run->dir, run->nranks,
			 run->nranks == 1 ? "" : "s", ST_RUN_INDEX);
		rc = -EBADMSG;
	}
	return rc;
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
	if (!rc) {
		char buf[1024];

		rc = check_files(run, buf, sizeof(buf));
		if (rc && err && errlen)
			snprintf(err, errlen, "%s", buf);
		if (rc && rc != -ENOMEM)
			rc = -EBADMSG;
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

/* Making run directories (writer/run.h). */

void st_run_facts_env(struct st_run_facts *f)
{
	static const char *const jobvars[] = {
		"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID",
	};
	const char *v;
	size_t i;

	f->jobid = NULL;
	for (i = 0; i < sizeof(jobvars) / sizeof(*jobvars) && !f->jobid; i++)
		if ((v = getenv(jobvars[i])) && *v)
			f->jobid = v;
	v = getenv("SLURM_STEP_ID");
	f->stepid = v && *v ? v : NULL;
}

/* The pattern escapes, after '%'. */
static const char escapes[] = "jsxhtpn%";

int st_run_name_check(const char *pattern, char *err, size_t errlen)
{
	const char *p;

	for (p = pattern; (p = strchr(p, '%')); p += 2) {
		if (!p[1] || !strchr(escapes, p[1])) {
			if (p[1] >= 0x20 && p[1] < 0x7f)
				snprintf(err, errlen, "unknown escape '%%%c' "
					 "(known: %%j %%s %%x %%h %%t %%p %%n "
					 "%%%%)", p[1]);
			else
				snprintf(err, errlen, "'%%' not followed by "
					 "one of j s x h t p n %%");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Append 'v' to 'out' at '*n' as a safe file name (see
 * st_run_name_expand); 'cut' ends it at the first such character.
 */
static int put_value(char *out, size_t outlen, size_t *n, const char *v,
		     int cut)
{
	size_t i, start = *n;

	for (i = 0; v[i] && i < 64; i++) {
		char c = v[i];

		if (c == cut)
			break;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '+' || c == '-'))
			c = '_';
		if (*n + 1 >= outlen)
			return -ENAMETOOLONG;
		out[(*n)++] = c;
	}
	out[*n] = '\0';
	if (!strcmp(out + start, ".") || !strcmp(out + start, "..") ||
	    *n == start) {
		*n = start;
		return put_value(out, outlen, n, "_", 0);
	}
	return 0;
}

int st_run_name_expand(const char *pattern, const struct st_run_facts *f,
		       char *out, size_t outlen)
{
	char buf[64], err[128];
	const char *p, *base;
	struct tm tm;
	size_t n = 0;
	int rc = 0;

	if (st_run_name_check(pattern, err, sizeof(err)))
		return -EINVAL;
	if (!outlen)
		return -ENAMETOOLONG;
	out[0] = '\0';
	for (p = pattern; *p && !rc; p++) {
		if (*p != '%') {
			if (n + 1 >= outlen)
				return -ENAMETOOLONG;
			out[n++] = *p;
			out[n] = '\0';
			continue;
		}
		switch (*++p) {
		case 'j':
			if (f->jobid) {
				rc = put_value(out, outlen, &n, f->jobid, 0);
				break;
			}
			/* No batch system: the process id, as Darshan does. */
			/* fall through */
		case 'p':
			snprintf(buf, sizeof(buf), "%ld", f->pid);
			rc = put_value(out, outlen, &n, buf, 0);
			break;
		case 's':
			if (f->stepid)
				rc = put_value(out, outlen, &n, f->stepid, 0);
			break;
		case 'x':
			base = f->exe ? strrchr(f->exe, '/') : NULL;
			base = base ? base + 1 : f->exe;
			rc = put_value(out, outlen, &n,
				       base && *base ? base : "app", 0);
			break;
		case 'h':
			rc = put_value(out, outlen, &n,
				       f->host && *f->host ? f->host : "host",
				       '.');
			break;
		case 't':
			localtime_r(&f->t, &tm);
			strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", &tm);
			rc = put_value(out, outlen, &n, buf, 0);
			break;
		case 'n':
			snprintf(buf, sizeof(buf), "%d", f->nranks);
			rc = put_value(out, outlen, &n, buf, 0);
			break;
		default:	/* '%' */
			if (n + 1 >= outlen)
				return -ENAMETOOLONG;
			out[n++] = '%';
			out[n] = '\0';
		}
	}
	return rc;
}

/* Non-zero when directory 'fd' holds nothing but "." and "..". */
static int dir_empty(int fd)
{
	struct dirent *de;
	int empty = 1, dfd = dup(fd);
	DIR *d;

	if (dfd < 0)
		return 0;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while (empty && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

/*
 * Claim 'path': make it, or adopt it (see st_run_dir_claim).  Returns
 * the index's file descriptor, -EEXIST when the name is taken, or
 * another negative errno.
 */
static int claim(const char *path, int adopt)
{
	struct stat st;
	int fresh, dfd, fd, rc;

	fresh = !mkdir(path, 0777);
	if (!fresh && (errno != EEXIST || !adopt))
		return -errno;
	/* O_NOFOLLOW: a symbolic link planted at the name is taken. */
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return fresh ? -errno : -EEXIST;
	if (!fresh && (fstat(dfd, &st) || !S_ISDIR(st.st_mode) ||
		       st.st_uid != geteuid() || !dir_empty(dfd))) {
		close(dfd);
		return -EEXIST;
	}
	fd = openat(dfd, ST_RUN_INDEX,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND |
			    O_CLOEXEC,
		    0666);
	rc = fd < 0 ? -errno : fd;
	close(dfd);
	return rc;
}

int st_run_dir_claim(const char *base, int adopt, char *path, size_t len,
		     int *index_fd)
{
	int i, n, rc;

	*index_fd = -1;
	for (i = 0; i < ST_RUN_MAX_NAMES; i++) {
		n = i ? snprintf(path, len, "%s.%d", base, i)
		      : snprintf(path, len, "%s", base);
		if (n < 0 || (size_t)n >= len)
			return -ENAMETOOLONG;
		rc = claim(path, adopt);
		if (rc >= 0) {
			*index_fd = rc;
			return 0;
		}
		if (rc != -EEXIST)
			return rc;
	}
	return -EEXIST;
}

int st_run_rank_create(const char *dir, int rank)
{
	char name[32];
	int dfd, fd, rc;

	snprintf(name, sizeof(name), ST_RUN_RANK_FMT, rank);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = openat(dfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND |
			    O_CLOEXEC,
		    0666);
	rc = fd < 0 ? -errno : fd;
	close(dfd);
	return rc;
}

void st_run_id_make(char *buf, size_t len, const char *host, time_t t,
		    long pid)
{
	char h[72], stamp[32];
	unsigned long long rnd = 0;
	struct timespec ts;
	struct tm tm;
	size_t n = 0;

	put_value(h, sizeof(h), &n, host && *host ? host : "host", '.');
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd)) {
		/* No entropy yet (early boot): the clock's nanoseconds. */
		clock_gettime(CLOCK_REALTIME, &ts);
		rnd = (unsigned long long)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^
		      (unsigned long long)pid << 32;
	}
	snprintf(buf, len, "%s-%s-%ld-%016llx", h, stamp, pid, rnd);
}
