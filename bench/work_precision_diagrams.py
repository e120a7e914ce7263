#!/usr/bin/env python3
"""Work-precision diagrams (docs/benchmarks.md): CPU time per solve against the significant
correct digits at t_end, one line per solver, for every IVP Test Set DAE daekit ships, a
multibody problem and the large problems, measured side by side in one run:

  - daekit's radau5, radau and bdf and SUNDIALS IDA (Debian libsundials-dev), by the C++
    program build/bench/daekit_wp_data (bench/work_precision_data.cpp: the problems, the
    references, the tolerances and how each code is set up);
  - scipy's Radau, BDF and LSODA on the problems in ODE form (robertson, vanderpol), with the
    same tolerances and the analytic Jacobian daekit has.

It writes docs/wp/<problem>.png (machine and date on each figure), the data
docs/results/work-precision.csv, the page docs/results/work-precision.md (the tables) and the
generated sentences of docs/benchmarks.md (between `<!-- wp:NAME -->` and `<!-- /wp -->`), and
prints its runtime. Run it once on a quiet machine (about 5 minutes on 2 cores):

    cmake -S . -B build -DDAEKIT_BUILD_BENCH=ON && cmake --build build --target daekit_wp_data
    PYTHONPATH=build/python /usr/bin/python3 bench/work_precision_diagrams.py [--build build]
"""
import argparse
import csv
import datetime
import io
import math
import os
import platform
import re
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DOCS = os.path.join(ROOT, "docs")
CODES = ["radau5", "radau", "bdf", "IDA", "scipy Radau", "scipy BDF", "scipy LSODA"]
STYLE = {"radau5": ("C0", "o", "-"), "radau": ("C1", "s", "-"), "bdf": ("C2", "^", "-"),
         "IDA": ("k", "D", "--"), "scipy Radau": ("C3", "v", ":"),
         "scipy BDF": ("C4", "<", ":"), "scipy LSODA": ("C5", ">", ":")}
TITLES = {
    "andrews": "Andrews' squeezing mechanism (ANDREWS, multibody, index 3, n = 27)",
    "transistor": "Transistor amplifier (TRANSAMP, index 1, n = 8)",
    "akzo": "Chemical Akzo Nobel (CHEMAKZO, index 1, n = 6)",
    "robertson": "Robertson kinetics (ROBER, stiff ODE, n = 3)",
    "vanderpol": "Van der Pol, eps = 1e-6 (VDPOL, stiff ODE, n = 2)",
    "heat2d": "2-D heat equation (idaHeat2D, m = 30, n = 900, sparse)",
    "circuit-chain": "40 coupled amplifiers (n = 320, sparse)",
    "food-web": "Food web (idaFoodWeb, n = 800, banded, t in [0, 0.01])",
}


# ---- scipy on the ODE-form problems -----------------------------------------------------------

def robertson_f(t, y):
    return [-0.04 * y[0] + 1e4 * y[1] * y[2],
            0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] ** 2,
            3e7 * y[1] ** 2]


def robertson_jac(t, y):
    return [[-0.04, 1e4 * y[2], 1e4 * y[1]],
            [0.04, -1e4 * y[2] - 6e7 * y[1], -1e4 * y[1]],
            [0.0, 6e7 * y[1], 0.0]]


EPS = 1e-6


def vanderpol_f(t, y):
    return [y[1], ((1 - y[0] ** 2) * y[1] - y[0]) / EPS]


def vanderpol_jac(t, y):
    return [[0.0, 1.0], [(-2 * y[0] * y[1] - 1) / EPS, (1 - y[0] ** 2) / EPS]]


SCIPY_PROBLEMS = {"robertson": (robertson_f, robertson_jac, 1e-6),
                  "vanderpol": (vanderpol_f, vanderpol_jac, 1.0)}


