#!/usr/bin/python3
"""Regenerates the figures of docs/applications.md (Bendtsen and Thomsen 1999, ch. 8 and 10) with the
`daekit` CLI and gnuplot:

  docs/app_moon_<v>.png        Figs. 8.2/8.4/8.6/8.8: trajectories of the four moon flights
                               (y1'(0) = v = 0.5, 1.1, 1.4, 2.0) for radau5, erk (the notes'
                               ode45), the stabilised ODE (8.5) and radau5 with projection;
  docs/app_moon_<v>_jacobi.png Figs. 8.3/8.5/8.7/8.9: |J(t) - J(0)| along each of them;
  docs/app_air_pipe.png        Fig. 10.2: temperatures and mass of air in the pipe (10.12);
  docs/app_air_pipe_steps.png  Fig. 10.3: step sizes of the solver for the pipe;
  docs/app_attemperator.png    Figs. 10.5-10.7: outlet temperature, control signals and switch
                               variable (10.13), step sizes.

  docs/app_impasse.png         ch. 7: radau5 stalling at the impasse point t = 1 of x2' = 1,
                               0 = x1^2 + x2, and Algorithm SingDAE through it (needs
                               bench/daekit_impasse_passage next to apps/daekit).

Usage: scripts/applications_plots.py [path/to/daekit]   (default build/apps/daekit)
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DAEKIT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "apps", "daekit")
DOCS = os.path.join(ROOT, "docs")
MU = 0.01215
TMP = tempfile.mkdtemp(prefix="daekit-apps-")


def run(problem, out, *extra):
    """Solves a built-in problem and returns the CSV rows (a terminal event exits with 1)."""
    cmd = [DAEKIT, "solve", problem, "--out", out, *extra]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1) or not os.path.exists(out):
        sys.exit("failed: %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
    with open(out) as f:
        rows = list(csv.reader(f))
    header, data = rows[0], [[float(v) for v in r] for r in rows[1:]]
    return header, data


def jacobi(y1, y2, v1, v2):
    r1 = math.hypot(y1 + MU, y2)
    r2 = math.hypot(y1 - 1 + MU, y2)
    return 0.5 * (v1 * v1 + v2 * v2 - y1 * y1 - y2 * y2) - (1 - MU) / r1 - MU / r2


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def moon():
    variants = [
        ("radau5", lambda v: ("moon" if v == "1.4" else "moon-" + v, [])),
        ("erk (as ode45)", lambda v: ("moon" if v == "1.4" else "moon-" + v,
                                      ["--method", "erk", "--rtol", "1e-6", "--atol", "1e-6"])),
        ("stabilised (8.5), radau5", lambda v: ("moon-stabilised-" + v, [])),
        ("radau5 + projection", lambda v: ("moon" if v == "1.4" else "moon-" + v,
                                           ["--projection", "full"])),
    ]
    for v in ["0.5", "1.1", "1.4", "2.0"]:
        files = []
        for k, (label, make) in enumerate(variants):
            name, extra = make(v)
            _, data = run(name, os.path.join(TMP, "moon.csv"), *extra)
            dat = os.path.join(TMP, "moon_%s_%d.dat" % (v, k))
            J0 = jacobi(*data[0][1:5])
            with open(dat, "w") as f:
                for row in data:
                    dj = abs(jacobi(*row[1:5]) - J0)
                    f.write("%.17g %.17g %.17g %.17g\n" % (row[0], row[1], row[2], max(dj, 1e-17)))
            files.append((dat, label))
        lines = ", \\\n  ".join('"%s" using 2:3 with lines lw %d title "%s"' %
                                (f, 2 if i == 0 else 1, l) for i, (f, l) in enumerate(files))
        gnuplot("""
set terminal pngcairo size 760,600 font "Sans,10"
set output "%s/app_moon_%s.png"
set title "Flight to the moon, y1'(0) = %s (notes Section 8.3)"
set xlabel "y1"; set ylabel "y2"; set size ratio -1; set key below
set object 1 circle at %g,0 size 0.0166 fc rgb "blue" fs solid
set object 2 circle at %g,0 size 0.0045 fc rgb "gray" fs solid
plot %s
""" % (DOCS, v, v, -MU, 1 - MU, lines))
        lines = ", \\\n  ".join('"%s" using 1:4 with lines title "%s"' % (f, l) for f, l in files)
        gnuplot("""
set terminal pngcairo size 760,420 font "Sans,10"
set output "%s/app_moon_%s_jacobi.png"
set title "Jacobi integral, y1'(0) = %s: |J(t) - J(0)|"
set xlabel "t"; set ylabel "|J - J0|"; set logscale y; set format y "10^{%%L}"
set yrange [1e-17:10]; set key below
plot %s
""" % (DOCS, v, v, lines))


def impasse():
    prog = os.path.join(os.path.dirname(os.path.dirname(DAEKIT)), "bench", "daekit_impasse_passage")
    if not os.access(prog, os.X_OK):
        print("no %s: docs/app_impasse.png not regenerated" % prog)
        return
    dat = os.path.join(TMP, "impasse.dat")
    subprocess.run([prog, dat], check=True, capture_output=True)
    gnuplot("""
set terminal pngcairo size 1100,420 font "Sans,10"
set output "%s/app_impasse.png"
set multiplot layout 1,2
set title "x2' = 1, 0 = x1^2 + x2 (notes Section 7.1): x1 against t"
set xlabel "t"; set ylabel "x1"; set key top right
set samples 400
plot [0:1.05] [-1.1:1.1] (x <= 1 ? sqrt(1 - x) : 1/0) lw 6 lc rgb "#dddddd" title "exact sqrt(1 - t)", \\
     (x <= 1 ? -sqrt(1 - x) : 1/0) lw 6 lc rgb "#eeddcc" title "other branch -sqrt(1 - t)", \\
     "%s" index 0 using 1:2 with points pt 7 ps 0.6 title "radau5 (stopped by the monitor)", \\
     "%s" index 1 using 2:3 with lines lw 2 title "SingDAE (RK4 in arc length)"
