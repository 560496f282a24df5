// Parsing NCCL's tuning lines (nccl_tuning_log.h). The line's message part
// is matched field by field, after the "NCCL INFO " that ncclDebugLog puts
// before every INFO message; the prefix before it (host, pid, thread, an
// optional timestamp, the device) is skipped.

#include "strategies/nccl/nccl_tuning_log.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

namespace gradsync {
namespace {

// Consumes `word` at the front of `text`.
bool take(std::string_view& text, std::string_view word) {
  if (!text.starts_with(word)) return false;
  text.remove_prefix(word.size());
  return true;
}

// Consumes the characters up to the next space (or the end); empty: none.
std::string_view take_token(std::string_view& text) {
  const std::size_t end = std::min(text.find(' '), text.size());
  const std::string_view token = text.substr(0, end);
  text.remove_prefix(end);
  return token;
}

}  // namespace

std::optional<NcclTuningLine> parse_nccl_tuning_line(std::string_view line) {
  constexpr std::string_view kInfo = "NCCL INFO ";
  const std::size_t info = line.find(kInfo);
  if (info == std::string_view::npos) return std::nullopt;
  std::string_view text = line.substr(info + kInfo.size());
  NcclTuningLine out;
  const std::size_t colon = text.find(": ");
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  out.function = std::string(text.substr(0, colon));
  if (out.function.find(' ') != std::string::npos) return std::nullopt;  // "AllReduce [Symmetric]"
  text.remove_prefix(colon + 2);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out.bytes);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  text.remove_prefix(end - text.data());
  if (!take(text, " Bytes -> Algo ")) return std::nullopt;
  out.algorithm = std::string(take_token(text));
  if (out.algorithm.empty() || !take(text, " proto ")) return std::nullopt;
  out.protocol = std::string(take_token(text));
  if (out.protocol.empty()) return std::nullopt;
  return out;
}

std::vector<NcclAllreduceChoice> nccl_allreduce_choices(std::istream& log) {
  std::map<std::tuple<std::uint64_t, std::string, std::string>, std::uint64_t> calls;
  std::string line;
  while (std::getline(log, line)) {
    const auto parsed = parse_nccl_tuning_line(line);
    if (parsed && parsed->function == "AllReduce")
      ++calls[{parsed->bytes, parsed->algorithm, parsed->protocol}];
  }
  std::vector<NcclAllreduceChoice> out;
  for (const auto& [key, n] : calls)
    out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), n});
  return out;
}

std::string nccl_log_unavailable(const char* nccl_debug) {
  if (nccl_debug)
    return "NCCL_DEBUG is set (to \"" + std::string(nccl_debug) +
           "\"), so NCCL's log is the user's and is not read";
  return {};
}

}  // namespace gradsync