def check_scipy_forms(daekit):
    """The Python right-hand sides are the built-in problems' M^-1 f (compared at y0 and a
    perturbed state), so scipy solves what daekit solves."""
    for name, (f, _, _) in SCIPY_PROBLEMS.items():
        p = daekit.problem(name)
        for y in (np.asarray(p.y0, float), np.asarray(p.y0, float) * 1.1 + 0.01):
            theirs = np.linalg.solve(np.asarray(p.mass, float),
                                     np.asarray(p.problem.f(0.3, y), float))
            ours = np.asarray(f(0.3, y), float)
            if not np.allclose(ours, theirs, rtol=1e-12, atol=1e-12 * np.abs(theirs).max()):
                sys.exit("work_precision_diagrams: %s's Python f differs from daekit's" % name)


def run_scipy(daekit, min_time):
    from scipy.integrate import solve_ivp
    rows = []
    for name, (f, jac, atol_factor) in SCIPY_PROBLEMS.items():
        p = daekit.problem(name)
        ref = np.asarray(p.reference["y"], float)
        for k in range(3, 11):
            tol = 10.0 ** -k
            for method in ("Radau", "BDF", "LSODA"):
                def once():
                    return solve_ivp(f, (p.t0, p.t_end), p.y0, method=method, rtol=tol,
                                     atol=tol * atol_factor, jac=jac)
                t0 = time.process_time()
                r = once()
                cpu = time.process_time() - t0
                times = [cpu]  # repeated (median) only when one solve is shorter than min_time
                while cpu < min_time and (sum(times) < min_time or len(times) < 3) \
                        and len(times) < 50:
                    t0 = time.process_time()
                    once()
                    times.append(time.process_time() - t0)
                ok = r.success
                scd = daekit.scd(r.y[:, -1], ref, list(p.scd_components)) if ok else -99.0
                rows.append(dict(problem=name, code="scipy " + method, tol=tol, ok=int(ok),
                                 scd=scd, cpu_seconds=float(np.median(times)),
                                 steps=len(r.t) - 1, nfev=r.nfev, njac=r.njev, nlu=r.nlu,
                                 note="scipy %s" % method))
                print("  scipy %-6s %-10s tol %.0e scd %6.2f cpu %.4f s" % (
                    method, name, tol, scd, np.median(times)), flush=True)
    return rows


# ---- the machine, the diagrams, the pages -------------------------------------------------------

def machine():
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            model = m.group(1).strip() if m else model
    except OSError:
        pass
    return "%s, %d cores, %s" % (model, os.cpu_count() or 0, platform.platform(terse=True))


def git_head():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except OSError:
        return "?"


def series(rows, problem, code):
    pts = [(r["scd"], r["cpu_seconds"]) for r in rows
           if r["problem"] == problem and r["code"] == code and r["ok"] and r["scd"] > 0]
    return sorted(pts)


def time_at(points, digits):
    """CPU time at `digits` correct digits: log-linear interpolation between the two runs
    around it along the code's points sorted by scd (None when not bracketed)."""
    for (d0, c0), (d1, c1) in zip(points, points[1:]):
        if d0 <= digits <= d1 and d1 > d0:
            w = (digits - d0) / (d1 - d0)
            return math.exp((1 - w) * math.log(c0) + w * math.log(c1))
    return None


def draw(rows, problem, stamp, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7.0, 4.6), dpi=100)
    for code in CODES:
        pts = series(rows, problem, code)
        if not pts:
            continue
        colour, marker, line = STYLE[code]
        ax.semilogy([p[0] for p in pts], [1e3 * p[1] for p in pts], marker=marker, ls=line,
                    color=colour, label=code, ms=5)
    ax.set_xlabel("significant correct digits at t_end (scd)")
    ax.set_ylabel("CPU time per solve [ms]")
    ax.set_title(TITLES.get(problem, problem), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.text(0.99, 0.01, stamp, ha="right", va="bottom", fontsize=6, color="0.35")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path)
    plt.close(fig)


