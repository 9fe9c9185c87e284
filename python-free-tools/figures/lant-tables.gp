# Throughput and registration-full drops vs registration table entries, one line per bitmask width.
set datafile separator ","
set termoption noenhanced
set logscale x 2
set xlabel "registration table entries"
set ylabel "aggregate throughput [Gb/s]"
set y2label "registration-full drops"
set y2tics
set ytics nomirror
set grid
set key outside right
set title "Registration table size x bitmask width (8 nodes, 1 % loss; predictions)"
plot for [w in "8 16 64"] csv skip 1 using (column(2) == w+0 ? column(1) : 1/0):3 with linespoints title sprintf("Gb/s, %s-bit mask", w), \
     for [w in "8 16 64"] csv skip 1 using (column(2) == w+0 ? column(1) : 1/0):5 axes x1y2 with points pt 6 title sprintf("reg-full drops, %s-bit", w)
