#pragma once
// A sweep's own emulated cluster: scripts/cluster.sh brings it up (and
// measures its links with `check`) when the session starts, every run is
// launched through `cluster.sh mpirun`, and the cluster is taken down when
// the session ends, whether the sweep finished, failed or was stopped.
// The cluster gets a prefix and a state directory of its own, so that a
// cluster the user brought up by hand is never touched.

#include <string>
#include <vector>

#include "harness/cli/cluster_spec.h"

namespace gradsync {

class ClusterSession {
 public:
  // Brings the cluster up; `self` is the gradsync binary (scripts/ is found
  // next to its build tree), `log` collects the script's output. Throws with
  // the script's own error line when it cannot.
  ClusterSession(const ClusterSpec& spec, const std::string& self, std::string log);
  ~ClusterSession();
  ClusterSession(const ClusterSession&) = delete;
  ClusterSession& operator=(const ClusterSession&) = delete;

  // The command line that starts ranks on the cluster, host by host;
  // mpirun's options (-np N ...) and the command follow it.
  std::vector<std::string> launcher() const;
  // One line on the links, from the check: e.g. "links 96-99% of 1gbit".
  const std::string& summary() const { return summary_; }

 private:
  std::string script_, log_, state_dir_;
  std::string summary_;
};

}  // namespace gradsync
