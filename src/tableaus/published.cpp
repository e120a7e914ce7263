// Published diagonally implicit and explicit Runge-Kutta tableaus (runge_kutta.hpp), typed in
// from their sources with the reference in RungeKuttaTableau::reference; where a coefficient
// is defined by an equation (a gamma of an L-stable method) it is computed here to full
// precision instead of taken from a rounded print. tests/test_rk_tableaus.cpp checks every one
// against the order conditions (rooted trees), its stage order and its R(inf).
#include <cmath>

#include "daekit/tableaus/runge_kutta.hpp"

namespace daekit {

namespace {

// Lower-triangular tableau from the strictly lower part (rows 2..s), the diagonal and b.
RungeKuttaTableau from_rows(const std::string& name, const std::vector<std::vector<double>>& lower,
                            const std::vector<double>& diagonal, const std::vector<double>& b,
                            const std::vector<double>& b_hat, const std::vector<double>& c) {
  const int s = static_cast<int>(b.size());
  RungeKuttaTableau t;
  t.name = name;
  t.A = Matrix::Zero(s, s);
  for (int i = 1; i < s; ++i)
    for (int j = 0; j < i; ++j)
      t.A(i, j) = lower[static_cast<size_t>(i - 1)][static_cast<size_t>(j)];
  for (int i = 0; i < s; ++i) t.A(i, i) = diagonal[static_cast<size_t>(i)];
  t.b = Eigen::Map<const Vector>(b.data(), s);
  t.c = Eigen::Map<const Vector>(c.data(), s);
  if (!b_hat.empty()) t.b_hat = Eigen::Map<const Vector>(b_hat.data(), s);
  return t;
}

// Root of p in [lo, hi] by bisection (p changes sign there): the gammas of L-stable methods.
template <typename P>
double bisect(P p, double lo, double hi) {
  double flo = p(lo);
  for (int k = 0; k < 200; ++k) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    const double fm = p(mid);
    if ((fm < 0) == (flo < 0)) {
      lo = mid;
      flo = fm;
    } else {
      hi = mid;
    }
  }
  return 0.5 * (lo + hi);
}

const char* kKvaerno =
    "A. Kvaerno, Singly diagonally implicit Runge-Kutta methods with an explicit first stage, "
    "BIT 44 (2004) 489-502";

}  // namespace

RungeKuttaTableau sdirk4_hw16() {
  // Hairer-Wanner II, IV.6, (6.16): gamma = 1/4, c = (1/4, 3/4, 11/20, 1/2, 1)
  RungeKuttaTableau t = from_rows(
      "SDIRK4 (HW 6.16)",
      {{1.0 / 2},
       {17.0 / 50, -1.0 / 25},
       {371.0 / 1360, -137.0 / 2720, 15.0 / 544},
       {25.0 / 24, -49.0 / 48, 125.0 / 16, -85.0 / 12}},
      {0.25, 0.25, 0.25, 0.25, 0.25}, {25.0 / 24, -49.0 / 48, 125.0 / 16, -85.0 / 12, 0.25},
      {59.0 / 48, -17.0 / 96, 225.0 / 32, -85.0 / 12, 0.0}, {0.25, 0.75, 11.0 / 20, 0.5, 1.0});
  t.order = 4;
  t.stage_order = 1;
  t.embedded_order = 3;
  t.reference =
      "Hairer-Wanner, Solving ODEs II, IV.6, (6.16) (SDIRK4 code; the notes' SDIRK IV(16))";
  return t;
}

