// Gradients as slices of one block (models/gradient_block.h): the layout
// follows the given order, bad orders are refused, and every host model
// (cpu and emulated compute) lays its gradients out back to back in exactly
// the order its backward hands them over, which is what lets the
// synchronizer reduce a fusion bucket where it lies.
#include "models/gradient_block.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "models/model.h"

namespace gradsync {
namespace {

std::vector<Parameter> sized(const std::vector<std::size_t>& sizes) {
  std::vector<Parameter> params;
  for (std::size_t n : sizes) params.push_back({"p", {int(n)}, std::vector<float>(n, 1.0f), {}});
  return params;
}

TEST(GradientBlock, SlicesFollowTheOrderBackToBack) {
  std::vector<Parameter> params = sized({3, 0, 5, 2});
  const std::vector<std::size_t> order = {2, 3, 1, 0};
  const std::vector<float> block = allocate_gradients(params, order);
  ASSERT_EQ(block.size(), 10u);
  EXPECT_EQ(params[2].grad.data(), block.data());
  EXPECT_EQ(params[3].grad.data(), block.data() + 5);
  EXPECT_EQ(params[0].grad.data(), block.data() + 7);
  for (const Parameter& p : params) {
    EXPECT_EQ(p.grad.size(), p.value.size());
    for (float g : p.grad) EXPECT_EQ(g, 0.0f);
  }
  EXPECT_EQ(gradient_offsets(std::vector<std::size_t>{3, 0, 5, 2}, order),
            (std::vector<std::size_t>{7, 7, 0, 5}));
}

TEST(GradientBlock, WithoutAnOrderFollowsTheParameters) {
  std::vector<Parameter> params = sized({4, 1});
  const std::vector<float> block = allocate_gradients(params);
  EXPECT_EQ(params[0].grad.data(), block.data());
  EXPECT_EQ(params[1].grad.data(), block.data() + 4);
}

TEST(GradientBlock, RefusesAnOrderThatIsNotAPermutation) {
  std::vector<Parameter> params = sized({1, 2, 3});
  for (const std::vector<std::size_t>& bad :
       {std::vector<std::size_t>{0, 1}, std::vector<std::size_t>{0, 1, 1},
        std::vector<std::size_t>{0, 1, 3}}) {
    try {
      allocate_gradients(params, bad);
      ADD_FAILURE() << "no exception for an order of " << bad.size();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("gradient layout"), std::string::npos) << e.what();
    }
  }
}

// Backward's hand-over order, and that the gradients lie back to back in it.
void expect_bucket_views(Model& model, int batch) {
  const std::vector<float> input(std::size_t(batch) * model.input_shape().elements(), 0.5f);
  model.forward(input, std::vector<int>(batch, 1), batch);
  std::vector<std::size_t> order;
  model.backward([&](std::size_t i) { order.push_back(i); });
  std::vector<Parameter>& params = model.parameters();
  ASSERT_EQ(order.size(), params.size()) << model.name();
  const float* next = params[order.front()].grad.data();
  for (std::size_t i : order) {
    ASSERT_EQ(params[i].grad.data(), next) << model.name() << ": " << params[i].name;
    next += params[i].grad.size();
  }
}

TEST(GradientBlock, HostModelsLayGradientsOutInBackwardOrder) {
  for (const char* name : {"small-cnn", "resnet50", "inception3"}) {
    ModelOptions emulated;
    emulated.compute = ComputeMode::emulated;
    emulated.emulate_img_per_sec = 1e6;
    auto model = make_model(name, emulated);
    expect_bucket_views(*model, 1);
  }
  auto cpu = make_model("small-cnn", {});
  expect_bucket_views(*cpu, 2);
}

}  // namespace
}  // namespace gradsync
