#include "harness/cli/project_script.h"

#include <fmt/core.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>

namespace gradsync {

std::string find_project_file(const std::string& self, const std::string& relative,
                              const char* env_override) {
  if (const char* chosen = std::getenv(env_override)) return chosen;
  namespace fs = std::filesystem;
  for (fs::path dir = fs::path(self).parent_path(); !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path()) {
    const fs::path file = dir / relative;
    if (fs::exists(file)) return file.string();
  }
  throw std::runtime_error(fmt::format("cannot find {} above {}; set {}", relative, self,
                                       env_override));
}

std::string find_project_script(const std::string& self, const std::string& name,
                                const char* env_override) {
  return find_project_file(self, "scripts/" + name, env_override);
}

}  // namespace gradsync
