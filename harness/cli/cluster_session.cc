#include "harness/cli/cluster_session.h"

#include <fmt/core.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "harness/cli/child_process.h"
#include "harness/cli/project_script.h"
#include "harness/engine/cluster.h"

namespace gradsync {
namespace {

// Names made by a sweep's cluster start with this, a user's with "gs".
constexpr const char* kPrefix = "gsw";

std::string last_line(const std::string& log) {
  std::ifstream in(log);
  std::string last;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) last = line;
  return last.empty() ? "see " + log : last;
}

// The check's result as one line, from the cluster description it wrote.
std::string check_summary(const std::string& state_dir) {
  ClusterDescription cluster;
  try {
    cluster = read_cluster_file((std::filesystem::path(state_dir) / "cluster.json").string());
  } catch (const std::invalid_argument& e) {
    return std::string("links not checked: ") + e.what();
  }
  if (!cluster.check || cluster.check->links.empty()) return "links not checked";
  double lowest = 1e300, highest = 0;
  for (const LinkCheckResult& link : cluster.check->links) {
    lowest = std::min(lowest, link.ratio);
    highest = std::max(highest, link.ratio);
  }
  return fmt::format("links {:.0f}-{:.0f}% of {}{}", 100 * lowest, 100 * highest, cluster.rate,
                     cluster.check->faithful ? "" : " (more than 10% short: records are flagged)");
}

}  // namespace

ClusterSession::ClusterSession(const ClusterSpec& spec, const std::string& self, std::string log)
    : script_(find_project_script(self, "cluster.sh", "GRADSYNC_CLUSTER_SCRIPT")),
      log_(std::move(log)),
      state_dir_(fmt::format("/run/gradsync-sweep-{}", ::getpid())) {
  // The runs (cluster.sh mpirun) find the cluster through this variable.
  ::setenv("GRADSYNC_CLUSTER_DIR", state_dir_.c_str(), 1);
  std::vector<std::string> up = {"bash",    script_, "up",          "--prefix", kPrefix,
                                 "--hosts", std::to_string(spec.hosts), "--slots",
                                 std::to_string(spec.slots), "--rate", spec.rate};
  if (!spec.delay.empty()) up.insert(up.end(), {"--delay", spec.delay});
  if (spec.mtu) up.insert(up.end(), {"--mtu", std::to_string(spec.mtu)});
  if (run_logged(up, log_) != 0) {
    const std::string why = last_line(log_);
    run_logged({"bash", script_, "down", "--prefix", kPrefix}, log_, /*append=*/true, OnStop::finish);
    throw std::runtime_error(fmt::format("--cluster: cannot bring up {}: {}", describe(spec), why));
  }
  // A failed check is not fatal: its result is in every record, flagged.
  run_logged({"bash", script_, "check"}, log_, /*append=*/true);
  summary_ = check_summary(state_dir_);
}

ClusterSession::~ClusterSession() {
  if (run_logged({"bash", script_, "down", "--prefix", kPrefix}, log_, /*append=*/true,
                 OnStop::finish) != 0)
    fmt::print(stderr, "gradsync: the sweep's cluster did not come down cleanly; run `{} down "
                       "--prefix {}` (see {})\n", script_, kPrefix, log_);
  std::error_code ignored;
  std::filesystem::remove(state_dir_, ignored);  // down removed its files; the folder is ours
  ::unsetenv("GRADSYNC_CLUSTER_DIR");
}

std::vector<std::string> ClusterSession::launcher() const {
  return {"bash", script_, "mpirun"};
}

}  // namespace gradsync
