# ACCL+ Fig. 7: send/recv throughput vs message size (model lines, measured points).
# nafsim figures runs this with the terminal, the output and `csv` (accl-fig7.csv) already set.
set datafile separator ","
set termoption noenhanced
set logscale x 2
# Size tics every factor of 8, labelled with IEC prefixes ("%B" would print "ki": mixed with "KiB" elsewhere, and
# every power of 2 labelled collides in small panels).
set xtics ("64 B" 64, "512 B" 512, "4 KiB" 4096, "32 KiB" 32768, "256 KiB" 262144, "2 MiB" 2097152, "16 MiB" 16777216, "128 MiB" 134217728)
set xlabel "message size"
set ylabel "throughput [Gb/s]"
set yrange [0:105]
set grid
set key top left
set title "send/recv, 2 ranks (ACCL+ Fig. 7): nafsim model (lines) vs measured (points)"
series = "eager/device rendezvous/device eager/host rendezvous/host"
plot for [i=1:4] csv skip 1 using (strcol(1) eq word(series, i) ? $2 : NaN):3 \
       with linespoints lc i pt 6 ps 0.6 title word(series, i)." model", \
     for [i=1:4] csv skip 1 using (strcol(1) eq word(series, i) ? $2 : NaN):4 \
       with points lc i pt 7 ps 0.9 title word(series, i)." measured", \
     csv skip 1 using (strcol(1) eq "openmpi-rdma/host" ? $2 : NaN):3 \
       with linespoints lc rgb "gray50" dt 2 pt 4 ps 0.6 title "OpenMPI RDMA host model", \
     csv skip 1 using (strcol(1) eq "openmpi-rdma/host" ? $2 : NaN):4 \
       with points lc rgb "gray30" pt 9 ps 0.9 title "OpenMPI RDMA host measured"
