# Calibration of ACCL over XRT + 100G TCP: 2-rank send/recv latency vs size per scope (model lines, measured points).
# nafsim figures runs this with the terminal, the output and `csv` (accl-tcp-sendrecv.csv) already set.
set datafile separator ","
set termoption noenhanced
set logscale x 2
set logscale y 10
set xtics ("512 B" 512, "4 KiB" 4096, "32 KiB" 32768, "256 KiB" 262144, "2 MiB" 2097152)
set xlabel "message size"
set ylabel "each rank's own time [us] (median)"
set grid
set key top left font ",8"
scopes = "K2K F2F H2H"
set multiplot layout 2,2 title "ACCL over XRT + 100G TCP, 2-rank send/recv: calibration of accl-xrt-u55c"
do for [k=1:3] {
  sc = word(scopes, k)
  set title sprintf("%s: nafsim (lines) vs measured (points)", sc)
  plot csv skip 1 using (strcol(2) eq sc && strcol(3) eq "sender" ? $4 : NaN):5 with linespoints lc 1 pt 6 ps 0.6 title "sender model", \
       csv skip 1 using (strcol(2) eq sc && strcol(3) eq "sender" ? $4 : NaN):6 with points lc 1 pt 7 ps 0.9 title "sender measured", \
       csv skip 1 using (strcol(2) eq sc && strcol(3) eq "receiver" ? $4 : NaN):5 with linespoints lc 2 pt 4 ps 0.6 title "receiver model", \
       csv skip 1 using (strcol(2) eq sc && strcol(3) eq "receiver" ? $4 : NaN):6 with points lc 2 pt 5 ps 0.9 title "receiver measured"
}
unset multiplot
