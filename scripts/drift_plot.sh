#!/usr/bin/env bash
# Regenerates docs/drift.png: |g(q)| along the pendulum (rtol = atol = 1e-6, t in [0, 100]) for
# the formulations of daekit_formulations (the drift-off of NOTES-004.md ch. 3 / Fig. 9.9).
# Needs a built tree (build/) and gnuplot.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp)
trap 'rm -f "$data"' EXIT
cmake --build build --target daekit_formulations >/dev/null
build/bench/daekit_formulations --drift-csv "$data"
gnuplot <<GP
set terminal pngcairo size 900,560 font "Sans,10"
set output "docs/drift.png"
set title "Pendulum (paper 000, (4.1)), rtol = atol = 1e-6: drift of the position constraint"
set xlabel "t"
set ylabel "|g(q)| = | |u|^2 - 1 |"
set logscale y
set format y "10^{%L}"
set yrange [1e-17:1e-2]
set key top left
plot "$data" index 3 using 1:(\$2 > 0 ? \$2 : 1e-17) with lines lw 2 title "index 1 (acceleration constraint): drift-off", \
     "$data" index 2 using 1:(\$2 > 0 ? \$2 : 1e-17) with lines title "index 2 (velocity constraint)", \
     "$data" index 0 using 1:(\$2 > 0 ? \$2 : 1e-17) with lines title "index 3", \
     "$data" index 4 using 1:(\$2 > 0 ? \$2 : 1e-17) with lines title "GGL", \
     "$data" index 1 using 1:(\$3 > 0 ? \$3 : 1e-17) with lines dt 2 title "index 3 + projection: |G v| (round-off)"
GP
echo "wrote docs/drift.png"