RungeKuttaTableau sdirk4_hw18() {
  // Hairer-Wanner II, IV.6, (6.18): gamma = 4/15
  const double g = 4.0 / 15;
  RungeKuttaTableau t = from_rows(
      "SDIRK4 (HW 6.18)",
      {{1.0 / 2},
       {51069.0 / 144200, -7809.0 / 144200},
       {12047244770625658.0 / 141474406359725325.0, -3057890203562191.0 / 47158135453241775.0,
        2239631894905804.0 / 28294881271945065.0},
       {181513.0 / 86430, -89074.0 / 116015, 83636.0 / 34851,
        -69863904375173.0 / 23297141763930.0}},
      {g, g, g, g, g},
      {181513.0 / 86430, -89074.0 / 116015, 83636.0 / 34851, -69863904375173.0 / 23297141763930.0,
       g},
      {33665407.0 / 11668050, -2284766.0 / 15662025, 11244716.0 / 4704885,
       -96203066666797.0 / 23297141763930.0, 0.0},
      {g, 23.0 / 30, 17.0 / 30, 2881.0 / 28965 + g, 1.0});
  t.order = 4;
  t.stage_order = 1;
  t.embedded_order = 3;
  t.reference = "Hairer-Wanner, Solving ODEs II, IV.6, (6.18) (the notes' SDIRK IV(18))";
  return t;
}

RungeKuttaTableau kvaerno_esdirk3() {
  // gamma: the root of the leading coefficient of R's numerator (L-stability), near 0.4359,
  // i.e. of 6 g^3 - 18 g^2 + 9 g - 1; coefficients as functions of gamma (Kvaerno, Sect. 4)
  const double g = bisect([](double x) { return ((6 * x - 18) * x + 9) * x - 1; }, 0.4, 0.5);
  const double a31 = (-4 * g * g + 6 * g - 1) / (4 * g), a32 = (-2 * g + 1) / (4 * g);
  const double a41 = (6 * g - 1) / (12 * g), a42 = -1 / ((24 * g - 12) * g),
               a43 = (-6 * g * g + 6 * g - 1) / (6 * g - 3);
  RungeKuttaTableau t =
      from_rows("ESDIRK 3(2) (Kvaerno)", {{g}, {a31, a32}, {a41, a42, a43}}, {0.0, g, g, g},
                {a41, a42, a43, g}, {a31, a32, g, 0.0}, {0.0, 2 * g, 1.0, 1.0});
  t.order = 3;
  t.stage_order = 2;
  t.embedded_order = 2;
  t.reference = std::string(kKvaerno) + "; 3/2 method, gamma = 0.4358665215";
  return t;
}

RungeKuttaTableau kvaerno_esdirk4() {
  // gamma ~ 0.5728160625: root of the leading coefficient of R's numerator (L-stability)
  auto poly = [](std::initializer_list<double> c, double x) {
    double v = 0;
    for (double ci : c) v = v * x + ci;
    return v;
  };
  const double g = bisect(
      [&](double x) {
        return poly({24, -96, 72, -16, 1}, x);
      },
      0.55, 0.6);  // checked in tests
  const double q = poly({12, -6, 1}, g), r = poly({12, -9, 2}, g), u = poly({3, -1}, g);
  const double a31 = poly({144, -180, 81, -15, 1}, g) * g / (q * q);
  const double a32 = poly({-36, 39, -15, 2}, g) * g / (q * q);
  const double a41 = poly({-144, 396, -330, 117, -18, 1}, g) / (12 * g * g * r);
  const double a42 = poly({72, -126, 69, -15, 1}, g) / (12 * g * g * u);
  const double a43 = poly({-6, 6, -1}, g) * q * q / (12 * g * g * r * u);
  const double a51 = poly({288, -312, 120, -18, 1}, g) / (48 * g * g * r);
  const double a52 = poly({24, -12, 1}, g) / (48 * g * g * u);
  const double a53 = -q * q * q / (48 * g * g * u * r * poly({6, -6, 1}, g));
  const double a54 = poly({-24, 36, -12, 1}, g) / poly({24, -24, 4}, g);
  RungeKuttaTableau t =
      from_rows("ESDIRK 4(3) (Kvaerno)", {{g}, {a31, a32}, {a41, a42, a43}, {a51, a52, a53, a54}},
                {0.0, g, g, g, g}, {a51, a52, a53, a54, g}, {a41, a42, a43, g, 0.0},
                {0.0, 2 * g, g + a31 + a32, 1.0, 1.0});
  t.order = 4;
  t.stage_order = 2;
  t.embedded_order = 3;
  t.reference = std::string(kKvaerno) + "; 4/3 method, gamma = 0.5728160625";
  return t;
}

