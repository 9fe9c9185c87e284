# ACCL+ Fig. 8: NOP invocation latency per path (model vs measured), log scale.
set datafile separator ","
set termoption noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [0.1:200]
set ylabel "invocation latency [us]"
set grid ytics
set key top left
set title "CCLO NOP invocation latency (ACCL+ Fig. 8)"
plot csv skip 1 using 2:xtic(1) title "nafsim model" lc rgb "#3465a4", \
     '' skip 1 using 3 title "measured (mean)" lc rgb "#cc0000"
