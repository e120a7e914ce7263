// The energy-system examples of Bendtsen and Thomsen (1999), ch. 10 (control-volume models
// (10.1)-(10.5): mass and energy balances per lumped volume, constitutive relations, ideal-gas or
// linearised state relations; semi-explicit index 1).
//
// Example 1, air through a pipe (§10.2.2, (10.12a-e)): hot air flows into a cold pipe cut into
// N control volumes in series. Per volume j (inlet = outlet of volume j-1):
//   M' = mdot_i - mdot_o                                    (10.12a), mdot_o counted positive
//   U' = mdot_i h_i - mdot_o h_o - Q                        (10.12b) with Q = U_s'
//   U_s' = Q,  U_s = m_s c_s T_s                            (wall, the right side of (10.12b))
//   0 = U - M (u_i + u_o)/2                                 (10.12c), u = c_v T
//   0 = Q - k A LMTD(T_i - T_s, T_o - T_s)                  (10.12e)
//   0 = mdot_o - (p - p_next)/R_f,  p = (M/V) R (T_i + T_o)/2   ((10.3) linear friction, (10.12d))
// with h = c_p T (ideal gas: T = f1(p, h) = h/c_p, rho = f2(p, h) = p c_p/(R h)). Unknowns per
// volume (M, U, T_s, T_o, Q, mdot_o); p_next is the next volume's pressure, p_out = 1 bar after
// the last. LMTD(a, b) = (a - b)/ln(a/b); guarded as the notes ask: its limit a where a ~ b,
// and 0 where a b <= 0, where the log's argument would be negative (Newton iterates could get
// there; from the start used here, radau5, bdf, nordsieck-bdf and dirk at rtol 1e-4 and 1e-7
// never evaluated f with a b <= 0, measured 2026-11-27):
// 0 is the limit of LMTD as a or b -> 0, so the guarded function is continuous. The case a ~ b
// is evaluated as (a - b)/log1p((a - b)/b), which has no cancellation (a few ulps relative
// error for every a/b), instead of switching to the arithmetic mean below |a - b| <= 1e-6
// (a + b): ln(a/b) there lost ~eps/1e-6 = 2e-10 of relative accuracy, and the switch made LMTD
// jump by that much, which stalled the Newton iterations at tol 1e-10 (dirk, t = 2.3e-7).
// Parameters (the notes give none; ours, physical): pipe length 10 m, diameter 0.1 m, steel
// wall 3 mm (m_s = 73.5 kg in total, c_s = 500 J/(kg K)), k = 50 W/(m^2 K), air R = 287,
// c_p = 1005, c_v = 718 J/(kg K), inlet 0.5 kg/s, friction R_f = 2e4/N Pa s/kg (10 kPa over
// the pipe), p_out = 1e5 Pa, inlet air at 600 K. The pipe starts cold (T_s = 300 K) just filled
// with the hot air flowing at 0.5 kg/s (T_o = 600 K, pressures of the steady flow): the
// temperatures then stay ordered T_i >= T_o >= T_s and the log's arguments positive (a cold start
// of the air as well makes (10.12c) push T_o below T_s at the inlet for the first second, where
// LMTD has no meaning). The air cools in ~0.4 s where it stands and crosses the pipe in 0.18 s;
// at 0.05 kg/s instead the cooling air's contraction stopped the outflow and the model (upwind
// outlet, no backflow) broke down for N >= 100. t in [0, 5000] s (the wall's last approach has time
// constant ~280 s: the temperatures are within 1e-5 K of the steady state at t = 5000; the
// reference is the state there, kAirPipeReference10). The steady
// state (air_pipe_steady_state): everything at 600 K (the pipe has no heat loss in (10.12b)),
// mdot_o = 0.5 kg/s in every volume, pressures falling linearly by R_f mdot per volume.
//
// Example 2, steam attemperation (§10.2.3, (10.13a-f)): spray water cools superheated steam;
// the PI controller's output is clamped to [0, 1]:
//   e = T_o - T_SP                                           (10.13a)
//   z_c = m_p + m_I clamped to [0, 1]                        (10.13b)
//   m_p = K_p e,  m_I' = K_I e                               (10.13c), (10.13d)
//   z_s = 1 - (m_p + m_I) while free, (m_p + m_I) - 1 while clamped at 1   (10.13e)
//   mdot_w = C z_c sqrt((p_i - p_o)/v_1)                     (10.13f)
// with the balances of the mixing volume (steam mass M_v constant, so mdot_o = mdot_s + mdot_w;
// enthalpy h(T) = h_0 + c_p (T - T_SP) of the steam, liquid enthalpy h_w of the spray) and
// of the attemperator wall (U_s of (10.2)):
//   M_v c_p T_o' = mdot_s (h(T_in) - h(T_o)) + mdot_w (h_w - h(T_o)) - kA (T_o - T_wall)
//   m_wall c_wall T_wall' = kA (T_o - T_wall).
// Unknowns (T_o, T_wall, m_I, z_c, mdot_w), mode p[0] (0 free, 1 clamped at 1, 2 clamped at 0).
// Parameters (ours; the notes give none): mdot_s = 50 kg/s, T_SP = 540 C, h_0 = 3.45e6 J/kg,
// c_p = 2600 J/(kg K), h_w = 1.0e6 J/kg, M_v = 225 kg, m_wall c_wall = 2.5e6 J/K,
// kA = 5e4 W/K, K_p = 0.02 1/K, K_I = K_p/60 1/(K s), p_i = 170 bar, p_o = 150 bar,
// v_1 = 0.0012 m^3/kg, C = 6.124e-5 m^2 (2.5 kg/s with the valve open). The plant starts in
// equilibrium at T_in = 560 C (valve 42 % open); at t = 0 the inlet steam jumps to 600 C,
// beyond what the open valve can cool ("outside the proportional gain", §10.2.3): the
// controller opens the valve until z_c = 1 and stays there while m_I keeps growing (no
// anti-windup, as in Fig. 10.6). The switch (z_s = 0) is a state event (direction + to -); the
// event action flips the mode, as DNA's restart does, and the integrator re-initialises z_c and
// mdot_w consistently. t in [0, 600] s.
#include <cmath>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {

