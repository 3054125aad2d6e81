// hami.io/vgpu-mig-allocations through nvidia.so's annotate_allocation,
// decode_pod_allocation and describe_partitions: HAMi's
// TestEncodeDecodeMigAllocations, TestDecodeMigAllocations*,
// Test_PatchAnnotations (MIG), and the reservation restore of
// getNodesUsage (pkg/scheduler/mig_allocation_test.go), with exact bytes.
#include <gtest/gtest.h>

#include "mig_plugin.hpp"

namespace hami::testing {
namespace {

constexpr const char* kMig = "hami.io/vgpu-mig-allocations";
constexpr const char* kAllocated = "hami.io/vgpu-devices-allocated";
constexpr const char* kToAllocate = "hami.io/vgpu-devices-to-allocate";

class NvidiaMigAllocation : public ::testing::Test {
 protected:
  PlacedPod decode(Pairs annotations) {
    PodFixture pod;
    for (auto& [k, v] : annotations)
      pod.annotation(std::move(k), std::move(v));
    pod.container({});
    return plugin_.decode_pod(pod);
  }
  std::vector<AnnotationOp> annotate(const PlacedPod& containers, Pairs annotations = {}) {
    PodFixture pod;
    for (auto& [k, v] : annotations)
      pod.annotation(std::move(k), std::move(v));
    pod.container({});
    return plugin_.annotate(pod, containers);
  }
  std::vector<Partition> partitions(const std::string& mig) {
    PodFixture pod;
    pod.annotation(kMig, mig);
    pod.container({});
    return plugin_.partitions(pod);
  }

  MigPlugin plugin_;
};

TEST_F(NvidiaMigAllocation, TestEncodeDecodeMigAllocations) {
  const PlacedPod pod = {{{"GPU-a", "NVIDIA", 5120, 14, 0, "6,1,6:1g.5gb"}}};
  const std::vector<AnnotationOp> ops = annotate(pod);
  const std::string want =
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}}])";
  ASSERT_EQ(ops, (std::vector<AnnotationOp>{{true, kMig, want}}));
  const PlacedPod decoded = decode({{kAllocated, "GPU-a,NVIDIA,5120,14:;"}, {kMig, want}});
  EXPECT_EQ(decoded, pod);
}

TEST_F(NvidiaMigAllocation, Test_PatchAnnotations_MigIndexesCountSegmentsAndPositions) {
  // Segment 0 (an init container) has no device; in segment 1 the MIG
  // device is the second entry, after a hami-core GPU.
  const PlacedPod pod = {
      {},
      {{"GPU-core", "NVIDIA", 2000, 1, 0, ""}, {"GPU-a", "NVIDIA", 10240, 28, 1, "0,2,7:2g.10gb"}},
      {{"GPU-a", "NVIDIA", 5120, 14, 1, "6,1,6:1g.5gb"},
       {"GPU-a", "NVIDIA", 5120, 14, 1, "5,1,6:1g.5gb"}}};
  const std::vector<AnnotationOp> ops = annotate(pod);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(
      ops[0].value,
      R"([{"containerIndex":1,"deviceIndex":1,"gpuUUID":"GPU-a","profile":"2g.10gb","placement":{"start":0,"size":2}},)"
      R"({"containerIndex":2,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}},)"
      R"({"containerIndex":2,"deviceIndex":1,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":5,"size":1}}])");
  // Round trip: each entry gets its own reservation back, byte for byte
  // (decoded devices report index 0).
  PlacedPod want = pod;
  for (auto& c : want) {
    for (auto& d : c)
      d.index = 0;
  }
  EXPECT_EQ(decode({{kAllocated,
                     ";GPU-core,NVIDIA,2000,1:GPU-a,NVIDIA,10240,28:;GPU-a,NVIDIA,5120,14:GPU-a,"
                     "NVIDIA,5120,14:;"},
                    {kMig, ops[0].value}}),
            want);
}

TEST_F(NvidiaMigAllocation, WithoutMigDataNothingIsWrittenAndAStaleAnnotationIsRemoved) {
  const PlacedPod pod = {{{"GPU-0", "NVIDIA", 2000, 1, 0, ""}}};
  EXPECT_TRUE(annotate(pod).empty());
  EXPECT_EQ(annotate(pod, {{kMig, "[]"}}), (std::vector<AnnotationOp>{{false, kMig, ""}}));
}

TEST_F(NvidiaMigAllocation, StringsAreEscapedAsGoDoes) {
  const std::string profile = "1g<&>\"\\\n\t\x01\x7f\xe2\x80\xa8\xff\xc3\xa9";
  const std::string data = "6,1," + std::to_string(profile.size()) + ":" + profile;
  const std::vector<AnnotationOp> ops = annotate({{{"GPU-\xe2\x80\xa9", "NVIDIA", 1, 1, 0, data}}});
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(
      ops[0].value,
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-\u2029","profile":"1g\u003c\u0026\u003e\"\\\n\t\u0001)"
      "\x7f"
      R"(\u2028\ufffdé","placement":{"start":6,"size":1}}])");
}

