# ACCL+ Fig. 13 style: gather and reduce over TCP, 8 ranks: CCLO on XRT (device / host data) vs MPICH over TCP.
set datafile separator ","
set termoption noenhanced
set logscale x 2
set logscale y
set format x "%.0b%BB"
set xlabel "message size"
set ylabel "latency [us]"
set grid
set key top left
set multiplot layout 1,2 title "8 ranks over TCP: latency vs message size (nafsim predictions)"
do for [c in "gather reduce"] {
  set title c
  plot csv skip 1 using (strcol(1) eq c && strcol(2) eq "cclo-device" ? $4 : NaN):5 with linespoints pt 7 ps 0.6 title "ACCL+ TCP, device data (kernel)", \
       csv skip 1 using (strcol(1) eq c && strcol(2) eq "cclo-host" ? $4 : NaN):5 with linespoints pt 5 ps 0.6 title "ACCL+ TCP, host data (XRT)", \
       csv skip 1 using (strcol(1) eq c && strcol(2) eq "mpi-tcp" ? $4 : NaN):5 with linespoints pt 4 ps 0.6 dt 2 title "MPICH TCP"
}
unset multiplot