// --- Example 1: the pipe -----------------------------------------------------------------
namespace pipe {
constexpr double kLength = 10, kDiameter = 0.1, kWall = 0.003, kSteel = 7800, kCs = 500;
constexpr double kK = 50, kR = 287, kCp = 1005, kCv = 718, kMdotIn = 0.5, kPout = 1e5;
constexpr double kRfTotal = 2e4, kT0 = 300, kTin = 600;
constexpr int kVars = 6;  // per volume: M, U, T_s, T_o, Q, mdot_o
enum { M = 0, U = 1, Ts = 2, To = 3, Q = 4, Mdot = 5 };

struct Geometry {
  double volume, area, wall_capacity, friction;
  explicit Geometry(int n) {
    const double pi = std::acos(-1.0), seg = kLength / n;
    volume = pi * kDiameter * kDiameter / 4 * seg;
    area = pi * kDiameter * seg;
    wall_capacity = kSteel * pi * kDiameter * kWall * seg * kCs;
    friction = kRfTotal / n;
  }
};

// (10.12e) with the guards described above.
double lmtd(double a, double b) {
  if (a * b <= 0) return 0.0;
  const double d = a - b;
  if (d == 0.0) return a;
  return d / std::log1p(d / b);
}

double pressure(double mass, double t_in, double t_out, const Geometry& g) {
  return mass / g.volume * kR * 0.5 * (t_in + t_out);
}

void residual(VecIn y, VecOut f, int n, const Geometry& g) {
  for (int j = 0; j < n; ++j) {
    const int o = kVars * j;
    const double mdot_i = j == 0 ? kMdotIn : y[o - kVars + Mdot];
    const double t_i = j == 0 ? kTin : y[o - kVars + To];
    const double t_o = y[o + To], mdot_o = y[o + Mdot];
    const double p = pressure(y[o + M], t_i, t_o, g);
    const double p_next = j + 1 < n ? pressure(y[o + kVars + M], t_o, y[o + kVars + To], g) : kPout;
    f[o + M] = mdot_i - mdot_o;
    f[o + U] = kCp * (mdot_i * t_i - mdot_o * t_o) - y[o + Q];
    f[o + Ts] = y[o + Q] / g.wall_capacity;
    f[o + To] = y[o + U] - y[o + M] * kCv * 0.5 * (t_i + t_o);
    f[o + Q] = y[o + Q] - kK * g.area * lmtd(t_i - y[o + Ts], t_o - y[o + Ts]);
    f[o + Mdot] = mdot_o - (p - p_next) / g.friction;
  }
}

// Structural non-zeros: each volume's equations read its own unknowns, the previous volume's
// T_o and mdot_o and the next volume's M and T_o.
SparseMatrix pattern(int n) {
  std::vector<Eigen::Triplet<double, int>> entries;
  const int size = kVars * n;
  for (int row = 0; row < size; ++row) {
    const int j = row / kVars;
    for (int c = kVars * j; c < kVars * (j + 1); ++c) entries.emplace_back(row, c, 1.0);
    if (j > 0) {
      entries.emplace_back(row, kVars * (j - 1) + To, 1.0);
      entries.emplace_back(row, kVars * (j - 1) + Mdot, 1.0);
    }
    if (j + 1 < n) {
      entries.emplace_back(row, kVars * (j + 1) + M, 1.0);
      entries.emplace_back(row, kVars * (j + 1) + To, 1.0);
    }
  }
  SparseMatrix P(size, size);
  P.setFromTriplets(entries.begin(), entries.end());
  return P;
}

// The state of the steady flow mdot with air at T_air and the wall at T_wall (consistent:
// the algebraic equations hold). Pressures from the outlet back: p_j = p_out + (n - j) R_f mdot.
Vector state(int n, double t_air, double t_wall, double mdot) {
  const Geometry g(n);
  Vector y(kVars * n);
  for (int j = 0; j < n; ++j) {
    const int o = kVars * j;
    const double p = kPout + (n - j) * g.friction * mdot;
    const double mass = p * g.volume / (kR * t_air);
    y[o + M] = mass;
    y[o + U] = mass * kCv * t_air;
    y[o + Ts] = t_wall;
    y[o + To] = t_air;
    y[o + Q] = kK * g.area * lmtd(t_air - t_wall, t_air - t_wall);
    y[o + Mdot] = mdot;
  }
  return y;
}
}  // namespace pipe

