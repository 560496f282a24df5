#pragma once
// One strategy option as the command line and the result records know it: its
// flag, its key in a record's `strategy_options`, its help, what values it
// takes, and where it lives in StrategyOptions. A strategy lists its options
// this way (its table entry points at the list), so that the harness
// registers, checks and records every option without naming any of them.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace gradsync {

struct StrategyOptions;

// Where an option's value lives in one run's options. A std::size_t is a byte
// size ("64K", "4M" on the command line).
using OptionField = std::variant<std::size_t*, int*, long*, double*, std::string*>;

// An option whose value is one of a few names and is kept as an enum: read and
// written through its name.
struct NamedField {
  std::string_view (*get)(const StrategyOptions&) = nullptr;
  void (*set)(StrategyOptions&, std::string_view name) = nullptr;  // name is one of the choices
};

enum class OptionBound { none, above_zero, not_negative };

struct OptionFlag {
  std::string_view flag = {};       // "--ring-segment"
  std::string_view key = {};        // "ring_segment_bytes", in the record's strategy_options
  std::string_view help = {};       // without the strategy's name, which the help puts first
  std::string_view type_name = {};  // shown in --help ("HOST", "SECONDS"); empty: the default
  OptionBound bound = OptionBound::none;
  std::span<const std::string_view> choices = {};    // the values it takes; empty: any
  OptionField (*field)(StrategyOptions&) = nullptr;  // null when `named` is set
  NamedField named = {};
  // A fault that tests inject, never set for a measurement.
  bool test_only = false;
  // Whether the cost model reads it (`gradsync simulate` takes only these);
  // the others act on real runs alone.
  bool costed = false;
  // A common option that only some entries read: those naming it in their
  // `shared_flags` (registry.h), e.g. the MPI point-to-point strategies' --short-allreduce.
  bool for_some = false;
  // Why it does nothing with `options` as they stand, in words that follow
  // the flag ("is for --ps-mode ssp"), or empty when it acts; null: it
  // always acts on the entries that read it.
  std::string_view (*idle_because)(const StrategyOptions& options) = nullptr;
};

}  // namespace gradsync
