# ACCL+ Fig. 9, the copies: FPGA -> host and host -> FPGA through the host driver, model vs measured (log-log).
set datafile separator ","
set termoption noenhanced
set logscale xy 2
set xtics ("512B" 512, "4KiB" 4096, "32KiB" 32768, "256KiB" 262144, "2MiB" 2097152)
set xlabel "buffer size"
set ylabel "copy time [us]"
set grid
set key top left
set title "FPGA <-> host copies through the Coyote host driver (ACCL+ Fig. 9)"
plot csv skip 1 using 1:3 with lines lw 2 lc rgb "#3465a4" title "FPGA -> host, model", \
     '' skip 1 using 1:4 with points pt 7 lc rgb "#3465a4" title "FPGA -> host, measured", \
     '' skip 1 using 1:6 with lines lw 2 lc rgb "#cc0000" title "host -> FPGA, model", \
     '' skip 1 using 1:7 with points pt 5 lc rgb "#cc0000" title "host -> FPGA, measured"