TEST_F(NvidiaMigAllocation, DataThatIsNotOneReservationIsRefused) {
  for (const char* data : {"6,1", "6,1,6:1g.5gb;5,1,6:1g.5gb", "06,1,6:1g.5gb"}) {
    try {
      annotate({{{"GPU-a", "NVIDIA", 1, 1, 0, data}}});
      ADD_FAILURE() << data;
    } catch (const RawCallError& e) {
      EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT) << data;
      EXPECT_EQ(std::string(e.what()),
                "hami.io/vgpu-mig-allocations: container 0 device 0: data is not one MIG "
                "reservation")
          << data;
    }
  }
}

TEST_F(NvidiaMigAllocation, TestGetNodesUsageRestoresMigAllocationByProfileAndPlacement) {
  const std::string mig =
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1},"migUUID":"MIG-a","gpuInstanceID":7,"computeInstanceID":0}])";
  EXPECT_EQ(decode({{kAllocated, "GPU-a,NVIDIA,5120,14:;"}, {kMig, mig}}),
            (PlacedPod{{{"GPU-a", "NVIDIA", 5120, 14, 0, "6,1,6:1g.5gb"}}}));
  EXPECT_EQ(partitions(mig),
            (std::vector<Partition>{{0, "GPU-a", {"MIG-a", "1g.5gb", "7", "0", "6", "1"}},
                                    {1, "GPU-a", {"1g.5gb-7"}}}));
}

TEST_F(NvidiaMigAllocation, TestGetNodesUsageFailsClosedWithoutMigAllocation) {
  // No MIG annotation: the entry reports no data (the host holds "" there,
  // which fails the MIG device closed in fit).
  EXPECT_EQ(decode({{kAllocated, "GPU-a,NVIDIA,5120,14:;"}}),
            (PlacedPod{{{"GPU-a", "NVIDIA", 5120, 14, 0, ""}}}));
}

TEST_F(NvidiaMigAllocation, TestGetNodesUsageRestoresUnconsumedMigReservations) {
  const std::string mig =
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}},
          {"containerIndex":0,"deviceIndex":1,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":5,"size":1}}])";
  EXPECT_EQ(decode({{kAllocated, "GPU-a,NVIDIA,5120,14:;"}, {kMig, mig}}),
            (PlacedPod{{{"GPU-a", "NVIDIA", 5120, 14, 0, "6,1,6:1g.5gb;5,1,6:1g.5gb"}}}));
}

