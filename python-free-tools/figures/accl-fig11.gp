# ACCL+ Fig. 11 style: 8-rank collectives, host data, eager vs rendezvous (predictions).
set datafile separator ","
set termoption noenhanced
set logscale x 2
set logscale y
set format x "%.0b%BB"
set grid
set key top left
set multiplot layout 2,2 title "8 ranks, host data: CCLO latency [us] vs message size (nafsim predictions)"
do for [c in "bcast gather reduce alltoall"] {
  set title c
  plot csv skip 1 using (strcol(1) eq c && strcol(2) eq "eager" ? $4 : NaN):5 with linespoints pt 7 ps 0.6 title "eager", \
       csv skip 1 using (strcol(1) eq c && strcol(2) eq "rendezvous" ? $4 : NaN):5 with linespoints pt 5 ps 0.6 title "rendezvous"
}
unset multiplot
