#pragma once
// What the model tests share: the zoo by name, a whole model's gradients
// against finite differences of its loss, and its gradients for a slice of
// a batch.
#include <cmath>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "models/model.h"

namespace gradsync::testing {

inline std::map<std::string, ModelInfo> zoo_by_name() {
  std::map<std::string, ModelInfo> out;
  for (auto& m : model_zoo()) out[m.name] = m;
  return out;
}

struct FiniteDifferenceCheck {
  double worst = 0;  // largest |numeric - analytic| / (|numeric| + |analytic| + 1e-2)
  std::string where;
};

// Backward of one batch against central differences (step 1e-2) of the
// loss, every `stride`-th element of each parameter (from an offset that
// moves with the parameter's index, so that every kind of element is seen).
inline FiniteDifferenceCheck finite_difference_check(Model& model, std::span<const float> input,
                                                     std::span<const int> labels, int batch,
                                                     std::size_t stride) {
  model.forward(input, labels, batch);
  model.backward([](std::size_t) {});
  auto& params = model.parameters();
  std::vector<std::vector<float>> analytic;
  for (auto& p : params) analytic.emplace_back(p.grad.begin(), p.grad.end());
  const double h = 1e-2;
  FiniteDifferenceCheck out;
  for (std::size_t i = 0; i < params.size(); ++i)
    for (std::size_t j = i % stride; j < params[i].value.size(); j += stride) {
      float& v = params[i].value[j];
      const float saved = v;
      v = float(saved + h);
      const double plus = model.forward(input, labels, batch);
      v = float(saved - h);
      const double minus = model.forward(input, labels, batch);
      v = saved;
      const double numeric = (plus - minus) / (2 * h);
      const double err = std::abs(numeric - analytic[i][j]) /
                         (std::abs(numeric) + std::abs(analytic[i][j]) + 1e-2);
      if (err > out.worst) {
        out.worst = err;
        out.where = params[i].name + "[" + std::to_string(j) + "] numeric " +
                    std::to_string(numeric) + " analytic " + std::to_string(analytic[i][j]);
      }
    }
  return out;
}

// Every parameter's gradient after samples first .. first + count - 1 of
// (input, labels), `sample` floats and `labels_per_sample` labels each.
inline std::vector<std::vector<float>> gradients_of_slice(
    Model& model, std::span<const float> input, std::span<const int> labels, std::size_t sample,
    std::size_t labels_per_sample, std::size_t first, int count) {
  model.forward(input.subspan(first * sample, count * sample),
                labels.subspan(first * labels_per_sample, count * labels_per_sample), count);
  model.backward([](std::size_t) {});
  std::vector<std::vector<float>> g;
  for (auto& p : model.parameters()) g.emplace_back(p.grad.begin(), p.grad.end());
  return g;
}

}  // namespace gradsync::testing
