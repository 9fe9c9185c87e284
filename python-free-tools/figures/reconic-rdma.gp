# RecoNIC Fig. 9-12: RDMA READ / WRITE throughput and per-operation latency vs size, single vs batch.
# Columns of reconic-rdma.csv: bytes, size, read_single_gbps, read_batch_gbps, write_single_gbps,
# write_batch_gbps, read_single_us, read_batch_us, write_single_us, write_batch_us.
set datafile separator ","
set termoption noenhanced
set multiplot layout 1,2 title "RecoNIC RDMA (reconic-u250): single WQE per doorbell vs batches of 50"
set logscale x 2
set xtics ("64B" 64, "256B" 256, "1KiB" 1024, "4KiB" 4096, "16KiB" 16384, "64KiB" 65536, "256KiB" 262144)
set xlabel "payload per operation"
set grid
set key top left font ",9"
set ylabel "throughput [Gb/s]"
set yrange [0:105]
set title "throughput (Fig. 9 READ, Fig. 11 WRITE)"
plot csv skip 1 using 1:3 with linespoints pt 7 lc rgb "#cc0000" title "READ single", \
     '' skip 1 using 1:4 with linespoints pt 7 lc rgb "#3465a4" title "READ batch", \
     '' skip 1 using 1:5 with linespoints pt 6 dt 2 lc rgb "#cc0000" title "WRITE single", \
     '' skip 1 using 1:6 with linespoints pt 6 dt 2 lc rgb "#3465a4" title "WRITE batch", \
     '-' using 1:2 with points pt 5 ps 1.5 lc rgb "#000000" title "paper (READ, stated)"
16384,18
16384,89
32768,92
e
set logscale y 10
set autoscale y
set ylabel "time per operation [us]"
set title "latency per operation (Fig. 10 READ, Fig. 12 WRITE)"
plot csv skip 1 using 1:7 with linespoints pt 7 lc rgb "#cc0000" title "READ single", \
     '' skip 1 using 1:8 with linespoints pt 7 lc rgb "#3465a4" title "READ batch", \
     '' skip 1 using 1:9 with linespoints pt 6 dt 2 lc rgb "#cc0000" title "WRITE single", \
     '' skip 1 using 1:10 with linespoints pt 6 dt 2 lc rgb "#3465a4" title "WRITE batch", \
     '-' using 1:2 with points pt 5 ps 1.5 lc rgb "#000000" title "paper (READ, stated)"
16384,7.28
1024,0.4
4096,0.4
e
unset multiplot
