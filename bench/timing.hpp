// CPU time of the benches: the process's clock and the median of repeated runs (time ratios
// are meaningful only between runs of one bench process on one machine).
#pragma once

#include <algorithm>
#include <ctime>
#include <functional>
#include <vector>

namespace daekit_bench {

inline double cpu_now() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

/// Median CPU seconds of run(), repeated until min_time is spent (at least 3 runs, at most
/// 2000); `first`, if given (>= 0), is the time of a run already made: it counts as one sample,
/// and when it alone reaches min_time it is the answer (no repetition).
inline double median_cpu(const std::function<void()>& run, double min_time, double first = -1) {
  if (first >= min_time) return first;
  std::vector<double> times;
  double total = 0.0;
  if (first >= 0) {
    times.push_back(first);
    total = first;
  }
  while ((total < min_time || times.size() < 3) && times.size() < 2000) {
    const double t0 = cpu_now();
    run();
    times.push_back(cpu_now() - t0);
    total += times.back();
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace daekit_bench