// --- Example 2: the attemperator -----------------------------------------------------------
namespace attemp {
constexpr double kMdotSteam = 50, kTsp = 540, kH0 = 3.45e6, kCp = 2600, kHw = 1.0e6;
constexpr double kSteamMass = 225, kWallCapacity = 2.5e6, kKA = 5e4, kKp = 0.02, kKi = kKp / 60;
constexpr double kPin = 170e5, kPout = 150e5, kV1 = 0.0012, kC = 6.124e-5;
constexpr double kTinStart = 560, kTin = 600;
enum Mode { kFree = 0, kOpen = 1, kShut = 2 };
enum { To = 0, Twall = 1, MI = 2, Zc = 3, Mdot = 4 };

double enthalpy(double T) { return kH0 + kCp * (T - kTsp); }
double valve_flow(double zc) { return kC * zc * std::sqrt((kPin - kPout) / kV1); }  // (10.13f)
double demanded(VecIn y) { return kKp * (y[To] - kTsp) + y[MI]; }                   // m_p + m_I
int mode_of(VecIn p) { return static_cast<int>(p[0]); }

// the spray flow that holds T_o = T_SP at inlet temperature T_in (the initial equilibrium)
double equilibrium_flow(double t_in) {
  return kMdotSteam * (enthalpy(t_in) - enthalpy(kTsp)) / (enthalpy(kTsp) - kHw);
}
}  // namespace attemp

}  // namespace

