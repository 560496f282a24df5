#pragma once
// `gradsync models`: every model of the zoo with its input, classes,
// parameters, trainable tensors, gradient size and forward FLOPs.

#include <CLI/CLI.hpp>
#include <string>

namespace gradsync {

// `gradsync models`; `as_json` is its --json.
CLI::App* add_models_command(CLI::App& app, bool& as_json);

// One line per model under a header: name, input, classes, parameters,
// tensors, gradient MiB, forward GFLOP/sample, description; then a note on
// how FLOPs are counted and the device profiles for emulated compute.
std::string models_listing();

// `gradsync models --json`: one object per model, {"name", "input" [C, H, W],
// "classes", "parameters" (elements), "tensors", "gradients"}, where
// "gradients" lists every trainable tensor in the model's own order (as a
// PyTorch module's parameters() lists them) with its "name", "shape" and
// "elements", and "backward_order" gives their indices in the order backward
// hands their gradients to the synchronizer. What another framework's build of
// the same network (scripts/ddp-reference.py) is checked against.
std::string models_json();

}  // namespace gradsync
