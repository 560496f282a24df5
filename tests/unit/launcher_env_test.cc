// What a rank reads from its launcher's environment: each launcher's own
// words (Open MPI's mpirun, MPICH's Hydra, PMIx, Slurm), in their order, and
// whether the host is oversubscribed.
#include "strategies/core/launcher_env.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace gradsync {
namespace {

// Sets variables for one test and puts back what was there before.
class ScopedEnv {
 public:
  ScopedEnv(std::vector<std::string> names) : names_(std::move(names)) {
    for (const auto& name : names_) {
      const char* value = std::getenv(name.c_str());
      saved_.push_back(value ? std::optional<std::string>(value) : std::nullopt);
      ::unsetenv(name.c_str());
    }
  }
  ~ScopedEnv() {
    for (std::size_t i = 0; i < names_.size(); ++i)
      if (saved_[i])
        ::setenv(names_[i].c_str(), saved_[i]->c_str(), 1);
      else
        ::unsetenv(names_[i].c_str());
  }
  void set(const char* name, const std::string& value) { ::setenv(name, value.c_str(), 1); }

 private:
  std::vector<std::string> names_;
  std::vector<std::optional<std::string>> saved_;
};

TEST(LauncherEnv, TheRankComesFromWhicheverLauncherStartedTheProcess) {
  ScopedEnv env({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"});
  EXPECT_EQ(launcher_rank(), 0);
  env.set("SLURM_PROCID", "4");
  EXPECT_EQ(launcher_rank(), 4);
  env.set("PMI_RANK", "3");  // Hydra's, inside a Slurm job
  EXPECT_EQ(launcher_rank(), 3);
  env.set("OMPI_COMM_WORLD_RANK", "2");
  EXPECT_EQ(launcher_rank(), 2);
}

TEST(LauncherEnv, TheRanksOnThisHostComeFromOpenMpisOrHydrasLauncher) {
  ScopedEnv env({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"});
  EXPECT_EQ(ranks_on_this_host(), 1);
  env.set("MPI_LOCALNRANKS", "5");
  EXPECT_EQ(ranks_on_this_host(), 5);
  env.set("OMPI_COMM_WORLD_LOCAL_SIZE", "3");
  EXPECT_EQ(ranks_on_this_host(), 3);
  env.set("OMPI_COMM_WORLD_LOCAL_SIZE", "0");
  EXPECT_EQ(ranks_on_this_host(), 1);
}

TEST(LauncherEnv, MoreRanksThanUsableCoresIsOversubscribed) {
  ScopedEnv env({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"});
  const int cores = usable_cores();
  ASSERT_GE(cores, 1);
  EXPECT_FALSE(oversubscribed());  // one process alone
  env.set("MPI_LOCALNRANKS", std::to_string(cores));
  EXPECT_FALSE(oversubscribed());
  env.set("MPI_LOCALNRANKS", std::to_string(cores + 1));
  EXPECT_TRUE(oversubscribed());
}

}  // namespace
}  // namespace gradsync
