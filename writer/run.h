/*
 * writer/run.h: public; making run directories.  The interposer names a
 * run directory from a pattern (SYNCTRACE_DIR, docs/runs.md), claims it
 * so that no other run can share it, gives the run an id that every rank
 * file carries, and creates each rank's file there; `synctrace run`
 * checks patterns before it starts a job.  Reading runs is in
 * writer/reader.h.
 */
#ifndef ST_WRITER_RUN_H
#define ST_WRITER_RUN_H

#include <stddef.h>
#include <time.h>

/* The run directory's name when SYNCTRACE_DIR is unset or ends in '/'. */
#define ST_RUN_DEFAULT_NAME "synctrace-%x-%t-%p"

/* Names tried for one run: NAME, then NAME.1 to NAME.99. */
#define ST_RUN_MAX_NAMES 100

/* Room for a run id, its NUL included. */
#define ST_RUN_ID_MAX 160

/* What a pattern's escapes expand to, as rank 0 of the run sees them. */
struct st_run_facts {
	const char *jobid;	/* %j; NULL: none, %j is then 'pid' */
	const char *stepid;	/* %s; NULL: none, %s is then empty */
	const char *exe;	/* %x: the program's name (a path is cut) */
	const char *host;	/* %h: host name (cut at the first '.') */
	time_t t;		/* %t: YYYYMMDD-HHMMSS, local time */
	long pid;		/* %p */
	int nranks;		/* %n */
};

/*
 * Fill 'f''s 'jobid' and 'stepid' from the batch system's variables:
 * SLURM_JOB_ID, else PBS_JOBID, else LSB_JOBID (with "[LSB_JOBINDEX]"
 * left out); SLURM_STEP_ID.  Both stay NULL when unset or empty.
 */
void st_run_facts_env(struct st_run_facts *f);

/*
 * Check that 'pattern' is a valid run directory pattern: '%' is followed
 * by one of j s x h t p n %.  Returns 0, or -EINVAL with a message in
 * 'err' ("unknown escape '%q'").
 */
int st_run_name_check(const char *pattern, char *err, size_t errlen);

/*
 * Expand 'pattern' with 'f' into 'out' ('outlen' bytes).  Every expanded
 * value is made a safe file name: characters other than letters, digits
 * and "._+-" become '_', at most 64 of them, never "", "." or "..".
 * Returns 0, -EINVAL for a bad pattern, -ENAMETOOLONG when it does not
 * fit.
 */
int st_run_name_expand(const char *pattern, const struct st_run_facts *f,
		       char *out, size_t outlen);

/*
 * Claim a new run directory: 'base', or else the first free of
 * 'base'.1 to 'base'.99.  A name is free when mkdir() makes it, or, if
 * 'adopt', when it is an existing empty directory (never a symbolic
 * link) owned by this user.  The claim is the index file, created with
 * O_EXCL in it, so two runs never share a directory.  Returns 0 with the
 * directory in 'path' and the index open for appending in '*index_fd';
 * -EEXIST when all ST_RUN_MAX_NAMES names are taken; -ENAMETOOLONG; or
 * the negative errno of a failure (with the name concerned in 'path').
 */
int st_run_dir_claim(const char *base, int adopt, char *path, size_t len,
		     int *index_fd);

/*
 * Create rank 'rank''s trace file in run directory 'dir': exclusively,
 * never through a symbolic link, for appending.  Returns the file
 * descriptor or a negative errno.
 */
int st_run_rank_create(const char *dir, int rank);

/*
 * A new run id in 'buf' ('len' bytes, ST_RUN_ID_MAX is enough): host,
 * time, process id and 64 random bits, "HOST-YYYYMMDDTHHMMSS-PID-HEX".
 */
void st_run_id_make(char *buf, size_t len, const char *host, time_t t,
		    long pid);

#endif
