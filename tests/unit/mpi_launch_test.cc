// A launch line in the words of each MPI family: how variables reach the
// ranks, the family's name as GRADSYNC_MPI spells it, and which family this
// build says it has (the one cmake/GradsyncMpi.cmake found in mpi.h).
#include "harness/cli/mpi_launch.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace gradsync {
namespace {

TEST(MpiLaunch, OpenMpiForwardsEachVariableWithDashXAndHydraPassesTheEnvironment) {
  EXPECT_EQ(forward_variables(MpiFamily::openmpi, {"A", "B"}),
            (std::vector<std::string>{"-x", "A", "-x", "B"}));
  EXPECT_TRUE(forward_variables(MpiFamily::mpich, {"A", "B"}).empty());
}

TEST(MpiLaunch, FamiliesAreNamedAsGradsyncMpiNamesThem) {
  EXPECT_EQ(mpi_family_named("openmpi"), MpiFamily::openmpi);
  EXPECT_EQ(mpi_family_named("mpich"), MpiFamily::mpich);
  EXPECT_THROW(mpi_family_named("lam"), std::invalid_argument);
}

TEST(MpiLaunch, TheBuiltFamilyIsTheOneOfTheHeadersCompiledAgainst) {
#if defined(OPEN_MPI)
  EXPECT_EQ(built_mpi_family(), MpiFamily::openmpi);
#elif defined(MPICH_VERSION)
  EXPECT_EQ(built_mpi_family(), MpiFamily::mpich);
#else
  FAIL() << "mpi.h is neither Open MPI's nor of MPICH's family";
#endif
}

}  // namespace
}  // namespace gradsync
