// Flight to the moon: the restricted three-body problem of Bendtsen and Thomsen (1999), ch. 8, §8.3
// (from [DM70]), Earth and Moon in a rotating frame, mass ratio mu = 0.01215, (8.6)-(8.9):
//   y1'' = y1 + 2 y2' - (1 - mu)(y1 + mu)/r1^3 - mu (y1 - 1 + mu)/r2^3
//   y2'' = y2 - 2 y1' - (1 - mu) y2/r1^3 - mu y2/r2^3
//   r1 = |(y1 + mu, y2)|, r2 = |(y1 - 1 + mu, y2)|,
// with the Jacobi integral (8.10) J = (y1'^2 + y2'^2 - y1^2 - y2^2)/2 - (1 - mu)/r1 - mu/r2, a
// first integral: the ODE with invariant c(y) = J(y) - J(y0) of ch. 8. Start y = (-mu/2, 0.1),
// y2' = 4 and y1' = 0.5, 1.1, 1.4 or 2.0 (the four flights of §8.3.1-8.3.4). First-order form
// x = (y1, y2, y1', y2').
//
// The outcomes are state events of the model (the notes give no interval; ours are long enough
// for each outcome): "hits the Earth" when r1 falls to the Earth's radius R_E = 6371/384400
// (lengths in Earth-Moon distances), "closest approach to the Moon" when r2' changes sign
// from - to + within 0.05 of the Moon, "leaves the Earth-Moon system" when r1 reaches 4. Each
// stops the flight. The Moon's radius is R_M = 1737.4/384400 = 0.00452. The approach event's
// function r2 r2' + K max(0, r2 - 0.05), K = 1000, is r2 r2' = (r2^2)'/2 within 0.05 of the
// Moon and positive farther out (|r2 r2'| <= r2 |y'| < K (r2 - 0.05) beyond r2 ~ 0.0503 at the
// flights' speeds), so that the minima of r2 far from the Moon (r2 = 0.72 on the 1.1 flight)
// are not located as approaches. The first integral J is the problem's first_integrals entry:
// the report prints its drift, the point of ch. 8.
//
// Variants (ch. 8, §8.2): the plain ODE carries a projector onto J = J(y0) (`--projection
// full`); "moon-stabilised-<v>" is the stabilised ODE (8.5) with F = C^T (C C^T)^{-1}, gamma = 10;
// "moon-dae" the index-2 DAE reformulation §8.2.2 of the 1.4 flight.
#include <algorithm>
#include <cmath>
#include <string>

#include "daekit/nonlinear/invariants.hpp"
#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {
constexpr double kMu = 0.01215;
constexpr double kStabilisationGamma = 10.0;
constexpr double kEarthRadius = 6371.0 / 384400.0;  // in Earth-Moon distances
constexpr double kMoonVicinity = 0.05;              // approaches counted within this r2
constexpr double kVicinityPenalty = 1000.0;         // K above

double earth_distance(VecIn x) { return std::hypot(x[0] + kMu, x[1]); }
double moon_distance(VecIn x) { return std::hypot(x[0] - 1 + kMu, x[1]); }

void three_body_rhs(double, VecIn x, VecOut f) {
  const double a = x[0] + kMu, b = x[0] - 1 + kMu, y2 = x[1];
  const double r1 = std::hypot(a, y2), r2 = std::hypot(b, y2);
  const double r13 = r1 * r1 * r1, r23 = r2 * r2 * r2;
  f[0] = x[2];
  f[1] = x[3];
  f[2] = x[0] + 2 * x[3] - (1 - kMu) * a / r13 - kMu * b / r23;
  f[3] = y2 - 2 * x[2] - (1 - kMu) * y2 / r13 - kMu * y2 / r23;
}

std::string velocity_label(double v) {
  std::string s = std::to_string(v);  // "1.400000"
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s += '0';
  return s;
}

double flight_interval(double v) { return v >= 2.0 ? 6.0 : v >= 1.4 ? 1.2 : v >= 1.1 ? 3.0 : 2.0; }

std::vector<Event> flight_outcomes() {
  Event earth;
  earth.name = "hits the Earth";
  earth.direction = -1;
  earth.r = [](double, VecIn x, VecIn) { return earth_distance(x) - kEarthRadius; };
  earth.action = [](double, Vector&) { return EventAction::Stop; };
  Event moon;
  moon.name = "closest approach to the Moon";
  moon.direction = +1;
  // (r2^2)'/2 = (y1 - 1 + mu) y1' + y2 y2' near the Moon, positive beyond (see above)
  moon.r = [](double, VecIn x, VecIn) {
    const double radial = (x[0] - 1 + kMu) * x[2] + x[1] * x[3];
    return radial + kVicinityPenalty * std::max(0.0, moon_distance(x) - kMoonVicinity);
  };
  moon.action = [](double, Vector&) { return EventAction::Stop; };
  Event away;
  away.name = "leaves the Earth-Moon system";
  away.direction = +1;
  away.r = [](double, VecIn x, VecIn) { return earth_distance(x) - 4.0; };
  away.action = [](double, Vector&) { return EventAction::Stop; };
  return {earth, moon, away};
}

