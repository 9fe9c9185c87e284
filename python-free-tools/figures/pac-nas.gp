# PAC paper Fig. 13: speed-up over software Portals on an ARM A9 (no hashing), per benchmark, platform size and
# platform: timed (pac-32 / pac-128: elapsed time) and the paper's virtual platform (pac-32-ovp / pac-128-ovp:
# the nodes' time in Portals). The paper's stated numbers per series as black marks on each cluster.
# Columns of pac-nas.csv: 1 label, 2 mode, 3 ranks, 4 pattern, 5-8 times, 9 a9_hash_speedup, 10 pac_speedup,
# 11 pac_hash_speedup, 12 paper_a9_hash, 13 paper_pac, 14 paper_pac_hash, 15-17 errors, ...
# Rows after the header: timed 32, timed 128, virtual 32, virtual 128 (five patterns each, alphabetical).
set datafile separator ","
set termoption noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set logscale y
set yrange [0.5:30000]
set ytics ("1" 1, "10" 10, "100" 100, "1000" 1000)
set grid ytics
set xtics font ",9"
set key top left Left reverse font ",8"
set multiplot layout 2,2 title "NAS class S and GA MD communication: speed-up over software Portals on an ARM A9"
panel(i) = i == 0 ? "timed, 32 nodes (pac-32, elapsed time)" : i == 1 ? "timed, 128 nodes (pac-128, elapsed time)" : \
           i == 2 ? "virtual platform, 32 nodes (pac-32-ovp, Portals time)" : "virtual platform, 128 nodes (pac-128-ovp, Portals time)"
do for [i=0:3] {
  set title sprintf("%s", panel(i)) font ",10"
  set ylabel (i % 2 == 0 ? "speed-up (x)" : "")
  first = 5 * i
  last = first + 4
  plot csv skip 1 every ::first::last using 9:xtic(4) lc rgb "#4e9a06" title "ARM A9, hashing", \
       '' skip 1 every ::first::last using 10 lc rgb "#cc0000" title "PAC", \
       '' skip 1 every ::first::last using 11 lc rgb "#f57900" title "PAC, hashing", \
       '' skip 1 every ::first::last using ($0 - 0.27):12 with points pt 7 ps 0.6 lc rgb "black" title "paper (stated)", \
       '' skip 1 every ::first::last using ($0):13 with points pt 7 ps 0.6 lc rgb "black" notitle, \
       '' skip 1 every ::first::last using ($0 + 0.27):14 with points pt 7 ps 0.6 lc rgb "black" notitle
}
unset multiplot
