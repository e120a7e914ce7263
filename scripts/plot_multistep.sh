#!/usr/bin/env bash
# Plots of the beta-blocked multistep study (docs/multistep.md) from the data files that
# bench/beta_multistep.cpp writes:
#   build/bench/daekit_beta_multistep bench-multistep > bench-multistep/tables.md
#   scripts/plot_multistep.sh bench-multistep docs
# Each <study>.dat holds one block per scheme (columns h, error x, error lambda, steps, nfev,
# seconds; blocks separated by two blank lines), <study>.names the scheme of each block.
# Figures after paper 003: Fig. 3.1 (DCBDF stability regions), Fig. 4.1 (largest root of
# sigma - c nabla^k for AM), Fig. 4.2 (AM3, DCBDF3, compound, BDF3 on the truck), Fig. 5.1
# (DCBDF k = 1..5 and AM k = 1..3, positions and algebraic variables); and the relative-error
# plots of NOTES-004.md ch. 5 section 5.5 for the manufactured problem and the pendulum.
set -euo pipefail
data=${1:-bench-multistep}
out=${2:-docs}
mkdir -p "$out"

# index of a scheme in a study's block list (0-based), for gnuplot's "index"
idx() { grep -n -x -F "$2" "$data/$1.names" | cut -d: -f1 | awk '{print $1 - 1}'; }

gnuplot <<EOF
set terminal pngcairo size 1200,900 font ",11"
set grid
set key outside right top noenhanced
set logscale xy
set format x "2^{%L}"
set format y "10^{%L}"
# 18 distinguishable line colours (the default cycle has 8)
colours = "#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #17becf #8c564b #e377c2 #7f7f7f #bcbd22 #000000 #aec7e8 #ff9896 #98df8a #c5b0d5 #ffbb78 #9edae5 #393b79"
do for [i=1:18] { set linetype i lc rgb word(colours, i) lw 1.5 pt (i % 13 + 1) }
set linetype cycle 18

# ---- relative-error plots (notes 5.5) for the manufactured problem and the pendulum
do for [study in "manufactured pendulum"] {
  set output "$out/multistep_".study.".png"
  names = system("cat $data/".study.".names")
  set multiplot layout 2,1 title (study eq "manufactured" ? \
    "manufactured index-2 Euler-Lagrange problem: max error over [0, 3] against the exact solution" : \
    "pendulum (velocity-level Euler-Lagrange form): max error over t = i/8 on [0, 2]")
  set logscale x 2
  set xlabel "step size h"
  set ylabel "error in x"
  plot for [i=1:words(names)-2] "$data/".study.".dat" index (i-1) using 1:2 with linespoints \
    lt i title word(names, i)
  set ylabel "error in lambda"
  plot for [i=1:words(names)-2] "$data/".study.".dat" index (i-1) using 1:3 with linespoints \
    lt i title word(names, i)
  unset multiplot
}

# ---- Fig. 4.2 after paper 003: -log10(error) against -log10(h), truck
set terminal pngcairo size 1200,560 font ",11"
unset logscale
set format x "%g"
set format y "%g"
set key inside left top noenhanced
do for [study in "truck-drop truck"] {
  set output "$out/multistep_fig42_".study.".png"
  set multiplot layout 1,2 title (study eq "truck" ? \
    "truck (published scenario: steady state, road hump), mean relative error over [0, 3]" : \
    "truck released with 0.5 m/s downwards (our scenario), mean relative error over [0, 2]")
  set xlabel "-log10(step size)"
  set ylabel "-log10(rel. error position variables)"
  plot "$data/".study.".dat" index $(idx truck-drop beta-AM3) using (-log10(\$1)):(-log10(\$2)) \
         with linespoints lw 2 pt 3 title "beta-AM3, c = -0.1 (*)", \
       "" index $(idx truck-drop beta-DCBDF3) using (-log10(\$1)):(-log10(\$2)) \
         with linespoints lw 2 pt 1 title "beta-DCBDF3 (+, (3.3))", \
       "" index $(idx truck-drop "DCBDF3/BDF3_(3.2)") using (-log10(\$1)):(-log10(\$2)) \
         with linespoints lw 2 pt 6 title "DCBDF3/BDF3 (o, (3.2))", \
       "" index $(idx truck-drop BDF3) using (-log10(\$1)):(-log10(\$2)) \
         with linespoints lw 2 pt 2 title "BDF3 (x)"
  set ylabel "-log10(rel. error algebraic variables)"
  plot "$data/".study.".dat" index $(idx truck-drop beta-AM3) using (-log10(\$1)):(-log10(\$3)) \
         with linespoints lw 2 pt 3 title "beta-AM3", \
       "" index $(idx truck-drop beta-DCBDF3) using (-log10(\$1)):(-log10(\$3)) \
         with linespoints lw 2 pt 1 title "beta-DCBDF3", \
       "" index $(idx truck-drop "DCBDF3/BDF3_(3.2)") using (-log10(\$1)):(-log10(\$3)) \
         with linespoints lw 2 pt 6 title "DCBDF3/BDF3", \
       "" index $(idx truck-drop BDF3) using (-log10(\$1)):(-log10(\$3)) \
         with linespoints lw 2 pt 2 title "BDF3"
  unset multiplot
}