def facts(rows, problem):
    """The generated sentence of a problem: the times at equal precision."""
    codes = [c for c in CODES if series(rows, problem, c)]
    reach = {c: (series(rows, problem, c)[0][0], series(rows, problem, c)[-1][0]) for c in codes}
    parts = []
    for digits in (4.0, 7.0):
        times = {c: time_at(series(rows, problem, c), digits) for c in codes}
        times = {c: t for c, t in times.items() if t is not None}
        if len(times) < 2:
            continue
        order = sorted(times, key=times.get)
        text = "at %g digits %s" % (digits, ", ".join("%s %s" % (c, _ms(times[c])) for c in order))
        # codes whose loosest tolerance already gives more digits: their cheapest run
        beyond = [c for c in codes if c not in times and reach[c][0] > digits]
        if beyond:
            text += " (more digits from the loosest tolerance on: %s)" % (", ".join(
                    "%s %.1f in %s" % (c, series(rows, problem, c)[0][0],
                                       _ms(series(rows, problem, c)[0][1])) for c in beyond))
        parts.append(text)
    best = max(codes, key=lambda c: reach[c][1])
    text = ("; ".join(parts) if parts else "no precision reached by two codes")
    text += " (CPU per solve, interpolated between runs). Most digits: %s (%.1f)." % (
        best, reach[best][1])
    failed = sorted({r["code"] for r in rows if r["problem"] == problem and not r["ok"]})
    if failed:
        text += " Failed at some tolerance: %s (see the tables)." % ", ".join(failed)
    return text


def _ms(seconds):
    ms = 1e3 * seconds
    return "%.3g ms" % ms if ms < 1000 else "%.2f s" % (ms / 1e3)


