#include "harness/cli/models_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <vector>

#include "models/model.h"
#include "models/zoo.h"

namespace gradsync {

std::string models_listing() {
  using Line = std::array<std::string, 8>;
  std::vector<Line> lines = {{"name", "input", "classes", "parameters", "tensors", "gradient MiB",
                              "GFLOP/sample", "description"}};
  for (const auto& m : model_zoo()) {
    lines.push_back({m.name,
                     m.sequence_length > 0
                         ? fmt::format("{} tokens", m.sequence_length)
                         : fmt::format("{}x{}x{}", m.input.channels, m.input.height, m.input.width),
                     fmt::format("{}", m.classes), fmt::format("{}", m.parameters),
                     fmt::format("{}", m.tensors),
                     fmt::format("{:.1f}", double(m.parameters) * sizeof(float) / (1 << 20)),
                     fmt::format("{:.3f}", m.forward_flops_per_sample / 1e9), m.description});
  }
  std::array<std::size_t, 8> widths{};
  for (const auto& line : lines)
    for (std::size_t c = 0; c < widths.size(); ++c) widths[c] = std::max(widths[c], line[c].size());
  std::string out;
  for (const auto& line : lines)
    out += fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {:>{}}  {}\n", line[0],
                       widths[0], line[1], widths[1], line[2], widths[2], line[3], widths[3],
                       line[4], widths[4], line[5], widths[5], line[6], widths[6], line[7]);
  out +=
      "\nGFLOP/sample: forward, 2 FLOPs per multiply-add of convolution, linear and attention "
      "matrix products (other layers not counted); backward is taken as 2x forward. Token "
      "models (their input in tokens) at their default sequence length, which train --seq-len "
      "changes; classes are their vocabulary.\n";
  out += "Device profiles for --compute emulated:\n";
  for (const auto& p : device_profiles())
    out += fmt::format("  {:<5} {:>6.1f} TFLOP/s  {}\n        {:>6.1f} TFLOP/s  transformers: {}\n",
                       p.name, p.flops_per_second / 1e12, p.source,
                       p.transformer_flops_per_second / 1e12, p.transformer_source);
  return out;
}

std::string models_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const ZooEntry& entry : zoo_table()) {
    const Graph graph = build_zoo_graph(entry.name, 0);
    nlohmann::json gradients = nlohmann::json::array();
    for (const GraphParam& p : graph.params())
      gradients.push_back({{"name", p.name}, {"shape", p.shape}, {"elements", p.elements()}});
    const ImageShape in = graph.input();
    out.push_back({{"name", entry.name},
                   {"input", {in.channels, in.height, in.width}},
                   {"classes", graph.classes()},
                   {"task", to_string(graph.task())},
                   {"sequence_length", entry.sequence_length},
                   {"parameters", graph.parameter_elements()},
                   {"tensors", graph.params().size()},
                   {"gradients", std::move(gradients)},
                   {"backward_order", graph.backward_order()}});
  }
  return out.dump() + "\n";
}

CLI::App* add_models_command(CLI::App& app, bool& as_json) {
  auto* cmd = app.add_subcommand(
      "models", "List every model with its size and cost, and the emulated device profiles");
  cmd->add_flag("--json", as_json,
                "every model as JSON, with each gradient tensor's name and shape in the "
                "model's order and the order backward hands them over");
  return cmd;
}

}  // namespace gradsync
