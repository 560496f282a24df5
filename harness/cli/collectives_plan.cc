#include "harness/cli/collectives_plan.h"

#include <algorithm>
#include <stdexcept>

#include "gpu/probe.h"
#include "harness/engine/collectives.h"
#include "harness/engine/memory_budget.h"
#include "harness/results/size_parse.h"
#include "strategies/core/engine.h"
#include "strategies/core/launcher_env.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

constexpr std::uint64_t kElementBytes = sizeof(float);
constexpr std::size_t kMaxSizes = 10000;

void check_arguments(const CollectivesOptions& options) {
  if (options.datatype != kBenchDatatype)
    throw std::invalid_argument("-d/--datatype '" + options.datatype +
                                "' is not supported: the only datatype is float");
  if (options.op != kBenchOp)
    throw std::invalid_argument("-o/--op '" + options.op +
                                "' is not supported: the only reduction is sum");
  for (auto [flag, bytes] : {std::pair{"-b/--minbytes", options.min_bytes},
                             std::pair{"-e/--maxbytes", options.max_bytes},
                             std::pair{"-i/--stepbytes", options.step_bytes}})
    if (std::string why = not_whole_floats(bytes, std::to_string(bytes) + " B"); !why.empty())
      throw std::invalid_argument(std::string(flag) + " " + why);
  if (options.min_bytes > options.max_bytes)
    throw std::invalid_argument("-b/--minbytes " + format_size(options.min_bytes) +
                                " is larger than -e/--maxbytes " + format_size(options.max_bytes));
  if (options.step_factor < 1) throw std::invalid_argument("-f/--stepfactor must be at least 1");
  if (options.step_factor == 1 && options.step_bytes == 0 && options.min_bytes < options.max_bytes)
    throw std::invalid_argument("-i/--stepbytes must be above 0 (or give -f/--stepfactor above 1)");
  if (options.iters < 1) throw std::invalid_argument("-n/--iters must be at least 1");
  if (options.warmup_iters < 0)
    throw std::invalid_argument("-w/--warmup_iters must not be negative");
  if (options.check_passes < 0) throw std::invalid_argument("-c/--check must not be negative");
  if (options.memory != "auto" && options.memory != "host" && options.memory != "device")
    throw std::invalid_argument("--memory '" + options.memory +
                                "' is not one of auto, host, device");
}

// What collectives holds in host memory per rank at its largest size: the
// benchmark's buffer (engine/collectives.cc keeps it in host memory even when
// the strategy reduces a device copy, for the correctness pass), and, when a
// host strategy runs on device buffers, the staging decorator's pinned host
// copy. Strategies run one after another, so one staging copy at a time.
// A strategy's own scratch (ring and tree windows of a segment, MPI's
// temporaries, a ps-zmq shard's sums) is not counted: the need is a floor,
// and a run refused for it certainly could not run. Device memory is the
// GPU's, not checked here.
void check_host_memory(const CollectivesPlan& plan) {
  if (plan.sizes.empty()) return;
  const std::uint64_t largest = *std::max_element(plan.sizes.begin(), plan.sizes.end());
  bool staged_on_host = false;
  for (std::size_t i = 0; i < plan.strategies.size(); ++i)
    staged_on_host |= plan.memory[i] == MemoryKind::device &&
                      plan.strategies[i]->memory == MemoryKind::host;
  // The ranks on this host are not known before MPI has placed them:
  // ranks_on_this_host() reads the launcher's count, else 1.
  check_fits_in_memory({largest, staged_on_host ? 2 : 1, ranks_on_this_host()},
                       "collectives -e/--maxbytes " + format_size(largest));
}

}  // namespace

