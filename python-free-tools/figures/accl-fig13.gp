# ACCL+ Fig. 13 style: gather and reduce over TCP, 8 ranks: CCLO on XRT (device / host data) vs MPICH over TCP.
set datafile separator ","
set termoption noenhanced
set logscale x 2
set logscale y
# Size tics every factor of 8, labelled with IEC prefixes ("%B" would print "ki": mixed with "KiB" elsewhere, and
# every power of 2 labelled collides in small panels).
set xtics ("64 B" 64, "512 B" 512, "4 KiB" 4096, "32 KiB" 32768, "256 KiB" 262144, "2 MiB" 2097152, "16 MiB" 16777216, "128 MiB" 134217728)
set xlabel "message size"
set ylabel "latency [us]"
set grid
set key top left
set multiplot layout 1,2 title "8 ranks over TCP: latency vs message size (nafsim predictions)"
do for [c in "gather reduce"] {
  set title sprintf("%s", c) # `set title c` inside `do for` prints nothing
  plot csv skip 1 using (strcol(1) eq c && strcol(2) eq "cclo-device" ? $4 : NaN):5 with linespoints pt 7 ps 0.6 title "ACCL+ TCP, device data (kernel)", \
       csv skip 1 using (strcol(1) eq c && strcol(2) eq "cclo-host" ? $4 : NaN):5 with linespoints pt 5 ps 0.6 title "ACCL+ TCP, host data (XRT)", \
       csv skip 1 using (strcol(1) eq c && strcol(2) eq "mpi-tcp" ? $4 : NaN):5 with linespoints pt 4 ps 0.6 dt 2 title "MPICH TCP"
}
unset multiplot
