#include "harness/results/workload.h"

#include <fmt/format.h>

#include "harness/results/cluster_record.h"
#include "harness/results/input_text.h"
#include "harness/sim/json_whole.h"

namespace gradsync {

std::string Workload::model_label() const {
  return sequence_length > 0 ? fmt::format("{} T{}", model, sequence_length) : model;
}

std::string Workload::label() const {
  return fmt::format("{} {} b{}{}", model_label(), compute, batch,
                     setup.empty() ? "" : " [" + setup + "]");
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

InputSpec input_of(const nlohmann::json& train_record) {
  const auto input = train_record.find("input");
  if (input == train_record.end() || input->is_null()) return {};
  InputSpec spec = parse_input(input->at("spec").get<std::string>());
  spec.threads = whole_number(input->at("threads"));
  spec.prefetch = whole_number(input->at("prefetch"));
  return spec;
}

std::string optimizer_of(const nlohmann::json& train_record) {
  return train_record.value("optimizer", std::string("sgd"));
}

Workload workload_of(const nlohmann::json& train_record) {
  std::string setup = setup_of(train_record);
  // A slow worker (train --straggler) is part of what the run stands for.
  const auto straggler = train_record.find("straggler");
  if (straggler != train_record.end() && !straggler->is_null())
    setup +=
        fmt::format("{}worker {} x{:.6g} slower", setup.empty() ? "" : ", ",
                    whole_number(straggler->at("rank")), straggler->at("factor").get<double>());
  // So is an input stage (train --input): "input decode:2ms x1 thread prefetch 2".
  if (const std::string input = input_label(input_of(train_record)); !input.empty())
    setup += (setup.empty() ? "" : ", ") + input;
  // So is an optimizer other than SGD (its state is another size): "adamw".
  if (const std::string rule = optimizer_of(train_record); rule != "sgd")
    setup += (setup.empty() ? "" : ", ") + rule;
  const auto length = train_record.find("sequence_length");
  return {train_record.at("model").get<std::string>(), compute_mode(train_record),
          whole_number(train_record.at("batch_size")), setup,
          length == train_record.end() ? 0 : whole_number(*length)};
}

}  // namespace gradsync
