// problem_report() and problem_scd(): the report of a solve of a built-in problem, as the
// daekit command prints it (Result::report() or full_report(), the located events, the
// projections, the significant correct digits against the problem's reference solution and,
// with sensitivities, dy/dp at the end).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/format.hpp"
#include "daekit/integrator/result.hpp"
#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {

// format_number's text (the stream's default float format) by snprintf: the report's numbers
// construct no stream
std::string fmt_g(double x, int digits) {
  char text[48];
  const int length = std::snprintf(text, sizeof text, "%.*g", digits, x);
  if (length < 0 || length >= static_cast<int>(sizeof text)) return format_number(x, digits);
  return std::string(text, static_cast<size_t>(length));
}

}  // namespace

std::optional<double> problem_scd(const BuiltinProblem& p, const Result& r) {
  if (!p.reference || p.reference->t != p.t_end || r.t != p.reference->t ||
      r.y.size() != p.reference->y.size())
    return std::nullopt;
  for (int i : p.scd_components)
    if (i < 0 || i >= r.y.size()) return std::nullopt;
  return scd(r.y, p.reference->y, p.scd_components);
}

std::vector<double> problem_component_digits(const BuiltinProblem& p, const Result& r) {
  std::vector<double> digits;
  if (!problem_scd(p, r)) return digits;
  for (int i = 0; i < r.y.size(); ++i) digits.push_back(scd(r.y, p.reference->y, {i}));
  return digits;
}

namespace {

// The components with a reference that scd does not count, the lowest digits first: "y3 3.84"
// for up to three, else the lowest and how many there are ("" when scd counts every one).
std::string outside_scd(const BuiltinProblem& p, const Result& r) {
  const std::vector<double> digits = problem_component_digits(p, r);
  std::vector<int> outside;
  for (int i = 0; i < static_cast<int>(digits.size()); ++i)
    if (std::find(p.scd_components.begin(), p.scd_components.end(), i) == p.scd_components.end())
      outside.push_back(i);
  if (p.scd_components.empty() || outside.empty()) return "";
  std::stable_sort(outside.begin(), outside.end(), [&](int a, int b) {
    return digits[static_cast<size_t>(a)] < digits[static_cast<size_t>(b)];
  });
  auto entry = [&](int i) {
    char value[40];
    std::snprintf(value, sizeof value, " %.2f", digits[static_cast<size_t>(i)]);
    return component_name(p.dae, i) + value;
  };
  if (outside.size() > 3)
    return "lowest " + entry(outside.front()) + " of " + std::to_string(outside.size()) +
           " components";
  std::string s;
  for (int i : outside) s += (s.empty() ? "" : ", ") + entry(i);
  return s;
}

}  // namespace

std::vector<FirstIntegralDrift> first_integral_drifts(const BuiltinProblem& p, const Result& r) {
  std::vector<FirstIntegralDrift> drifts;
  if (r.y.size() != p.y0.size()) return drifts;
  for (const BuiltinProblem::FirstIntegral& I : p.first_integrals) {
    const double I0 = I.value(p.y0);
    FirstIntegralDrift d;
    d.name = I.name;
    d.at_end = std::abs(I.value(r.y) - I0);
    d.max_over_steps = r.y_steps.empty() ? d.at_end : 0.0;
    for (const Vector& y : r.y_steps)
      d.max_over_steps = std::max(d.max_over_steps, std::abs(I.value(y) - I0));
    drifts.push_back(d);
  }
  return drifts;
}

std::string problem_report(const BuiltinProblem& p, const Result& r, bool full) {
  std::string s;  // the lines this adds to the library's report
  // labels in the column width of the report they extend
  auto label = [full](const char* text) {
    std::string l = "  ";
    l += text;
    l.resize(full ? 24 : 20, ' ');
    return l;
  };
  if (!r.events.empty()) {
    const size_t listed = r.events.size() < 10 ? r.events.size() : 10;
    for (size_t i = 0; i < listed; ++i)
      s += label(i == 0 ? "located events" : "") + "t = " + fmt_g(r.events[i].t, 10) + "  " +
           r.events[i].name + "\n";
    if (r.events.size() > listed)
      s += label("") + "... (" + std::to_string(r.events.size() - listed) + " more)\n";
  }
  if (const std::optional<double> digits = problem_scd(p, r)) {
    std::string comps;
    for (int i : p.scd_components)
      comps += (comps.empty() ? " over " : ", ") + component_name(p.dae, i);
    char value[40];
    std::snprintf(value, sizeof value, "%.2f", *digits);
    s += label("scd") + value + comps + " (reference at t = " + fmt_g(p.reference->t, 6) + ": " +
         p.reference->source + ")\n";
    const std::string others = outside_scd(p, r);
    if (!others.empty()) s += label("outside scd") + others + "\n";
  }
  for (const FirstIntegralDrift& d : first_integral_drifts(p, r))
    s += label("first integral") + d.name + ": max |I - I(y0)| " + fmt_g(d.max_over_steps, 3) +
         (r.y_steps.empty() ? " (at the end; steps not stored)" : " over the steps, ") +
         (r.y_steps.empty() ? "" : fmt_g(d.at_end, 3) + " at t = " + fmt_g(r.t, 10)) + "\n";
  if (r.n_parameters > 0 && r.sensitivities.rows() == r.y.size()) {
    // dy/dp at t: one line per component, the parameters by name
    std::string head;
    for (int k = 0; k < r.n_parameters; ++k)
      head += (k ? ", " : "") + (k < static_cast<int>(p.parameter_names.size())
                                     ? p.parameter_names[static_cast<size_t>(k)]
                                     : "p" + std::to_string(k));
    s += label("dy/dp at t") + "(" + head + ")\n";
    for (Eigen::Index i = 0; i < r.sensitivities.rows(); ++i) {
      std::string row = label("") + component_name(p.dae, static_cast<int>(i)) + ":";
      for (int k = 0; k < r.n_parameters; ++k) row += " " + fmt_g(r.sensitivities(i, k), 10);
      s += row + "\n";
    }
  }
  return full ? r.full_report() + s : r.report(s);
}

}  // namespace daekit