// The state of air_pipe(10) at t = 5000 (its reference): daekit's bdf at rtol = 1e-14, atol_i =
// 1e-14 atol_scale_i (the problem's per-unknown scale). Checks of that run on the scd components
// (T_o, T_s, mdot_o of the last volume): bdf at 1e-13 and radau at 1e-12 agree to 7e-14
// relative, radau5 at 1e-12 to 9e-12. The steady state differs from it by 3.7e-6 K (T_s): used
// as the reference until issue 24, it capped every method at 8.2 digits.
constexpr double kAirPipeReference10[60] = {
    0.0050170614386878766,  2161.350067774586,   599.99999978078552,     599.99999999325325,
    3.3901477581499153e-06, 0.50000000000000011, 0.0049714517893183997,  2141.7014307948166,
    599.99999963885261,     599.99999998234568,  5.4807978092437601e-06, 0.50000000000000056,
    0.0049258421399864675,  2122.0527938150476,  599.99999945533398,     599.9999999661253,
    8.1502231773035995e-06, 0.50000000000000144, 0.0048802324907011333,  2102.4041568352791,
    599.99999922300503,     599.99999994325321,  1.1492333618726497e-05, 0.50000000000000289,
    0.0048346228414726479,  2082.7555198555096,  599.99999893382301,     599.99999991218419,
    1.5610805231566428e-05, 0.50000000000000533, 0.0047890131923125634,  2063.1068828757407,
    599.99999857886826,     599.99999987114563,  2.0619682173083657e-05, 0.50000000000000877,
    0.0047434035432338002,  2043.4582458959719,  599.9999981482772,      599.99999981811675,
    2.6644096157601708e-05, 0.50000000000001366, 0.0046977938942507468,  2023.809608916202,
    599.99999763117796,     599.99999975080334,  3.3820921344437421e-05, 0.50000000000002032,
    0.0046521842453793455,  2004.1609719364321,  599.99999701561728,     599.9999996666146,
    4.229954026368795e-05,  0.5000000000000292,  0.0046065745966371819,  1984.5123349566625,
    599.99999628848741,     599.99999956263537,  5.2242591655792202e-05, 0.50000000000004086,
};

Vector air_pipe_steady_state(int volumes) {
  if (volumes < 1) throw InvalidArgument("air_pipe: volumes must be >= 1");
  return pipe::state(volumes, pipe::kTin, pipe::kTin, pipe::kMdotIn);
}

