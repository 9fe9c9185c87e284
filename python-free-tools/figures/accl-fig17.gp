# ACCL+ Fig. 17: DLRM latency and throughput, FPGAs (no batching) vs the CPU baseline per batch size.
set datafile separator ","
set termoption noenhanced
set logscale x 2
set logscale y 10
set xlabel "CPU batch size"
set grid
set key top left
set multiplot layout 1,2 title "DLRM (Table 2) on 10 FPGAs vs CPU baseline (nafsim predictions)"
set title "(a) latency"
set ylabel "latency [us]"
plot csv skip 1 using 2:3 with linespoints pt 7 title "CPU (batched)", \
     csv skip 1 using 2:5 with lines lw 2 title "ACCL+ FPGAs (streaming)"
set title "(b) throughput"
set ylabel "inferences / s"
set key bottom right
plot csv skip 1 using 2:4 with linespoints pt 7 title "CPU (batched)", \
     csv skip 1 using 2:6 with lines lw 2 title "ACCL+ FPGAs (streaming)"
unset multiplot
