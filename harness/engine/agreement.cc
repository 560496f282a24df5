#include "harness/engine/agreement.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "harness/engine/errors.h"

namespace gradsync {
namespace {

// "rank 3" or "ranks 0,2-4", for ranks in increasing order.
std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(ranks[i]);
    if (j > i) {
      out += j == i + 1 ? ',' : '-';
      out += std::to_string(ranks[j]);
    }
    i = j + 1;
  }
  return std::string(ranks.size() == 1 ? "rank " : "ranks ") + out;
}

std::string shown(const nlohmann::json& value) {
  if (value.is_null()) return "(none)";
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// "ranks disagree on KEY: rank 0: a; ranks 1-2: b", values in order of first rank.
std::string line_for(const std::string& key, const std::vector<std::string>& order,
                     std::map<std::string, std::vector<int>>& ranks_by_value) {
  std::string line = "ranks disagree on " + key + ":";
  for (std::size_t i = 0; i < order.size(); ++i)
    line += fmt::format("{} {}: {}", i ? ";" : "", rank_list(ranks_by_value[order[i]]), order[i]);
  return line;
}

}  // namespace

std::string failure_message(const std::vector<std::string>& errors) {
  std::vector<int> failed;
  for (int rank = 0; rank < int(errors.size()); ++rank)
    if (!errors[rank].empty()) failed.push_back(rank);
  if (failed.empty()) return "";
  const std::string& first = errors[failed.front()];
  bool alike = failed.size() == errors.size();
  for (int rank : failed) alike = alike && errors[rank] == first;
  if (alike) return first;
  std::string line = fmt::format("rank {}: {}", failed.front(), first);
  if (failed.size() > 1)
    line += fmt::format(" ({} other rank{} failed too)", failed.size() - 1,
                        failed.size() > 2 ? "s" : "");
  return line;
}

void agree_on_failure(const World& world, const std::string& error, int exit_status) {
  const std::string line = failure_message(world.allgather(error));
  if (!line.empty()) throw AgreedError(line, exit_status);
}

std::string config_difference(const std::vector<nlohmann::json>& configs) {
  // Keys in the first rank's order, then any only other ranks have; but
  // "subcommand" first, since ranks running different subcommands differ in
  // every option after it, which says nothing more.
  std::vector<std::string> keys = {"subcommand"};
  std::set<std::string> seen = {"subcommand"};
  for (const auto& config : configs)
    for (const auto& [key, value] : config.items())
      if (seen.insert(key).second) keys.push_back(key);
  std::vector<std::string> differing;
  std::string line;
  for (const auto& key : keys) {
    std::map<std::string, std::vector<int>> ranks_by_value;
    std::vector<std::string> order;  // values in order of first rank
    for (int rank = 0; rank < int(configs.size()); ++rank) {
      const std::string value = shown(configs[rank].value(key, nlohmann::json()));
      if (ranks_by_value[value].empty()) order.push_back(value);
      ranks_by_value[value].push_back(rank);
    }
    if (order.size() < 2) continue;
    if (key == "subcommand") return line_for(key, order, ranks_by_value);
    differing.push_back(key);
    if (line.empty()) line = line_for(key, order, ranks_by_value);
  }
  if (differing.size() > 1) {
    constexpr std::size_t kNamed = 5;  // the rest are counted only
    line += fmt::format(" (and {} more:", differing.size() - 1);
    for (std::size_t i = 1; i < differing.size() && i <= kNamed; ++i) line += " " + differing[i];
    line += differing.size() > kNamed + 1 ? " ...)" : ")";
  }
  return line;
}

void agree_on_config(const World& world, const nlohmann::json& config, int exit_status) {
  // Agreeing is the common case, told by comparing with rank 0's text: each
  // rank's work does not grow with the ranks (gathering and reading every
  // rank's configuration on every rank does, as the square of them in all,
  // minutes at 1,024 simulated ranks on one host). Only a difference needs
  // every rank's configuration, to say which ranks differ in what.
  const std::string mine = config.dump();
  const bool differs = mine != world.broadcast(mine, 0);
  if (world.sum(differs ? 1 : 0) == 0) return;
  std::vector<nlohmann::json> configs;
  for (const auto& text : world.allgather(mine))
    configs.push_back(nlohmann::json::parse(text));
  const std::string line = config_difference(configs);
  if (!line.empty()) throw AgreedError(line, exit_status);
}

}  // namespace gradsync
