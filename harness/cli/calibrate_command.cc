#include "harness/cli/calibrate_command.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <vector>

#include "harness/results/first_error.h"
#include "harness/results/report_table.h"
#include "harness/results/result_file.h"
#include "harness/results/sim_inputs.h"
#include "harness/results/size_parse.h"
#include "strategies/core/compression.h"
#include "strategies/core/reduce_kernel.h"
#include "strategies/registry.h"

namespace gradsync {
namespace {

std::string sizes_text(const std::vector<double>& sizes) {
  if (sizes.empty()) return "-";
  return fmt::format("{}..{} ({})", format_size(std::uint64_t(sizes.front())),
                     format_size(std::uint64_t(sizes.back())), sizes.size());
}

std::string percent(double fraction) { return fmt::format("{:+.1f}%", 100 * fraction); }

ReportTable fits_table(const sim::Calibration& c) {
  ReportTable t;
  t.caption =
      "Calibrated constants: time = o + messages x alpha + bytes x beta (1 + kappa (flows - 1)) + "
      "reduced x gamma, counted by each strategy (strategies/core/cost.h); beta as the "
      "bandwidth it stands for, kappa the loss per extra flow arriving at once at a link";
  t.header = {"strategy", "link",         "points",         "workers",
              "sizes",    "o (us)",       "alpha (us)",     "1/beta (Gbit/s)",
              "kappa",    "gamma (ns/B)", "median |error|", "worst |error|"};
  t.label_columns = 2;
  for (const auto& f : c.fits)
    t.rows.push_back(
        {f.compression == sim::kUncompressed ? f.strategy : f.strategy + " (" + f.compression + ")",
         f.link, std::to_string(f.points), fmt::format("{}", fmt::join(f.worker_counts, ",")),
         sizes_text(f.sizes), fmt::format("{:.1f}", f.params.overhead_s * 1e6),
         f.alpha_folded ? "in beta" : fmt::format("{:.2f}", f.params.alpha_s * 1e6),
         fmt::format("{:.4g}", f.params.beta_s_per_byte > 0 ? 8e-9 / f.params.beta_s_per_byte : 0),
         f.params.beta_s_per_byte > 0
             ? fmt::format("{:.3f}", f.params.delta_s_per_byte / f.params.beta_s_per_byte)
             : "-",
         f.gamma_folded ? "in beta" : fmt::format("{:.3g}", f.params.gamma_s_per_byte * 1e9),
         f.times_by_size.empty()
             ? fmt::format("{:.1f}%", 100 * f.median_abs_error)
             : fmt::format("{:.1f}% (tabulated instead)", 100 * f.median_abs_error),
         fmt::format("{:.1f}% ({})", 100 * f.worst_abs_error, f.worst_point)});
  return t;
}

ReportTable points_table(const sim::Calibration& c) {
  ReportTable t;
  t.caption = "Every point: measured and fitted time of one allreduce";
  t.header = {"strategy", "link", "workers", "size", "measured (us)", "fitted (us)", "error"};
  t.label_columns = 2;
  for (const auto& p : c.points)
    t.rows.push_back(
        {std::string(p.point->strategy->name), p.link, std::to_string(p.point->placement.workers),
         format_size(std::uint64_t(p.point->bytes)), fmt::format("{:.1f}", p.point->time_s * 1e6),
         fmt::format("{:.1f}", p.fitted_s * 1e6), percent(p.error())});
  return t;
}

ReportTable wire_table(const std::vector<WireCheck>& wire) {
  ReportTable t;
  t.caption =
      "The model's byte counts against the links (emulated cluster): the busiest host's busier "
      "direction per allreduce, as /proc/net/dev counted it (headers and acknowledgements "
      "included) and as the model counts payload";
  t.header = {"strategy", "workers", "size", "link (MiB)", "model (MiB)", "link / model"};
  t.label_columns = 1;
  for (const auto& w : wire)
    t.rows.push_back(
        {w.strategy, std::to_string(w.workers), format_size(std::uint64_t(w.size_bytes)),
         fmt::format("{:.3f}", w.link_bytes / (1 << 20)),
         fmt::format("{:.3f}", w.model_bytes / (1 << 20)),
         w.model_bytes > 0 ? fmt::format("{:.3f}", w.link_bytes / w.model_bytes) : "-"});
  return t;
}

// The fastest of three runs of `work` over a 64 MiB fp32 buffer, in fp32
// bytes per second.
template <typename Work>
double rate_of(std::size_t floats, Work work) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    const auto start = std::chrono::steady_clock::now();
    work();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return double(floats * sizeof(float)) / best;
}

// What this machine measures for what the fits cannot tell: the reduction
// kernel's rate (a cluster whose fits could not tell gamma from beta), and
// per 16-bit format --compression's casts, fp32 to 16 bits and back
// (compressed.h's work per call), and its sums' cost per byte against fp32's.
sim::LocalRates local_rates() {
  const std::size_t n = (64u << 20) / sizeof(float);
  std::vector<float> a(n, 1.0f), b(n, 2.0f);
  std::vector<std::uint16_t> half(n), other(n);
  sim::LocalRates rates;
  rates.reduce_bytes_per_s = rate_of(n, [&] { sum_into(a.data(), b.data(), n); });
  for (Compression format : {Compression::fp16, Compression::bf16}) {
    auto& r = rates.compression_costs[std::string(to_string(format))];
    r.casts_bytes_per_s = rate_of(n, [&] {
      compress(a, half, format);
      decompress(half, a, format);
    });
    compress(b, other, format);
    // rate_of counts fp32 bytes: n 16-bit elements are half as many bytes.
    const double sum16 = rate_of(n, [&] { sum_into(half.data(), other.data(), n, format); }) / 2;
    r.sum_cost_ratio = rates.reduce_bytes_per_s / sum16;
  }
  return rates;
}

// True when --strategy leaves `strategy` in (none given: every one).
bool calibrated(const CalibrateOptions& options, std::string_view strategy) {
  return options.strategies.empty() ||
         std::find(options.strategies.begin(), options.strategies.end(), strategy) !=
             options.strategies.end();
}

// The points and wire checks of the files' collectives records, read as a
// stream: what is held is the few numbers of each point --strategy keeps,
// never the records. The first record that cannot be read is thrown after
// every line was read, as a line that is not a record comes first.
CalibrationInput streamed_calibration_input(const CalibrateOptions& options) {
  CalibrationInput input;
  FirstError error;
  visit_results(options.files, {[&](StoredRecord&& record) {
                                  error.guard([&] {
                                    CalibrationInput one = calibration_input({&record, 1});
                                    for (auto& p : one.points)
                                      if (calibrated(options, p.strategy->name))
                                        input.points.push_back(std::move(p));
                                    for (auto& w : one.wire_checks)
                                      if (calibrated(options, w.strategy))
                                        input.wire_checks.push_back(std::move(w));
                                  });
                                },
                                {}});
  error.rethrow();
  return input;
}

}  // namespace