BuiltinProblem air_pipe(int volumes) {
  using namespace pipe;
  if (volumes < 1)
    throw InvalidArgument("air_pipe: volumes must be >= 1, got " + std::to_string(volumes));
  const int n = volumes;
  BuiltinProblem p;
  p.name = n == 10 ? "air-pipe" : "air-pipe-" + std::to_string(n);
  p.stiff = true;  // erk hits max_steps at every tolerance of the sweep (stability-bounded)
  p.title = "hot air through a cold pipe, " + std::to_string(n) +
            " control volumes (notes ch. 10, (10.12a-e))";
  p.description =
      "per volume M' = mdot_i - mdot_o, U' = mdot_i h_i - mdot_o h_o - Q, U_s' = Q,\n"
      "0 = U - M (u_i + u_o)/2, 0 = Q - kA LMTD, 0 = mdot_o - (p - p_next)/R_f; index 1,\n"
      "sparse Jacobian; parameters daekit's (pipe 10 m x 0.1 m, 0.5 kg/s of 600 K air\n"
      "into a 300 K pipe).";
  p.source =
      "Bendtsen and Thomsen (1999), ch. 10, §10.2.2 (10.12a-e); parameters daekit's (energy.cpp)";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = kVars * n;
  std::vector<Eigen::Triplet<double, int>> diag;
  for (int j = 0; j < n; ++j)
    for (int v : {M, U, Ts}) diag.emplace_back(kVars * j + v, kVars * j + v, 1.0);
  d.mass_sparse = SparseMatrix(d.n, d.n);
  d.mass_sparse.setFromTriplets(diag.begin(), diag.end());
  d.jacobian_sparsity = Sparsity::sparse(pattern(n));
  for (int j = 0; j < n; ++j)
    for (const char* v : {"M", "U", "Ts", "To", "Q", "mdot"})
      d.component_names.push_back(std::string(v) + std::to_string(j + 1));
  d.f = [n, g = Geometry(n)](double, VecIn y, VecOut f) { residual(y, f, n, g); };
  p.t0 = 0;
  // N = 10: to the steady state; finer pipes (the sparse backend's exercise): the first second
  p.t_end = n == 10 ? 5000 : 1;
  p.y0 = state(n, kTin, kT0, kMdotIn);
  p.rtol = 1e-6;
  p.atol = 1e-6;
  // absolute tolerances relative to each unknown's magnitude: a volume holds only 9e-6 kg of
  // air for N = 1e4, and an error of 1e-7 kg there is a pressure error of 2 kPa
  p.atol_scale = p.y0.cwiseAbs().cwiseMax(1e-3);
  p.h0 = 1e-3;
  p.plot_components = {kVars * (n - 1) + To, kVars * (n - 1) + Ts};
  if (n != 10) return p;
  ReferenceSolution ref;
  ref.t = 5000;
  ref.y = Eigen::Map<const Vector>(kAirPipeReference10, 60);
  ref.source =
      "bdf at rtol = 1e-14 (atol scaled per unknown), checked by radau at 1e-12 (7e-14 relative "
      "on the scd components); the steady state is 3.7e-6 K away";
  p.reference = ref;
  p.scd_components = {kVars * (n - 1) + To, kVars * (n - 1) + Ts, kVars * (n - 1) + Mdot};
  return p;
}

BuiltinProblem attemperator() {
  using namespace attemp;
  BuiltinProblem p;
  p.name = "attemperator";
  p.title = "steam attemperation with a clamped PI valve (notes ch. 10, (10.13a-f))";
  p.description =
      "spray-water attemperator: mixing volume and wall balances, PI controller with the\n"
      "output clamped to [0, 1], switch variable z_s (10.13e) as a state event, valve law\n"
      "(10.13f); inlet steam 560 -> 600 C at t = 0 saturates the valve; parameters daekit's.";
  p.source =
      "Bendtsen and Thomsen (1999), ch. 10, §10.2.3 (10.13a-f), Table 10.1; parameters daekit's";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = 5;
  d.mass = Matrix::Zero(5, 5);
  d.mass(To, To) = d.mass(Twall, Twall) = d.mass(MI, MI) = 1;
  d.component_names = {"T_o", "T_wall", "m_I", "z_c", "mdot_w"};
  d.p = Vector::Constant(1, kFree);
  p.parameter_names = {"mode"};  // 0 free, 1 clamped at 1, 2 clamped at 0
  d.f = [](double, VecIn y, VecOut f, VecIn p) {
    const double h_o = enthalpy(y[To]);
    f[To] =
        (kMdotSteam * (enthalpy(kTin) - h_o) + y[Mdot] * (kHw - h_o) - kKA * (y[To] - y[Twall])) /
        (kSteamMass * kCp);
    f[Twall] = kKA * (y[To] - y[Twall]) / kWallCapacity;
    f[MI] = kKi * (y[To] - kTsp);
    const int mode = mode_of(p);
    f[Zc] = y[Zc] - (mode == kFree ? demanded(y) : mode == kOpen ? 1.0 : 0.0);
    f[Mdot] = y[Mdot] - valve_flow(y[Zc]);
  };
  // (10.13e): the switch variable of the active branch; it crosses zero from + to - when the
  // demanded signal leaves [0, 1] (free -> clamped) or comes back (clamped -> free).
  Event upper;
  upper.name = "z_s: valve clamped at 1";
  upper.direction = -1;
  upper.r = [](double, VecIn y, VecIn, VecIn p) {
    return mode_of(p) == kOpen ? demanded(y) - 1.0 : 1.0 - demanded(y);
  };
  upper.action = [](double, Vector&, Vector& p) {
    if (mode_of(p) == kShut) return EventAction::Continue;
    p[0] = mode_of(p) == kFree ? kOpen : kFree;
    return EventAction::Restart;
  };
  Event lower;
  lower.name = "valve clamped at 0";
  lower.direction = -1;
  lower.r = [](double, VecIn y, VecIn, VecIn p) {
    return mode_of(p) == kShut ? -demanded(y) : demanded(y);
  };
  lower.action = [](double, Vector&, Vector& p) {
    if (mode_of(p) == kOpen) return EventAction::Continue;
    p[0] = mode_of(p) == kFree ? kShut : kFree;
    return EventAction::Restart;
  };
  p.events = {upper, lower};
  p.t0 = 0;
  p.t_end = 600;
  // equilibrium at T_in = 560 C: T_o = T_wall = T_SP, e = 0, m_I = z_c = valve opening
  const double mdot0 = equilibrium_flow(kTinStart), zc0 = mdot0 / valve_flow(1.0);
  p.y0 = Vector(5);
  p.y0 << kTsp, kTsp, zc0, zc0, mdot0;
  p.rtol = p.atol = 1e-8;
  p.plot_components = {To};
  return p;
}

