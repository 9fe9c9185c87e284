# ACCL+ Fig. 11 style: 8-rank collectives, host data (H2H): CCLO eager / rendezvous vs software MPI (predictions).
set datafile separator ","
set termoption noenhanced
set logscale x 2
set logscale y
set format x "%.0b%BB"
set grid
set key top left
set multiplot layout 2,2 title "8 ranks, host data (H2H): latency [us] vs message size (nafsim predictions)"
do for [c in "bcast gather reduce alltoall"] {
  set title c
  plot csv skip 1 using (strcol(1) eq c && strcol(2) eq "cclo-eager" ? $4 : NaN):5 with linespoints pt 7 ps 0.6 title "ACCL+ eager", \
       csv skip 1 using (strcol(1) eq c && strcol(2) eq "cclo-rendezvous" ? $4 : NaN):5 with linespoints pt 5 ps 0.6 title "ACCL+ rendezvous", \
       csv skip 1 using (strcol(1) eq c && strcol(2) eq "mpi" ? $4 : NaN):5 with linespoints pt 4 ps 0.6 dt 2 title "OpenMPI RDMA"
}
unset multiplot