RungeKuttaTableau kvaerno_esdirk5() {
  const double g = 0.26;
  RungeKuttaTableau t = from_rows(
      "ESDIRK 5(4) (Kvaerno)",
      {{g},
       {0.13, 0.84033320996790809},
       {0.22371961478320505, 0.47675532319799699, -0.06470895363112615},
       {0.16648564323248321, 0.10450018841591720, 0.03631482272098715, -0.13090704451073998},
       {0.13855640231268224, 0.0, -0.04245337201752043, 0.02446657898003141, 0.61943039072480676},
       {0.13659751177640291, 0.0, -0.05496908796538376, -0.04118626728321046, 0.62993304899016403,
        0.06962479448202728}},
      {0.0, g, g, g, g, g, g},
      {0.13659751177640291, 0.0, -0.05496908796538376, -0.04118626728321046, 0.62993304899016403,
       0.06962479448202728, g},
      {0.13855640231268224, 0.0, -0.04245337201752043, 0.02446657898003141, 0.61943039072480676, g,
       0.0},
      {0.0, 0.52, 1.230333209967908, 0.8957659843500759, 0.43639360985864756, 1.0, 1.0});
  t.order = 5;
  t.stage_order = 2;
  t.embedded_order = 4;
  t.reference = std::string(kKvaerno) + "; 5/4 method, gamma = 0.26";
  return t;
}

RungeKuttaTableau alexander_sdirk2() {
  const double g = 1.0 - std::sqrt(0.5);
  RungeKuttaTableau t =
      from_rows("SDIRK2 (Alexander)", {{1.0 - g}}, {g, g}, {1.0 - g, g}, {1.0, 0.0}, {g, 1.0});
  t.order = 2;
  t.stage_order = 1;
  t.embedded_order = 1;
  t.reference =
      "R. Alexander, Diagonally implicit Runge-Kutta methods for stiff ODEs, SIAM J. Numer. "
      "Anal. 14 (1977) 1006-1021 (gamma = 1 - 1/sqrt 2); embedded b_hat = (1, 0) is daekit's";
  return t;
}

RungeKuttaTableau alexander_sdirk3() {
  const double g = bisect([](double x) { return ((x - 3) * x + 1.5) * x - 1.0 / 6; }, 0.4, 0.5);
  const double c2 = (1 + g) / 2;
  const double b1 = -(6 * g * g - 16 * g + 1) / 4, b2 = (6 * g * g - 20 * g + 5) / 4;
  // embedded order 2 on the nodes c1, c2 (b_hat_3 = 0): b_hat_1 + b_hat_2 = 1,
  // b_hat_1 c1 + b_hat_2 c2 = 1/2
  const double bh2 = (0.5 - g) / (c2 - g), bh1 = 1 - bh2;
  RungeKuttaTableau t = from_rows("SDIRK3 (Alexander)", {{(1 - g) / 2}, {b1, b2}}, {g, g, g},
                                  {b1, b2, g}, {bh1, bh2, 0.0}, {g, c2, 1.0});
  t.order = 3;
  t.stage_order = 1;
  t.embedded_order = 2;
  t.reference =
      "R. Alexander, SIAM J. Numer. Anal. 14 (1977) 1006-1021; Hairer-Wanner II, IV.6 (L-stable "
      "SDIRK of order 3, gamma = 0.4358665215); embedded b_hat of order 2 is daekit's";
  return t;
}

