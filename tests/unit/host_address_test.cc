// This host's address for peers: an IPv4 address one of its interfaces
// carries, never loopback (ps-zmq advertises it to workers on other hosts).
#include "strategies/core/host_address.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <memory>
#include <set>
#include <string>

namespace gradsync {
namespace {

std::set<std::string> all_ipv4_addresses() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return {};
  std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owner(list, freeifaddrs);
  std::set<std::string> found;
  for (const ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr, text,
              sizeof text);
    found.insert(text);
  }
  return found;
}

TEST(HostAddress, IsAnAddressOfThisHostAndNotLoopback) {
  const std::set<std::string> local = all_ipv4_addresses();
  bool has_other = false;
  for (const std::string& a : local) has_other |= !a.starts_with("127.");
  if (!has_other) GTEST_SKIP() << "this host has no IPv4 address besides loopback";
  const std::string address = this_host_address();
  EXPECT_TRUE(local.contains(address)) << address;
  EXPECT_FALSE(address.starts_with("127.")) << address;
}

}  // namespace
}  // namespace gradsync
