/*
 * pmpi/abi.c: which MPI the process runs.  The library is built for one
 * MPI (wrappers.def's 'mpi' blocks, st_gen_mpis[0]) but may be preloaded
 * into a program linked to another: MPICH's handles are int and Open
 * MPI's pointers, so it must then touch no handle.  The real PMPI_Init,
 * the one after this library in the lookup order, lives in the library
 * of the MPI the program runs; that library is Open MPI's when it
 * defines Open MPI's marker symbol (ompi_mpi_comm_world), and so on,
 * MPICH's ABI when it defines none.  When it is not this build's MPI,
 * st_foreign is set and every exported function's stub jumps straight
 * to the real one (pmpi/hooks.h), after one warning.
 *
 * For Open MPI it also finds libmpi's writable data, where its
 * predefined datatypes live (pmpi/abi.h, st_type_builtin()).
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmpi/abi.h"
#include "pmpi/hooks.h"
#include "pmpi/internal.h"

unsigned char st_foreign;
int st_in_constructor;
uintptr_t st_ompi_data_lo, st_ompi_data_hi, st_ompi_exe_lo, st_ompi_exe_hi;

/* The process's rank as its launcher told it, or -1 when none did. */
static int launcher_rank(void)
{
	static const char *const vars[] = {
		"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
		"SLURM_PROCID", "MPI_LOCALRANKID",
	};
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(*vars); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return atoi(v);
	}
	return -1;
}

#if defined(OPEN_MPI)
/* dl_iterate_phdr(): the writable PT_LOAD of the object at 'data'. */
static int find_data(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t a = (uintptr_t)data;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_LOAD && (p->p_flags & PF_W) && a >= lo &&
		    a < lo + p->p_memsz) {
			st_ompi_data_lo = lo;
			st_ompi_data_hi = lo + p->p_memsz;
			return 1;
		}
	}
	return 0;
}

/*
 * dl_iterate_phdr(): the program's writable PT_LOADs, the first object
 * listed.  A program that names a predefined datatype (MPI_DOUBLE is
 * &ompi_mpi_double) gets a copy of the object in its own data by a copy
 * relocation, and every reference, libmpi's included, then goes to that
 * copy: predefined datatypes live there too.
 */
static int find_exe_data(struct dl_phdr_info *info, size_t size, void *data)
{
	uintptr_t hi, lo = st_load_span(info, PF_W, &hi);

	(void)size;
	(void)data;
	if (hi > lo) {
		st_ompi_exe_lo = lo;
		st_ompi_exe_hi = hi;
	}
	return 1;	/* the program only */
}
#endif

/* The MPI libraries loaded: who defines PMPI_Init itself, and of which MPI. */
struct scan {
	int own, other;		/* an object of this build's MPI, of another */
	int kind;		/* the other's index in st_gen_mpis */
	char path[512];		/* the other's file */
};

/* Index in st_gen_mpis of the MPI of the library at 'h' (which defines PMPI_Init). */
static int kind_of(void *h)
{
	int i, fallback = 0;

	for (i = 0; st_gen_mpis[i].name; i++) {
		if (!st_gen_mpis[i].marker)
			fallback = i;
		else if (dlsym(h, st_gen_mpis[i].marker))
			return i;
	}
	return fallback;
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *sc = data;
	Dl_info di;
	void *h, *f;
	int k;

	(void)size;
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0;
	h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	f = dlsym(h, "PMPI_Init");
	/* Defined by this very object, not one of its dependencies. */
	if (f && dladdr(f, &di) && (uintptr_t)di.dli_fbase == info->dlpi_addr &&
	    strcmp(di.dli_fname, "") && !dlsym(h, "st_abi_check")) {
		k = kind_of(h);
		if (k == 0) {
			sc->own = 1;
		} else if (!sc->other) {
			sc->other = 1;
			sc->kind = k;
			snprintf(sc->path, sizeof(sc->path), "%s",
				 info->dlpi_name);
		}
	}
	dlclose(h);
	return 0;
}

/*
 * Start the program again without this library in LD_PRELOAD: another
 * MPI's libraries come after this one's in the lookup order, so even
 * the calls synctrace does not wrap would reach the wrong MPI.  Only
 * from the constructor, before main; returns when it cannot.
 */
static void exec_without_me(void)
{
	static char args[1 << 16];
	char *argv[1024], **envp, *pre, *out;
	extern char **environ;
	Dl_info me;
	const char *base;
	size_t n = 0, i, ne = 0;
	ssize_t len;
	int fd, argc = 0;

	if (!dladdr((void *)exec_without_me, &me) || !me.dli_fname)
		return;
	base = strrchr(me.dli_fname, '/');
	base = base ? base + 1 : me.dli_fname;
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((len = read(fd, args + n, sizeof(args) - 1 - n)) > 0)
		n += (size_t)len;
	close(fd);
	if (!n || n >= sizeof(args) - 1)
		return;
	args[n] = '\0';
	for (i = 0; i < n && argc < 1023; i += strlen(args + i) + 1)
		argv[argc++] = args + i;
	argv[argc] = NULL;
	for (ne = 0; environ[ne]; ne++)
		;
	envp = calloc(ne + 2, sizeof(*envp));
	pre = getenv("LD_PRELOAD");
	out = pre ? calloc(1, strlen(pre) + 16) : NULL;
	if (!envp || (pre && !out))
		return;
	if (pre) {
		const char *p = pre, *q, *b;
		size_t o = 11, k;

		memcpy(out, "LD_PRELOAD=", 11);
		for (; *p; p = *q ? q + 1 : q) {
			q = p + strcspn(p, ": ");
			k = (size_t)(q - p);
			for (b = q; b > p && b[-1] != '/'; b--)
				;
			if (!k || ((size_t)(q - b) == strlen(base) &&
				   !strncmp(b, base, strlen(base))))
				continue;
			if (o > 11)
				out[o++] = ':';
			memcpy(out + o, p, k);
			o += k;
		}
		out[o] = '\0';
	}
	for (i = 0, n = 0; i < ne; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11))
			envp[n++] = environ[i];
	if (out)
		envp[n++] = out;
	envp[n++] = "SYNCTRACE_STEPPED_ASIDE=1";
	envp[n] = NULL;
	execve("/proc/self/exe", argv, envp);
}