RungeKuttaTableau dormand_prince5() {
  RungeKuttaTableau t = from_rows(
      "DOPRI5 (Dormand-Prince)",
      {{1.0 / 5},
       {3.0 / 40, 9.0 / 40},
       {44.0 / 45, -56.0 / 15, 32.0 / 9},
       {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
       {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
       {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}},
      {0, 0, 0, 0, 0, 0, 0},
      {35.0 / 384, 0.0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84, 0.0},
      {5179.0 / 57600, 0.0, 7571.0 / 16695, 393.0 / 640, -92097.0 / 339200, 187.0 / 2100, 1.0 / 40},
      {0.0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1.0, 1.0});
  t.order = 5;
  t.stage_order = 1;
  t.embedded_order = 4;
  // The continuous extension of order 4 (Shampine 1986; Hairer-Norsett-Wanner I, II.6, the
  // dense output of DOPRI5): y(theta) = y_n + theta r2 + theta (1 - theta) r3
  // + theta^2 (1 - theta) r4 + theta^2 (1 - theta)^2 r5 with r2 = h sum b_i k_i,
  // r3 = h k_1 - r2, r4 = 2 r2 - h k_1 - h k_7 and r5 = h sum d_i k_i, written as powers of theta.
  const double d[7] = {-12715105075.0 / 11282082432.0,  0.0,
                       87487479700.0 / 32700410799.0,   -10690763975.0 / 1880347072.0,
                       701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0,
                       69997945.0 / 29380423.0};
  t.b_theta.setZero(7, 4);
  for (int i = 0; i < 7; ++i) {
    const double e1 = i == 0 ? 1.0 : 0.0, e7 = i == 6 ? 1.0 : 0.0;
    t.b_theta(i, 0) = e1;
    t.b_theta(i, 1) = 3 * t.b[i] - 2 * e1 - e7 + d[i];
    t.b_theta(i, 2) = -2 * t.b[i] + e1 + e7 - 2 * d[i];
    t.b_theta(i, 3) = d[i];
  }
  t.dense_order = 4;
  t.reference =
      "J.R. Dormand, P.J. Prince, J. Comput. Appl. Math. 6 (1980) 19-26; Hairer-Norsett-Wanner "
      "I, II.5, Table 5.2; the continuous extension: L.F. Shampine, Math. Comp. 46 (1986) "
      "135-150";
  return t;
}

RungeKuttaTableau bogacki_shampine3() {
  RungeKuttaTableau t = from_rows(
      "BS3 (Bogacki-Shampine)", {{0.5}, {0.0, 0.75}, {2.0 / 9, 1.0 / 3, 4.0 / 9}}, {0, 0, 0, 0},
      {2.0 / 9, 1.0 / 3, 4.0 / 9, 0.0}, {7.0 / 24, 0.25, 1.0 / 3, 0.125}, {0.0, 0.5, 0.75, 1.0});
  t.order = 3;
  t.stage_order = 1;
  t.embedded_order = 2;
  t.reference = "P. Bogacki, L.F. Shampine, Appl. Math. Lett. 2 (1989) 321-325";
  return t;
}

RungeKuttaTableau classical_rk4() {
  RungeKuttaTableau t = from_rows("RK4 (Kutta)", {{0.5}, {0.0, 0.5}, {0.0, 0.0, 1.0}}, {0, 0, 0, 0},
                                  {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6}, {}, {0.0, 0.5, 0.5, 1.0});
  t.order = 4;
  t.stage_order = 1;
  t.reference = "W. Kutta (1901); Hairer-Norsett-Wanner I, II.1, Table 1.2";
  return t;
}

RungeKuttaTableau explicit_euler() {
  RungeKuttaTableau t = from_rows("explicit Euler", {}, {0.0}, {1.0}, {}, {0.0});
  t.order = 1;
  t.stage_order = 1;
  t.reference = "Euler (1768)";
  return t;
}

}  // namespace daekit
