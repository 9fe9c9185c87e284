# PAC paper Fig. 15: 8 KB all-to-all over PAC, per protocol.
# Columns of pac-alltoall.csv: label, ranks, fabric, eager_us, rendezvous_4k_us, triggered_4k_us, triggered_0_us.
set datafile separator ","
set termoption noenhanced
set title "MPI_Alltoall, 8 KB blocks, over PAC: eager vs rendezvous (pac-32 / pac-128)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "time [us]"
set grid ytics
set key top left font ",9"
plot csv skip 1 using 4:xtic(1) lc rgb "#3465a4" title "eager", \
     '' skip 1 using 5 lc rgb "#888a85" title "rendezvous, 4 KB eager", \
     '' skip 1 using 6 lc rgb "#f57900" title "triggered rendezvous, 4 KB eager", \
     '' skip 1 using 7 lc rgb "#cc0000" title "triggered rendezvous, eager limit 0"
