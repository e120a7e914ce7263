"""The default run of every built-in problem with method "auto" against radau5 (issue 29).

`daekit solve NAME` runs method "auto" (daekit::auto_method: the method from the problem's
form, index, size and rtol). For every built-in problem this runs the command twice with the
problem's recommended options, `--method auto` and `--method radau5`, and prints one row per
problem: n, the highest index tag, rtol, auto's choice, and for both runs the status, the
significant correct digits (scd, where the problem has a reference), what -log10(rtol) - 1
asks for, accepted steps, f evaluations (all, with the Jacobians'), LU factorisations,
warnings and, with --instructions, the instructions of the solve counted by callgrind (the
count of the run minus that of the same command stopped right after t0: start-up, set-up and
output cancel out; deterministic, unlike time on a shared machine). Rows where auto runs
radau5 are the same run and are not counted twice.

    /usr/bin/python3 bench/method_auto_defaults.py build/apps/daekit [--instructions]
        [--problems a,b,...]
    /usr/bin/python3 bench/method_auto_defaults.py build/apps/daekit \
        --large circuit-chain,food-web,air-pipe-1000

Prints a Markdown table; a cell "a / b" is auto's run / radau5's, one value where auto runs
radau5 (the same run); "(short)": fewer digits than -log10(rtol) - 1. --large: the evidence
for the last rule, bdf against radau5 on the large problems over rtol (digits against a radau
run at 1e-10, median CPU time of 3 interleaved runs).

Results: docs/results/method-auto.md.
"""
import argparse
import json
import math
import re
import subprocess
import sys


def solve_json(cli, name, *extra):
    out = subprocess.run([cli, "solve", name, "--json", *extra], capture_output=True, text=True,
                         check=False)
    if out.returncode not in (0, 1):
        raise RuntimeError("%s %s: %s" % (name, extra, out.stderr))
    return json.loads(out.stdout)


def instructions(cli, name, method, t0, t_end):
    """Millions of instructions of one solve (callgrind): the full run minus a run to t0+."""

    def count(*extra):
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                              cli, "solve", name, "--method", method, *extra],
                             capture_output=True, text=True, check=False)
        found = re.findall(r"Collected : *([0-9]+)", out.stderr)
        if not found:
            raise RuntimeError("callgrind: no count for %s %s" % (name, method))
        return int(found[-1])

    stop = t0 + 1e-12 * (t_end - t0) if t_end != t0 else t0 + 1e-12
    return (count() - count("--t-end", repr(stop))) / 1e6


def row(cli, name, with_instructions):
    auto = solve_json(cli, name, "--method", "auto")
    r5 = auto if auto["method"] == "radau5" else solve_json(cli, name, "--method", "radau5")
    if with_instructions and r5 is not auto:  # the same run when auto runs radau5
        auto["minstr"] = instructions(cli, name, "auto", auto["t0"], auto["t_end"])
        r5["minstr"] = instructions(cli, name, "radau5", r5["t0"], r5["t_end"])
    return auto, r5


def met(r, needed):
    return r["status"] in ("success", "terminal_event") and (r["scd"] is None or
                                                             r["scd"] >= needed)


def pair(a, b, fmt="%s"):
    """'a / b', or a alone when both runs are the same."""
    return fmt % a if b is None else (fmt + " / " + fmt) % (a, b)


