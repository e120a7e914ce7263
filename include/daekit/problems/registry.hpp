// The built-in test problems (DESIGN.md, problems layer): each with its source, consistent
// initial values, a recommended interval and tolerances and, where one is published, a reference
// solution. Tests, benchmarks, the CLI and the demo all take problems from here.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "daekit/integrator/options.hpp"
#include "daekit/nonlinear/euler_lagrange.hpp"
#include "daekit/nonlinear/formulations.hpp"
#include "daekit/problem/mass_matrix_dae.hpp"
#include "daekit/problem/mechanical_system.hpp"
#include "daekit/problem/quasi_linear_dae.hpp"

namespace daekit {

struct ReferenceSolution {
  double t = 0.0;
  Vector y;            ///< reference values at t (all n components)
  std::string source;  ///< where the values come from
};

struct BuiltinProblem {
  std::string name;         ///< CLI name, e.g. "andrews"
  std::string title;        ///< one line
  std::string description;  ///< a few lines: equations, index, what it tests
  std::string source;       ///< literature / test-set reference
  MassMatrixDae dae;
  double t0 = 0.0;
  double t_end = 1.0;
  Vector y0;
  double h0 = 0.0;     ///< recommended initial step (0 = solver default)
  double rtol = 1e-6;  ///< recommended tolerances (used by the demo and CLI defaults)
  double atol = 1e-6;
  /// Optional per-component factors of the absolute tolerance, atol_i = atol * atol_scale[i]
  /// (the IVP Test Set's per-component tolerances for components that stay tiny); empty: 1.
  Vector atol_scale;
  /// Components that must stay non-negative (Options::nonnegative), e.g. concentrations.
  std::vector<int> nonnegative;
  std::optional<ReferenceSolution> reference;
  std::vector<int> scd_components;             ///< components counted in scd (empty = all)
  std::vector<int> plot_components;            ///< components the demo plots (empty = all)
  std::optional<MechanicalSystem> mechanical;  ///< the underlying model, when it is one
  /// The index-2 Euler-Lagrange form `dae` was built from (to_mass_matrix_form), when it is one.
  std::optional<EulerLagrangeDae> euler_lagrange;
  /// The solution y(t) (all n components) where it is known in closed form (manufactured
  /// problems) or from an independent reference computation; empty otherwise.
  std::function<Vector(double t)> exact;
  std::vector<Event> events;  ///< state events that belong to the model (switches, clamps)
  /// Switching functions of the model (Options::switches; their branches live in dae.p).
  std::vector<Switch> switches;
  /// Known discontinuity times of the model on [t0, t_end] (Options::tstops): the corners of
  /// its piecewise inputs.
  std::vector<double> tstops;
  /// The post-step projection (Options::projection) the problem is solved with by methods that
  /// can project, where its default run drifts off the constraints by more than the tolerance
  /// without one (pendulum-driven: |G v| = 4e-4 at rtol = 1e-7, velocities up to 10): see
  /// recommended_projection().
  Projection projection = Projection::None;
  /// The state-dependent form M(t, y) y' = f `dae` was built from (to_mass_matrix_form), when
  /// it is one; the BDF also solves it through to_implicit_form (issue 14, part 1).
  std::optional<QuasiLinearDae> quasi_linear;
  /// What the entries of dae.p mean (empty: the problem has no parameters), e.g. {"torque"}.
  std::vector<std::string> parameter_names;
  /// What else depends on the parameters, brought in line with dae.p by with_parameters()
  /// (called after it set dae.p): initial values that depend on p beyond a mechanical
  /// problem's accelerations and multipliers (the support position of pendulum-driven, the
  /// whole state of pendulum-index0), a mass matrix that holds parameters, a reference or an
  /// exact solution that can be had for any p. Empty: nothing beyond with_parameters()'s rule.
  std::function<void(BuiltinProblem&)> apply_parameters;
  /// Stiff on [t0, t_end]: the Jacobian has eigenvalues with large negative real part (a
  /// stiffness ratio of 1e4 or more against the solution's time scale), so that an explicit
  /// method's step is bounded by stability, far below what accuracy asks for, and it cannot
  /// integrate the interval in a reasonable number of steps (vanderpol, robertson,
  /// robertson-dae, transistor, circuit-chain). Explicit methods (MethodCapabilities::
  /// explicit_method) are not applicable (method_not_applicable).
  bool stiff = false;
  /// First integrals of the model, I(y) constant on the exact solution (the moon flights'
  /// Jacobi integral, notes ch. 8): problem_report() prints how far the solve drifted off each
  /// one (first_integral_drifts()).
  struct FirstIntegral {
    std::string name;                      ///< e.g. "Jacobi integral J"
    std::function<double(VecIn y)> value;  ///< I(y) (reads the components it needs)
  };
  std::vector<FirstIntegral> first_integrals;
};

/// Adds what belongs to the model to the options of a solve of it: its events and switches
/// (after those in `o`) and its tstops inside [p.t0, p.t_end] (merged with those in `o`, in
/// the direction of integration, duplicates once). The CLI, the Python module, the sweep and
/// the tests solve built-in problems with it.
void add_model_options(const BuiltinProblem& p, Options& o);

/// Names of all built-in problems, in a stable order.
std::vector<std::string> builtin_problem_names();
/// The problem called `name`; throws InvalidArgument listing the valid names otherwise.
BuiltinProblem make_builtin_problem(const std::string& name);

/// The problem with parameters `params` instead of its p (dae.p, and the mechanical model's p),
/// with initial values consistent for them: for a mechanical problem in its index-3 form the
/// accelerations and multipliers of y0 are recomputed from its q0, v0 (initial_values());
/// a problem with BuiltinProblem::apply_parameters updates what else depends on p; other
/// problems keep y0. Other parameters than the problem's drop its reference and exact solution
/// (they belong to the old parameters) unless apply_parameters gives them for the new ones.
/// Parameter sweeps (the Python module's solve_many, `daekit sweep`) go through here. Throws
/// InvalidArgument unless params has the size of the problem's p and is finite.
BuiltinProblem with_parameters(BuiltinProblem problem, const Vector& params);

/// dy0/dp (n x np) of the problem's initial values as with_parameters() makes them: central
/// differences of with_parameters(p +- delta e_k).y0, delta = cbrt(eps) max(|p_k|, 1) (exact up
/// to round-off where y0 is linear in p: akzo's y6 = Ks y1 y4, the transistor's y0 in Ub, the
/// accelerations and multipliers of the mechanical problems). Options::initial_sensitivities
/// for solves with sensitivities. n x 0 for a problem without parameters.
Matrix initial_sensitivities(const BuiltinProblem& problem);

/// Significant correct digits: -log10 of the max over `components` (all if empty) of the
/// relative error |y_i - ref_i| / |ref_i| (absolute error where ref_i = 0).
double scd(const Vector& y, const Vector& ref, const std::vector<int>& components = {});

struct MethodInfo;  // methods/registry.hpp

/// Why method `m` does not apply to problem `p` (empty: it applies): the form it takes, the
/// index it handles, an error estimate (variable steps), the Euler-Lagrange / Hessenberg
/// index-2 structure it needs, and "explicit method on a stiff problem" (MethodCapabilities::
/// explicit_method, BuiltinProblem::stiff). The 25-tolerance sweep skips such pairs; `daekit
/// solve` runs them and adds the reason to the result's warnings.
std::string method_not_applicable(const MethodInfo& m, const BuiltinProblem& p);

/// The projection to solve `p` with by method `m` by default: BuiltinProblem::projection if
/// the method can project (MethodCapabilities::projection) and the problem's DAE has a
/// projector, Projection::None otherwise. The CLI's solve and Python's BuiltinProblem.solve
/// use it unless a projection is given.
Projection recommended_projection(const BuiltinProblem& p, const MethodInfo& m);

// Factories (one file each in src/problems/).
BuiltinProblem pendulum_index3();               ///< paper 000 (4.1), 5 variables
BuiltinProblem pendulum_index2();               ///< velocity constraint instead of g
BuiltinProblem pendulum_index1();               ///< acceleration constraint (drifts off)
BuiltinProblem pendulum_long();                 ///< index 3 on [0, 1000]
MechanicalSystem pendulum_mechanical_system();  ///< the pendulum as a MechanicalSystem
/// Reference (u1, u2, v1, v2, lambda)(t) of the pendulum from its underlying ODE in the angle
/// (u = (sin phi, -cos phi), phi'' = -sin phi, phi(0) = pi/2), classical RK4 at h = 1e-4 with
/// compensated summation (converged to ~1e-15 on [0, 2]: the same digits as h = 2.5e-5),
/// lambda = (phi'^2 + cos phi) / 2; independent of the DAE solvers.
Vector pendulum_reference(double t);
BuiltinProblem van_der_pol();           ///< eps y2' = (1 - y1^2) y2 - y1, eps = 1e-6
BuiltinProblem robertson();             ///< ROBER, IVP Test Set, t in [0, 1e11]
BuiltinProblem andrews();               ///< Andrews' squeezer, index 3, 27 variables
BuiltinProblem transistor_amplifier();  ///< IVP Test Set, index 1, 8 variables
BuiltinProblem truck_suspension();      ///< Bendtsen and Thomsen (1999), ch. 9 (9.5)/(9.6)
BuiltinProblem akzo_nobel();            ///< chemical Akzo Nobel, IVP Test Set, index 1, n = 6
BuiltinProblem robertson_dae();         ///< ROBER with y3 = 1 - y1 - y2 as algebraic equation
BuiltinProblem pi_valve();              ///< clamped PI temperature control, ch. 10 (10.13) style
BuiltinProblem index3_chain();          ///< notes (4.1): y1' = y2, y2' = y3, 0 = y1 - sin x
BuiltinProblem moon_flight();           ///< restricted three-body problem, ch. 8 (y1' = 1.4)
BuiltinProblem moon_flight(double y1_velocity);  ///< the other starts of ch. 8: 0.5, 1.1, 2.0
/// Jacobi integral of moon_flight at x = (y1, y2, y1', y2').
double moon_jacobi_integral(VecIn x);
/// 2-D heat equation of SUNDIALS' idaHeat2D on an m x m grid (n = m^2, boundary algebraic),
/// sparse 5-point Jacobian; registered as "heat2d" with m = 10.
BuiltinProblem heat2d(int m);
/// Exact solution of heat2d(m)'s semi-discrete system at t (all m^2 components, O(m^2) work).
Vector heat2d_reference(int m, double t);
/// N coupled TRANSAMP stages, n = 8N, index 1; registered as "circuit-chain" with N = 40.
BuiltinProblem circuit_chain(int stages);
/// SUNDIALS' idaFoodWeb predator-prey web on an m x m grid (n = 2 m^2, predators algebraic),
/// banded analytic Jacobian (half-bandwidth 2m); registered as "food-web" with m = 20.
BuiltinProblem food_web(int m);

// Index-2 Euler-Lagrange problems (problem/euler_lagrange_dae.hpp) for the beta-blocked
// multistep methods (src/problems/euler_lagrange_problems.cpp, truck_multibody.cpp).
/// Manufactured: x' = omega(x) (-x2, x1) + phi(x) x - G^T lambda, g = |x|^2 - 1,
/// omega = 1 + x2/2, phi = 1 + x1 (manufactured for paper 003): exact solution known.
EulerLagrangeDae manufactured_euler_lagrange();
/// Its exact solution (x1, x2, lambda)(t) = (cos th, sin th, (1 + cos th)/2),
/// th' = 1 + sin(th)/2, th(0) = 0.
Vector manufactured_euler_lagrange_solution(double t);
BuiltinProblem euler_lagrange_manufactured();  ///< "el-manufactured", t in [0, 3]
BuiltinProblem pendulum_euler_lagrange();      ///< "pendulum-el": velocity-level, t in [0, 2]
BuiltinProblem andrews_euler_lagrange();       ///< "andrews-el": velocity-level, t in [0, 0.03]
/// The planar truck of Eich-Soellner and Fuhrer (paper 003 Section 5): 9 positions, 2
/// constraints (the load's joint to the chassis), road excitation.
MechanicalSystem truck_multibody_system();
BuiltinProblem truck_euler_lagrange();  ///< "truck-el": 20 equations, index 2, t in [0, 3]

// Applications of the lecture notes, chapters 3 and 9 (multibody) and state-dependent mass
// matrices (issue 14, parts 1 and 4; docs/applications.md).
/// Circuit with two nonlinear capacitances C_a(u1), C_b(u3) and a diode, M(y) = diag(C_a, 0,
/// C_b): "varactor-circuit" (quasi-linear form, dae = its y' = w reformulation).
BuiltinProblem varactor_circuit();
/// The same circuit in the charge-oriented form (x = (u1, u2, u3, q_a, q_b), constant M):
/// the independent formulation the tests take the reference from.
BuiltinProblem varactor_circuit_charge_form();
/// Double pendulum in its two angles, M(theta) from T (Lagrange builder), "double-pendulum".
BuiltinProblem double_pendulum();
/// Reference (theta1, theta2, omega1, omega2)(t) of double_pendulum from the Cartesian index-3
/// model (constant mass, two length constraints): its underlying ODE (consistent
/// accelerations) by classical RK4 with step h.
Vector double_pendulum_reference(double t, double h = 5e-4);
/// Pendulum (3.2) with mass m, length l, gravity g (p = (m, l, g)): index-0 form (3.7)
/// ("pendulum-index0") and state-space form in the angle ("pendulum-ssf"), phi(0) = phi0.
BuiltinProblem pendulum_index0();
BuiltinProblem pendulum_state_space();
/// Exact pendulum (Jacobi elliptic functions): (phi, omega)(t) for phi(0) = phi0 < pi,
/// omega(0) = 0, phi'' = -(g/l) sin phi.
Vector pendulum_exact_angle(double phi0, double g_over_l, double t);
/// Pendulum with a vertically oscillating suspension point s(t) = A cos(Omega t) (Kapitza):
/// rheonomic constraint |q - (0, s(t))|^2 = l^2, index 3, "pendulum-driven".
MechanicalSystem driven_pendulum_system(double amplitude);
BuiltinProblem driven_pendulum();
/// Reference (phi, omega)(t) of driven_pendulum from the angle ODE
/// phi'' = -(g + s''(t)) sin(phi) / l by RK4 with step h.
Vector driven_pendulum_reference(double amplitude, double t, double h = 1e-5);
/// The state (x, y, v_x, v_y, lambda) of driven_pendulum at t from that reference.
Vector driven_state(double amplitude, double t);
/// Slider-crank with the prescribed crank angle omega0 t + alpha t^2 / 2 (rheonomic), index 3,
/// "slider-crank"; slider_crank_exact(t) = (q, v)(t) in closed form.
MechanicalSystem slider_crank_system();
BuiltinProblem slider_crank();
Vector slider_crank_exact(double t);
/// The planar truck (truck_multibody_system) in its index-3 form, "truck-index3".
BuiltinProblem truck_index3();
/// The charge pump of the IVP Test Set (PUMP; Guenther, Denk & Feldmann 1995): index 2, n = 9,
/// the MOS device's region boundaries as switching functions (branches in p), the input's
/// corners as tstops; "charge-pump" (issue 26).
BuiltinProblem charge_pump();
/// The attemperator with the clamp of its PI valve as two switching functions instead of mode
/// events: "attemperator-switched" (issue 26).
BuiltinProblem attemperator_switched();
// The applications of Bendtsen and Thomsen (1999), ch. 1, 7, 8 and 10 (docs/applications.md).
/// §1.2.1: y' = -z, eps z' = -z - cos x, z0 = g(0, y0)/eps with g = y - sin x, eps = 1e-6.
BuiltinProblem singular_perturbation();
/// Its closed-form solution (y, z)(x).
Vector singular_perturbation_solution(double x);
BuiltinProblem van_der_pol_form_a();  ///< §1.3 (a), mu = 1000, x in [0, 2000]
BuiltinProblem van_der_pol_form_b();  ///< §1.3 (b), mu = 1000, t in [0, 2] (ODE)
/// §1.1.2.1: y1' = y3, 0 = y2 (1 - y2), 0 = y1 y2 + y3 (1 - y2) - x on branch y2 = 0 or 1.
BuiltinProblem singular_constraint(int branch);
/// The exact solution of branch 0 (y1, y2, y3) = (x^2/2, 0, x) or 1: (x, 1, 1).
Vector singular_constraint_solution(int branch, double x);
struct OdeWithInvariants;  // nonlinear/invariants.hpp
/// The moon flight as an ODE with the invariant J(y) - J(y0) (ch. 8).
OdeWithInvariants moon_ode_with_invariant(double y1_velocity);
/// The stabilised ODE (8.5) of a moon flight (gamma = 10): "moon-stabilised-<v>".
BuiltinProblem moon_flight_stabilised(double y1_velocity);
/// The DAE reformulation (§8.2.2) of the 1.4 flight: "moon-dae".
BuiltinProblem moon_flight_dae();
/// Ch. 7 §7.1: x2' = 1, 0 = x1^2 + x2, x(0) = (1, -1), impasse point at t = 1: "impasse".
BuiltinProblem impasse_example();
/// Its solution branches x = (sign sqrt(1 - t), t - 1), sign = +1 (the solution) or -1.
Vector impasse_example_solution(double t, int sign = +1);
/// Ch. 10 Example 1, air through a pipe (10.12a-e) in `volumes` control volumes (6 unknowns
/// each; sparse Jacobian pattern): "air-pipe" (10 volumes, t in [0, 5000], the steady state as
/// reference) and "air-pipe-1000" (the first second of the transient, n = 6000, on KLU).
BuiltinProblem air_pipe(int volumes);
/// The steady state of air_pipe(volumes) (uniform inlet temperature, constant mass flow).
Vector air_pipe_steady_state(int volumes);
/// Ch. 10 Example 2, steam attemperation (10.13a-f) with the clamped PI valve: "attemperator".
BuiltinProblem attemperator();

// Reports of a solve of a built-in problem (src/problems/report.cpp): what `daekit solve` and
// `daekit demo` print, so that the CLI adds nothing of its own.

struct Result;  // integrator/result.hpp

/// Significant correct digits of r against p's reference solution over p.scd_components, when
/// the run reached the reference time and p.t_end is that time; empty otherwise.
std::optional<double> problem_scd(const BuiltinProblem& p, const Result& r);
/// The digits of every component of r against p's reference (scd of that component alone), when
/// problem_scd() has a value; empty otherwise. The components outside p.scd_components (the
/// index-3 multipliers of the mechanical problems, y3 of index3-chain) are measured too.
std::vector<double> problem_component_digits(const BuiltinProblem& p, const Result& r);
/// The drift of a first integral I over a solve: max |I(y_n) - I(y0)| over the stored states
/// (Result::y_steps: t0, the accepted steps and a terminal event's state; only the end value
/// when the steps were not stored) and |I(y) - I(y0)| at the end (r.y; an event's state comes
/// from the dense output).
struct FirstIntegralDrift {
  std::string name;
  double max_over_steps = 0.0;
  double at_end = 0.0;
};
/// One entry per p.first_integrals, y0 = p.y0 (empty when r has no end value).
std::vector<FirstIntegralDrift> first_integral_drifts(const BuiltinProblem& p, const Result& r);
/// r.report() (r.full_report() with `full`), then the located events (time and name, the first
/// 10), the number of projections (brief report only; the full one lists every counter), the
/// scd line (problem_scd, the components it counts and the reference's source) and the drift
/// of each first integral (first_integral_drifts).
std::string problem_report(const BuiltinProblem& p, const Result& r, bool full = false);

}  // namespace daekit
