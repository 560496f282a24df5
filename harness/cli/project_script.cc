#include "harness/cli/project_script.h"

#include <fmt/core.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>

namespace gradsync {

std::string find_project_script(const std::string& self, const std::string& name,
                                const char* env_override) {
  if (const char* chosen = std::getenv(env_override)) return chosen;
  namespace fs = std::filesystem;
  for (fs::path dir = fs::path(self).parent_path(); !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path()) {
    const fs::path script = dir / "scripts" / name;
    if (fs::exists(script)) return script.string();
  }
  throw std::runtime_error(fmt::format("cannot find scripts/{} above {}; set {}", name, self,
                                       env_override));
}

}  // namespace gradsync
