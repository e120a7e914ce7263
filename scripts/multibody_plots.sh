#!/usr/bin/env bash
# Regenerates the plots of docs/applications.md, "Chapter 3 and 9: multibody" (issue 14, part 4)
# with the daekit command and gnuplot:
#   docs/wheel_suspension_fig96.png  notes Fig. 9.6: the elongations of the two springs of the
#                                    wheel suspension (9.5)/(9.6), y1 - y2 (suspension) and
#                                    y2 - z (tyre), z = 0, over t in [0, 3] s;
#   docs/kapitza_pendulum.png        the driven pendulum (rheonomic constraint): angle from the
#                                    top for A = 0.05 (it stays up; A = 0 falls: see the tests);
#   docs/pendulum_index0_drift.png   |p|^2 - l^2 along the index-0 form (3.7), with and without
#                                    the projection (3.10).
# Usage: scripts/multibody_plots.sh [BUILD_DIR]   (default build/)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
daekit="$build/apps/daekit"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$daekit" solve truck --t-end 3 --rtol 1e-8 --atol 1e-8 --out "$tmp/truck.csv" >/dev/null
"$daekit" solve pendulum-driven --out "$tmp/kapitza.csv" >/dev/null
"$daekit" solve pendulum-index0 --rtol 1e-6 --atol 1e-6 --out "$tmp/i0.csv" >/dev/null
"$daekit" solve pendulum-index0 --rtol 1e-6 --atol 1e-6 --method radau5 --projection full \
  --out "$tmp/i0p.csv" >/dev/null
gnuplot <<GP
set datafile separator ","
set terminal pngcairo size 800,480 font "Sans,10"
set output "docs/wheel_suspension_fig96.png"
set title "Wheel suspension (notes (9.5)/(9.6), Fig. 9.4/9.5 data): spring elongations"
set xlabel "t [s]"
set ylabel "elongation [m]"
set key top right
plot "$tmp/truck.csv" skip 1 using 1:(\$2 - \$3) with lines lw 2 title "suspension spring y1 - y2", \
     "$tmp/truck.csv" skip 1 using 1:3 with lines lw 2 title "tyre y2 - z"
set output "docs/kapitza_pendulum.png"
set title "Pendulum with oscillating support s = A cos(200 t) (rheonomic, index 3, radau5)"
set ylabel "angle from the top, pi - |phi| [rad]"
pi = 3.141592653589793
ang(x, y, t, A) = pi - abs(atan2(x, -(y - A * cos(200 * t))))
plot "$tmp/kapitza.csv" skip 1 using 1:(ang(\$2, \$3, \$1, 0.05)) with lines lw 2 title "A = 0.05: stays up (Kapitza)"
set output "docs/pendulum_index0_drift.png"
set title "Pendulum, index-0 form (3.7), m = 0.5, l = 2, g = 9.81, radau5 rtol = atol = 1e-6"
set ylabel "| |p|^2 - l^2 |"
set logscale y
set format y "10^{%L}"
plot "$tmp/i0.csv" skip 1 using 1:(abs(\$2**2 + \$3**2 - 4) + 1e-17) with lines lw 2 title "no projection: drift-off", \
     "$tmp/i0p.csv" skip 1 using 1:(abs(\$2**2 + \$3**2 - 4) + 1e-17) with lines lw 2 title "coordinate projection (3.10)"
GP
echo "wrote docs/wheel_suspension_fig96.png docs/kapitza_pendulum.png docs/pendulum_index0_drift.png"
