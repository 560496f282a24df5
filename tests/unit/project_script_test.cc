// Finding the project's scripts from the gradsync binary: the sweep starts
// every run through scripts/mpirun.sh and its cluster through
// scripts/cluster.sh, wherever the build folder is.
#include "harness/cli/project_script.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace gradsync {
namespace {

namespace fs = std::filesystem;

// A checkout in a fresh temporary folder: scripts/mpirun.sh and an empty
// build/bin/gradsync two levels below it.
struct Checkout {
  fs::path root = fs::temp_directory_path() / ("gradsync-script-test-" + std::to_string(::getpid()));
  Checkout() {
    fs::create_directories(root / "scripts");
    fs::create_directories(root / "out" / "build" / "bin");
    std::ofstream(root / "scripts" / "mpirun.sh") << "#!/bin/sh\n";
  }
  ~Checkout() { fs::remove_all(root); }
  std::string binary() const { return (root / "out" / "build" / "bin" / "gradsync").string(); }
};

TEST(ProjectScript, FoundInTheFirstFolderAboveTheBinaryThatHasIt) {
  Checkout checkout;
  ::unsetenv("GRADSYNC_TEST_SCRIPT");
  EXPECT_EQ(find_project_script(checkout.binary(), "mpirun.sh", "GRADSYNC_TEST_SCRIPT"),
            (checkout.root / "scripts" / "mpirun.sh").string());
}

TEST(ProjectScript, TheVariableWinsOverTheCheckout) {
  Checkout checkout;
  ::setenv("GRADSYNC_TEST_SCRIPT", "/elsewhere/mpirun.sh", 1);
  EXPECT_EQ(find_project_script(checkout.binary(), "mpirun.sh", "GRADSYNC_TEST_SCRIPT"),
            "/elsewhere/mpirun.sh");
  ::unsetenv("GRADSYNC_TEST_SCRIPT");
}

TEST(ProjectScript, AMissingScriptNamesItAndTheVariable) {
  Checkout checkout;
  ::unsetenv("GRADSYNC_TEST_SCRIPT");
  try {
    find_project_script(checkout.binary(), "cluster.sh", "GRADSYNC_TEST_SCRIPT");
    FAIL() << "no scripts/cluster.sh exists, yet one was found";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("scripts/cluster.sh"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("GRADSYNC_TEST_SCRIPT"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gradsync
