/*
 * tools/cli/mpi-pick.c: which MPI a job runs (tools/cli/mpi-pick.h).
 * Cheapest first: the launcher's own name and the name its links lead
 * to (mpiexec.openmpi is orterun, mpiexec.mpich is mpiexec.hydra);
 * then, for a launcher called just mpiexec or mpirun, what it prints
 * to --version; then the command's words in order: a launcher's name
 * behind a wrapper (env, time), or a program by the shared libraries
 * its ELF dynamic section names.  Only launcher names count as names:
 * a program called openmpi-demo says nothing.  Never guesses: an MPI
 * none of these names stays unknown.  A script among the words (a job
 * script) is read for the launchers and programs it names: one MPI
 * only, or unknown.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tools/cli/mpi-pick.h"

const char *st_mpi_name(int kind)
{
	switch (kind) {
	case ST_MPI_MPICH: return "mpich";
	case ST_MPI_OPENMPI: return "openmpi";
	}
	return NULL;
}

int st_mpi_parse(const char *name)
{
	if (!strcmp(name, "mpich"))
		return ST_MPI_MPICH;
	if (!strcmp(name, "openmpi"))
		return ST_MPI_OPENMPI;
	return ST_MPI_UNKNOWN;
}

const char *st_mpi_lib_name(int kind)
{
	return kind == ST_MPI_OPENMPI ? "libsynctrace-openmpi.so"
				      : "libsynctrace.so";
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int st_mpi_of_soname(const char *soname)
{
	/* MPICH and the MPIs of its ABI (Intel MPI: libmpi.so.12). */
	if (starts(soname, "libmpich") || starts(soname, "libmpifort.") ||
	    !strcmp(soname, "libmpi.so.12") || starts(soname, "libmpi.so.12."))
		return ST_MPI_MPICH;
	if (starts(soname, "libmpi.so.") || starts(soname, "libmpi_mpifh.") ||
	    starts(soname, "libmpi_usempif08.") ||
	    starts(soname, "libmpi_usempi_ignore_tkr.") ||
	    starts(soname, "libopen-rte.") || starts(soname, "libopen-pal."))
		return ST_MPI_OPENMPI;
	return ST_MPI_UNKNOWN;
}

/*
 * The MPI the name 'rest' (what follows a launcher's stem and its '.'
 * or '-') says: "openmpi", "mpich", "hydra" alone or followed by a
 * version or another '-' part ("mpiexec-mpich-mp", MacPorts').
 */
static int mpi_of_suffix(const char *rest)
{
	static const struct {
		const char *name;
		int kind;
	} names[] = {
		{ "openmpi", ST_MPI_OPENMPI }, { "ompi", ST_MPI_OPENMPI },
		{ "mpich", ST_MPI_MPICH }, { "hydra", ST_MPI_MPICH },
		{ "gforker", ST_MPI_MPICH }, { "remshell", ST_MPI_MPICH },
	};
	size_t i, n;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i].name);
		if (!strncmp(rest, names[i].name, n) &&
		    (!rest[n] || strchr(".-_0123456789", rest[n])))
			return names[i].kind;
	}
	return ST_MPI_UNKNOWN;
}

/*
 * Only launcher names tell: Open MPI's own launchers, and an mpiexec or
 * mpirun whose suffix names the MPI (Debian's mpiexec.openmpi and
 * mpirun.mpich, MPICH's mpiexec.hydra).  Any other word that merely
 * holds "openmpi" or "mpich" (a program called openmpi-demo) is no
 * launcher; srun and a bare mpiexec say nothing by their names.
 */
int st_mpi_of_launcher(const char *base)
{
	static const char *const stems[] = { "mpiexec", "mpirun" };
	size_t i, n;

	if (!strcmp(base, "orterun") || !strcmp(base, "prterun") ||
	    !strcmp(base, "oshrun"))
		return ST_MPI_OPENMPI;
	if (!strcmp(base, "mpirun_rsh"))	/* MVAPICH */
		return ST_MPI_MPICH;
	for (i = 0; i < sizeof(stems) / sizeof(stems[0]); i++) {
		n = strlen(stems[i]);
		if (!strncmp(base, stems[i], n) &&
		    (base[n] == '.' || base[n] == '-'))
			return mpi_of_suffix(base + n + 1);
	}
	return ST_MPI_UNKNOWN;
}

int st_mpi_of_version(const char *text)
{
	if (strstr(text, "Open MPI") || strstr(text, "OpenRTE") ||
	    strstr(text, "open-mpi.org"))
		return ST_MPI_OPENMPI;
	if (strstr(text, "HYDRA") || strstr(text, "MPICH") ||
	    strstr(text, "Intel(R) MPI") || strstr(text, "MVAPICH"))
		return ST_MPI_MPICH;
	return ST_MPI_UNKNOWN;
}

/* Read 'len' bytes at 'off' of 'fd'; 0 or -1. */
static int read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

