! tests/integration/apps/fort-f77.f90: the Fortran bindings through
! include 'mpif.h': MPI_Init, MPI_Barrier, MPI_Allreduce (once with
! MPI_IN_PLACE) between MPI_Pcontrol(1) and MPI_Pcontrol(0), MPI_Bcast,
! MPI_Finalize.  Each rank prints its results as "fort-f77: rank R sum
! S max M bcast B1 B2 B3"; t-fortran.sh checks the values and that every
! call is in the trace.
program fort_f77
	implicit none
	include 'mpif.h'
	integer :: ierr, rank, nranks, isum, imax, i
	integer :: vals(3)

	call MPI_Init(ierr)
	call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
	call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
	call MPI_Barrier(MPI_COMM_WORLD, ierr)
	call MPI_Pcontrol(1)
	call MPI_Allreduce(rank + 1, isum, 1, MPI_INTEGER, MPI_SUM, &
		MPI_COMM_WORLD, ierr)
	imax = 10 * rank
	call MPI_Allreduce(MPI_IN_PLACE, imax, 1, MPI_INTEGER, MPI_MAX, &
		MPI_COMM_WORLD, ierr)
	call MPI_Pcontrol(0)
	vals = -1
	if (rank == 0) vals = (/ (100 + i, i = 1, 3) /)
	call MPI_Bcast(vals, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
	write (*, '(a,i0,a,i0,a,i0,a,3(1x,i0))') 'fort-f77: rank ', rank, &
		' sum ', isum, ' max ', imax, ' bcast', vals
	call MPI_Finalize(ierr)
end program fort_f77
