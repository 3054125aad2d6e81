// Label values as the API server's validation accepts them.
#include "k8s/label_value.hpp"

#include <gtest/gtest.h>

#include <string>

namespace hami::k8s {
namespace {

TEST(LabelValue, LengthAndAlphabetOfTheApiServer) {
  EXPECT_TRUE(is_label_value(""));
  EXPECT_TRUE(is_label_value("a"));
  EXPECT_TRUE(is_label_value("gpu-node-1"));
  EXPECT_TRUE(is_label_value("ip-10-0-1-2.ec2.internal"));
  EXPECT_TRUE(is_label_value("My_Value.2"));
  EXPECT_TRUE(is_label_value(std::string(63, 'n')));
  EXPECT_FALSE(is_label_value(std::string(64, 'n')));
  EXPECT_FALSE(
      is_label_value("ip-172-31-45-67.ap-southeast-2.compute.internal.gpu-a100-pool-00000001"));
  EXPECT_FALSE(is_label_value("-node"));
  EXPECT_FALSE(is_label_value("node."));
  EXPECT_FALSE(is_label_value("_"));
  EXPECT_FALSE(is_label_value("a:b"));
  EXPECT_FALSE(is_label_value("a/b"));
  EXPECT_FALSE(is_label_value("a b"));
  EXPECT_FALSE(is_label_value("n\xc3\xa9"));
}

}  // namespace
}  // namespace hami::k8s
