/*
 * tests/unit/cli-mpi-pick.c: telling the MPI of a job from names, from
 * --version output and from ELF files (tools/cli/mpi-pick.c).
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/*
 * Only launcher names tell an MPI: a word that merely holds "openmpi",
 * "mpich" or "hydra" is a program's or a helper's name, not a launcher.
 */
Test(cli_mpi_pick, only_launcher_names)
{
	static const struct {
		const char *name;
		int kind;
	} cases[] = {
		{ "mpirun.openmpi", ST_MPI_OPENMPI },
		{ "mpirun.mpich", ST_MPI_MPICH },
		{ "mpiexec-mpich-mp", ST_MPI_MPICH },
		{ "mpiexec-openmpi-gcc12", ST_MPI_OPENMPI },
		{ "mpirun_rsh", ST_MPI_MPICH },
		{ "prterun", ST_MPI_OPENMPI },
		{ "oshrun", ST_MPI_OPENMPI },
		{ "openmpi-tools-demo", ST_MPI_UNKNOWN },
		{ "mpich-bench", ST_MPI_UNKNOWN },
		{ "hydra_pmi_proxy", ST_MPI_UNKNOWN },
		{ "run-openmpi.sh", ST_MPI_UNKNOWN },
		{ "mpiexec.openmpix", ST_MPI_UNKNOWN },
		{ "demo.mpich", ST_MPI_UNKNOWN },
		{ "mpiexecopenmpi", ST_MPI_UNKNOWN },
		{ "mpiexec.slurm", ST_MPI_UNKNOWN },
		{ "smpirun", ST_MPI_UNKNOWN },
		{ "mpirun", ST_MPI_UNKNOWN },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(st_mpi_of_launcher(cases[i].name), cases[i].kind,
			     "%s", cases[i].name);
}

/*
 * A minimal executable ELF64 file made from 'path' (a mkstemp()
 * template) whose dynamic section names the library 'needed'.
 */
static void elf_file(char *path, const char *needed)
{
	unsigned char buf[1024 + 3 * sizeof(Elf64_Shdr)];
	Elf64_Ehdr eh;
	Elf64_Shdr sh[3];
	Elf64_Dyn dyn[2];
	size_t strsz = 1 + strlen(needed) + 1;
	int fd;

	memset(buf, 0, sizeof(buf));
	memset(&eh, 0, sizeof(eh));
	memset(sh, 0, sizeof(sh));
	memset(dyn, 0, sizeof(dyn));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = 1024;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3;
	memcpy(buf, &eh, sizeof(eh));
	cr_assert_lt(256 + strsz, 512);
	memcpy(buf + 256 + 1, needed, strlen(needed));	/* .dynstr */
	sh[1].sh_type = SHT_STRTAB;
	sh[1].sh_offset = 256;
	sh[1].sh_size = strsz;
	dyn[0].d_tag = DT_NEEDED;
	dyn[0].d_un.d_val = 1;
	dyn[1].d_tag = DT_NULL;
	memcpy(buf + 512, dyn, sizeof(dyn));		/* .dynamic */
	sh[2].sh_type = SHT_DYNAMIC;
	sh[2].sh_offset = 512;
	sh[2].sh_size = sizeof(dyn);
	sh[2].sh_link = 1;
	memcpy(buf + 1024, sh, sizeof(sh));
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	cr_assert_eq(fchmod(fd, 0755), 0);
	close(fd);
}

/*
 * A program whose name holds another MPI's name is told by what it is
 * linked to, and the launcher's name before it wins over both.
 */
Test(cli_mpi_pick, program_names_do_not_tell)
{
	char mpich[] = "/tmp/openmpi-tools-demo-XXXXXX";
	char ompi[] = "/tmp/mpich-demo-XXXXXX";
	char plain[] = "/tmp/openmpi-tools-demo-XXXXXX";
	char script[] = "/tmp/st-mpi-pick-XXXXXX";
	char text[256], why[512];
	char *alone[] = { mpich, NULL };
	char *under[] = { "mpiexec.mpich", "-n", "2", ompi, NULL };
	char *wrapped[] = { "env", "X=1", "mpiexec.mpich", "-n", "2", ompi,
			    NULL };
	char *none[] = { plain, NULL };
	char *job[] = { "sh", script, NULL };

	elf_file(mpich, "libmpich.so.12");
	elf_file(ompi, "libmpi.so.40");
	temp_file(plain, "#!/bin/sh\ntrue\n");
	cr_assert_eq(chmod(plain, 0755), 0);
	snprintf(text, sizeof(text), "#!/bin/sh\nmpiexec.mpich -n 2 "
		 "./openmpi-tools-demo\nsrun ./mpich-app\n");
	temp_file(script, text);

	cr_expect_eq(st_mpi_of_elf(mpich), ST_MPI_MPICH);
	cr_expect_eq(st_mpi_of_elf(ompi), ST_MPI_OPENMPI);
	cr_expect_eq(st_mpi_guess(alone, why, sizeof(why)), ST_MPI_MPICH,
		     "why: %s", why);
	cr_expect(strstr(why, "linked to mpich"), "why: %s", why);
	cr_expect_eq(st_mpi_guess(under, why, sizeof(why)), ST_MPI_MPICH,
		     "why: %s", why);
	cr_expect_eq(st_mpi_guess(wrapped, why, sizeof(why)), ST_MPI_MPICH,
		     "why: %s", why);
	cr_expect(strstr(why, "launcher 'mpiexec.mpich'"), "why: %s", why);
	cr_expect_eq(st_mpi_guess(none, why, sizeof(why)), ST_MPI_UNKNOWN,
		     "why: %s", why);
	cr_expect_eq(st_mpi_of_script(script), ST_MPI_MPICH);
	cr_expect_eq(st_mpi_guess(job, why, sizeof(why)), ST_MPI_MPICH,
		     "why: %s", why);
	unlink(mpich);
	unlink(ompi);
	unlink(plain);
	unlink(script);
}
