#include "harness/cli/train_command.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "harness/cli/choice_flag.h"
#include "harness/cli/strategy_flags.h"
#include "harness/engine/agreement.h"
#include "harness/engine/cluster_join.h"
#include "harness/engine/errors.h"
#include "harness/engine/gpu_choice.h"
#include "harness/engine/memory_budget.h"
#include "harness/engine/straggler_model.h"
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

void print(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

// Runs `check`, putting `flag` before its one-line error.
template <typename Check>
auto for_flag(const std::string& flag, Check check) {
  try {
    return check();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(flag + ": " + e.what());
  }
}

// How many events the plan's timeline will hold: per traced step about two
// layer events and a pack per tensor, a few per bucket, and with an input
// stage one per loader thread and the wait.
std::size_t expected_events(const TrainPlan& plan, std::size_t tensors) {
  const TrainSettings& s = plan.settings;
  const TimelineWindow window = plan.timeline_window();
  const int total = s.warmup_batches + s.iters * s.batches_per_iter;
  const int traced = window.steps < 0 ? total : std::min(window.steps, total);
  const int input_events = s.input.active() ? s.input.threads + 1 : 0;
  return std::size_t(traced) * (4 * tensors + 16 + input_events);
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
  if (straggler.rank < 0 || !(straggler.factor >= 1) || !std::isfinite(straggler.factor)) throw bad();
  return straggler;
}

}  // namespace

CLI::App* add_train_command(CLI::App& app, TrainFlags& flags, StrategyOptions& strategy_options) {
  auto* cmd = app.add_subcommand("train", "Training benchmark: a synthetic CNN under one strategy");
  TrainPlan& o = flags.plan;
  TrainSettings& s = o.settings;
  cmd->add_option("--model", s.model, "model from `gradsync models`");
  cmd->add_option("--batch-size", s.batch_size, "images per worker per step");
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
  cmd->add_option("--lr", s.sgd.base_lr, "learning rate of one worker (scaled by the workers)");
  cmd->add_option("--momentum", s.sgd.momentum, "SGD momentum");
  cmd->add_option("--weight-decay", s.sgd.weight_decay, "L2 weight decay");
  cmd->add_option("--warmup-steps", s.sgd.warmup_steps,
                  "steps of linear learning-rate warm-up to the scaled rate");
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
                  "loader threads per worker; they split each batch's images (not with synthetic)");
  cmd->add_option(
      "--input-prefetch", s.input.prefetch,
      "batches the loader may hold ready ahead of the step (0: made when the step asks)");
  cmd->add_option("--out", o.out, "append the run's record to this JSON Lines file")
      ->type_name("FILE");
  cmd->add_option("--timeline", o.timeline,
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
    (void)find_strategy(flags.strategy);               // one known name
    return parse_strategy_list(flags.strategy).front();  // usable here
  });
  const ModelInfo model = for_flag("--model", [&] { return describe_model(s.model); });
  if (s.batch_size < 1) throw std::invalid_argument("--batch-size must be at least 1");
  // A floor of what a worker holds in host memory: parameters, gradients and
  // momentum, and one synthetic input batch (activations come on top).
  const InputSpec loader = s.input;    // --input-threads and --input-prefetch
  s.input = parse_input(flags.input);  // its error names --input
  s.input.threads = loader.threads;
  s.input.prefetch = loader.prefetch;
  check_input(s.input);
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
  // Without auto it is unused, not refused: a sweep passes its --train-args
  // to fixed thresholds and auto alike.
  if (fusion.automatic) s.fusion_search_steps = flags.fusion_search_steps;
  if (m.emulate_img_per_sec < 0)
    throw std::invalid_argument("--emulate-img-per-sec must be positive");
  if (flags.precision && m.compute != ComputeMode::cuda)
    throw std::invalid_argument(std::string("--precision ") + to_string(*flags.precision) +
                                " is for --compute cuda (" + to_string(m.compute) +
                                " compute runs in fp32)");
  m.precision = flags.precision.value_or(Precision::fp32);
  if (m.compute == ComputeMode::cuda && !cuda_compute_built())
    throw std::invalid_argument("--compute cuda: " + cuda_compute_unavailable(0));
  if (m.compute == ComputeMode::emulated)
    m.profile = for_flag("--device", [&] { return find_device_profile(flags.device); });
  for_flag("--time-scale", [&] { check_time_scale(m.time_scale, m.compute); });
  if (plan.timeline_steps < 0) throw std::invalid_argument("--timeline-steps must be 0 or more");
  if (s.target_loss && !(*s.target_loss > 0 && std::isfinite(*s.target_loss)))
    throw std::invalid_argument(fmt::format("--target-loss must be a positive number (got {})",
                                            *s.target_loss));
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
  const int rank = plan.settings.straggler.rank;
  if (rank < 0) return;
  int workers = 0;
  for (int r = 0; r < world_size; ++r)
    workers += rank_only_serves(*plan.strategy, strategy_options, r) ? 0 : 1;
  if (rank >= workers)
    throw std::invalid_argument(fmt::format(
        "--straggler {}:...: there are {} worker(s), numbered 0 to {}", rank, workers, workers - 1));
}

