/*
 * tools/analysis/symbols.h: turn the return addresses of call sites into function
 * and file:line.  A rank's ST_REC_OBJECT records say where each object
 * (executable, shared library) was loaded; a frame is looked up among
 * them, made relative to its object, and all addresses of one object are
 * resolved by a single "addr2line -a -f -C -i -e OBJ" process.  What
 * addr2line cannot resolve stays "object+0xoffset".
 */
#ifndef ST_TOOLS_ANALYSIS_SYMBOLS_H
#define ST_TOOLS_ANALYSIS_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* One loaded object of one rank. */
struct st_object {
	uint64_t base;		/* load bias: 0 for a non-PIE executable */
	uint64_t len;		/* the object spans [base, base + len) */
	char *path;		/* owned */
};

/* The objects of one rank, in record order. */
struct st_objmap {
	struct st_object *v;
	size_t nr, alloc;
};

void st_objmap_init(struct st_objmap *m);

/* Free the objects; 'm' can be used again after st_objmap_init(). */
void st_objmap_release(struct st_objmap *m);

/*
 * Add the object of 'path_len' bytes 'path' (not NUL-terminated) loaded
 * at 'base' spanning 'len' bytes.  Returns 0 or -ENOMEM.
 */
int st_objmap_add(struct st_objmap *m, uint64_t base, uint64_t len,
		  const char *path, size_t path_len);

/*
 * The object containing return address 'frame', or NULL.  When spans
 * overlap, the one with the highest base wins (the most specific).
 * '*addr' gets the address to look up in the object's file: frame - 1
 * (the call instruction, not the one after it) minus the object's base,
 * which is the absolute address for a non-PIE executable (base 0).
 */
const struct st_object *st_objmap_find(const struct st_objmap *m,
				       uint64_t frame, uint64_t *addr);

/*
 * Non-zero when 'path' is the MPI library or synctrace itself
 * (libmpi*, libpmpi*, libsynctrace*), whose frames a report skips to
 * find the application's call (Fortran calls pass through libmpifort).
 */
int st_object_is_mpi(const char *path);

/* What one address resolved to. */
struct st_sym {
	const char *path;	/* the object file */
	uint64_t addr;		/* address within it */
	char *func;		/* innermost function, NULL when unknown */
	char *file;		/* its source file, NULL when unknown */
	unsigned line;		/* 0 when unknown */
	char *outer;		/* function it is inlined into, or NULL */
};

struct st_symtab;

/* A table of addresses to resolve.  Returns NULL when out of memory. */
struct st_symtab *st_symtab_new(void);
void st_symtab_free(struct st_symtab *t);

/*
 * Add address 'addr' of object 'path' (copied) unless already there.
 * Returns its index (>= 0), stable for the life of 't', or -ENOMEM.
 */
long st_symtab_add(struct st_symtab *t, const char *path, uint64_t addr);

/* Number of distinct addresses added. */
size_t st_symtab_count(const struct st_symtab *t);

/*
 * Resolve every address added since the last call, running 'addr2line'
 * (a program name or path) once per object.  Objects it cannot read stay
 * unresolved.  Returns 0, or -ENOENT when the program cannot be started
 * (every address then stays unresolved).
 */
int st_symtab_resolve(struct st_symtab *t, const char *addr2line);

/* Entry 'idx' as returned by st_symtab_add(). */
const struct st_sym *st_symtab_get(const struct st_symtab *t, long idx);

/*
 * Write 's' to 'buf' (of 'len' bytes, truncated to fit): "func
 * (file:line)", "func (obj+0xoff)" without a line, "obj+0xoff" when
 * unresolved, where 0xoff is 's->addr', what "addr2line -e obj" takes;
 * "0x<addr>" for the path "?" (an address in no known object).  With
 * 'brief', paths are cut to their last component and the inlining note
 * is left out.  Returns 'buf'.
 */
char *st_sym_format(const struct st_sym *s, int brief, char *buf,
		    size_t len);

/*
 * Parse the output of "addr2line -a -f -i" for the 'n' addresses
 * 'addrs', given in that order: for each, a line "0x<hex>" then pairs of
 * lines (function, file:line), innermost inline first.  Fills 'syms[i]'
 * func, file, line and outer (allocated; "??" becomes NULL) and leaves
 * path and addr alone.  Returns 0, -EBADMSG when the output does not
 * match the addresses (entries parsed so far stay filled), or -ENOMEM.
 */
int st_addr2line_parse(const char *out, size_t len, const uint64_t *addrs,
		       struct st_sym *syms, size_t n);

/* Free what st_addr2line_parse() put in 's'. */
void st_sym_release(struct st_sym *s);

#endif