TEST_F(NvidiaMigAllocation, ReservationsAttachInContainerThenDeviceOrderByGpu) {
  // Reservations are consumed by GPU UUID in annotation order, whatever
  // their indexes; leftovers go to the GPU's last entry; a GPU the pod does
  // not list is dropped.
  const std::string mig =
      R"([{"containerIndex":1,"deviceIndex":0,"gpuUUID":"GPU-b","profile":"2g.10gb","placement":{"start":0,"size":2}},
          {"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}},
          {"containerIndex":5,"deviceIndex":0,"gpuUUID":"GPU-x","profile":"1g.5gb","placement":{"start":1,"size":1}},
          {"containerIndex":0,"deviceIndex":1,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":5,"size":1}},
          {"containerIndex":9,"deviceIndex":9,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":4,"size":1}}])";
  EXPECT_EQ(
      decode({{kAllocated, "GPU-a,NVIDIA,5120,14:GPU-b,NVIDIA,10240,28:;GPU-a,NVIDIA,5120,14:;"},
              {kMig, mig}}),
      (PlacedPod{{{"GPU-a", "NVIDIA", 5120, 14, 0, "6,1,6:1g.5gb"},
                  {"GPU-b", "NVIDIA", 10240, 28, 0, "0,2,7:2g.10gb"}},
                 {{"GPU-a", "NVIDIA", 5120, 14, 0, "5,1,6:1g.5gb;4,1,6:1g.5gb"}}}));
}

TEST_F(NvidiaMigAllocation, ToAllocateIsReadWhenAllocatedIsAbsent) {
  EXPECT_EQ(decode({{kToAllocate, "GPU-a,NVIDIA,5120,14:;"}}),
            (PlacedPod{{{"GPU-a", "NVIDIA", 5120, 14, 0, ""}}}));
  // allocated wins.
  EXPECT_EQ(decode({{kToAllocate, "GPU-b,NVIDIA,1,1:;"}, {kAllocated, "GPU-a,NVIDIA,5,1:;"}}),
            (PlacedPod{{{"GPU-a", "NVIDIA", 5, 1, 0, ""}}}));
}

TEST_F(NvidiaMigAllocation, NoAllocationIsNotFoundAndAMalformedOneIsInvalid) {
  try {
    decode({{kMig, "[]"}});
    ADD_FAILURE();
  } catch (const RawCallError& e) {
    EXPECT_EQ(e.status(), HAMI_NOT_FOUND);
    EXPECT_EQ(std::string(e.what()),
              "pod default/pod has no hami.io/vgpu-devices-allocated or "
              "hami.io/vgpu-devices-to-allocate annotation");
  }
  try {
    decode({{kAllocated, "GPU-a,NVIDIA:;"}});
    ADD_FAILURE();
  } catch (const RawCallError& e) {
    EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(e.what()).rfind("hami.io/vgpu-devices-allocated: ", 0), 0u) << e.what();
  }
}

TEST_F(NvidiaMigAllocation, TestDecodeMigAllocationsRejectsDuplicateDeviceIndex) {
  const std::string mig =
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}},{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":5,"size":1}}])";
  // A rejected annotation counts as no reservation, as getNodesUsage ignores it.
  EXPECT_EQ(decode({{kAllocated, "GPU-a,NVIDIA,5120,14:;"}, {kMig, mig}}),
            (PlacedPod{{{"GPU-a", "NVIDIA", 5120, 14, 0, ""}}}));
}

TEST_F(NvidiaMigAllocation, TestDecodeMigAllocationsPreservesZeroRuntimeInstanceIDs) {
  const std::string mig =
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"2g.10gb","placement":{"start":0,"size":2},"migUUID":"MIG-a","gpuInstanceID":4,"computeInstanceID":0}])";
  EXPECT_EQ(decode({{kAllocated, "GPU-a,NVIDIA,10240,28:;"}, {kMig, mig}}),
            (PlacedPod{{{"GPU-a", "NVIDIA", 10240, 28, 0, "0,2,7:2g.10gb"}}}));
  EXPECT_EQ(partitions(mig),
            (std::vector<Partition>{{0, "GPU-a", {"MIG-a", "2g.10gb", "4", "0", "0", "2"}},
                                    {1, "GPU-a", {"2g.10gb-4"}}}));
}

TEST_F(NvidiaMigAllocation, TestDecodeMigAllocationsRejectsPartialRuntimeIdentity) {
  const std::string mig =
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"2g.10gb","placement":{"start":0,"size":2},"migUUID":"MIG-a"}])";
  EXPECT_EQ(decode({{kAllocated, "GPU-a,NVIDIA,10240,28:;"}, {kMig, mig}}),
            (PlacedPod{{{"GPU-a", "NVIDIA", 10240, 28, 0, ""}}}));
  EXPECT_TRUE(partitions(mig).empty());  // not realized yet
}

TEST_F(NvidiaMigAllocation, AnnotationsDecodeMigAllocationsRejectsCountAsNone) {
  const std::vector<std::string> bad = {
      "not json",
      R"({"containerIndex":0})",
      R"([1])",
      R"([null])",  // a zero-valued entry is incomplete
      R"([{"containerIndex":"0","deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}}])",
      R"([{"containerIndex":0.5,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}}])",
      R"([{"containerIndex":-1,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}}])",
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":-1,"size":1}}])",
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":4294967296}}])",
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":0}}])",
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"","profile":"1g.5gb","placement":{"start":6,"size":1}}])",
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":[6,1]}])",
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1},"gpuInstanceID":1,"computeInstanceID":1}])",
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1}}] x)",
  };
  for (const std::string& mig : bad) {
    EXPECT_EQ(decode({{kAllocated, "GPU-a,NVIDIA,5120,14:;"}, {kMig, mig}}),
              (PlacedPod{{{"GPU-a", "NVIDIA", 5120, 14, 0, ""}}}))
        << mig;
  }
}

TEST_F(NvidiaMigAllocation, KeysAreReadAsGoReadsThem) {
  // Case-insensitive keys, unknown keys ignored, the last repeated key wins,
  // null keeps the zero value; "null" and "" are no reservations.
  const std::string mig =
      R"([{"CONTAINERINDEX":0,"deviceindex":0,"GpuUuid":"GPU-a","profile":"2g.10gb","profile":"1g.5gb","Placement":{"START":3,"size":1,"extra":[{}]},"note":{"a":[1]},"migUUID":null}])";
  EXPECT_EQ(decode({{kAllocated, "GPU-a,NVIDIA,5120,14:;"}, {kMig, mig}}),
            (PlacedPod{{{"GPU-a", "NVIDIA", 5120, 14, 0, "3,1,6:1g.5gb"}}}));
  for (const char* none : {"null", ""}) {
    EXPECT_EQ(decode({{kAllocated, "GPU-a,NVIDIA,5120,14:;"}, {kMig, none}}),
              (PlacedPod{{{"GPU-a", "NVIDIA", 5120, 14, 0, ""}}}));
  }
}

