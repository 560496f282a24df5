// The emulated cluster's description (cluster.json, the contract with
// scripts/cluster.sh): what is read from it, each malformed field named, and
// when a rank counts as on the cluster.
#include "harness/engine/cluster.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "harness/engine/cluster_join.h"

namespace gradsync {
namespace {

// The contract's example, with two hosts and a check.
nlohmann::json contract_example() {
  return nlohmann::json::parse(R"({
    "version": 1, "subnet": "198.18.0.0/24", "bridge": "gsbr0", "interface": "gs0",
    "slots": 2, "rate": "1gbit", "rate_bits_per_s": 1e9, "delay": "0ms", "delay_s": 0,
    "hosts": [{"name": "gs-h0", "address": "198.18.0.1", "slots": 2},
              {"name": "gs-h1", "address": "198.18.0.2", "slots": 2}],
    "check": {"when": "2024-05-01T12:00:00Z",
              "links": [{"host": "gs-h0", "achieved_bits_per_s": 9.5e8, "ratio": 0.95},
                        {"host": "gs-h1", "achieved_bits_per_s": 8.0e8, "ratio": 0.80}],
              "worst_ratio": 0.80, "faithful": false}})");
}

std::string error_of(const nlohmann::json& json) {
  try {
    (void)cluster_from_json(json);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

// A file in a fresh temporary directory, removed with it.
class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    dir_ = std::filesystem::temp_directory_path() /
           ("gradsync-cluster-test-" + std::to_string(::getpid()) + "-" + std::to_string(count_++));
    std::filesystem::create_directories(dir_);
    std::ofstream(path()) << content;
  }
  ~TempFile() { std::filesystem::remove_all(dir_); }
  std::string path() const { return (dir_ / "cluster.json").string(); }

 private:
  static inline int count_ = 0;
  std::filesystem::path dir_;
};

TEST(Cluster, ReadsEveryFieldOfTheContract) {
  const ClusterDescription c = cluster_from_json(contract_example());
  EXPECT_EQ(c.subnet, "198.18.0.0/24");
  EXPECT_EQ(c.bridge, "gsbr0");
  EXPECT_EQ(c.interface, "gs0");
  EXPECT_EQ(c.slots, 2);
  EXPECT_EQ(c.rate, "1gbit");
  EXPECT_DOUBLE_EQ(c.rate_bits_per_s, 1e9);
  EXPECT_EQ(c.delay, "0ms");
  EXPECT_DOUBLE_EQ(c.delay_s, 0);
  EXPECT_EQ(c.mtu, 1500);  // the example has none, as files from before --mtu
  ASSERT_EQ(c.hosts.size(), 2u);
  EXPECT_EQ(c.hosts[1].name, "gs-h1");
  EXPECT_EQ(c.hosts[1].address, "198.18.0.2");
  EXPECT_EQ(c.hosts[1].slots, 2);
  ASSERT_TRUE(c.check.has_value());
  EXPECT_EQ(c.check->when, "2024-05-01T12:00:00Z");
  ASSERT_EQ(c.check->links.size(), 2u);
  EXPECT_EQ(c.check->links[1].host, "gs-h1");
  EXPECT_DOUBLE_EQ(c.check->links[1].achieved_bits_per_s, 8e8);
  EXPECT_DOUBLE_EQ(c.check->worst_ratio, 0.8);
  EXPECT_FALSE(c.check->faithful);
  EXPECT_EQ(c.find_host("gs-h0"), &c.hosts[0]);
  EXPECT_EQ(c.find_host("gs-h2"), nullptr);
}

TEST(Cluster, ANullCheckMeansNoneWasRun) {
  auto j = contract_example();
  j["check"] = nullptr;
  EXPECT_FALSE(cluster_from_json(j).check.has_value());
  j.erase("check");
  EXPECT_FALSE(cluster_from_json(j).check.has_value());
}

TEST(Cluster, EachMalformedFieldIsNamed) {
  auto without = [](const char* name) {
    auto j = contract_example();
    j.erase(name);
    return j;
  };
  EXPECT_EQ(error_of(without("interface")), "\"interface\" is missing");
  EXPECT_EQ(error_of(without("hosts")), "\"hosts\" is missing");
  auto j = contract_example();
  j["rate_bits_per_s"] = "1gbit";
  EXPECT_EQ(error_of(j), "rate_bits_per_s: must be a number (got the string \"1gbit\")");
  j = contract_example();
  j["rate_bits_per_s"] = 0;
  EXPECT_EQ(error_of(j), "rate_bits_per_s: must be at least 1000 bit/s (got 0)");
  j["rate_bits_per_s"] = 1e300;
  EXPECT_EQ(error_of(j), "rate_bits_per_s: must be at most 1e+13 bit/s (got 1e+300)");
  j = contract_example();
  j["delay_s"] = 1e308;
  EXPECT_EQ(error_of(j), "delay_s: must be at most 10 s (got 1e+308)");
  j = contract_example();
  j["slots"] = 2.5;
  EXPECT_EQ(error_of(j), "slots: must be a whole number (got 2.5)");
  j = contract_example();
  j["hosts"][1]["slots"] = 0;
  EXPECT_EQ(error_of(j), "hosts[1].slots: must be at least 1 (got 0)");
  j = contract_example();
  j["mtu"] = 9000;
  EXPECT_EQ(cluster_from_json(j).mtu, 9000);
  j["mtu"] = 100;
  EXPECT_EQ(error_of(j), "mtu: must be at least 576 (got 100)");
  j["mtu"] = "9000";
  EXPECT_EQ(error_of(j), "mtu: must be a whole number (got the string \"9000\")");
  j = contract_example();
  j["version"] = 2;
  EXPECT_EQ(error_of(j), "version 2 is not one this gradsync reads (it reads version 1)");
  j = contract_example();
  j["hosts"][1]["name"] = "gs-h0";
  EXPECT_EQ(error_of(j), "host gs-h0 is named twice");
  j = contract_example();
  j["hosts"][1].erase("slots");
  EXPECT_EQ(error_of(j), "\"hosts[1].slots\" is missing");
  j = contract_example();
  j["hosts"] = nlohmann::json::array();
  EXPECT_EQ(error_of(j), "\"hosts\" is empty");
  j = contract_example();
  j["check"]["links"][0].erase("ratio");
  EXPECT_EQ(error_of(j), "\"check.links[0].ratio\" is missing");
  EXPECT_EQ(error_of(nlohmann::json::array()), "not a JSON object");
}

TEST(Cluster, AFileThatIsNotJsonOrCannotBeReadIsNamed) {
  const TempFile corrupt("{\"version\": 1, \"subnet\": ");
  try {
    (void)read_cluster_file(corrupt.path());
    FAIL() << "a corrupt file was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(corrupt.path() + ": not valid JSON (", 0), 0u)
        << e.what();
  }
  const TempFile trailing(contract_example().dump() + "\n{}\n");
  try {
    (void)read_cluster_file(trailing.path());
    FAIL() << "text after the document was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind(trailing.path() + ": not valid JSON (", 0), 0u)
        << e.what();
  }
  const TempFile twice("{\"version\": 1, \"version\": 1}");
  try {
    (void)read_cluster_file(twice.path());
    FAIL() << "a key given twice was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              twice.path() + ": the key \"version\" is given twice in one object");
  }
  EXPECT_THROW(
      {
        try {
          (void)read_cluster_file("/nonexistent/cluster.json");
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(), "/nonexistent/cluster.json: cannot be read");
          throw;
        }
      },
      std::invalid_argument);
  const TempFile good(contract_example().dump());
  EXPECT_EQ(read_cluster_file(good.path()).hosts.size(), 2u);
}

TEST(Cluster, ARankIsOnTheClusterWhenItsHostIsListed) {
  const TempFile file(contract_example().dump());
  EXPECT_FALSE(cluster_of_rank(nullptr, "gs-h0").has_value());  // unset
  EXPECT_FALSE(cluster_of_rank("", "gs-h0").has_value());       // empty
  EXPECT_FALSE(cluster_of_rank(file.path().c_str(), "laptop").has_value());
  const auto on = cluster_of_rank(file.path().c_str(), "gs-h1");
  ASSERT_TRUE(on.has_value());
  EXPECT_EQ(on->path, file.path());
  EXPECT_EQ(on->description.interface, "gs0");
  // A file that is named but broken is an error even for a host it would not list.
  const TempFile broken("not json");
  EXPECT_THROW((void)cluster_of_rank(broken.path().c_str(), "laptop"), std::invalid_argument);
}

}  // namespace
}  // namespace gradsync
