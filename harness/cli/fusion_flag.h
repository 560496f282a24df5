#pragma once
// `--fusion-mb auto|N`, as train, sweep and simulate take it: a threshold in
// MiB (0: no fusion), or `auto`, which searches for the fastest one first
// (harness/engine/fusion_search.h).

#include <string>

namespace gradsync {

struct FusionChoice {
  bool automatic = false;
  double mb = 0;  // the threshold given; for auto, the one the search starts from (the default)
};

// "auto" or a finite number >= 0 ("16", "0.5"); throws std::invalid_argument
// with one line naming --fusion-mb otherwise.
FusionChoice parse_fusion_mb(const std::string& text);

// The default threshold (SyncOptions's), as the flag writes it: "64".
std::string default_fusion_mb_text();

}  // namespace gradsync
