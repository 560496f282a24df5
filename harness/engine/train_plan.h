#pragma once
// What one `gradsync train` run is to do, typed and checked: the training
// loop's settings with every name resolved (compute mode, precision, device
// profile, overlap), the strategy, and where the run's record and trace go.
// The command line builds it once (harness/cli/train_command.h); everything
// after that reads enums, never flag strings. The names below are the only
// spelling of each value: the flags accept them and the record and the
// printed header write them.

#include <optional>
#include <string>
#include <string_view>

#include "harness/engine/timeline.h"
#include "harness/engine/train.h"
#include "models/model.h"
#include "strategies/registry.h"

namespace gradsync {

// One accepted spelling of an enum value.
template <typename T>
struct NamedValue {
  std::string_view name;
  T value;
};

inline constexpr NamedValue<ComputeMode> kComputeModes[] = {
    {"cpu", ComputeMode::cpu}, {"emulated", ComputeMode::emulated}, {"cuda", ComputeMode::cuda}};
inline constexpr NamedValue<Precision> kPrecisions[] = {
    {"fp32", Precision::fp32}, {"tf32", Precision::tf32}, {"mixed", Precision::mixed}};
inline constexpr NamedValue<bool> kOnOff[] = {{"on", true}, {"off", false}};
inline constexpr NamedValue<SyncOrder> kSyncOrders[] = {{"arrival", SyncOrder::arrival},
                                                        {"forward", SyncOrder::forward}};
inline constexpr NamedValue<UpdateRule> kUpdateRules[] = {{"sgd", UpdateRule::sgd},
                                                          {"adamw", UpdateRule::adamw}};

const char* to_string(ComputeMode compute);
const char* to_string(Precision precision);
const char* on_off(bool on);
const char* to_string(SyncOrder order);
const char* to_string(UpdateRule rule);

// The mode that one of kComputeModes' names stands for (nothing for any other
// name), and those names as a sentence ("cpu, emulated or cuda"), for
// commands that pass the name on.
std::optional<ComputeMode> find_compute_mode(std::string_view name);
std::string compute_modes_text();

struct TrainPlan {
  // Resolved: model_options.compute; model_options.precision (fp32 unless
  // cuda compute chose another); model_options.profile (emulated compute);
  // sync.overlap. The model name is a known one.
  TrainSettings settings;
  // The strategy's table entry, resolved once from --strategy (usable here);
  // everything after the command line takes it from here.
  const StrategyInfo* strategy = nullptr;
  std::string results_path;   // results file (JSON Lines); empty: none
  std::string timeline_path;  // Chrome trace file (its directory exists); empty: no tracing
  int timeline_steps = 0;  // 0: trace every step, warm-up included; N: the first N after warm-up

  // Which steps the timeline traces.
  TimelineWindow timeline_window() const;
};

// Checks `train --time-scale`: at least 1, and 1 unless compute is emulated
// (real compute, cpu or cuda, runs at its hardware's speed and cannot be
// slowed faithfully). Throws std::invalid_argument saying why.
void check_time_scale(double time_scale, ComputeMode compute);

// What emulated compute should give one worker: the forced rate, else the
// profile's FLOP/s over forward + backward (3 x forward) FLOPs per image.
double implied_img_per_sec(const TrainSettings& settings);

}  // namespace gradsync