void run_train(const TrainPlan& plan, const StrategyOptions& flags_options,
               std::span<const std::string> command_line, const AgreedConfig& config) {
  const StrategyInfo& entry = *plan.strategy;
  // Servers that own the parameters apply SGD themselves: at one worker's
  // rate, since each gradient is one worker's.
  StrategyOptions strategy_options = flags_options;
  strategy_options.sgd = {.lr = plan.settings.sgd.base_lr,
                          .momentum = plan.settings.sgd.momentum,
                          .weight_decay = plan.settings.sgd.weight_decay};
  World world(MPI_COMM_WORLD, harness_timeout(strategy_options.timeout_s));
  const auto cluster = join_cluster(world);
  std::optional<WireMeter> wire;
  if (cluster) wire = wire_meter(*cluster, world, entry, strategy_options);
  std::optional<TrainOutcome> outcome;
  std::optional<TrainSummary> summary;
  std::string timeline_note;
  std::string account;  // this rank's part of the strategy's own account of the run
  bool printer = false;
  TrainSettings settings = plan.settings;
  const bool cuda = settings.model_options.compute == ComputeMode::cuda;
  const bool serves_only = rank_only_serves(entry, strategy_options, world.rank());
  // A GPU is chosen (and made current) before any strategy that needs one is built.
  GpuChoice gpu;
  if (cuda || entry.memory == MemoryKind::device) gpu = choose_gpu(world, !serves_only);
  if (cuda) settings.model_options.gpu = gpu.ordinal;
  {
    auto strategy = make_strategy(entry, world, strategy_options,
                                  cuda ? MemoryKind::device : MemoryKind::host);
    if (!strategy->is_worker()) {
      strategy->serve();
    } else {
      const World& peers = strategy->peers();
      printer = peers.rank() == 0;
      auto model = make_worker_model(settings, peers.rank());
      const int blas_threads = share_blas_threads(peers.local_size());
      std::optional<Timeline> timeline;
      if (!plan.timeline.empty())
        timeline.emplace(plan.timeline_window(), expected_events(plan, model->parameters().size()));
      if (printer) {
        const std::string note = entry.train_note ? entry.train_note(strategy_options) : "";
        print(train_header(plan, blas_threads, gpu, peers.size(),
                           (note.empty() ? "" : note + "\n") +
                               (cluster ? cluster_text(cluster->description, cluster->path,
                                                       settings.model_options.time_scale)
                                        : "")));
      }
      const double images = double(settings.batch_size) * settings.batches_per_iter;
      outcome = train(
          *strategy, *model, settings,
          [&](int iter, double seconds) {
            if (printer) print(iteration_text(iter, images / seconds));
          },
          timeline ? &*timeline : nullptr, wire ? &*wire : nullptr);
      if (timeline) {
        const auto processes =
            gather_timeline(peers, *timeline, world.rank(),
                            fmt::format("rank {} ({})", world.rank(), world.hostname()));
        if (printer) {
          const std::size_t events = write_chrome_trace(
              plan.timeline, processes, timeline_info(plan, peers.size(), command_line));
          timeline_note = timeline_text(events, processes.size(), plan.timeline);
        }
      }
      summary = summarize(*outcome, plan.settings, peers);
    }
    account = strategy->account();
  }  // workers close their strategy here, which ends dedicated servers' serve()
  // The strategy's own account, from every rank's part; the workers' step
  // counts (servers that own the parameters) are worker 0's to give.
  const auto parts = world.allgather(account);
  const RunAccount told =
      merge_account(entry, parts,
                    {.options = &strategy_options,
                     .worker_steps = summary ? summary->worker_gradient_steps
                                             : std::vector<std::uint64_t>{}});

  // Every rank learns the verdict, so that a failed check ends every rank alike.
  const auto verdicts = world.allgather(
      summary && summary->parameters_identical == false ? summary->mismatch : "");
  std::string mismatch;
  for (const auto& v : verdicts)
    if (!v.empty()) mismatch = v;
  // Wire truth: every rank's sample (workers' only) to every rank, grouped by host.
  std::optional<WireTruth> wire_truth;
  if (cluster) {
    std::vector<std::optional<WireSample>> samples;
    for (const auto& text :
         world.allgather(wire_sample_json(outcome ? outcome->wire : std::nullopt).dump()))
      samples.push_back(wire_sample_from_json(nlohmann::json::parse(text)));
    wire_truth = WireTruth{"step", settings.iters * settings.batches_per_iter,
                           wire_by_host(world.hostnames(), samples)};
  }
  if (printer) {
    std::string told_text;
    for (const auto& line : told.lines) told_text += line + "\n";
    print(summary_text(*summary, plan.settings) + (wire_truth ? wire_text(*wire_truth) : "") +
          timeline_note + told_text);
    if (!plan.out.empty()) {
      const auto on_cluster =
          cluster ? std::optional<TrainOnCluster>({cluster->description, *wire_truth})
                  : std::nullopt;
      auto record = train_record(plan, to_json(strategy_options), *summary, world.size(),
                                 collect_run_context(world, command_line, config), gpu,
                                 on_cluster ? &*on_cluster : nullptr);
      record.update(told.fields);
      if (!told.failure.empty()) record["correct"] = false;
      append_record(plan.out, record);
    }
  }
  if (!mismatch.empty()) throw AgreedError("parameters differ across workers: " + mismatch, 1);
  // Only worker 0 has every worker's step count: it tells every rank.
  for (const auto& line : world.allgather(printer ? told.failure : ""))
    if (!line.empty()) throw AgreedError(line, 1);
  // Every rank learns it: workers from training, dedicated servers from them.
  const auto nonfinite = world.allgather(summary ? summary->nonfinite : "");
  for (const auto& line : nonfinite)
    if (!line.empty()) throw AgreedError(line, 1);
}

}  // namespace gradsync
