#include "strategies/nccl/nccl_account.h"

#include <fmt/core.h>

#include <set>

namespace gradsync {
namespace {

// "TREE/LL at 4096 B..65536 B, TREE/SIMPLE at 131072 B": consecutive sizes
// (by size) with one algorithm and protocol as one range.
std::string choices_text(const nlohmann::json& by_size) {
  std::string out;
  for (std::size_t i = 0; i < by_size.size();) {
    const std::string pair = by_size[i].at("algorithm").get<std::string>() + "/" +
                             by_size[i].at("protocol").get<std::string>();
    std::size_t j = i;
    while (j + 1 < by_size.size() && by_size[j + 1].at("algorithm").get<std::string>() + "/" +
                                             by_size[j + 1].at("protocol").get<std::string>() ==
                                         pair)
      ++j;
    const auto first = by_size[i].at("bytes").get<std::uint64_t>();
    const auto last = by_size[j].at("bytes").get<std::uint64_t>();
    out += fmt::format("{}{} at {} B{}", out.empty() ? "" : ", ", pair, first,
                       last == first ? "" : fmt::format("..{} B", last));
    i = j + 1;
  }
  return out;
}

RunAccount merge(std::span<const std::string> per_rank, std::string_view name,
                 const std::string& pinned) {
  nlohmann::json log;
  for (const std::string& text : per_rank) {
    if (text.empty()) continue;
    const nlohmann::json part = nlohmann::json::parse(text);
    if (part.contains("nccl_log")) {
      log = part.at("nccl_log");
      break;
    }
  }
  nlohmann::json by_size =
      log.is_object() ? log.value("allreduce", nlohmann::json::array()) : nlohmann::json::array();
  std::set<std::string> seen;
  for (const auto& c : by_size) seen.insert(c.at("algorithm").get<std::string>());
  nlohmann::json field = {{"pinned", pinned}, {"by_size", by_size}};
  RunAccount out;
  if (seen.empty()) {
    const std::string why =
        log.is_object() && log.contains("unconfirmed_because")
            ? log.at("unconfirmed_because").get<std::string>()
            : "NCCL logged no allreduce (it logs none at 1 rank, nor when its log was set "
              "up before the communicator)";
    field["confirmed"] = "unconfirmed";
    field["matches_pin"] = nullptr;
    field["unconfirmed_because"] = why;
    out.lines.push_back(fmt::format("NCCL algorithm: unconfirmed ({})", why));
  } else {
    std::string confirmed;
    for (const auto& a : seen) confirmed += (confirmed.empty() ? "" : ",") + a;
    const bool matches = seen.size() == 1 && *seen.begin() == pinned;
    field["confirmed"] = confirmed;
    field["matches_pin"] = matches;
    out.lines.push_back("NCCL algorithm (NCCL's log): " + choices_text(by_size));
    if (!matches)
      out.lines.push_back(fmt::format("{}: NCCL ran {}, {} {} it was pinned to", name, confirmed,
                                      seen.contains(pinned) ? "not only the" : "not the", pinned));
  }
  out.fields["nccl_algorithm"] = field;
  return out;
}

}  // namespace

std::string nccl_account_part(const std::vector<NcclAllreduceChoice>& choices,
                              const std::string& unconfirmed_because) {
  nlohmann::json log = nlohmann::json::object();
  if (!unconfirmed_because.empty()) log["unconfirmed_because"] = unconfirmed_because;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& c : choices)
    all.push_back({{"bytes", c.bytes},
                   {"algorithm", c.algorithm},
                   {"protocol", c.protocol},
                   {"calls", c.calls}});
  log["allreduce"] = all;
  return nlohmann::json{{"nccl_log", log}}.dump();
}

RunAccount nccl_ring_merge_account(std::span<const std::string> per_rank, const AccountInputs&) {
  return merge(per_rank, "nccl-ring", "RING");
}

RunAccount nccl_tree_merge_account(std::span<const std::string> per_rank, const AccountInputs&) {
  return merge(per_rank, "nccl-tree", "TREE");
}

}  // namespace gradsync
