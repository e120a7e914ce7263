// A chain of N transistor amplifiers (ours, built from the IVP Test Set problem TRANSAMP,
// Mazzia & Magherini, release 2.4; Hairer, Lubich & Roche 1989; Hairer-Wanner II, VII.1; see
// transistor_amplifier.cpp for the single stage): stage k = 0 .. N-1 has the 8 node voltages
// y_{8k} .. y_{8k+7} (U1 .. U8 of TRANSAMP) and the equations of TRANSAMP,
//   -C1 (U1' - U2') = I1,  C1 (U1' - U2') = I2,  -C2 U3' = I3,
//   -C3 (U4' - U5') = I4,  C3 (U4' - U5') = I5,  -C4 U6' = I6,
//   -C5 (U7' - U8') = I7,  C5 (U7' - U8') = I8,
// I = the resistive and transistor currents leaving the node (TRANSAMP's f), except that the
// stages are coupled: stage 0 is driven by TRANSAMP's source Ue(t) = 0.1 sin(200 pi t) through
// R0, and the output node U8 of stage k drives the input node U1 of stage k + 1 through a
// coupling resistor Rc (the input resistor R0 of stage k + 1 then goes to ground):
//   I1(stage 0) = (U1 - Ue(t)) / R0,   I1(stage k >= 1) = U1 / R0 + (U1 - U8(stage k-1)) / Rc,
//   I8(stage k < N-1) = U8 / R9 + (U8 - U1(stage k+1)) / Rc,   I8(stage N-1) = U8 / R9.
// Rc = 2 MOhm, so that the signal fades along the chain. A stage amplifies small input swings a
// few hundred-fold (0.004 V in, 1.1 V out) and TRANSAMP's 0.1 V input to its clipped
// [-3.5, 1.3] V; the next input sees the divider R0 / (R0 + Rc). Measured with radau5 at
// rtol = atol = 1e-7 over [0, 0.2]: for Rc <= 0.6 MOhm the output spikes grow along the chain
// to tens of volts (-60 V by stage 8 for Rc = 0.2 MOhm; the transistor model has no
// saturation), with solver failures for 0.3 and 0.4 MOhm; at 1 MOhm the signal decays, but
// the chain still amplifies perturbations (the bdf at rtol = atol = 1e-4 drifted to a wrong
// solution and failed at t = 0.13); at 2 MOhm stage 1 sees a 2 mV input swing (output
// [-0.73, -0.05] V over [0.1, 0.2]) and stages k >= 3 follow their own start-up transient
// (TRANSAMP's y0 is not a steady state), weakly driven by their neighbours.
// n = 8N, index 1 (3N algebraic equations: the sums of the row pairs), constant singular mass
// matrix of rank 5N (block diagonal, sparse). The Jacobian lies in the band (l, u) = (2, 1):
// within a stage U4 and U7 depend on U2, U3 and U5, U6 (lower bandwidth 2), U2, U5 on U3, U6
// (upper 1), and the coupling entries join U8 of stage k and U1 of stage k + 1 (neighbours in
// the numbering). The problem declares the exact sparse pattern (18N - 2 entries) with an
// analytic sparse Jacobian; Sparsity::banded(2, 1) describes it too (banded LU, 4 colours for
// finite differences).
// y0 = TRANSAMP's consistent y0 in every stage (all U1 = U8 = 0, so no coupling current flows).
// Interval [0, 0.2] and tolerances rtol = atol = h0 = 1e-6 as TRANSAMP.
// Reference for N = 40 at t = 0.2: daekit's bdf at rtol = atol = 1e-12, checked against
// dirk at 1e-12 and bdf at 1e-11 (kReference40 below). scd leaves out the tiny inputs U1 of
// stages k >= 1.
#include <cmath>
#include <string>
#include <vector>

#include "daekit/problems/registry.hpp"

