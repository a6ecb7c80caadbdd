/*
 * tools/cli/outfile.c: output files that never overwrite a trace and
 * replace a regular file only when complete (see outfile.h).
 */
#include "tools/cli/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writer/format.h"
#include "writer/reader.h"

/* 1 with the kind in 'what' when 'path' is a rank file or run index. */
static int is_trace(const char *path, const char **what)
{
	char head[ST_FILE_MAGIC_LEN];
	const char *base = strrchr(path, '/');
	struct stat sb;
	ssize_t n;
	int fd;

	base = base ? base + 1 : path;
	if (stat(path, &sb) || !S_ISREG(sb.st_mode))
		return 0;
	if (!strcmp(base, ST_RUN_INDEX)) {
		*what = "run index";
		return 1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, head, sizeof(head));
	close(fd);
	if (n == (ssize_t)sizeof(head) &&
	    !memcmp(head, ST_FILE_MAGIC, ST_FILE_MAGIC_LEN)) {
		*what = "trace file";
		return 1;
	}
	if (n >= 7 && !memcmp(head, "run_id=", 7)) {
		*what = "run index";
		return 1;
	}
	return 0;
}

/* A temporary beside 'path' with the mode 'path' has or would get. */
static FILE *open_tmp(const char *path, const struct stat *old, char **tmp)
{
	size_t len = strlen(path) + sizeof(".tmp-XXXXXX");
	mode_t mode, mask;
	FILE *f;
	int fd;

	*tmp = malloc(len);
	if (!*tmp)
		return NULL;
	snprintf(*tmp, len, "%s.tmp-XXXXXX", path);
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	if (old) {
		mode = old->st_mode & 07777;
	} else {
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	f = fchmod(fd, mode) ? NULL : fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

/*
 * Whether the existing file 'path' ('sb' from lstat()) may be replaced
 * by a new file renamed over it: only a regular file of ours, with no
 * other name, that we may write.  Renaming over any other would give
 * it our ownership, cut its other names off the new content, or
 * replace a file its owner made read-only (where opening it fails).
 */
static int replaceable(const char *path, const struct stat *sb)
{
	return S_ISREG(sb->st_mode) && sb->st_uid == geteuid() &&
	       sb->st_nlink == 1 && !access(path, W_OK);
}

int st_out_check(const char *path, char *err, size_t errlen)
{
	const char *what;

	if (!path || !strcmp(path, "-") || !is_trace(path, &what))
		return 0;
	snprintf(err, errlen, "'%s' is a synctrace %s: not overwritten "
		 "(choose another output)", path, what);
	return -1;
}

int st_out_open(struct st_out *o, const char *path, char *err,
		size_t errlen)
{
	struct stat sb;
	int exists;

	o->f = NULL;
	o->path = path;
	o->tmp = NULL;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (st_out_check(path, err, errlen))
		return -1;
	exists = !lstat(path, &sb);
	if (!exists || replaceable(path, &sb))
		o->f = open_tmp(path, exists ? &sb : NULL, &o->tmp);
	if (!o->f)
		o->f = fopen(path, "w");
	if (!o->f) {
		snprintf(err, errlen, "cannot create '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int st_out_close(struct st_out *o, int ok, char *err, size_t errlen)
{
	int e = 0;

	*err = 0;
	if (o->f == stdout) {
		if (fflush(stdout) || ferror(stdout))
			e = errno ? errno : EIO;
	} else if (o->f) {
		if (ferror(o->f))
			e = EIO;
		if (fclose(o->f) && !e)
			e = errno ? errno : EIO;
	}
	o->f = NULL;
	if (ok && !e && o->tmp && rename(o->tmp, o->path))
		e = errno;
	if (o->tmp && (!ok || e))
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	if (e) {
		snprintf(err, errlen, "cannot write '%s': %s",
			 strcmp(o->path, "-") ? o->path : "standard output",
			 strerror(e));
		return -1;
	}
	return ok ? 0 : -1;
}
