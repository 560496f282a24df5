#pragma once
// Which of SimGrid's allreduce algorithms an MPI_Allreduce runs under SMPI.
//
// Under SMPI, MPI_Allreduce is not one algorithm: SimGrid's "collective
// selector" (smpi/coll-selector) picks one per call, by the communicator's
// size and the message's bytes, following the decision rules of the MPI
// library it imitates. SimGrid does not say which it picked, so the rules are
// written out here, as SimGrid 3.32 implements them, for a collectives row to
// name the algorithm its time belongs to (Strategy::path_for). The SMPI
// plumbing test (tests/cli/smpi.sh) checks the port: the same call with the
// named algorithm pinned (smpi/allreduce:NAME) takes the same simulated time.
//
// A selector is "ompi" (Open MPI's tuned component, src/smpi/colls/
// smpi_openmpi_selector.cpp), "mpich" (src/smpi/colls/smpi_mpich_selector.cpp)
// or one of SimGrid's allreduce algorithms, which is then always the choice.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gradsync {

// SimGrid 3.32's allreduce algorithms (smpirun --help-coll), less the
// selectors and "default".
const std::vector<std::string>& smpi_allreduce_algorithms();

// Whether `name` is a selector this suite accepts: ompi, mpich or one of the
// algorithms above.
bool is_smpi_allreduce_selector(std::string_view name);

// The algorithm `selector` picks for `count` elements of `bytes` in all on a
// communicator of `ranks`, with a commutative operation or not.
std::string smpi_allreduce_choice(std::string_view selector, int ranks, std::size_t bytes,
                                  std::size_t count, bool commutative);

}  // namespace gradsync
