/*
 * tools/cli/spawn.c: finding and running the programs behind 'synctrace run',
 * 'bench' and 'clockcheck'.  The one subtle part is signals: synctrace
 * must outlive the job it started to say what the job left behind, so
 * while the child runs ^C is left to reach the job through the terminal
 * and a SIGTERM or SIGHUP sent to synctrace alone is passed on.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/cli/spawn.h"
#include "tools/cli/usage.h"

char *st_spawn_find_in(const char *dir, const char *const *rel, int mode)
{
	char cand[PATH_MAX + 32];
	char *found;

	for (; *rel; rel++) {
		snprintf(cand, sizeof(cand), "%s/%s", dir, *rel);
		found = realpath(cand, NULL);
		if (found && !access(found, mode))
			return found;
		free(found);
	}
	return NULL;
}

char *st_spawn_find(const char *const *rel, int mode)
{
	char self[PATH_MAX];
	char *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	return st_spawn_find_in(self, rel, mode);
}

char *st_spawn_find_bench(void)
{
	static const char *const rel[] = {
		"synctrace-bench", "../libexec/synctrace-bench",
		"../bin/synctrace-bench", NULL
	};

	return st_spawn_find(rel, X_OK);
}

int st_spawn_exec(char **cmd)
{
	int e;

	fflush(NULL);
	execvp(cmd[0], cmd);
	e = errno;
	error("cannot run '%s': %s", cmd[0], strerror(e));
	return e == ENOENT ? 127 : 126;
}

/* 'path' as execve(2) would take it: 0, ENOENT or EACCES. */
static int can_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno == ENOENT || errno == ENOTDIR ? ENOENT : EACCES;
	return S_ISREG(st.st_mode) && !access(path, X_OK) ? 0 : EACCES;
}

int st_spawn_can_run(const char *word)
{
	const char *path = getenv("PATH"), *p, *q;
	char cand[PATH_MAX];
	int e, found = ENOENT;

	if (!*word)
		return ENOENT;
	if (strchr(word, '/'))
		return can_exec(word);
	/* As execvp(3): the first executable one; EACCES if only others. */
	for (p = path ? path : "/bin:/usr/bin"; ; p = q + 1) {
		q = strchr(p, ':');
		if (!q)
			q = p + strlen(p);
		/* An empty entry is the working directory. */
		snprintf(cand, sizeof(cand), "%.*s/%s",
			 q > p ? (int)(q - p) : 1, q > p ? p : ".", word);
		if (!(e = can_exec(cand)))
			return 0;
		if (e == EACCES)
			found = EACCES;
		if (!*q)
			return found;
	}
}

/* The child being waited for; 0 when there is none, as kill(0) is wrong. */
static volatile pid_t child_pid;

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

int st_spawn_run(char **cmd, char *err, size_t errlen)
{
	return st_spawn_run_watched(cmd, err, errlen, NULL, NULL);
}

/* Wait for 'pid'; with 'stop', ask it every 100 ms and end the child
 * (SIGTERM, once) when it says so. */
static pid_t wait_child(pid_t pid, int *status, int (*stop)(void *),
			void *ctx)
{
	struct timespec tick = { 0, 100000000 };
	int sent = 0;
	pid_t got;

	for (;;) {
		got = waitpid(pid, status, stop ? WNOHANG : 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got != 0)
			return got;
		if (!sent && stop(ctx)) {
			kill(pid, SIGTERM);
			sent = 1;
		}
		nanosleep(&tick, NULL);
	}
}

int st_spawn_run_watched(char **cmd, char *err, size_t errlen,
			 int (*stop)(void *), void *ctx)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, fwd = { 0 };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct sigaction old_int, old_quit;
	sigset_t term_hup, old_mask;
	int status, rc = 0;
	pid_t pid;

	sigemptyset(&ign.sa_mask);
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	/*
	 * SIGTERM and SIGHUP wait (blocked) from before the fork until the
	 * child's pid is known, so one that comes in between is forwarded,
	 * not fatal to us.
	 */
	sigemptyset(&term_hup);
	sigaddset(&term_hup, SIGTERM);
	sigaddset(&term_hup, SIGHUP);
	sigprocmask(SIG_BLOCK, &term_hup, &old_mask);
	fwd.sa_handler = forward_signal;
	sigemptyset(&fwd.sa_mask);
	sigaction(SIGTERM, &fwd, NULL);
	sigaction(SIGHUP, &fwd, NULL);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		rc = -1;
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGHUP, &dfl, NULL);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		goto restore;
	}
	if (!pid) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		sigaction(SIGTERM, &dfl, NULL);
		sigaction(SIGHUP, &dfl, NULL);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		_exit(st_spawn_exec(cmd));
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (wait_child(pid, &status, stop, ctx) < 0) {
		snprintf(err, errlen, "cannot wait for '%s': %s", cmd[0],
			 strerror(errno));
		rc = -1;
	}
	/* The pid may be reused now: stop forwarding to it. */
	child_pid = 0;
	fwd.sa_handler = SIG_DFL;
	sigaction(SIGTERM, &fwd, NULL);
	sigaction(SIGHUP, &fwd, NULL);
restore:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (rc)
		return rc;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return ST_EXIT_FAILURE;
}

int st_dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}
