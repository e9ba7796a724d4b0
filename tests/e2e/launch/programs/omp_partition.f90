! omp_partition ITEMS SECONDS in Fortran (gfortran -fopenmp, `use omp_lib`: its entry points are
! omp_get_max_threads_ and omp_get_num_threads_, not the C ones): as omp_partition.c, printing
! "partition threads N regions R wrong W". Run by tests/e2e/launch/openmp_contract.sh.
program omp_partition
  use omp_lib
  implicit none
  integer :: items, n, team, t, i, first, bad
  integer(8) :: regions, wrong, start, rate, now
  real :: seconds
  character(len=32) :: arg
  integer, allocatable :: done(:)

  items = 1000
  seconds = 1.0
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) items
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) seconds
  end if
  allocate (done(0:items - 1))
  first = omp_get_max_threads()
  regions = 0
  wrong = 0
  call system_clock(start, rate)
  do
    call system_clock(now)
    if (real(now - start) / real(rate) >= seconds) exit
    n = omp_get_max_threads()
    done = 0
    team = 0
    !$omp parallel private(t, i)
    t = omp_get_thread_num()
    !$omp single
    team = omp_get_num_threads()
    !$omp end single
    if (t < n) then
      do i = t, items - 1, n
        done(i) = done(i) + 1
      end do
    end if
    !$omp end parallel
    bad = 0
    if (team /= n) bad = 1
    if (any(done /= 1)) bad = 1
    wrong = wrong + bad
    regions = regions + 1
  end do
  print '(a, i0, a, i0, a, i0)', 'partition threads ', first, ' regions ', regions, ' wrong ', wrong
end program omp_partition