// The attemperator with its clamp written as two switching functions (issue 26) instead of
// the mode events: s_open = (m_p + m_I) - 1 (branch p[0]: +1 while the demanded opening is above
// 1, the valve clamped open) and s_shut = -(m_p + m_I) (p[1]: +1 while it is below 0, clamped
// shut); z_c = 1, 0 or m_p + m_I by the branches. The same model as "attemperator", with the
// integrator keeping the branches (located, restarted there) instead of the model's event
// actions: the tests compare the two.
BuiltinProblem attemperator_switched() {
  using namespace attemp;
  BuiltinProblem p = attemperator();
  p.name = "attemperator-switched";
  p.title = "steam attemperation, the valve's clamp as two switching functions";
  p.description =
      "the attemperator of notes ch. 10 (10.13a-f) with the clamp of the PI output to [0, 1]\n"
      "written as switching functions (Options::switches, branches in p) instead of mode\n"
      "events; inlet steam 560 -> 600 C at t = 0 saturates the valve.";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.p = Vector::Constant(2, -1.0);  // neither clamp at the start (the integrator sets them)
  p.parameter_names = {"branch: clamped open", "branch: clamped shut"};
  d.f = [](double, VecIn y, VecOut f, VecIn p) {
    const double h_o = enthalpy(y[To]);
    f[To] =
        (kMdotSteam * (enthalpy(kTin) - h_o) + y[Mdot] * (kHw - h_o) - kKA * (y[To] - y[Twall])) /
        (kSteamMass * kCp);
    f[Twall] = kKA * (y[To] - y[Twall]) / kWallCapacity;
    f[MI] = kKi * (y[To] - kTsp);
    f[Zc] = y[Zc] - (p[0] > 0 ? 1.0 : p[1] > 0 ? 0.0 : demanded(y));
    f[Mdot] = y[Mdot] - valve_flow(y[Zc]);
  };
  p.events.clear();
  Switch open;
  open.name = "valve clamped open";
  open.parameter = 0;
  open.s = [](double, VecIn y) { return demanded(y) - 1.0; };
  Switch shut;
  shut.name = "valve clamped shut";
  shut.parameter = 1;
  shut.s = [](double, VecIn y) { return -demanded(y); };
  p.switches = {open, shut};
  return p;
}

}  // namespace daekit
