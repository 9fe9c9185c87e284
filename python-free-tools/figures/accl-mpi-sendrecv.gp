# Calibration of Open MPI over UCX + RoCE: 2-rank send/recv latency vs size (model line, measured points).
# nafsim figures runs this with the terminal, the output and `csv` (accl-mpi-sendrecv.csv) already set.
set datafile separator ","
set termoption noenhanced
set logscale x 2
set logscale y 10
set xtics ("512 B" 512, "4 KiB" 4096, "32 KiB" 32768, "256 KiB" 262144, "2 MiB" 2097152)
set xlabel "message size"
set ylabel "send/recv latency [us]"
set grid
set key top left
set title "Open MPI over UCX + RoCE, 2-rank send/recv: calibration of accl-cpu-cx5"
plot csv skip 1 using 1:2 with linespoints lc 1 pt 6 ps 0.6 title "nafsim model", \
     csv skip 1 using 1:3 with points lc 2 pt 7 ps 0.9 title "measured (median of 250)"