# ---- Fig. 5.1 after paper 003: DCBDF k = 1..5 and AM k = 1..3, positions and algebraic vars
set terminal pngcairo size 1200,900 font ",11"
set output "$out/multistep_fig51.png"
set multiplot layout 2,2 title "truck released with 0.5 m/s (our scenario): beta-blocked DCBDFk and AMk"
set xlabel "-log10(step size)"
set ylabel "-log10(rel. error position variables)"
set title "DCBDF"
plot for [k=1:5] "$data/truck-drop.dat" index (k-1) using (-log10(\$1)):(-log10(\$2)) \
  with linespoints lw 2 title sprintf("k = %d", k)
set title "Adams-Moulton (AM1 = DCBDF1 = blocked trapezoid)"
plot "$data/truck-drop.dat" index 0 using (-log10(\$1)):(-log10(\$2)) with linespoints lw 2 title "k = 1", \
     "" index $(idx truck-drop beta-AM2) using (-log10(\$1)):(-log10(\$2)) with linespoints lw 2 title "k = 2 (c = -0.15)", \
     "" index $(idx truck-drop beta-AM3) using (-log10(\$1)):(-log10(\$2)) with linespoints lw 2 title "k = 3 (c = -0.1)"
set ylabel "-log10(rel. error algebraic variables)"
set title "DCBDF"
plot for [k=1:5] "$data/truck-drop.dat" index (k-1) using (-log10(\$1)):(-log10(\$3)) \
  with linespoints lw 2 title sprintf("k = %d", k)
set title "Adams-Moulton"
plot "$data/truck-drop.dat" index 0 using (-log10(\$1)):(-log10(\$3)) with linespoints lw 2 title "k = 1", \
     "" index $(idx truck-drop beta-AM2) using (-log10(\$1)):(-log10(\$3)) with linespoints lw 2 title "k = 2", \
     "" index $(idx truck-drop beta-AM3) using (-log10(\$1)):(-log10(\$3)) with linespoints lw 2 title "k = 3"
unset multiplot
unset title

# ---- Andrews' squeezer (velocity-level form), error at t = 0.03
set output "$out/multistep_andrews.png"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set key outside right top noenhanced
names = system("cat $data/andrews.names")
set multiplot layout 2,1 title "Andrews' squeezer (velocity-level form): error at t = 0.03 relative to the IVP Test Set"
set xlabel "step size h"
set ylabel "error of the angles"
plot for [i=1:words(names)] "$data/andrews.dat" index (i-1) using 1:2 with linespoints lt i \
  title word(names, i)
set ylabel "error of the multipliers"
plot for [i=1:words(names)] "$data/andrews.dat" index (i-1) using 1:3 with linespoints lt i \
  title word(names, i)
unset multiplot

# ---- Fig. 3.1: stability regions (boundary loci) of DCBDF2..6, AM2..3 dashed
unset logscale
set format x "%g"
set format y "%g"
set terminal pngcairo size 900,800 font ",11"
set output "$out/multistep_stability.png"
set title "boundary loci z = rho(e^{i theta}) / sigma(e^{i theta}): DCBDF2 (largest) ... DCBDF6; AM2, AM3 dashed" noenhanced
set xlabel "Re z"
set ylabel "Im z"
set size ratio -1
set key outside right top
names = system("cat $data/stability.names")
plot for [i=1:5] "$data/stability.dat" index (i-1) using 1:2 with lines lw 2 dt 1 \
       title word(names, i), \
     for [i=6:words(names)] "$data/stability.dat" index (i-1) using 1:2 with lines lw 2 dt 2 \
       title word(names, i)
set size noratio

# ---- Fig. 4.1: largest root of sigma - c nabla^k for AM1..4
set terminal pngcairo size 900,600 font ",11"
set output "$out/multistep_am_blocking.png"
set title "largest root of sigma - c nabla^k for AMk (tau = c nabla^k); stable below 1" noenhanced
set xlabel "c"
set ylabel "largest |root|"
set yrange [0:2]
set key inside right top
plot for [k=1:4] "$data/am_blocking.dat" index (k-1) using 1:2 with lines lw 2 title sprintf("AM%d", k), \
     1 with lines dt 2 lc rgb "black" notitle
EOF
echo "plots written to $out/multistep_*.png"
