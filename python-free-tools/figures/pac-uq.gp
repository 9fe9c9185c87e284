# PAC paper Fig. 11-12: worst-case unexpected-queue processing time vs queue length.
# Columns of pac-uq.csv: messages, pac_no_us, pac_yes_us, e8400_no_us, e8400_yes_us, arm_a9_no_us, arm_a9_yes_us.
set datafile separator ","
set termoption noenhanced
set title "Worst-case unexpected queue (pac-32, 31 senders): node 0's Portals processing"
set logscale xy
set xlabel "messages in the unexpected queue"
set ylabel "processing time [us]"
set grid
set key top left font ",9"
set format x "%.0f"
plot csv skip 1 using 1:2 with linespoints pt 7 lc rgb "#cc0000" title "PAC", \
     '' skip 1 using 1:3 with linespoints pt 6 dt 2 lc rgb "#cc0000" title "PAC, hashing", \
     '' skip 1 using 1:4 with linespoints pt 7 lc rgb "#3465a4" title "E8400", \
     '' skip 1 using 1:5 with linespoints pt 6 dt 2 lc rgb "#3465a4" title "E8400, hashing", \
     '' skip 1 using 1:6 with linespoints pt 7 lc rgb "#4e9a06" title "ARM A9", \
     '' skip 1 using 1:7 with linespoints pt 6 dt 2 lc rgb "#4e9a06" title "ARM A9, hashing"
