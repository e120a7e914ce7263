#!/usr/bin/env python3
"""Compare two 25-tolerance sweeps run by run (the CSVs of `daekit_sweep --csv FILE`).

    /usr/bin/python3 bench/compare_sweeps.py OLD.csv NEW.csv [--list N]

Prints how many runs are identical in status, steps, f-evaluations, scd and mescd, the runs
that differ (up to N per method), and per method: the runs solved by one and not the other
("lost": solved before, not after; "won": the reverse), the distribution of the ratios new/old
of step attempts and f-evaluations over the runs both solved (geometric mean, minimum, median,
maximum) and of the change of the sweep's measure (scd or mescd) in digits. Build the two
versions in separate directories and run the same sweep command with each, e.g.

    OLD/build/bench/daekit_sweep --estimated-h0 --csv old.csv
    NEW/build/bench/daekit_sweep --estimated-h0 --csv new.csv
"""
import argparse
import csv
import math
import statistics
import sys

FIELDS = ("status", "steps", "nfev", "scd", "mescd")


def load(path):
    with open(path) as f:
        return {(r["problem"], r["method"], int(r["m"])): r for r in csv.DictReader(f)}


def measure(run):
    return float(run["scd"] if run["measure"] == "scd" else run["mescd"])


def gmean(values):
    return math.exp(statistics.mean(math.log(v) for v in values))


def spread(values):
    if not values:
        return "-"
    return "%.3f [%.2f %.3f %.2f]" % (gmean(values), min(values), statistics.median(values),
                                      max(values))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--list", type=int, default=5, help="differing runs listed per method")
    a = ap.parse_args()
    old, new = load(a.old), load(a.new)
    keys = sorted(set(old) & set(new))
    for k in sorted(set(old) ^ set(new)):
        print("only in %s: %s" % (a.old if k in old else a.new, k))
    differ = {}
    for k in keys:
        d = [(f, old[k][f], new[k][f]) for f in FIELDS if old[k][f] != new[k][f]]
        if d:
            differ.setdefault(k[1], []).append((k, d))
    n_differ = sum(len(v) for v in differ.values())
    print("runs identical in %s: %d of %d; different: %d" %
          (", ".join(FIELDS), len(keys) - n_differ, len(keys), n_differ))
    for method, rows in sorted(differ.items()):
        print("  %s: %d differ" % (method, len(rows)))
        for k, d in rows[:a.list]:
            print("    %s m=%d: %s" % (k[0], k[2], ", ".join("%s %s -> %s" % x for x in d)))
    print()
    print("%-15s %5s %5s %4s | %-30s | %-30s | %s" %
          ("method", "runs", "lost", "won", "steps new/old gmean [min med max]",
           "nfev new/old gmean [min med max]", "measure new-old mean [min max]"))
    all_steps, all_nfev, all_measure, lost_runs = [], [], [], []
    for method in sorted({k[1] for k in keys}):
        ks = [k for k in keys if k[1] == method]
        ok = lambda r: r["status"] == "success"
        lost = [k for k in ks if ok(old[k]) and not ok(new[k])]
        won = [k for k in ks if not ok(old[k]) and ok(new[k])]
        lost_runs += [(k, new[k]["status"], new[k]["message"][:120]) for k in lost]
        both = [k for k in ks if ok(old[k]) and ok(new[k])]
        steps = [int(new[k]["steps"]) / int(old[k]["steps"]) for k in both]
        nfev = [int(new[k]["nfev"]) / int(old[k]["nfev"]) for k in both]
        dm = [measure(new[k]) - measure(old[k]) for k in both]
        all_steps += steps
        all_nfev += nfev
        all_measure += dm
        print("%-15s %5d %5d %4d | %-30s | %-30s | %+.3f [%+.2f %+.2f]" %
              (method, len(ks), len(lost), len(won), spread(steps), spread(nfev),
               statistics.mean(dm) if dm else 0.0, min(dm, default=0.0), max(dm, default=0.0)))
    if all_steps:
        print("all %d runs solved by both: steps %s, nfev %s, measure %+.4f; fewer steps in %d, "
              "more in %d, the same in %d" %
              (len(all_steps), spread(all_steps), spread(all_nfev), statistics.mean(all_measure),
               sum(x < 1 for x in all_steps), sum(x > 1 for x in all_steps),
               sum(x == 1 for x in all_steps)))
    for k, status, message in lost_runs:
        print("LOST %s m=%d %s: %s: %s" % (k[0], k[2], k[1], status, message))
    return 1 if lost_runs else 0


if __name__ == "__main__":
    sys.exit(main())