std::vector<std::uint64_t> message_sizes(const CollectivesOptions& options) {
  std::vector<std::uint64_t> sizes;
  std::uint64_t size = options.min_bytes;
  while (size <= options.max_bytes) {
    sizes.push_back(size);
    if (sizes.size() > kMaxSizes)
      throw std::invalid_argument("more than " + std::to_string(kMaxSizes) +
                                  " message sizes from -b to -e: use a larger -f/--stepfactor or "
                                  "-i/--stepbytes");
    if (options.step_factor > 1) {
      if (size > UINT64_MAX / options.step_factor) break;
      size = size == 0 ? kElementBytes : size * options.step_factor;
    } else {
      if (options.step_bytes == 0 || size > UINT64_MAX - options.step_bytes) break;
      size += options.step_bytes;
    }
  }
  return sizes;
}

namespace {

// The simulated engine's settings: refused natively (one line, instead of a
// run that silently ignores them), and shared buffers never checked.
void check_engine_settings(const CollectivesOptions& options) {
  const EngineInfo engine = engine_info();
  if ((options.shared_buffers || options.reduce_bytes_per_s > 0) && !engine.simulated)
    throw std::invalid_argument(
        "--shared-buffers and --reduce-rate apply under SMPI only (gradsync collectives --engine "
        "smpi); this binary runs on the " + engine.name + " engine");
  if (options.selector != "ompi" && options.engine == "native" && !engine.simulated)
    throw std::invalid_argument("--selector applies under SMPI only (gradsync collectives --engine smpi)");
  if (options.engine == "native" && (!options.cluster_file.empty() || options.workers > 0))
    throw std::invalid_argument(
        "--cluster and --workers describe a simulated job: give --engine smpi or model");
  if (options.reduce_bytes_per_s < 0)
    throw std::invalid_argument("--reduce-rate must be 0 (free) or a positive number of bytes per second");
  if (options.shared_buffers && options.check_passes > 0)
    throw std::invalid_argument(
        "--shared-buffers: shared buffers hold no real data, so nothing can be checked; give -c 0 "
        "(check at a small rank count without --shared-buffers)");
}

}  // namespace

void check_simulated_job(const CollectivesOptions& options) {
  if (options.cluster_file.empty() || options.workers < 1)
    throw std::invalid_argument("--engine " + options.engine +
                                " needs --cluster FILE and --workers N");
}

CollectivesPlan plan_collectives(const CollectivesOptions& options,
                                 const StrategyOptions& strategy_options, int world_size) {
  check_arguments(options);
  check_engine_settings(options);
  CollectivesPlan plan{message_sizes(options), parse_strategy_list(options.strategies), {}};
  // A range asked for (-b below -e) whose first step already passes -e would
  // measure -b alone: refused, so that a step that skips everything is not
  // taken for the range.
  if (options.min_bytes < options.max_bytes && plan.sizes.size() < 2)
    throw std::invalid_argument(
        (options.step_factor > 1 ? "-f/--stepfactor " + std::to_string(options.step_factor)
                                 : "-i/--stepbytes " + format_size(options.step_bytes)) +
        " steps from -b/--minbytes " + format_size(options.min_bytes) + " past -e/--maxbytes " +
        format_size(options.max_bytes) + ": only one size would be measured (give -b equal to -e for one size)");
  for (const StrategyInfo* entry : plan.strategies) {
    const std::string name(entry->name);
    const bool device_only = entry->memory == MemoryKind::device;
    const MemoryKind kind = options.memory == "device" || (options.memory == "auto" && device_only)
                                ? MemoryKind::device
                                : MemoryKind::host;
    if (kind == MemoryKind::host && device_only)
      throw std::invalid_argument("--memory host: " + name +
                                  " reduces device buffers only (use --memory device or auto)");
    plan.memory.push_back(kind);
  }
  if (plan.any_device()) {
    const GpuProbe gpus = probe_gpus();
    if (!gpus.built || gpus.visible_gpus == 0)
      throw std::invalid_argument("--memory device: " + gpus.detail);
  }
  for (const StrategyInfo* entry : plan.strategies)
    check_strategy_options(*entry, strategy_options, world_size);
  check_host_memory(plan);
  return plan;
}

bool CollectivesPlan::any_device() const {
  return std::find(memory.begin(), memory.end(), MemoryKind::device) != memory.end();
}

}  // namespace gradsync
