#pragma once
// The latest value of each key, in the order each key first appeared: the
// fold a report makes of a stream of records where a later record of a
// configuration replaces an earlier one. Holds one value per key.

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

namespace gradsync {

template <class Key, class Value>
class LatestByKey {
 public:
  // `value` in place of the key's earlier one, or after the others.
  void put(const Key& key, Value value) {
    const auto [at, added] = index_.try_emplace(key, values_.size());
    if (added)
      values_.push_back(std::move(value));
    else
      values_[at->second] = std::move(value);
  }
  const std::vector<Value>& values() const { return values_; }

 private:
  std::vector<Value> values_;
  std::map<Key, std::size_t> index_;  // into values_
};

}  // namespace gradsync
