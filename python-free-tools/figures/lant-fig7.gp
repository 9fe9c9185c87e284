# Lant et al. Fig. 7: send / receive / registered receive latency vs size, one hop (log-log).
set datafile separator ","
set termoption noenhanced
set logscale xy 2
set xtics ("64B" 64, "256B" 256, "1KiB" 1024, "4KiB" 4096, "16KiB" 16384, "64KiB" 65536)
set xlabel "operation size"
set ylabel "latency [us]"
set grid
set key top left
set title "Connectionless RDMA, one hop: send vs receive vs registered receive (Lant et al. Fig. 7)"
plot csv skip 1 using 1:3 with linespoints title "send (data pushed)" lc rgb "#4e9a06", \
     '' skip 1 using 1:4 with linespoints title "receive, unregistered" lc rgb "#cc0000", \
     '' skip 1 using 1:5 with linespoints title "receive, registered" lc rgb "#3465a4", \
     '-' using 1:2 with points pt 7 ps 1.5 lc rgb "#000000" title "paper (1 KB)"
1024,5.23
1024,4.21
e
