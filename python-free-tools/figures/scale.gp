# nafsim's own speed and memory vs cluster size (issue 17), from `nafsim bench` (results/bench/*.csv):
# packet-hops per wall second vs nodes, wall time and bytes per node of the collectives vs ranks.
# `series` (a space-separated list) is set by `nafsim figures scale`; scale.csv has one row per point:
# series,x,wall_s,process_s,mhops_per_s,bytes_per_node
set datafile separator ","
set termoption noenhanced
set multiplot layout 1,3 title "nafsim at scale (nafsim bench, this machine)"
set logscale x 2
set grid
set key top left font ",8"
set xlabel "nodes"
set ylabel "M packet-hops / wall second"
set title "packet network speed"
set yrange [0:*]
plot for [s in hop_series] csv skip 1 using 2:(strcol(1) eq s ? $5 : 1/0) with linespoints pt 7 title s
set autoscale y
set logscale y
set xlabel "ranks"
set ylabel "whole-process wall time [s]"
set title "collectives: wall time"
plot for [s in coll_series] csv skip 1 using 2:(strcol(1) eq s ? $4 : 1/0) with linespoints pt 7 title s
set ylabel "peak memory per node [KiB]"
set title "collectives: memory per node"
plot for [s in coll_series] csv skip 1 using 2:(strcol(1) eq s ? $6 / 1024 : 1/0) with linespoints pt 7 title s, \
     65536 / 1024 with lines dt 2 lc rgb "#888888" title "64 KiB"
unset multiplot