CLI::App* add_calibrate_command(CLI::App& app, CalibrateOptions& options) {
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Fit the cost model's constants (o, alpha, beta, gamma) per strategy and link class from "
      "collectives records, and write a cluster file for `simulate`");
  cmd->add_option("files", options.files, "JSON Lines result files or directories")
      ->required()
      ->type_name("RESULTS");
  cmd->add_option("-o,--out", options.out, "the cluster file to write (JSON)")
      ->required()
      ->type_name("FILE");
  cmd->add_option("--name", options.name, "the cluster's name in the file (default: the file's)");
  cmd->add_option("--strategy", options.strategies,
                  "calibrate only these strategies (comma-separated)")
      ->delimiter(',');
  return cmd;
}

void run_calibrate(const CalibrateOptions& options, std::ostream& out) {
  const CalibrationInput input = streamed_calibration_input(options);
  for (const auto& name : options.strategies) find_strategy(name);  // a known name
  const sim::Calibration calibration = [&] {
    try {
      return sim::calibrate(input.points);
    } catch (const sim::CalibrationError& e) {
      throw std::runtime_error(fmt::format("calibrate: {}", e.what()));
    }
  }();
  const std::string name =
      options.name.empty() ? std::filesystem::path(options.out).stem().string() : options.name;
  sim::ClusterModel cluster =
      sim::calibrated_cluster(calibration, input.points, local_rates(), name);

  out << fmt::format("# gradsync calibrate: {} points from {} file(s)\n\n", input.points.size(),
                     options.files.size());
  out << to_markdown(fits_table(calibration)) << '\n' << to_markdown(points_table(calibration));
  if (!input.wire_checks.empty()) out << '\n' << to_markdown(wire_table(input.wire_checks));
  for (const auto& note : calibration.notes) out << "Note: " << note << '\n';
  write_file_replacing(options.out, sim::to_json(cluster).dump(2) + '\n', "the cluster file");
  out << fmt::format(
      "\nWrote {}: {} node(s) x {} worker(s), between nodes {} (latency {:.1f} us), within a "
      "node {}, {} fit(s). Check and complete it (server hosts, GPUs) before simulating.\n",
      options.out, cluster.nodes, cluster.workers_per_node,
      sim::bits_text(cluster.inter.bandwidth_bits_per_s.value), cluster.inter.latency_s.value * 1e6,
      sim::bits_text(cluster.intra.bandwidth_bits_per_s.value), cluster.fits.size());
}

}  // namespace gradsync