BuiltinProblem flight_base(double v) {
  if (!(v > 0) || !std::isfinite(v))
    throw InvalidArgument("moon_flight: the initial y1' must be positive and finite");
  BuiltinProblem p;
  p.source = "Bendtsen and Thomsen (1999), ch. 8, §8.3 (DTU notes, after [DM70]), (8.6)-(8.10)";
  p.t0 = 0;
  p.t_end = flight_interval(v);
  p.y0 = Vector(4);
  p.y0 << -kMu / 2, 0.1, v, 4.0;
  p.rtol = p.atol = 1e-8;
  p.plot_components = {0, 1};
  p.events = flight_outcomes();
  // reads y1, y2, y1', y2' (the first four components of every variant)
  p.first_integrals = {{"Jacobi integral J", [](VecIn x) { return moon_jacobi_integral(x); }}};
  return p;
}
}  // namespace

double moon_jacobi_integral(VecIn x) {
  const double r1 = earth_distance(x), r2 = moon_distance(x);
  return 0.5 * (x[2] * x[2] + x[3] * x[3] - x[0] * x[0] - x[1] * x[1]) - (1 - kMu) / r1 - kMu / r2;
}

OdeWithInvariants moon_ode_with_invariant(double y1_velocity) {
  OdeWithInvariants ode;
  ode.n = 4;
  ode.name = "moon";
  ode.component_names = {"y1", "y2", "y1_dot", "y2_dot"};
  ode.f = three_body_rhs;
  Vector y0(4);
  y0 << -kMu / 2, 0.1, y1_velocity, 4.0;
  ode.invariants = invariants(
      1, [](VecIn y, VecOut phi) { phi[0] = moon_jacobi_integral(y); }, y0);
  // C = dJ/dy, analytic (the finite differences of J lose digits near the Earth)
  ode.invariants.jacobian = [](double, VecIn x, MatOut C) {
    const double a = x[0] + kMu, b = x[0] - 1 + kMu;
    const double r1 = std::hypot(a, x[1]), r2 = std::hypot(b, x[1]);
    const double g1 = (1 - kMu) / (r1 * r1 * r1), g2 = kMu / (r2 * r2 * r2);
    C(0, 0) = -x[0] + g1 * a + g2 * b;
    C(0, 1) = -x[1] + g1 * x[1] + g2 * x[1];
    C(0, 2) = x[2];
    C(0, 3) = x[3];
  };
  return ode;
}

BuiltinProblem moon_flight(double y1_velocity) {
  BuiltinProblem p = flight_base(y1_velocity);
  const std::string v = velocity_label(y1_velocity);
  p.name = y1_velocity == 1.4 ? "moon" : "moon-" + v;
  p.title = "flight to the moon, y1'(0) = " + v + ": restricted three-body problem (ch. 8)";
  p.description =
      "rotating Earth-Moon frame, mu = 0.01215; x = (y1, y2, y1', y2'), start (-mu/2, 0.1, " + v +
      ", 4);\nfirst integral: the Jacobi integral J (projector onto J = J0: --projection full);\n"
      "events: hits the Earth, closest approach to the Moon, leaves the system (r1 = 4).";
  p.dae = projected_ode(moon_ode_with_invariant(y1_velocity));
  p.dae.name = p.name;
  return p;
}

BuiltinProblem moon_flight() { return moon_flight(1.4); }

BuiltinProblem moon_flight_stabilised(double y1_velocity) {
  BuiltinProblem p = flight_base(y1_velocity);
  const std::string v = velocity_label(y1_velocity);
  p.name = "moon-stabilised-" + v;
  p.title = "flight to the moon, y1'(0) = " + v + ", stabilised ODE (8.5), gamma = 10";
  p.description =
      "y' = f - gamma F(y) (J(y) - J0), F = C^T (C C^T)^{-1}, C = dJ/dy, gamma = 10 (notes\n"
      "(8.5)); J = J0 is attracting; same events as the plain flight.";
  p.dae = stabilized_ode(moon_ode_with_invariant(y1_velocity), kStabilisationGamma);
  p.dae.name = p.name;
  return p;
}

BuiltinProblem moon_flight_dae() {
  BuiltinProblem p = flight_base(1.4);
  p.name = "moon-dae";
  p.title = "flight to the moon, y1'(0) = 1.4, as the index-2 DAE of notes §8.2.2";
  p.description =
      "y' = f - C^T z, 0 = J(y) - J0 (D = C^T), index 2 (z tagged 2, z = 0 on the exact\n"
      "solution); same events as the plain flight.";
  const OdeWithInvariants ode = moon_ode_with_invariant(1.4);
  p.dae = dae_reformulation(ode);
  p.dae.name = p.name;
  p.y0 = dae_reformulation_initial_values(ode, p.t0, p.y0);
  return p;
}

}  // namespace daekit