def write_tables(rows, problems, header, path):
    out = [header]
    for problem in problems:
        out.append("## %s\n" % TITLES.get(problem, problem))
        notes = []  # the parts of the runs' notes, each once (a run's note may repeat another's)
        for r in rows:
            if r["problem"] == problem and r["note"] and not r["note"].startswith("scipy"):
                notes += [part for part in r["note"].split("; ") if part not in notes]
        if notes:
            out.append("Setting: %s.\n" % "; ".join(notes))
        out.append("![work-precision diagram: %s](../wp/%s.png)\n" % (problem, problem))
        out.append("| code | tol | ok | scd | CPU ms | steps | f evals | Jacobians | LUs |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for code in CODES:
            for r in rows:
                if r["problem"] == problem and r["code"] == code:
                    out.append("| %s | %.0e | %s | %.2f | %.4g | %d | %d | %d | %d |" % (
                        code, r["tol"], "yes" if r["ok"] else "no", r["scd"],
                        1e3 * r["cpu_seconds"], r["steps"], r["nfev"], r["njac"], r["nlu"]))
        out.append("")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


def update_benchmarks_page(rows, problems, runtime_line):
    path = os.path.join(DOCS, "benchmarks.md")
    text = open(path, encoding="utf-8").read()
    for problem in problems:
        text = re.sub(r"(<!-- wp:%s -->).*?(<!-- /wp -->)" % re.escape(problem),
                      lambda m: m.group(1) + facts(rows, problem) + m.group(2), text, flags=re.S)
    text = re.sub(r"(<!-- wp:run -->).*?(<!-- /wp -->)",
                  lambda m: m.group(1) + runtime_line + m.group(2), text, flags=re.S)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--problem", default=None)
    ap.add_argument("--from-csv", action="store_true",
                    help="measure nothing: redraw the figures and rewrite the pages from "
                         "docs/results/work-precision.csv (after a change of the texts)")
    args = ap.parse_args()
    if args.from_csv:
        return rewrite_from_csv()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import daekit

    start = time.time()
    exe = os.path.join(args.build, "bench", "daekit_wp_data")
    if not os.path.exists(exe):
        sys.exit("work_precision_diagrams: %s missing: cmake --build %s --target daekit_wp_data"
                 % (exe, args.build))
    cmd = [exe, "--min-time", str(args.min_time)] + (["--problem", args.problem]
                                                       if args.problem else [])
    print("running", " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    rows = []
    for r in csv.DictReader(io.StringIO(proc.stdout)):
        rows.append(dict(problem=r["problem"], code=r["code"], tol=float(r["tol"]),
                         ok=int(r["ok"]), scd=float(r["scd"]),
                         cpu_seconds=float(r["cpu_seconds"]), steps=int(r["steps"]),
                         nfev=int(r["nfev"]), njac=int(r["njac"]), nlu=int(r["nlu"]),
                         note=r["note"]))
    print("C++ codes: %d runs in %.0f s" % (len(rows), time.time() - start), flush=True)
    check_scipy_forms(daekit)
    if args.problem is None or args.problem in SCIPY_PROBLEMS:
        rows += [r for r in run_scipy(daekit, args.min_time)
                 if args.problem is None or r["problem"] == args.problem]
    runtime = time.time() - start
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    host = machine()
    stamp = "%s; %s; daekit %s" % (date, host, git_head())
    problems = [p for p in TITLES if any(r["problem"] == p for r in rows)]
    os.makedirs(os.path.join(DOCS, "wp"), exist_ok=True)
    for problem in problems:
        draw(rows, problem, stamp, os.path.join(DOCS, "wp", problem + ".png"))
    if args.problem is None:  # the pages only from a whole run
        with open(os.path.join(DOCS, "results", "work-precision.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
        runtime_line = ("Measured %s on %s (daekit %s, scipy %s) by `bench/work_precision_diagrams.py`"
                        " in %.0f s." % (date, host, git_head(), _scipy_version(), runtime))
        header = ("# Work-precision data (generated)\n\nWritten by `bench/work_precision_diagrams.py`"
                  " (do not edit): %s The diagrams are on the {doc}`benchmarks page "
                  "<../benchmarks>`; the raw data is `docs/results/work-precision.csv`. scd: "
                  "significant correct digits at t_end; CPU: per solve (median of repeats for "
                  "runs under %.1f s); f evals include those of difference Jacobians.\n"
                  % (runtime_line, args.min_time))
        write_tables(rows, problems, header, os.path.join(DOCS, "results", "work-precision.md"))
        update_benchmarks_page(rows, problems, runtime_line)
    print("work_precision_diagrams: %d runs, %d diagrams, %.0f s" % (len(rows), len(problems),
                                                                      runtime))


def _read_csv(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.append(dict(problem=r["problem"], code=r["code"], tol=float(r["tol"]),
                             ok=int(r["ok"]), scd=float(r["scd"]),
                             cpu_seconds=float(r["cpu_seconds"]), steps=int(r["steps"]),
                             nfev=int(r["nfev"]), njac=int(r["njac"]), nlu=int(r["nlu"]),
                             note=r["note"]))
    return rows


def rewrite_from_csv():
    """The figures and pages of the last measurement, rewritten from its CSV (its run line, date
    and machine stay those of the measurement)."""
    rows = _read_csv(os.path.join(DOCS, "results", "work-precision.csv"))
    page = open(os.path.join(DOCS, "benchmarks.md"), encoding="utf-8").read()
    runtime_line = re.search(r"<!-- wp:run -->(.*?)<!-- /wp -->", page, re.S).group(1)
    m = re.match(r"Measured (.*?) on (.*?) \(daekit (\S+),", runtime_line)
    stamp = "%s; %s; daekit %s" % m.groups()
    problems = [p for p in TITLES if any(r["problem"] == p for r in rows)]
    for problem in problems:
        draw(rows, problem, stamp, os.path.join(DOCS, "wp", problem + ".png"))
    old = open(os.path.join(DOCS, "results", "work-precision.md"), encoding="utf-8").read()
    header = old[:old.index("\n## ")]
    write_tables(rows, problems, header, os.path.join(DOCS, "results", "work-precision.md"))
    update_benchmarks_page(rows, problems, runtime_line)
    print("work_precision_diagrams: pages and %d figures rewritten from the CSV" % len(problems))


def _scipy_version():
    import scipy
    return scipy.__version__


if __name__ == "__main__":
    main()
