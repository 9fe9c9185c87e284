# Flow fidelity's error against packet fidelity per case (issue 32).
# Columns of flow-accuracy.csv: case, packet_us, flow_us, flow_error_pct, flow_input_ports_us, input_ports_error_pct.
set datafile separator ","
set termoption noenhanced
set title "Flow vs packet fidelity: 64 CCLO ranks, 64 KiB; permutation and incast traffic on a 4:1 leaf-spine (predictions)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.8
set ylabel "flow fidelity's error against packet [%]"
set xtics rotate by -30 noenhanced
set grid y
set key top left
set arrow from graph 0, first 2 to graph 1, first 2 nohead dt 2 lc rgb "#555555"
set arrow from graph 0, first -2 to graph 1, first -2 nohead dt 2 lc rgb "#555555"
plot csv skip 1 using 4:xtic(1) lc rgb "#3465a4" title "flow, per-flow sharing - packet (slowest rank / last node)", \
     csv skip 1 using 6 lc rgb "#f57900" title "flow, input-ports sharing - packet"
