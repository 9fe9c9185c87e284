# ACCL+ Fig. 12 style: reduce latency vs rank count, CCLO and OpenMPI, labelled with the algorithm each chose.
set datafile separator ","
set termoption noenhanced
set xlabel "ranks"
set ylabel "latency [us]"
set xrange [2.5:8.5]
set grid
set key top left
set multiplot layout 1,2 title "reduce: latency vs ranks, CCLO (device data) and OpenMPI RDMA (host data) (nafsim predictions)"
do for [s in "8192 131072"] {
  set title (s eq "8192" ? "8 KiB" : "128 KiB")
  plot csv skip 1 using (strcol(1) eq s && strcol(2) eq "cclo-eager" ? $3 : NaN):5 with linespoints pt 7 title "ACCL+ eager", \
       csv skip 1 using (strcol(1) eq s && strcol(2) eq "cclo-rendezvous" ? $3 : NaN):5 with linespoints pt 5 title "ACCL+ rendezvous", \
       csv skip 1 using (strcol(1) eq s && strcol(2) eq "mpi" ? $3 : NaN):5 with linespoints pt 4 dt 2 title "OpenMPI RDMA", \
       csv skip 1 using (strcol(1) eq s ? $3 : NaN):5:4 with labels offset 0,0.8 font ",8" notitle
}
unset multiplot
