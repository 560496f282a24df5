#pragma once
// SHA-256 (FIPS 180-4), for naming a document by its content: a simulated
// record names the cluster description it was made from by the digest of
// its canonical JSON, so that the record need not carry the description.

#include <string>
#include <string_view>

namespace gradsync {

// The digest of `bytes`, 64 lowercase hex digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace gradsync
