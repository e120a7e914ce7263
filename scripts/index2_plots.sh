#!/usr/bin/env bash
# Regenerates the plots of issue 12 (needs a built tree, build/, and gnuplot):
#   docs/spark_fig51.png   Fig. 5.1 of paper 002: y errors at t = 1 of the s-stage Lobatto
#                          IIIA-B-C-C*-D SPARK methods on (5.1) against the constant step h;
#   docs/limit_cycle.png   paper 001, Theorem 2.2: the numerical invariant closed curves near the
#                          hyperbolic limit cycle of the sphere DAE (u3 - 1/2 against the angle),
#                          and a transient approaching it.
set -euo pipefail
cd "$(dirname "$0")/.."
fig=$(mktemp)
cycle=$(mktemp)
trap 'rm -f "$fig" "$cycle"' EXIT
build/bench/daekit_index2 --fig51 "$fig"
build/bench/daekit_index2 --cycle "$cycle"
gnuplot <<GP
set terminal pngcairo size 800,500 font "Sans,10"
set output "docs/spark_fig51.png"
set title "SPARK Lobatto IIIA-B-C-C*-D on (5.1) of paper 002: global y error at t = 1"
set xlabel "h"
set ylabel "max |y_n - y(1)|"
set logscale x 2
set logscale y
set format x "2^{%L}"
set format y "10^{%L}"
set xrange [1.0/300:0.15]
set key bottom right
f2(x) = 1.5e0 * x**2
f4(x) = 1.2e-2 * x**4
f6(x) = 2.5e-3 * x**6
plot "$fig" index 0 using 2:3 with linespoints pt 7 title "s = 2", \
     "$fig" index 1 using 2:3 with linespoints pt 5 title "s = 3", \
     "$fig" index 2 using 2:3 with linespoints pt 9 title "s = 4", \
     f2(x) dt 2 lc rgb "gray" title "slope 2", f4(x) dt 3 lc rgb "gray" title "slope 4", \
     f6(x) dt 4 lc rgb "gray" title "slope 6"
set output "docs/limit_cycle.png"
set terminal pngcairo size 800,700 font "Sans,10"
set multiplot layout 2,1
set title "Paper 001, Thm 2.2: numerical invariant curves near the limit cycle u3 = 1/2 (t in [40, 60])"
set xlabel "angle of (u1, u2)"
set ylabel "u3 - 1/2"
unset logscale
set format x "%g"
set format y "%.1e"
set xrange [-pi:pi]
set yrange [-1e-3:1.8e-2]
set key outside right
plot "$cycle" index 0 using 1:2 with points pt 7 ps 0.3 title "theta-method, h = 0.2", \
     "$cycle" index 1 using 1:2 with points pt 7 ps 0.3 title "theta-method, h = 0.1", \
     "$cycle" index 2 using 1:2 with points pt 7 ps 0.3 title "theta-method, h = 0.05", \
     "$cycle" index 3 using 1:(\$2 * 100) with points pt 5 ps 0.3 title "HEM bh3, h = 0.2 (x100)", \
     "$cycle" index 4 using 1:(\$2 * 100) with points pt 5 ps 0.3 title "HEM bh3, h = 0.1 (x100)", \
     0 lc rgb "black" title "the orbit"
set title "a transient onto the curve: HEM bh3, h = 0.1, t in [0, 15] from u3 = 0.95"
set yrange [*:*]
set format y "%g"
plot "$cycle" index 6 using 1:2 with points pt 7 ps 0.4 title "u3 - 1/2", \
     0 lc rgb "black" title "the orbit"
unset multiplot
GP
echo "wrote docs/spark_fig51.png docs/limit_cycle.png"
