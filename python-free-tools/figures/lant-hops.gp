# Registration gain (% of the unregistered receive latency) vs switches on the path, per size and load.
set datafile separator ","
set termoption noenhanced
set xlabel "switches between sender and receiver"
set ylabel "receive latency saved by registration [%]"
set grid
set key outside right
set xrange [0.5:8.5]
set xtics (1, 2, 4, 8)
set title "Registration gain grows with distance and load (Lant et al. section 4.1; predictions)"
# No `skip 1`: columnheader reads the header line (with skip 1 it took the first data row, the 1-switch points,
# as titles).
plot for [i=2:10] csv using 1:i with linespoints title columnheader(i)
