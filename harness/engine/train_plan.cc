#include "harness/engine/train_plan.h"

#include <fmt/format.h>

#include <iterator>
#include <stdexcept>

namespace gradsync {
namespace {

template <typename T, std::size_t N>
const char* name_in(const NamedValue<T> (&names)[N], T value) {
  for (const auto& entry : names)
    if (entry.value == value) return entry.name.data();
  return "?";  // unreachable: every enumerator has its entry
}

}  // namespace

const char* to_string(ComputeMode compute) { return name_in(kComputeModes, compute); }
const char* to_string(Precision precision) { return name_in(kPrecisions, precision); }
const char* on_off(bool on) { return name_in(kOnOff, on); }
const char* to_string(SyncOrder order) { return name_in(kSyncOrders, order); }
const char* to_string(UpdateRule rule) { return name_in(kUpdateRules, rule); }

std::optional<ComputeMode> find_compute_mode(std::string_view name) {
  for (const auto& entry : kComputeModes)
    if (entry.name == name) return entry.value;
  return std::nullopt;
}

std::string compute_modes_text() {
  std::string text;
  const std::size_t n = std::size(kComputeModes);
  for (std::size_t i = 0; i < n; ++i)
    text += (i == 0 ? "" : i + 1 == n ? " or " : ", ") + std::string(kComputeModes[i].name);
  return text;
}

TimelineWindow TrainPlan::timeline_window() const {
  if (timeline_steps == 0) return {};
  return {.first_step = settings.warmup_batches, .steps = timeline_steps};
}

void check_time_scale(double time_scale, ComputeMode compute) {
  if (!(time_scale >= 1))
    throw std::invalid_argument(
        fmt::format("{} is less than 1 (compute can only be slowed)", time_scale));
  if (time_scale != 1 && compute != ComputeMode::emulated)
    throw std::invalid_argument(
        fmt::format("{} needs emulated compute: {} compute is real and cannot be slowed faithfully",
                    time_scale, to_string(compute)));
}

double implied_img_per_sec(const TrainSettings& s) {
  const ModelOptions& m = s.model_options;
  if (m.emulate_img_per_sec > 0) return m.emulate_img_per_sec;
  return m.profile.flops_per_second / (3 * describe_model(s.model).forward_flops_per_sample);
}

}  // namespace gradsync