int st_mpi_of_elf(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strh;
	Elf64_Dyn dyn;
	char name[256];
	int fd, kind = ST_MPI_UNKNOWN, k, i;
	uint64_t j;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ST_MPI_UNKNOWN;
	if (read_at(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr))
		goto out;
	for (i = 0; i < eh.e_shnum && kind == ST_MPI_UNKNOWN; i++) {
		if (read_at(fd, &sh, sizeof(sh),
			    (off_t)(eh.e_shoff + (uint64_t)i * sizeof(sh))) ||
		    sh.sh_type != SHT_DYNAMIC || sh.sh_link >= eh.e_shnum ||
		    read_at(fd, &strh, sizeof(strh),
			    (off_t)(eh.e_shoff +
				    (uint64_t)sh.sh_link * sizeof(strh))))
			continue;
		for (j = 0; j + sizeof(dyn) <= sh.sh_size; j += sizeof(dyn)) {
			if (read_at(fd, &dyn, sizeof(dyn),
				    (off_t)(sh.sh_offset + j)) ||
			    dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag != DT_NEEDED ||
			    dyn.d_un.d_val >= strh.sh_size)
				continue;
			memset(name, 0, sizeof(name));
			if (pread(fd, name, sizeof(name) - 1,
				  (off_t)(strh.sh_offset + dyn.d_un.d_val)) <= 0)
				continue;
			k = st_mpi_of_soname(name);
			if (k != ST_MPI_UNKNOWN) {
				kind = k;
				break;
			}
		}
	}
out:
	close(fd);
	return kind;
}

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

int st_mpi_of_script(const char *path)
{
	static const char seps[] = " \t\r\n;|&()<>`\"'=$";
	char buf[65536], *tok, *p, *end;
	unsigned found = 0;
	ssize_t n;
	int fd, k;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ST_MPI_UNKNOWN;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || (n >= 4 && !memcmp(buf, ELFMAG, SELFMAG)) ||
	    memchr(buf, '\0', (size_t)n))
		return ST_MPI_UNKNOWN;
	buf[n] = '\0';
	for (p = buf; *p; p = end) {
		p += strspn(p, seps);
		end = p + strcspn(p, seps);
		if (end == p)
			break;
		tok = p;
		if (*end)
			*end++ = '\0';
		k = st_mpi_of_launcher(base_of(tok));
		if (!k && tok[0] == '/')
			k = st_mpi_of_elf(tok);
		if (k)
			found |= 1u << k;
	}
	if (found == 1u << ST_MPI_MPICH)
		return ST_MPI_MPICH;
	if (found == 1u << ST_MPI_OPENMPI)
		return ST_MPI_OPENMPI;
	return ST_MPI_UNKNOWN;
}

/*
 * 'word' as a program: itself when it holds a '/', else the first
 * executable of that name in PATH; NULL when there is none.  Free it.
 */
static char *program_path(const char *word)
{
	const char *path = getenv("PATH"), *p, *q;
	char cand[PATH_MAX];
	struct stat st;

	if (!*word)
		return NULL;
	if (strchr(word, '/'))
		return !stat(word, &st) && S_ISREG(st.st_mode) ? strdup(word)
							     : NULL;
	for (p = path ? path : "/usr/bin:/bin"; ; p = q + 1) {
		q = strchr(p, ':');
		if (!q)
			q = p + strlen(p);
		snprintf(cand, sizeof(cand), "%.*s/%s", (int)(q - p), p, word);
		if (q > p && !stat(cand, &st) && S_ISREG(st.st_mode) &&
		    !access(cand, X_OK))
			return strdup(cand);
		if (!*q)
			return NULL;
	}
}

/*
 * What 'prog --version' prints (stdout and stderr, at most 'len' - 1
 * bytes, within 5 s); "" when it cannot be run.
 */
static void version_text(const char *prog, char *buf, size_t len)
{
	int fds[2], status;
	size_t n = 0;
	pid_t pid;
	time_t end = time(NULL) + 5;

	buf[0] = '\0';
	if (pipe(fds))
		return;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		execl(prog, prog, "--version", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (n + 1 < len && time(NULL) < end) {
		struct pollfd pfd = { fds[0], POLLIN, 0 };
		ssize_t r;

		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		r = read(fds[0], buf + n, len - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
}

int st_mpi_guess(char *const *cmd, char *why, size_t len)
{
	char *prog, *real;
	char text[4096];
	int kind, i;

	snprintf(why, len, "neither the launcher '%s' nor a program among "
		 "its arguments names an MPI", cmd[0]);
	prog = program_path(cmd[0]);
	real = prog ? realpath(prog, NULL) : NULL;
	kind = st_mpi_of_launcher(base_of(cmd[0]));
	if (!kind && real)
		kind = st_mpi_of_launcher(base_of(real));
	if (kind) {
		snprintf(why, len, "launcher '%s'%s%s", cmd[0],
			 real ? " is " : "", real ? real : "");
		goto out;
	}
	if (real && (!strcmp(base_of(real), "mpiexec") ||
		     !strcmp(base_of(real), "mpirun"))) {
		version_text(real, text, sizeof(text));
		kind = st_mpi_of_version(text);
		if (kind) {
			snprintf(why, len, "'%s --version'", cmd[0]);
			goto out;
		}
	}
	for (i = 0; cmd[i] && !kind; i++) {
		char *p = i ? program_path(cmd[i]) : prog;
		char *r = i && p ? realpath(p, NULL) : NULL;

		/* A launcher behind a wrapper: env, time, nice, numactl. */
		if (i && ((kind = st_mpi_of_launcher(base_of(cmd[i]))) ||
			  (r && (kind = st_mpi_of_launcher(base_of(r))))))
			snprintf(why, len, "launcher '%s'%s%s", cmd[i],
				 r ? " is " : "", r ? r : "");
		else if (p && (kind = st_mpi_of_elf(p)))
			snprintf(why, len, "'%s' is linked to %s", cmd[i],
				 st_mpi_name(kind));
		else if (p && (kind = st_mpi_of_script(p)))
			snprintf(why, len, "the script '%s' names only %s's "
				 "launchers or programs", cmd[i],
				 st_mpi_name(kind));
		free(r);
		if (i)
			free(p);
	}
out:
	free(real);
	free(prog);
	return kind;
}
