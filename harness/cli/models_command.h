#pragma once
// `gradsync models`: every model of the zoo with its input, classes,
// parameters, trainable tensors, gradient size and forward FLOPs.

#include <string>

namespace gradsync {

// One line per model under a header: name, input, classes, parameters,
// tensors, gradient MiB, forward GFLOP/sample, description; then a note on
// how FLOPs are counted and the device profiles for emulated compute.
std::string models_listing();

}  // namespace gradsync
