# RecoNIC VI-B: host <-> device DMA throughput and FPGA access to host memory, vs size.
# Columns of reconic-memory.csv: bytes, size, dma_h2c_gbytes_s, dma_c2h_gbytes_s, host_write_us, host_read_us.
set datafile separator ","
set termoption noenhanced
set multiplot layout 1,2 title "RecoNIC memory paths (reconic-u250)"
set logscale x 2
set xtics ("64B" 64, "1KiB" 1024, "16KiB" 16384, "256KiB" 262144, "4MiB" 4194304, "64MiB" 67108864)
set xlabel "bytes per call / access"
set grid
set key top left font ",9"
set ylabel "throughput [GB/s]"
set yrange [0:14]
set title "QDMA copies (VI-B1)"
plot csv skip 1 using 1:3 with linespoints pt 7 lc rgb "#cc0000" title "host -> card", \
     '' skip 1 using 1:4 with linespoints pt 6 dt 2 lc rgb "#3465a4" title "card -> host", \
     '-' using 1:2 with points pt 5 ps 1.5 lc rgb "#000000" title "paper (stated)"
67108864,13.07
67108864,13.00
e
set logscale y 10
set autoscale y
set key top left
set ylabel "latency [us]"
set title "FPGA access to host memory (VI-B2)"
plot csv skip 1 using 1:6 with linespoints pt 7 lc rgb "#cc0000" title "read", \
     '' skip 1 using 1:5 with linespoints pt 6 dt 2 lc rgb "#3465a4" title "write", \
     '-' using 1:2 with points pt 5 ps 1.5 lc rgb "#000000" title "paper (read, stated)"
64,0.6
2048,0.964
e
unset multiplot
