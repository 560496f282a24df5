#include "harness/results/input_text.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "harness/results/size_parse.h"

namespace gradsync {
namespace {

std::invalid_argument malformed(std::string_view text, std::string_view expected) {
  return std::invalid_argument(fmt::format("malformed --input '{}': {}", text, expected));
}

// A positive finite number that fills `text` exactly.
bool parse_positive(std::string_view text, double& out) {
  const char* end = text.data() + text.size();
  auto [rest, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && rest == end && std::isfinite(out) && out > 0;
}

}  // namespace

InputSpec parse_input(std::string_view text) {
  InputSpec spec;
  const auto colon = text.find(':');
  const bool has_arg = colon != std::string_view::npos;
  const std::string_view kind = text.substr(0, colon);
  const std::string_view arg = has_arg ? text.substr(colon + 1) : std::string_view();
  if (kind == "synthetic" && !has_arg) return spec;
  if (kind == "jpeg") {
    spec.kind = InputKind::jpeg;
    if (!has_arg) return spec;
    double quality = 0;
    if (!parse_positive(arg, quality) || quality != std::floor(quality) || quality > 100)
      throw malformed(text, "jpeg's quality is a whole number from 1 to 100, e.g. jpeg:75");
    spec.jpeg_quality = static_cast<int>(quality);
    return spec;
  }
  if (kind == "decode") {
    spec.kind = InputKind::decode;
    std::string_view number = arg;
    double scale = 0;
    if (number.ends_with("us")) scale = 1;
    if (number.ends_with("ms")) scale = 1e3;
    if (scale > 0) number.remove_suffix(2);
    if (scale == 0 || !parse_positive(number, spec.decode_us))
      throw malformed(
          text, "decode takes a time per image with its unit, e.g. decode:2ms or decode:500us");
    spec.decode_us *= scale;
    return spec;
  }
  if (kind == "read") {
    spec.kind = InputKind::read;
    const auto at = arg.find('@');
    std::string_view rate = at == std::string_view::npos ? "" : arg.substr(at + 1);
    if (rate.ends_with("MB/s")) rate.remove_suffix(4);
    std::uint64_t bytes = 0;
    try {
      if (at != std::string_view::npos) bytes = parse_size(arg.substr(0, at));
    } catch (const std::invalid_argument&) {
      bytes = 0;
    }
    if (bytes == 0 || !parse_positive(rate, spec.read_mb_per_s))
      throw malformed(text, "read takes bytes per image and MB/s, e.g. read:110K@200");
    spec.image_bytes = static_cast<double>(bytes);
    return spec;
  }
  throw malformed(text,
                  "expected synthetic, decode:TIME (e.g. decode:2ms), read:SIZE@MBPS (e.g. "
                  "read:110K@200) or jpeg[:QUALITY]");
}

std::string input_text(const InputSpec& spec) {
  switch (spec.kind) {
    case InputKind::synthetic:
      return "synthetic";
    case InputKind::decode:
      if (spec.decode_us >= 1000 && std::fmod(spec.decode_us, 1000) == 0)
        return fmt::format("decode:{:g}ms", spec.decode_us / 1000);
      return fmt::format("decode:{:g}us", spec.decode_us);
    case InputKind::read:
      return fmt::format("read:{}@{:g}", format_size(static_cast<std::uint64_t>(spec.image_bytes)),
                         spec.read_mb_per_s);
    case InputKind::jpeg:
      return fmt::format("jpeg:{}", spec.jpeg_quality);
  }
  return "synthetic";
}

std::string input_label(const InputSpec& spec) {
  if (!spec.active()) return "";
  return fmt::format("input {} x{} thread{} prefetch {}", input_text(spec), spec.threads,
                     spec.threads == 1 ? "" : "s", spec.prefetch);
}

}  // namespace gradsync
