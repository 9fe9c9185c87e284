# ACCL+ Fig. 16: speed-up of the distributed FC layer over one node, ACCL+ and OpenMPI reductions.
set datafile separator ","
set termoption noenhanced
set logscale x 2
set xrange [0.8:10]
set xtics (1, 2, 4, 8)
set xlabel "ranks"
set ylabel "speed-up over one node"
set logscale y 2
set grid
set key top left font ",8"
set title "FC layer y = W x: speed-up over one node (last of 3 evaluations; nafsim predictions)"
plot x with lines lt 0 title "linear", \
     for [n in "1024 2048 4096 8192 16384"] csv skip 1 using (strcol(1) eq n && strcol(2) eq "accl" ? $3 : NaN):8 with linespoints pt 7 title "ACCL+ ".n."^2", \
     for [n in "1024 2048 4096 8192 16384"] csv skip 1 using (strcol(1) eq n && strcol(2) eq "mpi" ? $3 : NaN):8 with linespoints pt 4 dt 2 title "MPI ".n."^2"
