/*
 * tests/unit/cli-mpi-pick.c: telling the MPI of a job from names, from
 * --version output and from ELF files (tools/cli/mpi-pick.c).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/cli/mpi-pick.h"

Test(cli_mpi_pick, names_and_libraries)
{
	cr_expect_str_eq(st_mpi_name(ST_MPI_OPENMPI), "openmpi");
	cr_expect_null(st_mpi_name(ST_MPI_UNKNOWN));
	cr_expect_eq(st_mpi_parse("mpich"), ST_MPI_MPICH);
	cr_expect_eq(st_mpi_parse("openmpi"), ST_MPI_OPENMPI);
	cr_expect_eq(st_mpi_parse("OpenMPI"), ST_MPI_UNKNOWN);
	cr_expect_str_eq(st_mpi_lib_name(ST_MPI_MPICH), "libsynctrace.so");
	cr_expect_str_eq(st_mpi_lib_name(ST_MPI_OPENMPI),
			 "libsynctrace-openmpi.so");
}

Test(cli_mpi_pick, sonames)
{
	cr_expect_eq(st_mpi_of_soname("libmpich.so.12"), ST_MPI_MPICH);
	cr_expect_eq(st_mpi_of_soname("libmpichfort.so.12"), ST_MPI_MPICH);
	/* Intel MPI keeps MPICH's ABI under the name libmpi.so.12. */
	cr_expect_eq(st_mpi_of_soname("libmpi.so.12"), ST_MPI_MPICH);
	cr_expect_eq(st_mpi_of_soname("libmpifort.so.12"), ST_MPI_MPICH);
	cr_expect_eq(st_mpi_of_soname("libmpi.so.40"), ST_MPI_OPENMPI);
	cr_expect_eq(st_mpi_of_soname("libmpi_mpifh.so.40"), ST_MPI_OPENMPI);
	cr_expect_eq(st_mpi_of_soname("libmpi_usempif08.so.40"),
		     ST_MPI_OPENMPI);
	cr_expect_eq(st_mpi_of_soname("libm.so.6"), ST_MPI_UNKNOWN);
	cr_expect_eq(st_mpi_of_soname("libmpfr.so.6"), ST_MPI_UNKNOWN);
}

Test(cli_mpi_pick, launchers_and_versions)
{
	cr_expect_eq(st_mpi_of_launcher("mpiexec.openmpi"), ST_MPI_OPENMPI);
	cr_expect_eq(st_mpi_of_launcher("orterun"), ST_MPI_OPENMPI);
	cr_expect_eq(st_mpi_of_launcher("mpiexec.mpich"), ST_MPI_MPICH);
	cr_expect_eq(st_mpi_of_launcher("mpiexec.hydra"), ST_MPI_MPICH);
	cr_expect_eq(st_mpi_of_launcher("mpiexec"), ST_MPI_UNKNOWN);
	cr_expect_eq(st_mpi_of_launcher("srun"), ST_MPI_UNKNOWN);
	cr_expect_eq(st_mpi_of_version("mpiexec (OpenRTE) 4.1.4\n\nReport "
				       "bugs to http://www.open-mpi.org/"),
		     ST_MPI_OPENMPI);
	cr_expect_eq(st_mpi_of_version("HYDRA build details:\n    Version:"
				       "  4.0.2"), ST_MPI_MPICH);
	cr_expect_eq(st_mpi_of_version("Intel(R) MPI Library for Linux* OS"),
		     ST_MPI_MPICH);
	cr_expect_eq(st_mpi_of_version(""), ST_MPI_UNKNOWN);
}

Test(cli_mpi_pick, elf_files)
{
	char path[] = "/tmp/st-mpi-pick-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_expect_eq(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	/* Not ELF, missing, and an ELF file linked to no MPI. */
	cr_expect_eq(st_mpi_of_elf(path), ST_MPI_UNKNOWN);
	unlink(path);
	cr_expect_eq(st_mpi_of_elf(path), ST_MPI_UNKNOWN);
	cr_expect_eq(st_mpi_of_elf("/proc/self/exe"), ST_MPI_UNKNOWN);
}

Test(cli_mpi_pick, guess_refuses_what_names_no_mpi)
{
	char *cmd[] = { "sh", "-c", "true", NULL };
	char *direct[] = { "mpiexec.openmpi", "-n", "2", "./app", NULL };
	char why[256];

	cr_expect_eq(st_mpi_guess(cmd, why, sizeof(why)), ST_MPI_UNKNOWN);
	cr_expect(strstr(why, "'sh'"), "why: %s", why);
	cr_expect_eq(st_mpi_guess(direct, why, sizeof(why)), ST_MPI_OPENMPI);
	cr_expect(strstr(why, "mpiexec.openmpi"), "why: %s", why);
}

/* Write 'text' to a new temporary file; its name in 'path'. */
static void temp_file(char *path, const char *text)
{
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

Test(cli_mpi_pick, job_scripts)
{
	char one[] = "/tmp/st-mpi-pick-XXXXXX", two[] = "/tmp/st-mpi-pick-XXXXXX";
	char none[] = "/tmp/st-mpi-pick-XXXXXX";
	char *cmd[] = { "sh", one, NULL };
	char why[512];

	temp_file(one, "#!/bin/sh\nmpiexec.mpich -n 2 './app' || exit 1\n"
		  "X=1 mpiexec.mpich -n 3 ./app>/dev/null\n");
	temp_file(two, "mpiexec.mpich -n 2 ./a\nmpiexec.openmpi -n 2 ./b\n");
	temp_file(none, "$MPIEXEC -n 2 ./app\n");
	cr_expect_eq(st_mpi_of_script(one), ST_MPI_MPICH);
	cr_expect_eq(st_mpi_of_script(two), ST_MPI_UNKNOWN);
	cr_expect_eq(st_mpi_of_script(none), ST_MPI_UNKNOWN);
	cr_expect_eq(st_mpi_of_script("/proc/self/exe"), ST_MPI_UNKNOWN);
	cr_expect_eq(st_mpi_guess(cmd, why, sizeof(why)), ST_MPI_MPICH);
	cr_expect(strstr(why, "script"), "why: %s", why);
	unlink(one);
	unlink(two);
	unlink(none);
}
