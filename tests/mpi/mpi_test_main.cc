// main() for the multi-rank GoogleTest binary: MPI is initialized once for all
// tests, only rank 0 prints, and the exit status is failure when any rank had
// a failure (so that mpirun, and CTest, see it).
#include <gtest/gtest.h>

#include "strategies/core/world.h"

int main(int argc, char** argv) {
  gradsync::MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any_failed;
}
