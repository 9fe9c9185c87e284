# ACCL+ Fig. 10 style: 8-rank collectives, FPGA data (F2F): CCLO eager / rendezvous vs software MPI (predictions).
set datafile separator ","
set termoption noenhanced
set logscale x 2
set logscale y
# Size tics every factor of 8, labelled with IEC prefixes ("%B" would print "ki": mixed with "KiB" elsewhere, and
# every power of 2 labelled collides in small panels).
set xtics ("64 B" 64, "512 B" 512, "4 KiB" 4096, "32 KiB" 32768, "256 KiB" 262144, "2 MiB" 2097152, "16 MiB" 16777216, "128 MiB" 134217728)
set grid
set key top left
set multiplot layout 2,2 title "8 ranks, FPGA data (F2F): latency [us] vs message size (nafsim predictions)"
do for [c in "bcast gather reduce alltoall"] {
  set title sprintf("%s", c) # `set title c` inside `do for` prints nothing
  plot csv skip 1 using (strcol(1) eq c && strcol(2) eq "cclo-eager" ? $4 : NaN):5 with linespoints pt 7 ps 0.6 title "ACCL+ eager", \
       csv skip 1 using (strcol(1) eq c && strcol(2) eq "cclo-rendezvous" ? $4 : NaN):5 with linespoints pt 5 ps 0.6 title "ACCL+ rendezvous", \
       csv skip 1 using (strcol(1) eq c && strcol(2) eq "mpi" ? $4 : NaN):5 with linespoints pt 4 ps 0.6 dt 2 title "OpenMPI RDMA"
}
unset multiplot
