// The engine's constants of Radau IIA with s = 1, 3, 5 and 7 stages (radau5: s = 3; the
// variable-order radau: all four) from tables, instead of computing them at the start of every
// solve: IrkConstants::make(radau_iia(s)) finds the nodes as roots, solves for A and b, and
// block-diagonalises A^{-1} with Eigen's eigensolver, 100-200 KB of code run once per solve,
// mostly cold (on a one-solve command it was 0.13 ms of Akzo's 0.28 ms, 2026-11-27,
// docs/results/small-problem-speed.md). The tables hold what make() computes, to the bit
// (hexadecimal literals; tests/test_radau5.cpp compares them with make()). Internal header.
#pragma once

#include "methods/irk_engine.hpp"

namespace daekit {

/// The constants of Radau IIA(s) for s = 1, 3, 5 or 7 (InvalidArgument otherwise).
IrkConstants radau_iia_constants(int s);

}  // namespace daekit
