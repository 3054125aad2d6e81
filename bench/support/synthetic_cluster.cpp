#include "synthetic_cluster.hpp"

#include <cstdio>

namespace hami::bench {

std::string gpu_id(int node, int gpu) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "GPU-%08x-0000-4000-8000-%012x", node, gpu);
  return buf;
}

std::string gpu_node_name(int node) {
  return "gpu-node-" + std::to_string(node);
}

std::string gpu_node_json(int node) {
  std::string reg = "[";
  for (int g = 0; g < kGpusPerNode; ++g) {
    if (g > 0)
      reg += ",";
    reg +=
        R"({\"id\":\")" + gpu_id(node, g) + R"(\",\"index\":)" + std::to_string(g) +
        R"(,\"count\":10,\"devmem\":40960,\"devcore\":100,\"type\":\"NVIDIA A100-SXM4-40GB\",\"numa\":)" +
        std::to_string(g / 4) + R"(,\"mode\":\"hami-core\",\"health\":true})";
  }
  reg += "]";
  return R"({"kind":"Node","apiVersion":"v1","metadata":{"name":")" + gpu_node_name(node) +
         R"(","annotations":{"hami.io/node-handshake":"Requesting_2099-01-01 00:00:00",)"
         R"("hami.io/node-nvidia-register":")" +
         reg +
         R"("}},"status":{"allocatable":{"nvidia.com/gpu":"80"},"capacity":{"nvidia.com/gpu":"80"}}})";
}

std::string running_pod_json(int i, int node, int gpu, int memory_mib, int cores) {
  const std::string name = gpu_node_name(node);
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"run-)" + std::to_string(i) +
         R"(","namespace":"ml","uid":"pod-uid-)" + std::to_string(i) +
         R"(","annotations":{"hami.io/vgpu-node":")" + name +
         R"(","hami.io/bind-phase":"success","hami.io/vgpu-devices-allocated":")" +
         gpu_id(node, gpu) + ",NVIDIA," + std::to_string(memory_mib) + "," + std::to_string(cores) +
         R"(:;"}},"spec":{"nodeName":")" + name +
         R"(","schedulerName":"hami-scheduler","containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":"1"}}}]},"status":{"phase":"Running"}})";
}

std::string pending_pod_json(const std::string& name, int gpus, int memory_mib, int cores) {
  return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","namespace":"ml","uid":"uid-)" + name +
         R"("},"spec":{"schedulerName":"hami-scheduler","containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":")" +
         std::to_string(gpus) + R"(","nvidia.com/gpumem":")" + std::to_string(memory_mib) +
         R"(","nvidia.com/gpucores":")" + std::to_string(cores) +
         R"("}}}]},"status":{"phase":"Pending"}})";
}

}  // namespace hami::bench
