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
// Reference for N = 40 at t = 0.2: daekit's bdf at rtol = atol = h0 = 1e-12, checked against
// bdf at 1e-11 and radau5 at 1e-12 (kReference40 below). scd leaves out the tiny inputs U1 of
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
// (daekit's bdf at rtol = atol = h0 = 1e-12, 767504 steps, max_steps raised to 2e6). Checks of
// that run (max |difference| over all 320 components): bdf at 1e-11, 6.4e-11; radau5 at 1e-12
// (the tightest tolerance at which it succeeds: at 1e-13 its Newton iteration fails at
// t = 0.012), 4.1e-10, i.e. scd 8.6 on the scd components (|y| >= 0.17). We claim an absolute
// accuracy of 1e-9 (8 significant digits on the scd components).
constexpr double kReference40[320] = {
    -5.5621450060315747e-03, 3.0065224718747166e+00,  2.8499587885793929e+00,
    2.9264225361952105e+00,  2.7046178649871586e+00,  2.7618377783987529e+00,
    4.7673792242445217e+00,  1.2349892305165366e+00,  5.3479754651904296e-04,
    2.9861949827834855e+00,  2.8365439469609499e+00,  3.2060525756170311e+00,
    2.9793864360522355e+00,  2.8297496592984452e+00,  3.3709242659080370e+00,
    -1.7542967220661498e-01, -8.8978904106660930e-05, 2.9858250873263676e+00,
    2.8361651849926099e+00,  3.2058451147113751e+00,  2.9789996425511753e+00,
    2.8293439773187847e+00,  3.3699838795203236e+00,  -1.7652954351216282e-01,
    -8.9248667472936822e-05, 2.9858238022535737e+00,  2.8361638544028218e+00,
    3.2058447379983837e+00,  2.9789987423565236e+00,  2.8293455943356256e+00,
    3.3701197798940372e+00,  -1.7639341187697691e-01, -8.9190403756217416e-05,
    2.9858238591459685e+00,  2.8361639348977148e+00,  3.2058456416573025e+00,
    2.9789996762400817e+00,  2.8293467242397687e+00,  3.3701301665522228e+00,
    -1.7638261681289585e-01, -8.9186800211134737e-05, 2.9858238648701563e+00,
    2.8361639363439903e+00,  3.2058454709710018e+00,  2.9789995069890209e+00,
    2.8293465131783004e+00,  3.3701279509464612e+00,  -1.7638491917123500e-01,
    -8.9187572397710256e-05, 2.9858238637464658e+00,  2.8361639362804163e+00,
    3.2058455091699187e+00,  2.9789995450150202e+00,  2.8293465506587552e+00,
    3.3701279142940370e+00,  -1.7638494150443310e-01, -8.9187631113408263e-05,
    2.9858238637587480e+00,  2.8361639359238371e+00,  3.2058454983346216e+00,
    2.9789995340392346e+00,  2.8293465462402794e+00,  3.3701282694921235e+00,
    -1.7638458809521998e-01, -8.9187477368161925e-05, 2.9858238639008596e+00,
    2.8361639361374844e+00,  3.2058454998245183e+00,  2.9789995356285832e+00,
    2.8293465450131849e+00,  3.3701281175665025e+00,  -1.7638474052202097e-01,
    -8.9187538750781778e-05, 2.9858238638386294e+00,  2.8361639360832416e+00,
    3.2058455002788300e+00,  2.9789995360555173e+00,  2.8293465458449152e+00,
    3.3701281392737212e+00,  -1.7638471848645024e-01, -8.9187531134067742e-05,
    2.9858238638476449e+00,  2.8361639360807911e+00,  3.2058454999410673e+00,
    2.9789995357171719e+00,  2.8293465457146358e+00,  3.3701281505416163e+00,
    -1.7638470727003100e-01, -8.9187526299959680e-05, 2.9858238638521279e+00,
    2.8361639360871225e+00,  3.2058454999723480e+00,  2.9789995357515324e+00,
    2.8293465456574425e+00,  3.3701281456063219e+00,  -1.7638471222822075e-01,
    -8.9187528207122191e-05, 2.9858238638501571e+00,  2.8361639360862467e+00,
    3.2058455000078072e+00,  2.9789995357865133e+00,  2.8293465456803593e+00,
    3.3701281449498497e+00,  -1.7638471287549015e-01, -8.9187528518852826e-05,
    2.9858238638499008e+00,  2.8361639360856183e+00,  3.2058454999994650e+00,
    2.9789995357777852e+00,  2.8293465456849165e+00,  3.3701281456668188e+00,
    -1.7638471215679158e-01, -8.9187528234307964e-05, 2.9858238638501624e+00,
    2.8361639360857445e+00,  3.2058454999949424e+00,  2.9789995357734154e+00,
    2.8293465456818487e+00,  3.3701281457378371e+00,  -1.7638471208712436e-01,
    -8.9187528201239337e-05, 2.9858238638502006e+00,  2.8361639360858377e+00,
    3.2058454999962684e+00,  2.9789995357747183e+00,  2.8293465456812474e+00,
    3.3701281456350820e+00,  -1.7638471219008273e-01, -8.9187528246134672e-05,
    2.9858238638501824e+00,  2.8361639360858404e+00,  3.2058454999969674e+00,
    2.9789995357753525e+00,  2.8293465456816231e+00,  3.3701281456209320e+00,
    -1.7638471220388904e-01, -8.9187528250914824e-05, 2.9858238638501691e+00,
    2.8361639360858200e+00,  3.2058454999967569e+00,  2.9789995357752086e+00,
    2.8293465456817293e+00,  3.3701281456344252e+00,  -1.7638471219040627e-01,
    -8.9187528244788689e-05, 2.9858238638501717e+00,  2.8361639360858217e+00,
    3.2058454999967401e+00,  2.9789995357751882e+00,  2.8293465456817133e+00,
    3.3701281456347005e+00,  -1.7638471219014645e-01, -8.9187528237237980e-05,
    2.9858238638501402e+00,  2.8361639360857938e+00,  3.2058454999968533e+00,
    2.9789995357752788e+00,  2.8293465456817213e+00,  3.3701281456302250e+00,
    -1.7638471219462673e-01, -8.9187528244338691e-05, 2.9858238638501611e+00,
    2.8361639360858137e+00,  3.2058454999967680e+00,  2.9789995357752694e+00,
    2.8293465456817382e+00,  3.3701281456316505e+00,  -1.7638471219319393e-01,
    -8.9187528247452953e-05, 2.9858238638501797e+00,  2.8361639360858337e+00,
    3.2058454999967942e+00,  2.9789995357753276e+00,  2.8293465456817626e+00,
    3.3701281456298258e+00,  -1.7638471219498211e-01, -8.9187528242997872e-05,
    2.9858238638501553e+00,  2.8361639360858089e+00,  3.2058454999968422e+00,
    2.9789995357752797e+00,  2.8293465456817093e+00,  3.3701281456295495e+00,
    -1.7638471219528803e-01, -8.9187528243006532e-05, 2.9858238638501544e+00,
    2.8361639360858084e+00,  3.2058454999968551e+00,  2.9789995357752894e+00,
    2.8293465456817355e+00,  3.3701281456304555e+00,  -1.7638471219445473e-01,
    -8.9187528243789272e-05, 2.9858238638501593e+00,  2.8361639360858120e+00,
    3.2058454999968200e+00,  2.9789995357752459e+00,  2.8293465456817009e+00,
    3.3701281456308885e+00,  -1.7638471219398241e-01, -8.9187528244125537e-05,
    2.9858238638501615e+00,  2.8361639360858129e+00,  3.2058454999968045e+00,
    2.9789995357752321e+00,  2.8293465456817541e+00,  3.3701281456345589e+00,
    -1.7638471219031829e-01, -8.9187528242639326e-05, 2.9858238638501633e+00,
    2.8361639360858146e+00,  3.2058454999968844e+00,  2.9789995357751877e+00,
    2.8293465456816955e+00,  3.3701281456338363e+00,  -1.7638471219116231e-01,
    -8.9187528240561398e-05, 2.9858238638501517e+00,  2.8361639360858031e+00,
    3.2058454999967583e+00,  2.9789995357752210e+00,  2.8293465456816902e+00,
    3.3701281456316328e+00,  -1.7638471219314111e-01, -8.9187528244935029e-05,
    2.9858238638501668e+00,  2.8361639360858182e+00,  3.2058454999967747e+00,
    2.9789995357752299e+00,  2.8293465456817279e+00,  3.3701281456332635e+00,
    -1.7638471219164489e-01, -8.9187528245731891e-05, 2.9858238638501744e+00,
    2.8361639360858288e+00,  3.2058454999969093e+00,  2.9789995357752490e+00,
    2.8293465456816760e+00,  3.3701281456294998e+00,  -1.7638471219554785e-01,
    -8.9187528243083700e-05, 2.9858238638501544e+00,  2.8361639360858084e+00,
    3.2058454999968746e+00,  2.9789995357752881e+00,  2.8293465456817355e+00,
    3.3701281456305066e+00,  -1.7638471219438073e-01, -8.9187528246951903e-05,
    2.9858238638501731e+00,  2.8361639360858248e+00,  3.2058454999968031e+00,
    2.9789995357752157e+00,  2.8293465456817000e+00,  3.3701281456325356e+00,
    -1.7638471219243290e-01, -8.9187528239505182e-05, 2.9858238638501451e+00,
    2.8361639360857991e+00,  3.2058454999969466e+00,  2.9789995357752463e+00,
    2.8293465456816995e+00,  3.3701281456307397e+00,  -1.7638471219401750e-01,
    -8.9187528244845230e-05, 2.9858238638501651e+00,  2.8361639360858164e+00,
    3.2058454999968364e+00,  2.9789995357751931e+00,  2.8293465456816529e+00,
    3.3701281456311851e+00,  -1.7638471219373683e-01, -8.9187528246913807e-05,
    2.9858238638501748e+00,  2.8361639360858280e+00,  3.2058454999967987e+00,
    2.9789995357752725e+00,  2.8293465456817342e+00,  3.3701281456312238e+00,
    -1.7638471219356672e-01, -8.9187528241954043e-05, 2.9858238638501517e+00,
    2.8361639360858026e+00,  3.2058454999968142e+00,  2.9789995357751611e+00,
    2.8293465456816471e+00,  3.3701281456326009e+00,  -1.7638471219230689e-01,
    -8.9187528246890727e-05, 2.9858238638501766e+00,  2.8361639360858257e+00,
    3.2058454999967751e+00,  2.9789995357751202e+00,  2.8293465456816356e+00,
    3.3701281456341676e+00,  -1.7638471219074256e-01, -8.9187528239804693e-05,
    2.9858238638501491e+00,  2.8361639360858009e+00,  3.2058454999967849e+00,
    2.9789995357752348e+00,  2.8293465456817404e+00,  3.3701281456336329e+00,
    -1.7638471219126076e-01, -8.9187528241765961e-05, 2.9858238638501575e+00,
    2.8361639360858106e+00,  3.2058454999968937e+00,  2.9789995357752272e+00,
    2.8293465456816773e+00,  3.3701281456306402e+00,  -1.7638471219423890e-01,
    -8.9187528246421836e-05, 2.9858238638501717e+00,  2.8361639360858253e+00,
    3.2058454999968560e+00,  2.9789995357752668e+00,  2.8293465456817217e+00,
    3.3705492013660119e+00,  -1.7759909779005129e-01,
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
        "daekit bdf at rtol = atol = h0 = 1e-12 (agrees with bdf at 1e-11 to 6.4e-11 and with "
        "radau5 at 1e-12 to 4.1e-10); bench/large.cpp --circuit-reference";
    p.reference = std::move(ref);
  }
  // plot: the input of stage 0 and the outputs of the first, middle and last stages
  p.plot_components = {0, 7, 8 * (N / 2) + 7, n - 1};
  return p;
}

}  // namespace daekit
