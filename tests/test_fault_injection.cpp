// Fault injection in every registered method (issue 9): from the middle of the interval on, the
// right-hand side returns NaN, returns Inf, throws, or keeps failing recoverably; or the
// Jacobian resizes its output. Every solve must end inside solve() (no escaped exception) with
// a status other than success that says what went wrong, the trajectory up to the fault kept.
// The methods are taken from the registry, so a new method is covered when it is registered:
// each one is run on the first built-in problem of a short list that it solves cleanly (the
// structured methods need their own problem forms: Euler-Lagrange, Hessenberg index 2).
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "daekit/daekit.hpp"

namespace {
using namespace daekit;

enum class Fault { NaN, Inf, Throw, Recoverable, JacobianResized };

const char* name(Fault f) {
  switch (f) {
    case Fault::NaN:
      return "f returns NaN";
    case Fault::Inf:
      return "f returns Inf";
    case Fault::Throw:
      return "f throws";
    case Fault::Recoverable:
      return "f fails recoverably for good";
    case Fault::JacobianResized:
      return "the Jacobian resizes its output";
  }
  return "";
}

// A short piece of a built-in problem: [t0, t0 + span], the fault from t0 + span / 2 on.
struct FaultRun {
  BuiltinProblem problem;
  Options options;
  double t_end = 0.0;
  std::shared_ptr<int> late_jacobian_calls = std::make_shared<int>(0);  // after the fault
};

Options options_for(const MethodInfo& m, const BuiltinProblem& p, double span) {
  Options o;
  o.rtol = o.atol = 1e-6;
  o.nonnegative = p.nonnegative;
  if (!m.capabilities.error_estimate) {  // constant steps only (projected-rk)
    o.fixed_step = true;
    o.h0 = span / 64;
  } else if (p.h0 > 0) {
    o.h0 = std::min(p.h0, span / 100);
  }
  return o;
}

// The first candidate that the method solves without a fault.
bool find_setup(const MethodInfo& m, FaultRun& s) {
  const char* candidates[] = {"akzo", "pendulum-el", "jay-index2", "pendulum"};
  for (const char* c : candidates) {
    BuiltinProblem p = make_builtin_problem(c);
    const double span = std::min(1.0, p.t_end - p.t0);
    const Options o = options_for(m, p, span);
    const Result r = solve(p.dae, p.t0, p.t0 + span, p.y0, m.name, o);
    if (r.ok()) {
      s.problem = std::move(p);
      s.options = o;
      s.t_end = s.problem.t0 + span;
      return true;
    }
  }
  return false;
}

void inject(FaultRun& s, Fault fault) {
  MassMatrixDae& d = s.problem.dae;
  const double t_fault = 0.5 * (s.problem.t0 + s.t_end);
  if (fault == Fault::JacobianResized) {
    const MassMatrixDae::Rhs f = d.f;
    d.jacobian = [f, n = d.n, t_fault, calls = s.late_jacobian_calls](double t, VecIn y, Matrix& J,
                                                                      VecIn p) {
      if (t > t_fault) {
        ++*calls;
        J.resize(1, 1);
        J(0, 0) = 0.0;
        return;
      }
      // forward differences, so that the callback is a real Jacobian before the fault
      Vector f0(n), f1(n), y1 = y;
      f(t, y, f0, p);
      for (int j = 0; j < n; ++j) {
        const double dy = 1e-7 * std::max(1.0, std::abs(y[j]));
        y1[j] = y[j] + dy;
        f(t, y1, f1, p);
        J.col(j) = (f1 - f0) / dy;
        y1[j] = y[j];
      }
    };
    d.sparse_jacobian = nullptr;
    d.jacobian_sparsity = Sparsity{};
    return;
  }
  const MassMatrixDae::Rhs inner = d.f;
  d.f = [inner, fault, t_fault](double t, VecIn y, VecOut out, VecIn p) {
    inner(t, y, out, p);
    if (t <= t_fault) return;
    switch (fault) {
      case Fault::NaN:
        out[0] = std::numeric_limits<double>::quiet_NaN();
        break;
      case Fault::Inf:
        out[0] = std::numeric_limits<double>::infinity();
        break;
      case Fault::Throw:
        throw std::runtime_error("injected fault");
      case Fault::Recoverable:
        throw RecoverableError("injected recoverable fault");
      case Fault::JacobianResized:
        break;
    }
  };
}

TEST(FaultInjection, EveryRegisteredMethodEndsWithAClearStatus) {
  for (const MethodInfo& m : registered_methods()) {
    FaultRun clean;
    ASSERT_TRUE(find_setup(m, clean))
        << m.name << ": none of the candidate problems is solved by this method; add one";
    for (Fault fault :
         {Fault::NaN, Fault::Inf, Fault::Throw, Fault::Recoverable, Fault::JacobianResized}) {
      FaultRun s = clean;
      s.late_jacobian_calls = std::make_shared<int>(0);
      inject(s, fault);
      const double t_fault = 0.5 * (s.problem.t0 + s.t_end);
      Result r;
      ASSERT_NO_THROW(
          r = solve(s.problem.dae, s.problem.t0, s.t_end, s.problem.y0, m.name, s.options))
          << m.name << ", " << name(fault);
      const std::string what = m.name + " on " + s.problem.name + ", " + name(fault) + ": " +
                               to_string(r.status) + " at t = " + std::to_string(r.t) + ": " +
                               r.message;
      std::printf("%s\n", what.c_str());
      if (fault == Fault::JacobianResized && r.ok() && *s.late_jacobian_calls == 0)
        continue;  // a method that does not evaluate the Jacobian after the fault (explicit)
      EXPECT_FALSE(r.ok()) << what;
      EXPECT_FALSE(r.message.empty()) << what;
      EXPECT_TRUE(r.y.allFinite()) << what;
      // the fault stops the solve at its first step beyond t_fault (for the Jacobian: the
      // first step that evaluates it beyond t_fault), before t_end
      if (fault != Fault::JacobianResized) {
        EXPECT_LE(r.t, t_fault + 1e-12 * std::abs(t_fault)) << what;
      }
      EXPECT_LT(r.t, s.t_end) << what;
      EXPECT_GE(r.t, s.problem.t0) << what;
      switch (fault) {
        case Fault::NaN:
        case Fault::Inf:
          EXPECT_TRUE(r.status == Status::NonFiniteFunction ||
                      r.status == Status::StepSizeTooSmall ||
                      r.status == Status::RepeatedNewtonFailure)
              << what;
          break;
        case Fault::Throw:
          EXPECT_EQ(r.status, Status::CallbackError) << what;
          EXPECT_NE(r.message.find("injected fault"), std::string::npos) << what;
          break;
        case Fault::Recoverable:
          EXPECT_NE(r.status, Status::CallbackError) << what;
          break;
        case Fault::JacobianResized:
          EXPECT_EQ(r.status, Status::CallbackError) << what;
          EXPECT_NE(r.message.find("size"), std::string::npos) << what;
          break;
      }
    }
  }
}

}  // namespace
