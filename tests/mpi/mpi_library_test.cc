// The record's mpi_library names the MPI library this binary runs on: the
// first line of MPI_Get_library_version read here at run time, the line
// FindMPI's own program printed when the build was configured
// (cmake/GradsyncMpi.cmake), and a library of the family the build recorded
// (GRADSYNC_MPI=openmpi|mpich), so that mpi-allreduce's figures always say
// whose MPI_Allreduce they measured.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "generated/mpi_build.h"
#include "harness/results/run_context.h"

namespace gradsync {
namespace {

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

std::string record_field() {
  World world;
  return to_json(collect_run_context(world, {}, {}))["mpi_library"].get<std::string>();
}

TEST(MpiLibrary, TheRecordHoldsTheFirstLineOfTheLibrarysVersion) {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  ASSERT_EQ(MPI_Get_library_version(text, &len), MPI_SUCCESS);
  const std::string all(text, strnlen(text, len));
  const std::string field = record_field();
  ASSERT_FALSE(field.empty());
  EXPECT_EQ(field.find_first_of("\r\n\t"), std::string::npos) << field;
  EXPECT_EQ(words(field), words(all.substr(0, all.find_first_of("\r\n")))) << all;
}

TEST(MpiLibrary, TheRecordNamesTheLibraryTheBuildWasConfiguredWith) {
  const std::string field = record_field();
  EXPECT_EQ(field, GRADSYNC_MPI_CONFIGURED_VERSION);
  const std::string family = GRADSYNC_MPI_FAMILY;
  if (family == "openmpi") {
    EXPECT_EQ(field.rfind("Open MPI", 0), 0u) << field;
  } else {
    ASSERT_EQ(family, "mpich");
    bool known = false;
    for (const char* name : {"MPICH", "MVAPICH", "Intel(R) MPI"})
      known = known || field.find(name) != std::string::npos;
    EXPECT_TRUE(known) << field << " is not a library of MPICH's family";
  }
}

}  // namespace
}  // namespace gradsync
