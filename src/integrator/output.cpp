#include "integrator/output.hpp"

#include <algorithm>
#include <sstream>

namespace daekit {

void OutputSampler::setup(std::vector<double> times, double t0, double t_end) {
  dir_ = t_end >= t0 ? 1.0 : -1.0;
  t0_ = t0;
  for (double t : times)
    if (dir_ * (t - t0) < 0 || dir_ * (t - t_end) > 0) {
      std::ostringstream os;
      os.precision(6);
      os << "options: output time " << t << " lies outside [t0, t_end]";
      throw InvalidArgument(os.str());
    }
  std::sort(times.begin(), times.end(), [this](double a, double b) { return dir_ * a < dir_ * b; });
  times_ = std::move(times);
  next_ = 0;
}

void OutputSampler::at_start(const Vector& y0, Result& r) {
  while (next_ < times_.size() && times_[next_] == t0_) {
    r.t_out.push_back(times_[next_]);
    r.y_out.push_back(y0);
    ++next_;
  }
}

void OutputSampler::upto(double t_reached, const DenseSource& source, Vector& work, Result& r) {
  while (next_ < times_.size() && dir_ * (times_[next_] - t_reached) <= 0) {
    r.t_out.push_back(times_[next_]);
    source.dense(times_[next_], work);
    r.y_out.push_back(work);
    ++next_;
  }
}

}  // namespace daekit
