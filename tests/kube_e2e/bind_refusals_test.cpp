// A write the API server refuses before it reaches storage — 401/403
// (authentication, RBAC, admission) or 429 (API priority and fairness,
// max-in-flight) — was not stored: the bind takes back at once what it
// wrote (the allocation annotations, the node lock, the reservation) and
// says why, so the GPU is free for the next pod. A 5xx stays of unknown
// outcome.
#include "bind_fixture.hpp"

namespace hami::e2e {
namespace {

struct BindRefusals : BindFixture {
  BindRefusals() {
    fake.apply(gpu_node("gpu-a", 1));
    // Each takes the whole GPU: only one fits at a time.
    fake.apply(gpu_pod("ml", "p1", "uid-p1", 40960, 100).dump());
    fake.apply(gpu_pod("ml", "p2", "uid-p2", 40960, 100).dump());
    start();
  }

  // Nothing of p1's failed bind is left, and p2 takes the GPU right away.
  void expect_taken_back_and_free() {
    EXPECT_EQ(lock("gpu-a"), "<none>");
    EXPECT_FALSE(charged("uid-p1"));
    const json p1 = stored(fake, "Pod", "ml", "p1");
    EXPECT_FALSE(p1["spec"].contains("nodeName"));
    for (const char* key : {"hami.io/vgpu-node", "hami.io/vgpu-devices-allocated",
                            "hami.io/vgpu-devices-to-allocate", "hami.io/bind-phase"}) {
      EXPECT_EQ(annotation(p1, key), "<none>") << key;
    }
    EXPECT_EQ(bind("p2", "gpu-a"), "");
    EXPECT_EQ(stored(fake, "Pod", "ml", "p2")["spec"]["nodeName"], "gpu-a");
    EXPECT_EQ(annotation(stored(fake, "Pod", "ml", "p2"), "hami.io/vgpu-devices-allocated"),
              "GPU-gpu-a-0,NVIDIA,40960,100:;");
  }
};

TEST_F(BindRefusals, ForbiddenBindingReleasesAtOnce) {
  fake.fail_next("POST", "/api/v1/namespaces/ml/pods/p1/binding", 403);
  EXPECT_EQ(bind("p1", "gpu-a"),
            "kubernetes API server answered 403: pods \"p1\" is forbidden: User "
            "\"system:anonymous\" cannot create resource \"pods/binding\" in API group \"\" in "
            "the namespace \"ml\"");
  expect_taken_back_and_free();
}

// API priority and fairness: 429 with Retry-After, more often than the
// client retries.
TEST_F(BindRefusals, TooManyRequestsOnTheBindingReleasesAtOnce) {
  fake.fail_next("POST", "/api/v1/namespaces/ml/pods/p1/binding", 429, 2, 1);
  EXPECT_EQ(bind("p1", "gpu-a"),
            "kubernetes API server answered 429: Too many requests, please try again later.");
  expect_taken_back_and_free();
}

// The allocation patch refused the same way: nothing stored, nothing kept.
TEST_F(BindRefusals, ForbiddenAllocationPatchReleasesAtOnce) {
  fake.fail_next("PATCH", "/api/v1/namespaces/ml/pods/p1", 403);
  EXPECT_EQ(bind("p1", "gpu-a"),
            "kubernetes API server answered 403: pods \"p1\" is forbidden: User "
            "\"system:anonymous\" cannot patch resource \"pods\" in API group \"\" in the "
            "namespace \"ml\"");
  expect_taken_back_and_free();
}

// A 5xx on the Binding with the pod unreadable: the Binding may have been
// stored with the allocation, so the lock and the charge stay.
TEST_F(BindRefusals, ServerErrorOnTheBindingKeepsTheLockAndTheCharge) {
  fake.fail_next("POST", "/api/v1/namespaces/ml/pods/p1/binding", 500);
  fake.fail_next("GET", "/api/v1/namespaces/ml/pods/p1", 500);
  EXPECT_EQ(bind("p1", "gpu-a"),
            "kubernetes API server answered 500: Internal error occurred: injected fault");
  EXPECT_EQ(lock("gpu-a"), "2025-06-15T15:06:40Z,ml,p1");
  EXPECT_TRUE(charged("uid-p1"));
  EXPECT_NE(bind("p2", "gpu-a"), "");
}

}  // namespace
}  // namespace hami::e2e
