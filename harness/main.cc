// gradsync: one binary, one subcommand per job. Errors anywhere become one
// line on stderr and a non-zero exit (the whole MPI job is ended, so that no
// rank is left waiting for one that gave up).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <exception>

#include "registry.h"
#include "world.h"

int main(int argc, char** argv) {
  gradsync::MpiSession mpi(&argc, &argv);
  CLI::App app{"gradsync: how gradient synchronization costs and scales"};
  app.require_subcommand(1);
  auto* strategies = app.add_subcommand("strategies", "List every strategy and whether it is usable here");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (*strategies) {
      for (const auto& info : gradsync::strategy_table()) {
        auto a = info.availability();
        fmt::print("{:<14} {:<8} {}\n", info.name, a.usable ? "usable" : "unusable", a.detail);
      }
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "gradsync: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