set title "SingDAE: gamma = dt/ds along the curve (sign change at the impasse point)"
set xlabel "s (arc length)"; set ylabel "gamma"
set key bottom left
plot "%s" index 1 using 1:5 with lines lw 2 title "gamma", 0 dt 2 notitle
unset multiplot
""" % (DOCS, dat, dat, dat))


def air_pipe():
    header, data = run("air-pipe", os.path.join(TMP, "pipe.csv"))
    n = (len(header) - 1) // 6
    dat = os.path.join(TMP, "pipe.dat")
    with open(dat, "w") as f:
        prev = None
        for k, row in enumerate(data):
            y = row[1:]
            mass = sum(y[6 * j] for j in range(n))
            t_air = sum(y[6 * j + 3] for j in range(n)) / n
            t_wall = sum(y[6 * j + 2] for j in range(n)) / n
            h = row[0] - prev if prev is not None else 0
            prev = row[0]
            f.write("%d %.17g %.17g %.17g %.17g %.17g %.17g\n" %
                    (k, row[0], t_air, y[6 * (n - 1) + 3], t_wall, mass, h))
    gnuplot("""
set terminal pngcairo size 760,480 font "Sans,10"
set output "%s/app_air_pipe.png"
set title "Hot air through a cold pipe, %d control volumes (notes Fig. 10.2)"
set xlabel "t [s]"; set ylabel "temperature [K]"; set y2label "mass of air [kg]"
set y2tics; set ytics nomirror; set key right center; set xrange [0:2000]
plot "%s" using 2:3 with lines lw 2 title "T (air, mean)", \\
     "%s" using 2:4 with lines title "T_o (outlet)", \\
     "%s" using 2:5 with lines title "T_s (wall, mean)", \\
     "%s" using 2:6 axes x1y2 with lines dt 2 title "M (air in pipe)"
""" % (DOCS, n, dat, dat, dat, dat))
    gnuplot("""
set terminal pngcairo size 760,420 font "Sans,10"
set output "%s/app_air_pipe_steps.png"
set title "Step sizes on the pipe, radau5 and bdf (notes Fig. 10.3: DNA's BDF of order <= 4)"
set xlabel "step number"; set ylabel "h [s]"; set logscale y; set format y "10^{%%L}"
plot "%s" using 1:($1 > 0 ? $7 : 1/0) with linespoints pt 7 ps 0.5 title "radau5", \\
     "%s" using 1:($1 > 0 ? $7 : 1/0) with linespoints pt 6 ps 0.5 title "bdf"
""" % (DOCS, dat, bdf_pipe_steps()))


def bdf_pipe_steps():
    _, data = run("air-pipe", os.path.join(TMP, "pipe_bdf.csv"), "--method", "bdf")
    dat = os.path.join(TMP, "pipe_bdf.dat")
    with open(dat, "w") as f:
        for k in range(1, len(data)):
            f.write("%d 0 0 0 0 0 %.17g\n" % (k, data[k][0] - data[k - 1][0]))
    return dat


def attemperator():
    dat = {}
    for method in ["radau5", "bdf"]:
        header, data = run("attemperator", os.path.join(TMP, "att.csv"), "--method", method,
                           "--rtol", "1e-8", "--atol", "1e-8")
        path = os.path.join(TMP, "att_%s.dat" % method)
        with open(path, "w") as f:
            prev = None
            for row in data:
                t, To, Tw, mI, zc, mdot = row
                demanded = 0.02 * (To - 540) + mI
                zs = 1 - demanded if demanded <= 1 else demanded - 1  # (10.13e)
                h = t - prev if prev is not None else float("nan")
                prev = t
                f.write("%.17g %.17g %.17g %.17g %.17g %.17g %.17g\n" %
                        (t, To, zc, demanded, mI, zs, h))
        dat[method] = path
    gnuplot("""
set terminal pngcairo size 1200,380 font "Sans,10"
set output "%s/app_attemperator.png"
set multiplot layout 1,3
set title "T_o (notes Fig. 10.5)"; set xlabel "t [s]"; set ylabel "T_o [C]"
plot "%s" using 1:2 with lines lw 2 title "radau5", 540 dt 2 title "T_{SP}"
set title "control signals (notes Fig. 10.6)"; set ylabel ""
plot "%s" using 1:3 with lines lw 2 title "z_c (valve)", "" using 1:4 with lines title "z_a = m_p + m_I", \\
     "" using 1:5 with lines title "m_I", "" using 1:6 with lines title "z_s (10.13e)"
set title "step sizes (notes Fig. 10.7)"; set ylabel "h [s]"; set logscale y; set format y "10^{%%L}"
plot "%s" using 1:7 with linespoints pt 7 ps 0.4 title "radau5", \\
     "%s" using 1:7 with linespoints pt 6 ps 0.4 title "bdf (restart at order 1)"
unset multiplot
""" % (DOCS, dat["radau5"], dat["radau5"], dat["radau5"], dat["bdf"]))


if __name__ == "__main__":
    if not os.access(DAEKIT, os.X_OK):
        sys.exit("no daekit binary at %s (build it, or pass its path)" % DAEKIT)
    moon()
    impasse()
    air_pipe()
    attemperator()
    print("wrote docs/app_moon_*.png, docs/app_impasse.png, docs/app_air_pipe*.png, "
          "docs/app_attemperator.png")