def cells(name, auto, r5, needed):
    """One row: the problem, auto's choice and the two runs side by side (r5 None: the same
    run)."""
    m = re.search(r"index-(\d)", auto["method_choice"] or "")

    def scd(r):
        if r["scd"] is None:
            return "-"
        return "%.2f%s" % (r["scd"], "" if met(r, needed) else " (short)")

    def get(key, r):
        return None if r is None else (r["stats"][key] if key in r["stats"] else r[key])

    f_auto = auto["stats"]["nfev"] + auto["stats"]["nfev_jac"]
    f_r5 = None if r5 is None else r5["stats"]["nfev"] + r5["stats"]["nfev_jac"]
    row = [name, str(auto["n"]), m.group(1) if m else "1", "%.0e" % auto["rtol"],
           auto["method"] + ("" if r5 is not None else " (the same run)"),
           "%.0f" % needed, pair(scd(auto), None if r5 is None else scd(r5)),
           pair(auto["stats"]["naccept"], get("naccept", r5)), pair(f_auto, f_r5),
           pair(auto["stats"]["nlu"], get("nlu", r5)),
           pair(len(auto["warnings"]), None if r5 is None else len(r5["warnings"]))]
    if "minstr" in auto:
        row += [pair(auto["minstr"], r5["minstr"], "%.2f"),
                "%.2f" % (auto["minstr"] / r5["minstr"])]
    else:
        row += ["", ""]
    return row


def digits_against(y, reference):
    """-log10 of the largest relative error over the components above 1e-6 max|reference|."""
    big = [i for i, r in enumerate(reference)
           if abs(r) > 1e-6 * max(abs(v) for v in reference)]
    worst = max(abs(y[i] - reference[i]) / abs(reference[i]) for i in big)
    return -math.log10(worst) if worst > 0 else float("inf")


def large(cli, names, repeats=3):
    """bdf against radau5 at rtol = atol = 1e-4 ... 1e-7: digits against a radau run at 1e-10,
    (atol 1e-7 where the initial values are not consistent to 1e-9), accepted steps and the
    median CPU seconds of `repeats` runs, the two methods interleaved."""
    print("| problem | rtol | bdf digits | bdf steps | bdf s | radau5 digits | radau5 steps | "
          "radau5 s | bdf / radau5 time |")
    print("|" + "|".join(" --- " for _ in range(9)) + "|")
    for name in names:
        ref = solve_json(cli, name, "--method", "radau", "--rtol", "1e-10", "--atol", "1e-10")
        if ref["status"] != "success":  # food-web's y0 is consistent to 6e-7 only
            ref = solve_json(cli, name, "--method", "radau", "--rtol", "1e-10", "--atol",
                             "1e-7")
        for rtol in ("1e-4", "1e-5", "1e-6", "1e-7"):
            runs = {"bdf": [], "radau5": []}
            for _ in range(repeats):
                for m in runs:
                    runs[m].append(solve_json(cli, name, "--method", m, "--rtol", rtol,
                                              "--atol", rtol))
            row = [name, rtol]
            cpu = {}
            for m, rs in runs.items():
                cpu[m] = sorted(r["cpu_seconds"] for r in rs)[len(rs) // 2]
                row += ["%.2f" % digits_against(rs[0]["y"], ref["y"]),
                        str(rs[0]["stats"]["naccept"]), "%.3f" % cpu[m]]
            row.append("%.2f" % (cpu["bdf"] / cpu["radau5"]))
            print("| " + " | ".join(row) + " |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli")
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--problems")
    ap.add_argument("--large", help="comma-separated problems: bdf against radau5 over rtol "
                                    "(digits against a tight radau run, time)")
    a = ap.parse_args()
    if a.large:
        large(a.cli, a.large.split(","))
        return
    if a.problems:
        names = a.problems.split(",")
    else:
        listing = subprocess.run([a.cli, "list"], capture_output=True, text=True,
                                 check=True).stdout
        names = [line.split()[0] for line in listing.splitlines()[1:]
                 if line.strip() and not line.startswith(" ")]
    head = ["problem", "n", "index", "rtol", "auto runs", "digits needed",
            "scd auto / radau5", "steps", "f evals", "LUs", "warnings", "M instructions",
            "ratio"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(" --- " for _ in head) + "|")
    for name in names:
        try:
            auto, r5 = row(a.cli, name, a.instructions)
        except (RuntimeError, json.JSONDecodeError) as e:
            print("%s: %s" % (name, e), file=sys.stderr)
            continue
        needed = -math.log10(auto["rtol"]) - 1
        print("| " + " | ".join(cells(name, auto, None if r5 is auto else r5, needed)) + " |",
              flush=True)


if __name__ == "__main__":
    main()