TEST_F(NvidiaMigAllocation, PartitionsNeedTheWholeRuntimeIdentity) {
  const std::string mig =
      R"([{"containerIndex":0,"deviceIndex":0,"gpuUUID":"GPU-a","profile":"1g.5gb","placement":{"start":6,"size":1},"migUUID":"MIG-a","gpuInstanceID":13,"computeInstanceID":2},)"
      R"({"containerIndex":0,"deviceIndex":1,"gpuUUID":"GPU-b","profile":"1g.5gb","placement":{"start":5,"size":1}},)"
      R"({"containerIndex":0,"deviceIndex":2,"gpuUUID":"GPU-c","profile":"1g.5gb","placement":{"start":4,"size":1},"migUUID":"","gpuInstanceID":1,"computeInstanceID":1}])";
  EXPECT_EQ(partitions(mig),
            (std::vector<Partition>{{0, "GPU-a", {"MIG-a", "1g.5gb", "13", "2", "6", "1"}},
                                    {1, "GPU-a", {"1g.5gb-13"}}}));
  try {
    partitions("[1]");
    ADD_FAILURE();
  } catch (const RawCallError& e) {
    EXPECT_EQ(e.status(), HAMI_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(e.what()),
              "hami.io/vgpu-mig-allocations: MIG allocation 0 is not an object");
  }
  PodFixture none;
  none.container({});
  EXPECT_TRUE(plugin_.partitions(none).empty());
}

TEST_F(NvidiaMigAllocation, PartitionsReadKeysAsGoDoesWithoutTheSchedulersRules) {
  // Keys in any case, unknown keys skipped, and none of decode's
  // completeness rules (no placement, a repeated device index).
  const std::string mig =
      R"([{"GPUUUID":"GPU-a","Profile":"1g.5gb","MIGUUID":"MIG-a","GpuInstanceId":4,)"
      R"("COMPUTEINSTANCEID":1,"extra":[{}]},)"
      R"({"gpuUUID":"GPU-b","profile":"2g.10gb","placement":{"START":2,"Size":2},)"
      R"("migUUID":"MIG-b","gpuInstanceID":5,"computeInstanceID":0,"deviceIndex":0}])";
  EXPECT_EQ(partitions(mig),
            (std::vector<Partition>{{0, "GPU-a", {"MIG-a", "1g.5gb", "4", "1", "0", "0"}},
                                    {1, "GPU-a", {"1g.5gb-4"}},
                                    {0, "GPU-b", {"MIG-b", "2g.10gb", "5", "0", "2", "2"}},
                                    {1, "GPU-b", {"2g.10gb-5"}}}));
  // A field of the wrong type fails the whole annotation.
  EXPECT_THROW(partitions(R"([{"gpuUUID":"GPU-a","migUUID":7}])"), RawCallError);
}

TEST_F(NvidiaMigAllocation, FitDataAnnotateDecodeRoundTrip) {
  // Two containers each taking two instances of one A100; what fit records
  // comes back from decode_pod_allocation byte for byte.
  const OfferedDevice gpu =
      offered(plugin_, mig_register_device("GPU-a", 7, 40960, a100_mig_profiles()));
  PlacedPod placed;
  std::vector<std::string> holds;
  for (const std::int64_t memory : {5000, 10000}) {
    PodFixture pod;
    pod.container({});
    OfferedDevice d = gpu;
    d.holds = holds;
    const MigFitOutcome o = plugin_.fit({d}, pod, make_request(2, memory, 0, 0));
    ASSERT_TRUE(o.fits) << o.reason;
    placed.emplace_back();
    for (std::size_t k = 0; k < o.picks.size(); ++k) {
      placed.back().push_back(
          Placed{o.ids[k], "NVIDIA", o.picks[k].memory_mib, o.picks[k].cores, 0, o.data[k]});
      holds.push_back(o.data[k]);
    }
  }
  EXPECT_EQ(holds, (std::vector<std::string>{"6,1,6:1g.5gb", "5,1,6:1g.5gb", "0,2,7:2g.10gb",
                                             "2,2,7:2g.10gb"}));
  const std::vector<AnnotationOp> ops = annotate(placed);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(decode({{kAllocated,
                     "GPU-a,NVIDIA,5120,14:GPU-a,NVIDIA,5120,14:;GPU-a,NVIDIA,10240,28:GPU-a,"
                     "NVIDIA,10240,28:;"},
                    {kMig, ops[0].value}}),
            placed);
}

}  // namespace
}  // namespace hami::testing
