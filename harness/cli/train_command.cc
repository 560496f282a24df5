#include "harness/cli/train_command.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "harness/cli/choice_flag.h"
#include "harness/cli/number_flag.h"
#include "harness/cli/strategy_flags.h"
#include "harness/engine/agreement.h"
#include "harness/engine/cluster_join.h"
#include "harness/engine/errors.h"
#include "harness/engine/gpu_choice.h"
#include "harness/engine/memory_budget.h"
#include "harness/engine/straggler_model.h"
#include "harness/engine/worker_role.h"
#include "harness/results/chrome_trace.h"
#include "harness/results/cluster_record.h"
#include "harness/results/input_text.h"
#include "harness/results/result_file.h"
#include "harness/results/run_context.h"
#include "harness/results/strategy_options_json.h"
#include "harness/results/train_record.h"
#include "harness/results/train_summary.h"
#include "harness/results/train_text.h"
#include "models/blas_threads.h"
#include "models/cuda_model.h"
#include "strategies/core/launcher_env.h"

namespace gradsync {
namespace {

// Runs `check`, putting `flag` before its one-line error.
template <typename Check>
auto for_flag(const std::string& flag, Check check) {
  try {
    return check();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(flag + ": " + e.what());
  }
}

// What a sharded strategy's step (harness/engine/sharded_replica.h) does not
// take, refused before anything starts.
void check_sharded(const StrategyInfo& strategy, const TrainSettings& s, bool fusion_auto) {
  if (strategy.sharding == Sharding::none) return;
  const std::string name(strategy.name);
  if (s.sync.order == SyncOrder::forward)
    throw std::invalid_argument("--sync-order forward is for replicas: " + name +
                                " all-gathers its parameters before the next forward");
  if (fusion_auto)
    throw std::invalid_argument("--fusion-mb auto would move " + name +
                                "'s shards between workers mid-run: give a threshold in MiB");
  if (s.model_options.compute == ComputeMode::cuda)
    throw std::invalid_argument(name + " trains in host memory: use --compute cpu or emulated");
}

// "RANK:FACTOR", e.g. "1:2": worker 1 computes twice as slowly.
TrainSettings::Straggler parse_straggler(const std::string& text) {
  const auto bad = [&] {
    return std::invalid_argument(fmt::format(
        "--straggler: expected RANK:FACTOR, a worker and a factor of at least 1 (e.g. 1:2), got "
        "'{}'",
        text));
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw bad();
  TrainSettings::Straggler straggler;
  try {
    std::size_t used = 0;
    const std::string rank = text.substr(0, colon), factor = text.substr(colon + 1);
    straggler.rank = std::stoi(rank, &used);
    if (used != rank.size()) throw bad();
    straggler.factor = std::stod(factor, &used);
    if (used != factor.size()) throw bad();
  } catch (const std::logic_error&) {  // stoi/stod: not a number, or out of range
    throw bad();
  }
  if (straggler.rank < 0 || !(straggler.factor >= 1) || !std::isfinite(straggler.factor))
    throw bad();
  return straggler;
}

// The optimizer's numbers, each in the range where its rule is that rule
// (docs/guide/training.md): a negative rate or decay, momentum past 1, or a
// beta of 1 (AdamW's moments would never move) diverges or stalls. A huge
// rate is allowed: it is how the guide shows the non-finite loss's error
// (--lr 1e30).
void add_optimizer_flags(CLI::App& cmd, OptimizerOptions& o) {
  add_choice_flag(cmd, "--optimizer", o.rule, kUpdateRules,
                  "the update: sgd (with momentum) or adamw (two moments per parameter: twice "
                  "SGD's state, as transformers train)");
  cmd.add_option("--lr", o.base_lr, "learning rate of one worker (scaled by the workers)")
      ->check(number_rule({"--lr", false, 0, 1e30, "", true}));
  cmd.add_option("--momentum", o.momentum, "SGD momentum")
      ->check(number_rule({"--momentum", false, 0, 1, ""}));
  cmd.add_option("--beta1", o.beta1, "AdamW's first-moment decay")
      ->check(number_rule({"--beta1", false, 0, 0.999999, ""}));
  cmd.add_option("--beta2", o.beta2, "AdamW's second-moment decay")
      ->check(number_rule({"--beta2", false, 0, 0.999999, ""}));
  cmd.add_option("--adam-eps", o.eps, "AdamW's epsilon, added to the second moment's root")
      ->check(number_rule({"--adam-eps", false, 0, 1, "", true}));
  cmd.add_option("--weight-decay", o.weight_decay,
                 "weight decay: L2 in the gradient (sgd), decoupled (adamw)")
      ->check(number_rule({"--weight-decay", false, 0, 1, ""}));
  cmd.add_option("--warmup-steps", o.warmup_steps,
                 "steps of linear learning-rate warm-up to the scaled rate")
      ->check(number_rule({"--warmup-steps", true, 0, 1e9, ""}));
}

}  // namespace

CLI::App* add_train_command(CLI::App& app, TrainFlags& flags, StrategyOptions& strategy_options) {
  auto* cmd = app.add_subcommand("train", "Training benchmark: a synthetic CNN under one strategy");
  TrainPlan& o = flags.plan;
  TrainSettings& s = o.settings;
  cmd->add_option("--model", s.model, "model from `gradsync models`");
  cmd->add_option("--batch-size", s.batch_size, "samples (images, sequences) per worker per step");
  cmd->add_option("--seq-len", s.model_options.sequence_length,
                  "token models: positions per sample (default: the model's own, see `gradsync "
                  "models`)")
      ->type_name("T");
  cmd->add_option("--num-warmup-batches", s.warmup_batches, "untimed steps before the benchmark");
  cmd->add_option("--num-batches-per-iter", s.batches_per_iter, "steps per timed iteration");
  cmd->add_option("--num-iters", s.iters, "timed iterations");
  cmd->add_option("--strategy", flags.strategy,
                  "how gradients are synchronized (see `gradsync strategies`)");
  add_choice_flag(*cmd, "--compute", s.model_options.compute, kComputeModes,
                  "cpu: real compute; emulated: each layer takes the time its FLOPs take on "
                  "--device; cuda: real compute on this rank's GPU (cuDNN, cuBLAS), gradients "
                  "and SGD in device memory");
  add_choice_flag(*cmd, "--precision", flags.precision, kPrecisions,
                  "cuda compute's arithmetic: fp32 (strict), tf32 (tensor cores), mixed (fp16 "
                  "tensor cores, fp32 accumulation); default fp32");
  cmd->add_option("--device", flags.device,
                  "device profile for emulated compute (see `gradsync models`)");
  cmd->add_option("--emulate-img-per-sec", s.model_options.emulate_img_per_sec,
                  "emulated compute at this single-worker rate instead of a device profile");
  cmd->add_option("--time-scale", s.model_options.time_scale,
                  "emulated compute only: every layer takes K times longer, so that links shaped "
                  "to RATE/K stand for a cluster at RATE (records show measured and represented "
                  "img/sec, the represented being measured x K)")
      ->type_name("K");
  cmd->add_option("--fusion-mb", flags.fusion_mb,
                  "fusion bucket threshold in MiB (0: no fusion), or auto: search for the "
                  "fastest first, before warm-up")
      ->type_name("auto|MiB");
  cmd->add_option("--fusion-search-steps", flags.fusion_search_steps,
                  "--fusion-mb auto: steps measured per candidate threshold, after one discarded "
                  "at the switch; the median counts (unused without auto)")
      ->type_name("K");
  add_choice_flag(*cmd, "--overlap", s.sync.overlap, kOnOff, "reduce buckets while backward runs");
  add_choice_flag(
      *cmd, "--sync-order", s.sync.order, kSyncOrders,
      "the order buckets are reduced in: arrival (as backward closes them) or forward "
      "(the next forward's first layers first, gradients above --fusion-mb in pieces of "
      "it, and that forward waits layer by layer)");
  add_optimizer_flags(*cmd, s.optimizer);
  cmd->add_option("--seed", s.model_options.seed, "seed of the initial parameters");
  cmd->add_option("--data-seed", s.data_seed, "seed of the synthetic data");
  cmd->add_option("--target-loss", s.target_loss,
                  "report the time and samples until the training loss (mean over the last 10 "
                  "steps of every worker) first reaches L")
      ->type_name("L");
  cmd->add_option("--straggler", flags.straggler,
                  "emulate one slow worker: worker RANK's forward and backward take FACTOR times "
                  "as long (cpu and emulated compute)")
      ->type_name("RANK:FACTOR");
  cmd->add_option("--input", flags.input,
                  "the input stage: synthetic (free), decode:TIME (CPU work per image on a loader "
                  "thread, e.g. decode:2ms), read:SIZE@MBPS (a wait of bytes / rate per image, "
                  "e.g. read:110K@200) or jpeg[:QUALITY] (a real libjpeg decode, e.g. jpeg:75)")
      ->type_name("SPEC");
  cmd->add_option("--input-threads", s.input.threads,
                  "loader threads per worker, 1 to 4096; they split each batch's images (not with "
                  "synthetic)");
  cmd->add_option(
      "--input-prefetch", s.input.prefetch,
      "batches the loader may hold ready ahead of the step (0: made when the step asks)");
  cmd->add_option("--out", o.results_path, "append the run's record to this JSON Lines file")
      ->type_name("FILE");
  cmd->add_option("--timeline", o.timeline_path,
                  "write a Chrome trace (chrome://tracing, ui.perfetto.dev) of every worker's "
                  "steps to this file")
      ->type_name("FILE");
  cmd->add_option("--timeline-steps", o.timeline_steps,
                  "trace only the first N steps after warm-up (0: every step, warm-up included)");
  add_strategy_flags(*cmd, strategy_options);
  return cmd;
}

TrainPlan plan_train(const TrainFlags& flags, const StrategyOptions&) {
  TrainPlan plan = flags.plan;
  TrainSettings& s = plan.settings;
  ModelOptions& m = s.model_options;
  plan.strategy = for_flag("--strategy", [&] {
    (void)find_strategy(flags.strategy);                 // one known name
    return parse_strategy_list(flags.strategy).front();  // usable here
  });
  (void)for_flag("--model", [&] { return describe_model(s.model); });
  const ModelInfo model =
      for_flag("--seq-len", [&] { return describe_model(s.model, m.sequence_length); });
  if (s.batch_size < 1) throw std::invalid_argument("--batch-size must be at least 1");
  // A floor of what a worker holds in host memory: parameters, gradients and
  // momentum, and one synthetic input batch (activations come on top).
  const InputSpec loader = s.input;    // --input-threads and --input-prefetch
  s.input = parse_input(flags.input);  // its error names --input
  s.input.threads = loader.threads;
  s.input.prefetch = loader.prefetch;
  check_input(s.input);
  if (s.input.active() && model.task != Task::classify)
    throw std::invalid_argument("--input is for image models; " + s.model + " reads token ids");
  // An input stage's loader holds prefetch + 1 batches besides.
  const std::uint64_t batches = 1 + (s.input.active() ? s.input.prefetch + 1 : 0);
  const std::uint64_t floats =
      3 * model.parameters + batches * s.batch_size * model.input.elements();
  check_fits_in_memory({floats * sizeof(float), 1, ranks_on_this_host()},
                       fmt::format("train --model {} --batch-size {} (parameters, gradients, "
                                   "momentum and {} input batch(es))",
                                   s.model, s.batch_size, batches));
  if (s.warmup_batches < 0 || s.batches_per_iter < 1 || s.iters < 1)
    throw std::invalid_argument(
        "--num-batches-per-iter and --num-iters must be at least 1, "
        "--num-warmup-batches at least 0");
  const FusionChoice fusion = parse_fusion_mb(flags.fusion_mb);
  s.sync.fusion_mb = fusion.mb;
  if (flags.fusion_search_steps < 1)
    throw std::invalid_argument("--fusion-search-steps must be at least 1");
  // Given beside a fixed threshold it was refused after the parse
  // (train_flag_scopes); a sweep gives it to its auto runs alone.
  if (fusion.automatic) s.fusion_search_steps = flags.fusion_search_steps;
  if (m.emulate_img_per_sec < 0)
    throw std::invalid_argument("--emulate-img-per-sec must be positive");
  if (flags.precision && m.compute != ComputeMode::cuda)
    throw std::invalid_argument(std::string("--precision ") + to_string(*flags.precision) +
                                " is for --compute cuda (" + to_string(m.compute) +
                                " compute runs in fp32)");
  m.precision = flags.precision.value_or(Precision::fp32);
  // Before the build's CUDA check: these refuse cuda in every build.
  check_sharded(*plan.strategy, s, fusion.automatic);
  if (m.compute == ComputeMode::cuda) refuse_rule_on_device(s.optimizer.rule);
  if (m.compute == ComputeMode::cuda && !cuda_compute_built())
    throw std::invalid_argument("--compute cuda: " + cuda_compute_unavailable(0));
  if (m.compute == ComputeMode::emulated)
    m.profile =
        for_flag("--device", [&] { return profile_for(find_device_profile(flags.device), model); });
  for_flag("--time-scale", [&] { check_time_scale(m.time_scale, m.compute); });
  if (plan.timeline_steps < 0) throw std::invalid_argument("--timeline-steps must be 0 or more");
  if (s.target_loss && !(*s.target_loss > 0 && std::isfinite(*s.target_loss)))
    throw std::invalid_argument(
        fmt::format("--target-loss must be a positive number (got {})", *s.target_loss));
  if (s.target_loss && m.compute == ComputeMode::emulated)
    throw std::invalid_argument(
        "--target-loss needs real compute (cpu or cuda): emulated compute does not learn, its "
        "loss is a constant");
  if (!flags.straggler.empty()) {
    s.straggler = parse_straggler(flags.straggler);
    if (m.compute == ComputeMode::cuda)
      throw std::invalid_argument(
          "--straggler is for cpu and emulated compute (a GPU's queued work is not timed on the "
          "host)");
  }
  return plan;
}

void check_train_workers(const TrainPlan& plan, const StrategyOptions& strategy_options,
                         int world_size) {
  const StrategyInfo& entry = *plan.strategy;
  if (entry.servers_own_parameters && entry.servers_own_parameters(strategy_options))
    refuse_rule_with_servers(plan.settings.optimizer.rule, entry.name);
  const int rank = plan.settings.straggler.rank;
  if (rank < 0) return;
  int workers = 0;
  for (int r = 0; r < world_size; ++r)
    workers += rank_only_serves(*plan.strategy, strategy_options, r) ? 0 : 1;
  if (rank >= workers)
    throw std::invalid_argument(
        fmt::format("--straggler {}:...: there are {} worker(s), numbered 0 to {}", rank, workers,
                    workers - 1));
}

}  // namespace gradsync
