# PAC paper Fig. 13: speed-up over software Portals on an ARM A9 (no hashing), per benchmark and platform size.
# Columns of pac-nas.csv: label, ranks, pattern, arm_a9_no_us, arm_a9_yes_us, pac_no_us, pac_yes_us,
# a9_hash_speedup, pac_speedup, pac_hash_speedup.
set datafile separator ","
set termoption noenhanced
set title "NAS class S and GA MD communication: speed-up over software Portals on an ARM A9 (pac-32 / pac-128)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set yrange [0.5:*]
set ylabel "speed-up over ARM A9 (x)"
set grid ytics
set key top left font ",9"
set xtics rotate by -30 font ",9"
plot csv skip 1 using 8:xtic(1) lc rgb "#4e9a06" title "ARM A9, hashing", \
     '' skip 1 using 9 lc rgb "#cc0000" title "PAC", \
     '' skip 1 using 10 lc rgb "#f57900" title "PAC, hashing"
