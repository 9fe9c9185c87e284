# Where time goes: each call's critical path as shares of its latency per resource, one stacked bar per size, one
# panel per link rate (rows of the CSV: the 100 Gb/s sizes first, then the 400 Gb/s ones; `n` sizes each).
set datafile separator ","
set termoption noenhanced
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.75
set yrange [0:100]
set ylabel "share of the call's latency [%]"
set xlabel "allreduce size (8 ranks)"
set xtics rotate by -45
set grid y
n = 6
# The panels leave the right fifth to one legend for both.
set multiplot layout 1,2 title "Where time goes: critical path of an 8-rank allreduce on the CCLO (predictions)" \
    margins 0.08, 0.80, 0.18, 0.88 spacing 0.08
unset key
set title sprintf("(a) links at %s", "100 Gb/s")
plot for [i=6:12] csv every ::0::(n-1) using i:xtic(3) title columnheader(i)
set key at screen 0.82, screen 0.86 left Left reverse
set title sprintf("(b) links at %s", "400 Gb/s")
plot for [i=6:12] csv every ::n::(2*n-1) using i:xtic(3) title columnheader(i)
unset multiplot
