// Crawl's addresses and names typed once: every binding runs the function game.toml lists at its
// address, under the same name, and every function of the profile has a binding.
#include <gtest/gtest.h>

#include "crawl/bindings.hpp"
#include "lockstep/testing/bindings_check.hpp"

TEST(CrawlBindings, MatchTheProfile) {
  lockstep::testing::expect_bindings_match_profile(crawl::bindings::all(), CRAWL_SOURCE_DIR "/game.toml", {});
}