namespace daekit {

namespace {
constexpr double Ub = 6.0, UF = 0.026, alpha = 0.99, beta = 1e-6;
constexpr double R0 = 1000.0, R1 = 9000.0, R2 = 9000.0, R3 = 9000.0, R4 = 9000.0, R5 = 9000.0,
                 R6 = 9000.0, R7 = 9000.0, R8 = 9000.0, R9 = 9000.0;
constexpr double C1 = 1e-6, C2 = 2e-6, C3 = 3e-6, C4 = 4e-6, C5 = 5e-6;
constexpr double Rc = 2e6;  // coupling resistor (ours, see above)

double input_voltage(double t) { return 0.1 * std::sin(200.0 * M_PI * t); }

// Reference of circuit_chain(40) at t = 0.2, computed by bench/large.cpp --circuit-reference
// (daekit's bdf at rtol = atol = 1e-12, the problem's h0, 213938 steps). Checks of that run
// (max |difference| over all 320 components, scd on the scd components): dirk at 1e-12, 1.7e-11
// (10.3 digits); bdf at 1e-11, 4.9e-11 (9.6); radau5 at 1e-10, 3.8e-10 (8.7). We claim an
// absolute accuracy of 1e-10 (9.5 significant digits on the scd components, |y| >= 0.17). The
// table before issue 24 (bdf at 1e-12 with h0 = 1e-12) differed from these three runs by
// 1.1e-9 relative (8.95 digits), within the 1e-9 it claimed, too little for rtol = 1e-10.
constexpr double kReference40[320] = {
    -5.5621450123733334e-03, 3.0065224719036161e+00,  2.8499587886087996e+00,
    2.9264225362102616e+00,  2.7046178650154347e+00,  2.7618377783785855e+00,
    4.7673792242468611e+00,  1.2349892305123751e+00,  5.3479754651699002e-04,
    2.9861949827834837e+00,  2.8365439469609459e+00,  3.2060525756162148e+00,
    2.9793864360524811e+00,  2.8297496592986229e+00,  3.3709242659003085e+00,
    -1.7542967220616837e-01, -8.8978904106677031e-05, 2.9858250873263641e+00,
    2.8361651849925980e+00,  3.2058451147104003e+00,  2.9789996425512388e+00,
    2.8293439773189233e+00,  3.3699838795202157e+00,  -1.7652954350395841e-01,
    -8.9248667471341487e-05, 2.9858238022535804e+00,  2.8361638544028200e+00,
    3.2058447379974502e+00,  2.9789987423566719e+00,  2.8293455943360244e+00,
    3.3701197799033147e+00,  -1.7639341185919932e-01, -8.9190403751981113e-05,
    2.9858238591459876e+00,  2.8361639348977308e+00,  3.2058456416565222e+00,
    2.9789996762403437e+00,  2.8293467242401098e+00,  3.3701301665522503e+00,
    -1.7638261680444647e-01, -8.9186800208281456e-05, 2.9858238648701625e+00,
    2.8361639363439970e+00,  3.2058454709703366e+00,  2.9789995069893487e+00,
    2.8293465131785940e+00,  3.3701279509404065e+00,  -1.7638491916896293e-01,
    -8.9187572396838598e-05, 2.9858238637464689e+00,  2.8361639362804221e+00,
    3.2058455091693565e+00,  2.9789995450154252e+00,  2.8293465506591082e+00,
    3.3701279142870062e+00,  -1.7638494150307182e-01, -8.9187631108672251e-05,
    2.9858238637587271e+00,  2.8361639359238113e+00,  3.2058454983337690e+00,
    2.9789995340394495e+00,  2.8293465462406102e+00,  3.3701282694942165e+00,
    -1.7638458808479476e-01, -8.9187477359603071e-05, 2.9858238639008432e+00,
    2.8361639361374658e+00,  3.2058454998237673e+00,  2.9789995356288808e+00,
    2.8293465450135660e+00,  3.3701281175667721e+00,  -1.7638474051330927e-01,
    -8.9187538747147004e-05, 2.9858238638386325e+00,  2.8361639360832447e+00,
    3.2058455002781368e+00,  2.9789995360558654e+00,  2.8293465458452820e+00,
    3.3701281392705589e+00,  -1.7638471848129172e-01, -8.9187531130363999e-05,
    2.9858238638476373e+00,  2.8361639360807813e+00,  3.2058454999402706e+00,
    2.9789995357174361e+00,  2.8293465457149591e+00,  3.3701281505406682e+00,
    -1.7638470726267685e-01, -8.9187526297513368e-05, 2.9858238638521328e+00,
    2.8361639360871269e+00,  3.2058454999716246e+00,  2.9789995357518664e+00,
    2.8293465456577875e+00,  3.3701281456026937e+00,  -1.7638471222341401e-01,
    -8.9187528202264898e-05, 2.9858238638501464e+00,  2.8361639360862361e+00,
    3.2058455000071202e+00,  2.9789995357868966e+00,  2.8293465456808065e+00,
    3.3701281449491294e+00,  -1.7638471286785526e-01, -8.9187528515789047e-05,
    2.9858238638499008e+00,  2.8361639360856126e+00,  3.2058454999985351e+00,
    2.9789995357780219e+00,  2.8293465456852980e+00,  3.3701281456704590e+00,
    -1.7638471214479723e-01, -8.9187528231112211e-05, 2.9858238638501748e+00,
    2.8361639360857565e+00,  3.2058454999942687e+00,  2.9789995357737546e+00,
    2.8293465456822182e+00,  3.3701281457352095e+00,  -1.7638471208123810e-01,
    -8.9187528199179597e-05, 2.9858238638502033e+00,  2.8361639360858382e+00,
    3.2058454999953869e+00,  2.9789995357750452e+00,  2.8293465456816187e+00,
    3.3701281456332333e+00,  -1.7638471218347102e-01, -8.9187528236718769e-05,
    2.9858238638501557e+00,  2.8361639360858151e+00,  3.2058454999962085e+00,
    2.9789995357757650e+00,  2.8293465456819820e+00,  3.3701281456138732e+00,
    -1.7638471220266896e-01, -8.9187528246050023e-05, 2.9858238638501522e+00,
    2.8361639360858071e+00,  3.2058454999961219e+00,  2.9789995357757002e+00,
    2.8293465456821463e+00,  3.3701281456262424e+00,  -1.7638471219028062e-01,
    -8.9187528243532587e-05, 2.9858238638501651e+00,  2.8361639360858137e+00,
    3.2058454999959216e+00,  2.9789995357755252e+00,  2.8293465456820983e+00,
    3.3701281456330809e+00,  -1.7638471218338517e-01, -8.9187528239571319e-05,
    2.9858238638501629e+00,  2.8361639360858115e+00,  3.2058454999959269e+00,
    2.9789995357755097e+00,  2.8293465456820504e+00,  3.3701281456313672e+00,
    -1.7638471218514759e-01, -8.9187528239977244e-05, 2.9858238638501606e+00,
    2.8361639360858089e+00,  3.2058454999959469e+00,  2.9789995357754671e+00,
    2.8293465456819966e+00,  3.3701281456307841e+00,  -1.7638471218578908e-01,
    -8.9187528239288681e-05, 2.9858238638501571e+00,  2.8361639360858075e+00,
    3.2058454999959962e+00,  2.9789995357755452e+00,  2.8293465456820486e+00,
    3.3701281456293497e+00,  -1.7638471218718488e-01, -8.9187528239452653e-05,
    2.9858238638501544e+00,  2.8361639360858040e+00,  3.2058454999959762e+00,
    2.9789995357755208e+00,  2.8293465456820353e+00,  3.3701281456299763e+00,
    -1.7638471218661791e-01, -8.9187528240980388e-05, 2.9858238638501615e+00,
    2.8361639360858093e+00,  3.2058454999959185e+00,  2.9789995357754799e+00,
    2.8293465456820508e+00,  3.3701281456329957e+00,  -1.7638471218355584e-01,
    -8.9187528240502323e-05, 2.9858238638501664e+00,  2.8361639360858146e+00,
    3.2058454999958865e+00,  2.9789995357755035e+00,  2.8293465456820495e+00,
    3.3701281456316505e+00,  -1.7638471218485813e-01, -8.9187528240727715e-05,
    2.9858238638501651e+00,  2.8361639360858142e+00,  3.2058454999959816e+00,
    2.9789995357754973e+00,  2.8293465456820166e+00,  3.3701281456302401e+00,
    -1.7638471218634744e-01, -8.9187528241363085e-05, 2.9858238638501646e+00,
    2.8361639360858137e+00,  3.2058454999959833e+00,  2.9789995357755097e+00,
    2.8293465456820535e+00,  3.3701281456315564e+00,  -1.7638471218502796e-01,
    -8.9187528239985619e-05, 2.9858238638501611e+00,  2.8361639360858097e+00,
    3.2058454999959412e+00,  2.9789995357754808e+00,  2.8293465456819891e+00,
    3.3701281456296575e+00,  -1.7638471218694343e-01, -8.9187528242096493e-05,
    2.9858238638501673e+00,  2.8361639360858182e+00,  3.2058454999959922e+00,
    2.9789995357755670e+00,  2.8293465456820646e+00,  3.3701281456290055e+00,
    -1.7638471218748542e-01, -8.9187528242897597e-05, 2.9858238638501695e+00,
    2.8361639360858195e+00,  3.2058454999959474e+00,  2.9789995357755594e+00,
    2.8293465456820721e+00,  3.3701281456298382e+00,  -1.7638471218668922e-01,
    -8.9187528240496008e-05, 2.9858238638501597e+00,  2.8361639360858089e+00,
    3.2058454999959594e+00,  2.9789995357755155e+00,  2.8293465456820606e+00,
    3.3701281456316177e+00,  -1.7638471218492183e-01, -8.9187528239299401e-05,
    2.9858238638501589e+00,  2.8361639360858084e+00,  3.2058454999959780e+00,
    2.9789995357755261e+00,  2.8293465456820526e+00,  3.3701281456305967e+00,
    -1.7638471218593832e-01, -8.9187528239012683e-05, 2.9858238638501557e+00,
    2.8361639360858062e+00,  3.2058454999959971e+00,  2.9789995357755501e+00,
    2.8293465456820561e+00,  3.3701281456294918e+00,  -1.7638471218704535e-01,
    -8.9187528242409394e-05, 2.9858238638501673e+00,  2.8361639360858160e+00,
    3.2058454999959110e+00,  2.9789995357755026e+00,  2.8293465456820255e+00,
    3.3701281456304306e+00,  -1.7638471218613769e-01, -8.9187528240581063e-05,
    2.9858238638501615e+00,  2.8361639360858106e+00,  3.2058454999959691e+00,
    2.9789995357755030e+00,  2.8293465456820299e+00,  3.3701281456306122e+00,
    -1.7638471218591359e-01, -8.9187528237328118e-05, 2.9858238638501491e+00,
    2.8361639360858013e+00,  3.2058454999960393e+00,  2.9789995357756069e+00,
    2.8293465456820810e+00,  3.3701281456277554e+00,  -1.7638471218877561e-01,
    -8.9187528242740130e-05, 2.9858238638501646e+00,  2.8361639360858129e+00,
    3.2058454999959465e+00,  2.9789995357754835e+00,  2.8293465456820517e+00,
    3.3701281456328305e+00,  -1.7638471218368107e-01, -8.9187528241354655e-05,
    2.9858238638501700e+00,  2.8361639360858182e+00,  3.2058454999959474e+00,
    2.9789995357754746e+00,  2.8293465456820179e+00,  3.3701281456315391e+00,
    -1.7638471218506074e-01, -8.9187528241212259e-05, 2.9858238638501673e+00,
    2.8361639360858177e+00,  3.2058454999959376e+00,  2.9789995357755652e+00,
    2.8293465456820543e+00,  3.3701281456285992e+00,  -1.7638471218796098e-01,
    -8.9187528242031536e-05, 2.9858238638501646e+00,  2.8361639360858151e+00,
    3.2058454999960109e+00,  2.9789995357755403e+00,  2.8293465456820415e+00,
    3.3705492013643257e+00,  -1.7759909778337588e-01,
};

// The entries of the Jacobian of stage k (local rows and columns 0 .. 7, plus the coupling
// entries (0, -1) and (7, 8) to the neighbouring stages).
template <typename F>
void for_each_jacobian_entry(int stages, F&& entry) {
  for (int k = 0; k < stages; ++k) {
    const int o = 8 * k;
    if (k > 0) entry(o, o - 1);
    entry(o, o);
    entry(o + 1, o + 1), entry(o + 1, o + 2);
    entry(o + 2, o + 1), entry(o + 2, o + 2);
    entry(o + 3, o + 1), entry(o + 3, o + 2), entry(o + 3, o + 3);
    entry(o + 4, o + 4), entry(o + 4, o + 5);
    entry(o + 5, o + 4), entry(o + 5, o + 5);
    entry(o + 6, o + 4), entry(o + 6, o + 5), entry(o + 6, o + 6);
    entry(o + 7, o + 7);
    if (k + 1 < stages) entry(o + 7, o + 8);
  }
}

}  // namespace

BuiltinProblem circuit_chain(int stages) {
  if (stages < 1 || stages > 10000000)
    throw InvalidArgument("circuit_chain: the number of stages must lie in [1, 1e7], got " +
                          std::to_string(stages));
  const int N = stages, n = 8 * N;
  BuiltinProblem p;
  p.name = "circuit-chain";
  p.stiff = true;
  p.title = "Chain of " + std::to_string(N) +
            " transistor amplifiers (TRANSAMP stages), index 1, n = " + std::to_string(n) +
            ", t in [0, 0.2]";
  p.description =
      "M y' = f(t, y): N TRANSAMP amplifiers (8 nodes each), the output U8 of stage k driving\n"
      "the input U1 of stage k+1 through Rc = 2 MOhm; stage 0 driven by 0.1 sin(200 pi t).\n"
      "Index 1, constant singular mass matrix (rank 5N), stiff (exponential transistor\n"
      "currents); Jacobian within the band (2, 1), declared as its sparse pattern (KLU).";
  p.source =
      "ours, from the IVP Test Set TRANSAMP (Mazzia & Magherini; Hairer, Lubich & Roche 1989)";
  MassMatrixDae& d = p.dae;
  d.name = p.name;
  d.n = n;

  std::vector<Eigen::Triplet<double, int>> entries;
  entries.reserve(static_cast<size_t>(16) * N);
  for_each_jacobian_entry(N, [&](int i, int j) { entries.emplace_back(i, j, 1.0); });
  SparseMatrix pattern(n, n);
  pattern.setFromTriplets(entries.begin(), entries.end());
  d.jacobian_sparsity = Sparsity::sparse(std::move(pattern));

  entries.clear();
  for (int k = 0; k < N; ++k) {
    const int o = 8 * k;
    auto pair = [&](int i, double C) {  // rows/cols i, i+1: [-C C; C -C]
      entries.emplace_back(i, i, -C);
      entries.emplace_back(i, i + 1, C);
      entries.emplace_back(i + 1, i, C);
      entries.emplace_back(i + 1, i + 1, -C);
    };
    pair(o, C1);
    entries.emplace_back(o + 2, o + 2, -C2);
    pair(o + 3, C3);
    entries.emplace_back(o + 5, o + 5, -C4);
    pair(o + 6, C5);
  }
  SparseMatrix mass(n, n);
  mass.setFromTriplets(entries.begin(), entries.end());
  mass.makeCompressed();
  d.mass_sparse = std::move(mass);
  d.index.assign(static_cast<size_t>(n), 1);

  d.f = [N](double t, VecIn y, VecOut f) {
    for (int k = 0; k < N; ++k) {
      const int o = 8 * k;
      const double* u = y.data() + o;
      double* out = f.data() + o;
      const double g1 = beta * (std::exp((u[1] - u[2]) / UF) - 1.0);
      const double g2 = beta * (std::exp((u[4] - u[5]) / UF) - 1.0);
      out[0] = k == 0 ? (u[0] - input_voltage(t)) / R0 : u[0] / R0 + (u[0] - y[o - 1]) / Rc;
      out[1] = u[1] / R1 + (u[1] - Ub) / R2 + (1.0 - alpha) * g1;
      out[2] = u[2] / R3 - g1;
      out[3] = (u[3] - Ub) / R4 + alpha * g1;
      out[4] = u[4] / R5 + (u[4] - Ub) / R6 + (1.0 - alpha) * g2;
      out[5] = u[5] / R7 - g2;
      out[6] = (u[6] - Ub) / R8 + alpha * g2;
      out[7] = u[7] / R9 + (k + 1 < N ? (u[7] - y[o + 8]) / Rc : 0.0);
    }
  };
  d.sparse_jacobian = [N](double, VecIn y, SparseMatrix& J) {
    for (int k = 0; k < N; ++k) {
      const int o = 8 * k;
      const double* u = y.data() + o;
      const double e1 = beta / UF * std::exp((u[1] - u[2]) / UF);  // dg1/dU2 = -dg1/dU3
      const double e2 = beta / UF * std::exp((u[4] - u[5]) / UF);
      if (k > 0) J.coeffRef(o, o - 1) = -1.0 / Rc;
      J.coeffRef(o, o) = 1.0 / R0 + (k > 0 ? 1.0 / Rc : 0.0);
      J.coeffRef(o + 1, o + 1) = 1.0 / R1 + 1.0 / R2 + (1.0 - alpha) * e1;
      J.coeffRef(o + 1, o + 2) = -(1.0 - alpha) * e1;
      J.coeffRef(o + 2, o + 1) = -e1;
      J.coeffRef(o + 2, o + 2) = 1.0 / R3 + e1;
      J.coeffRef(o + 3, o + 1) = alpha * e1;
      J.coeffRef(o + 3, o + 2) = -alpha * e1;
      J.coeffRef(o + 3, o + 3) = 1.0 / R4;
      J.coeffRef(o + 4, o + 4) = 1.0 / R5 + 1.0 / R6 + (1.0 - alpha) * e2;
      J.coeffRef(o + 4, o + 5) = -(1.0 - alpha) * e2;
      J.coeffRef(o + 5, o + 4) = -e2;
      J.coeffRef(o + 5, o + 5) = 1.0 / R7 + e2;
      J.coeffRef(o + 6, o + 4) = alpha * e2;
      J.coeffRef(o + 6, o + 5) = -alpha * e2;
      J.coeffRef(o + 6, o + 6) = 1.0 / R8;
      J.coeffRef(o + 7, o + 7) = 1.0 / R9 + (k + 1 < N ? 1.0 / Rc : 0.0);
      if (k + 1 < N) J.coeffRef(o + 7, o + 8) = -1.0 / Rc;
    }
  };

  p.t0 = 0.0;
  p.t_end = 0.2;
  p.y0 = Vector(n);
  const double u2 = Ub * R1 / (R1 + R2), u5 = Ub * R5 / (R5 + R6);
  for (int k = 0; k < N; ++k) p.y0.segment(8 * k, 8) << 0.0, u2, u2, Ub, u5, u5, Ub, 0.0;
  p.h0 = 1e-6;
  p.rtol = p.atol = 1e-6;
  // scd: every component but the inputs U1 of stages k >= 1 (about 1e-4 V: the output of the
  // previous stage through the divider R0 / (R0 + Rc), where the absolute tolerance, not the
  // method, sets the relative error)
  for (int i = 0; i < n; ++i)
    if (i % 8 != 0 || i == 0) p.scd_components.push_back(i);
  if (N == 40) {
    ReferenceSolution ref;
    ref.t = 0.2;
    ref.y = Eigen::Map<const Vector>(kReference40, n);
    ref.source =
        "daekit bdf at rtol = atol = 1e-12 (agrees with dirk at 1e-12 to 1.7e-11 and with bdf "
        "at 1e-11 to 4.9e-11); bench/large.cpp --circuit-reference";
    p.reference = std::move(ref);
  }
  // plot: the input of stage 0 and the outputs of the first, middle and last stages
  p.plot_components = {0, 7, 8 * (N / 2) + 7, n - 1};
  return p;
}

}  // namespace daekit
