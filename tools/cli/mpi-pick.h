/*
 * tools/cli/mpi-pick.h: which MPI a job runs, so that 'synctrace run'
 * preloads the library built for it (libsynctrace.so for MPICH and its
 * ABI, libsynctrace-openmpi.so for Open MPI).  Told from the launcher's
 * name (its links followed: Debian's mpiexec is an alternative), from
 * what a generic mpiexec says to --version, or from the ELF NEEDED
 * entries of the programs among the command's words.
 */
#ifndef ST_TOOLS_CLI_MPI_PICK_H
#define ST_TOOLS_CLI_MPI_PICK_H

#include <stddef.h>

enum st_mpi_kind {
	ST_MPI_UNKNOWN = 0,
	ST_MPI_MPICH,		/* MPICH, Intel MPI, Cray MPICH, MVAPICH */
	ST_MPI_OPENMPI,
};

/* "mpich", "openmpi", or NULL for ST_MPI_UNKNOWN. */
const char *st_mpi_name(int kind);

/* The kind called 'name' ("mpich", "openmpi"), or ST_MPI_UNKNOWN. */
int st_mpi_parse(const char *name);

/* The file name of the library built for 'kind' ("libsynctrace.so"). */
const char *st_mpi_lib_name(int kind);

/* The MPI of a shared library named 'soname' ("libmpi.so.40"). */
int st_mpi_of_soname(const char *soname);

/*
 * The MPI a launcher called 'base' starts: orterun, prterun, oshrun
 * (Open MPI), mpirun_rsh (MVAPICH), and mpiexec or mpirun followed by
 * '.' or '-' and a name of the MPI ("mpiexec.openmpi", "mpirun.mpich",
 * "mpiexec.hydra", "mpiexec-mpich-mp").  Any other name is unknown,
 * whatever it holds ("openmpi-demo", "srun", a bare "mpiexec").
 */
int st_mpi_of_launcher(const char *base);

/* The MPI whose launcher prints 'text' to --version. */
int st_mpi_of_version(const char *text);

/*
 * The MPI the ELF file 'path' is linked to, by its NEEDED entries;
 * ST_MPI_UNKNOWN when it is not a 64-bit ELF file or names no MPI.
 */
int st_mpi_of_elf(const char *path);

/*
 * The MPI a script names, as far as its text tells: the launchers (by
 * name, as st_mpi_of_launcher()) and absolute paths of ELF programs (as
 * st_mpi_of_elf()) among its first 64 KiB of words, when they all say
 * the same MPI; ST_MPI_UNKNOWN when none does, they disagree, or 'path'
 * is no text file.
 */
int st_mpi_of_script(const char *path);

/*
 * The MPI of the job 'cmd' (NULL-terminated): the launcher's name, then
 * a generic launcher's --version, then the first of the words that is
 * a launcher's name (behind a wrapper such as env or time), a program
 * linked to an MPI, or a script that names one.  'why' gets how it was
 * told, or what was tried.  Returns an ST_MPI_* kind.
 */
int st_mpi_guess(char *const *cmd, char *why, size_t len);

#endif
