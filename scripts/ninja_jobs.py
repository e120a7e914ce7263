#!/usr/bin/env python3
"""The jobs of a Ninja build from its log: the sum of their durations (the compile work of a
clean build, whatever the number of parallel jobs), the sum by group (library, tests, Python
module, command, examples, other), the longest jobs, the time only one job ran and the last
jobs to finish (docs/results/build-time.md).

    /usr/bin/python3 scripts/ninja_jobs.py build/.ninja_log [number of jobs to list, 25]
"""
import sys
def load(path):
    """Output -> (start, end) in seconds, of the log's first build only: Ninja appends the jobs
    of every later build (each with times from its own start)."""
    jobs, last_end = {}, -1
    for line in open(path):
        if line.startswith('#'):
            continue
        s, e, _, out, _ = line.rstrip('\n').split('\t')
        if int(e) < last_end - 1000:  # end times (in the order jobs finish) restart: a later build
            break
        last_end = max(last_end, int(e))
        jobs[out] = (int(s) / 1000, int(e) / 1000)
    return jobs
def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    jobs = load(path)
    items = sorted(jobs.items(), key=lambda kv: kv[1][1] - kv[1][0], reverse=True)
    total = sum(e - s for s, e in jobs.values())
    end = max(e for s, e in jobs.values())
    print(f'{len(jobs)} jobs, sum of durations {total:.1f} s, span {end:.1f} s')
    groups = {}
    for out, (s, e) in jobs.items():
        g = ('tests' if '/daekit_tests.dir/' in out else 'python' if '_daekit.dir' in out else
             'apps' if 'apps/' in out else 'examples' if 'examples/' in out else
             'lib' if 'daekit.dir/' in out else 'other')
        groups[g] = groups.get(g, 0) + e - s
    print('  by group: ' + ', '.join(f'{g} {v:.1f}' for g, v in sorted(groups.items(), key=lambda x: -x[1])))
    for out, (s, e) in items[:top]:
        print(f'{e - s:7.2f}  [{s:6.1f} - {e:6.1f}]  {out}')
    # idle: time points where fewer than 2 jobs run
    events = sorted([(s, 1) for s, e in jobs.values()] + [(e, -1) for s, e in jobs.values()])
    running, last, one = 0, 0.0, 0.0
    for t, d in events:
        if running == 1:
            one += t - last
        running += d; last = t
    print(f'time with only one job running: {one:.1f} s')
    print('last jobs to finish:')
    for out, (s, e) in sorted(jobs.items(), key=lambda kv: kv[1][1])[-8:]:
        print(f'   [{s:6.1f} - {e:6.1f}] {e - s:6.2f}  {out}')
main()