int st_abi_check(void)
{
	static int warned;
	struct scan sc = { 0, 0, 0, "" };
	void *real;
	Dl_info di;

	if (st_foreign)
		return 1;
#if defined(OPEN_MPI)
	if (!st_ompi_data_hi) {
		dl_iterate_phdr(find_data, (void *)MPI_INT);
		dl_iterate_phdr(find_exe_data, NULL);
	}
#endif
	dl_iterate_phdr(scan_object, &sc);
	if (!sc.other)
		return 0;	/* only this build's MPI, or none yet */
	st_gen_resolve();
	st_foreign = 1;
	if (!warned && launcher_rank() <= 0) {
		warned = 1;
		fprintf(stderr, "synctrace: the application runs %s ('%s'), "
			"this library is built for %s; tracing disabled "
			"(synctrace run --mpi %s picks the right one)\n",
			st_gen_mpis[sc.kind].name, sc.path,
			st_gen_mpis[0].name, st_gen_mpis[sc.kind].name);
	}
	/*
	 * The real PMPI_Init, the first after this library in the lookup
	 * order, must be the application's MPI's; if it is this build's,
	 * all of the application's MPI calls would go astray.
	 */
	real = st_dlsym_next("PMPI_Init");
	if (!st_in_constructor || getenv("SYNCTRACE_STEPPED_ASIDE") ||
	    (real && dladdr(real, &di) && di.dli_fname &&
	     !strcmp(di.dli_fname, sc.path)))
		return 1;
	fflush(NULL);
	exec_without_me();
	return 1;
}

/* Is 'name' (at most 'len' bytes, maybe without its NUL) 'want'? */
static int name_is(const char *name, size_t len, const char *want)
{
	return !strncmp(name, want, len) && strlen(want) < len;
}

/*
 * What symbol table 'sym' (with its strings 'str') defines: bit 0, the
 * MPI interface's MPI_Init or PMPI_Init; bit 1, an MPI library's own
 * initialisation (MPICH's and its ABI's MPID_Init, Open MPI's
 * ompi_mpi_init), which a program's own layer of MPI wrappers lacks.
 */
static unsigned defines(const unsigned char *img, size_t size,
			const Elf64_Shdr *sym, const Elf64_Shdr *str)
{
	const char *names = (const char *)img + str->sh_offset;
	size_t i, n = sym->sh_size / sizeof(Elf64_Sym);
	unsigned found = 0;

	if (sym->sh_offset > size || sym->sh_size > size - sym->sh_offset ||
	    str->sh_offset > size || str->sh_size > size - str->sh_offset)
		return 0;
	for (i = 0; i < n && found != 3; i++) {
		Elf64_Sym e;
		const char *nm;
		size_t len;

		memcpy(&e, img + sym->sh_offset + i * sizeof(e), sizeof(e));
		if (e.st_shndx == SHN_UNDEF || e.st_name >= str->sh_size ||
		    ELF64_ST_TYPE(e.st_info) != STT_FUNC)
			continue;
		nm = names + e.st_name;
		len = str->sh_size - e.st_name;
		if (name_is(nm, len, "MPI_Init") ||
		    name_is(nm, len, "PMPI_Init"))
			found |= 1;
		else if (name_is(nm, len, "MPID_Init") ||
			 name_is(nm, len, "ompi_mpi_init"))
			found |= 2;
	}
	return found;
}

int st_exe_has_mpi(void)
{
	const unsigned char *img;
	Elf64_Ehdr eh;
	struct stat sb;
	size_t size, i;
	unsigned found = 0;
	int fd;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) || sb.st_size < (off_t)sizeof(eh)) {
		close(fd);
		return 0;
	}
	size = (size_t)sb.st_size;
	img = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return 0;
	memcpy(&eh, img, sizeof(eh));
	if (!memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shoff < size &&
	    eh.e_shnum <= (size - eh.e_shoff) / sizeof(Elf64_Shdr)) {
		for (i = 0; i < eh.e_shnum && found != 3; i++) {
			Elf64_Shdr sh, st;

			memcpy(&sh, img + eh.e_shoff + i * sizeof(sh),
			       sizeof(sh));
			if ((sh.sh_type != SHT_SYMTAB &&
			     sh.sh_type != SHT_DYNSYM) ||
			    sh.sh_link >= eh.e_shnum)
				continue;
			memcpy(&st, img + eh.e_shoff + sh.sh_link * sizeof(st),
			       sizeof(st));
			found |= defines(img, size, &sh, &st);
		}
	}
	munmap((void *)img, size);
	return found == 3;
}
