! tests/integration/apps/fort-sites.f90: the same call from two call
! sites in turn, through the Fortran bindings (include 'mpif.h'): four
! rounds of MPI_Barrier at one line, then at another.  Every record must
! name its own line's call site (t-fortran.sh), though the calls reach
! the library from one place in the bindings with the same arguments.
program fort_sites
	implicit none
	include 'mpif.h'
	integer :: ierr, i

	call MPI_Init(ierr)
	do i = 1, 4
		call MPI_Barrier(MPI_COMM_WORLD, ierr)
		call MPI_Barrier(MPI_COMM_WORLD, ierr)
	end do
	call MPI_Finalize(ierr)
end program fort_sites
