#include "harness/results/workload.h"

#include <fmt/format.h>

#include "harness/results/cluster_record.h"

namespace gradsync {

std::string Workload::label() const {
  return fmt::format("{} {} b{}{}", model, compute, batch, setup.empty() ? "" : " [" + setup + "]");
}

std::string compute_mode(const nlohmann::json& train_record) {
  std::string mode = train_record.at("compute").get<std::string>();
  const auto precision = train_record.find("precision");
  if (precision != train_record.end() && precision->is_string()) {
    mode += '-';
    mode += precision->get<std::string>();
  }
  return mode;
}

Workload workload_of(const nlohmann::json& train_record) {
  return {train_record.at("model").get<std::string>(), compute_mode(train_record),
          train_record.at("batch_size").get<int>(), setup_of(train_record)};
}

}  // namespace gradsync
