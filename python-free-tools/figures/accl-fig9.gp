# ACCL+ Fig. 9: 8-rank broadcast of FPGA data through software MPI, share of each phase (stacked), model vs measured.
set datafile separator ","
set termoption noenhanced
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.8
set yrange [0:100]
set ylabel "share of the total [%]"
set xtics rotate by 90 right font ",8"
set grid y
set key outside right top
set multiplot layout 1,2 title "8-rank MPI broadcast of FPGA data (ACCL+ Fig. 9): phases as % of the total"
set title "nafsim model"
plot csv skip 1 using (100*$3/$11):xtic(2) lc rgb "#75507b" title "kernel invocation", \
     '' skip 1 using (100*$5/$11) lc rgb "#3465a4" title "FPGA -> host copy", \
     '' skip 1 using (100*$7/$11) lc rgb "#73d216" title "MPI broadcast", \
     '' skip 1 using (100*$9/$11) lc rgb "#cc0000" title "host -> FPGA copy"
set title "measured (ACCL+ reference data, when --reference finds it)"
plot csv skip 1 using (strcol(12) eq "" ? 0 : 100*real(strcol(4))/real(strcol(12))):xtic(2) lc rgb "#75507b" title "kernel invocation", \
     '' skip 1 using (strcol(12) eq "" ? 0 : 100*real(strcol(6))/real(strcol(12))) lc rgb "#3465a4" title "FPGA -> host copy", \
     '' skip 1 using (strcol(12) eq "" ? 0 : 100*real(strcol(8))/real(strcol(12))) lc rgb "#73d216" title "MPI broadcast", \
     '' skip 1 using (strcol(12) eq "" ? 0 : 100*real(strcol(10))/real(strcol(12))) lc rgb "#cc0000" title "host -> FPGA copy"
unset multiplot
