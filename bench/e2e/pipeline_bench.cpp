// The scheduling pipeline end to end, driven the way kube-scheduler drives
// the extender: the whole host (Kubernetes backend, nvidia.so, vgpu.so,
// hami-policies.so) against the fake API server over loopback; filter and
// prioritize for one pod after another on one keep-alive HTTPS connection;
// binds handed to up to --binders concurrent binders, each on its own
// keep-alive connection; after each bind a simulated node-side device plugin
// sets hami.io/bind-phase: success and releases hami.io/mutex.lock through
// the API server, as HAMi's does after Allocate. A bind refused (node lock
// contention, a fit lost to a concurrent bind) puts the pod back in the
// queue, as kube-scheduler's backoff does. Among hosts of the best score one
// is picked at random, as kube-scheduler's selectHost does.
//
// Prints sustained pods/s (bound pods over the time from the first filter to
// the last bind), bind latency percentiles, retries, and the result of the
// over-allocation check: every GPU's allocated memory, cores and task count
// summed from the pods the API server stores, against what it registers.
// Exits 1 when a GPU is over-allocated or a pod is left unbound.
//
// usage: pipeline_bench [--nodes N] [--pods N] [--binders N]
//                       [--node-policy binpack|spread] [--seconds N]
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/scheduler_host.hpp"
#include "fake_apiserver.hpp"
#include "kube/api_client.hpp"
#include "test_support.hpp"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kGpusPerNode = 8;
constexpr int kGpuMemory = 40960;
constexpr int kGpuSlots = 10;
constexpr int kPodMemory = 4000;
constexpr int kPodCores = 10;

struct Options {
  int nodes = 1000;
  int pods = 5000;
  int binders = 16;
  std::string node_policy = "spread";
  int seconds = 300;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const std::string value = argv[i + 1];
    if (key == "--nodes")
      o.nodes = std::stoi(value);
    else if (key == "--pods")
      o.pods = std::stoi(value);
    else if (key == "--binders")
      o.binders = std::stoi(value);
    else if (key == "--node-policy")
      o.node_policy = value;
    else if (key == "--seconds")
      o.seconds = std::stoi(value);
    else
      throw std::invalid_argument("unknown option " + key);
  }
  if (o.nodes < 1 || o.pods < 1 || o.binders < 1 || o.seconds < 1)
    throw std::invalid_argument("--nodes, --pods, --binders and --seconds must be positive");
  return o;
}

std::string node_name(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "gpu-%04d", i);
  return buf;
}

std::string node_object(const std::string& name) {
  json reg = json::array();
  for (int i = 0; i < kGpusPerNode; ++i) {
    reg.push_back({{"id", "GPU-" + name + "-" + std::to_string(i)},
                   {"index", i},
                   {"count", kGpuSlots},
                   {"devmem", kGpuMemory},
                   {"devcore", 100},
                   {"type", "NVIDIA A100-SXM4-40GB"},
                   {"numa", i < kGpusPerNode / 2 ? 0 : 1},
                   {"mode", "hami-core"},
                   {"health", true}});
  }
  const std::string count = std::to_string(kGpusPerNode * kGpuSlots);
  return json{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       {{"name", name},
        {"labels", {{"kubernetes.io/hostname", name}}},
        {"annotations", {{"hami.io/node-nvidia-register", reg.dump()}}}}},
      {"status",
       {{"capacity", {{"nvidia.com/gpu", count}}}, {"allocatable", {{"nvidia.com/gpu", count}}}}}}
      .dump();
}

json pod_object(int i, const std::string& node_policy) {
  const std::string name = "job-" + std::to_string(i);
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "bench"},
            {"uid", "uid-" + std::to_string(i)},
            {"annotations", {{"hami.io/node-scheduler-policy", node_policy}}}}},
          {"spec",
           {{"schedulerName", "hami-scheduler"},
            {"containers",
             json::array({{{"name", "main"},
                           {"resources",
                            {{"limits",
                              {{"nvidia.com/gpu", "1"},
                               {"nvidia.com/gpumem", std::to_string(kPodMemory)},
                               {"nvidia.com/gpucores", std::to_string(kPodCores)}}}}}}})}}},
          {"status", {{"phase", "Pending"}}}};
}

hami::config::HostConfig host_config(const std::filesystem::path& kubeconfig) {
  hami::config::HostConfig c;
  c.source = "pipeline-bench";
  c.listen.host = "127.0.0.1";
  c.listen.port = 0;
  c.tls.self_signed = true;
  c.extender.listen.host = "127.0.0.1";
  c.extender.listen.port = 0;
  c.server.max_threads = 64;
  c.plugins.directory = HAMI_BENCH_PLUGIN_DIR;
  c.plugins.allow_writable = true;
  const auto entry = [](const char* name, const char* library) {
    hami::config::PluginEntry e;
    e.name = name;
    e.library = library;
    e.config_json = "{}";
    return e;
  };
  c.plugins.devices = {entry("nvidia", "nvidia.so")};
  c.plugins.admission = entry("vgpu", "vgpu.so");
  c.plugins.scheduling = {entry("hami-policies", "hami-policies.so")};
  c.cluster.source = hami::config::ClusterSource::kubernetes;
  c.cluster.kubernetes.kubeconfig = kubeconfig;
  c.cluster.kubernetes.request_timeout_seconds = 10;
  c.cluster.kubernetes.qps = 0;
  return c;
}

// One keep-alive HTTPS connection to the extender listener.
class Extender {
 public:
  Extender(SSL_CTX* ctx, uint16_t port) : conn_(ctx, port) {
    if (!conn_.handshake())
      throw std::runtime_error("handshake: " + conn_.error());
  }
  std::string post(const std::string& path, const std::string& body) {
    if (!conn_.send("POST " + path +
                    " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    "Content-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n" + body)) {
      throw std::runtime_error(path + ": send failed");
    }
    const auto raw = conn_.read_response();
    if (!raw)
      throw std::runtime_error(path + ": no response");
    const auto parsed = hami::test::parse_response(*raw);
    if (parsed.status != 200)
      throw std::runtime_error(path + ": HTTP " + std::to_string(parsed.status));
    return parsed.body;
  }

 private:
  hami::test::TlsConnection conn_;
};

struct BindJob {
  int pod;
  std::string node;
};

struct Shared {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<int> queue;      // pods to schedule
  std::deque<BindJob> binds;  // decided, to bind
  int in_flight = 0;          // binds taken by a binder, not finished
  int bound = 0;
  int retries = 0;
  std::vector<double> latencies_ms;
  std::string first_error;
  bool stop = false;
  Clock::time_point last_bound;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

// Sums every stored pod's allocation per GPU; returns the problems found.
std::vector<std::string> over_allocation(const hami::testing::FakeApiServer& fake, int pods,
                                         int& allocated_pods) {
  struct Use {
    int slots = 0;
    int64_t memory = 0;
    int64_t cores = 0;
  };
  std::map<std::string, Use> use;
  std::vector<std::string> problems;
  allocated_pods = 0;
  for (const std::string& text : fake.objects("Pod")) {
    const json pod = json::parse(text);
    const auto& meta = pod["metadata"];
    if (!meta.contains("annotations") ||
        !meta["annotations"].contains("hami.io/vgpu-devices-allocated")) {
      continue;
    }
    ++allocated_pods;
    const std::string value = meta["annotations"]["hami.io/vgpu-devices-allocated"];
    std::stringstream segments(value);
    std::string device;
    int entries = 0;
    while (std::getline(segments, device, ':')) {
      const size_t semicolon = device.find(';');
      if (semicolon != std::string::npos)
        device = device.substr(semicolon + 1);
      if (device.empty())
        continue;
      std::stringstream fields(device);
      std::string id, type, memory, cores;
      std::getline(fields, id, ',');
      std::getline(fields, type, ',');
      std::getline(fields, memory, ',');
      std::getline(fields, cores, ',');
      Use& u = use[id];
      u.slots += 1;
      u.memory += std::stoll(memory);
      u.cores += std::stoll(cores);
      ++entries;
    }
    if (entries != 1)
      problems.push_back(meta["name"].get<std::string>() + " has " + std::to_string(entries) +
                         " devices");
    if (!pod["spec"].contains("nodeName"))
      problems.push_back(meta["name"].get<std::string>() + " has devices but no node");
  }
  for (const auto& [id, u] : use) {
    if (u.slots > kGpuSlots || u.memory > kGpuMemory || u.cores > 100) {
      problems.push_back(id + " holds " + std::to_string(u.slots) + " tasks, " +
                         std::to_string(u.memory) + " MiB, " + std::to_string(u.cores) +
                         " % cores");
    }
  }
  if (allocated_pods != pods)
    problems.push_back(std::to_string(allocated_pods) + " of " + std::to_string(pods) +
                       " pods hold an allocation");
  return problems;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse_options(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "pipeline_bench: " << e.what() << "\n";
    return 2;
  }
  hami::testing::FakeApiServer fake;
  fake.apply(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}})");
  std::vector<std::string> names;
  for (int i = 0; i < o.nodes; ++i) {
    names.push_back(node_name(i));
    fake.apply(node_object(names.back()));
  }
  std::vector<json> pods;
  for (int i = 0; i < o.pods; ++i) {
    pods.push_back(pod_object(i, o.node_policy));
    fake.apply(pods.back().dump());
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("pipeline-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto kubeconfig = dir / "kubeconfig";
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\ncurrent-context: fake\n"
                               "clusters:\n- name: fake\n  cluster:\n    server: "
                            << fake.url()
                            << "\nusers:\n- name: b\n  user: {}\n"
                               "contexts:\n- name: fake\n  context:\n    cluster: fake\n"
                               "    user: b\n";
  std::ostringstream log_sink;
  hami::log::Logger logger{hami::log::Level::error, hami::log::Format::text, &log_sink};
  hami::app::SchedulerHost host(host_config(kubeconfig), logger);
  host.start();
  const auto deadline = Clock::now() + std::chrono::seconds(o.seconds);
  auto& stack = host.extender();
  while (!stack.gate().empty() || stack.cluster->pods().size() < static_cast<size_t>(o.pods)) {
    if (Clock::now() > deadline) {
      std::cerr << "pipeline_bench: the host did not sync: " << stack.gate() << "\n";
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  fake.clear_requests();

  hami::kube::ApiConfig api;
  api.server = fake.url();
  api.qps = 0;
  api.request_timeout = std::chrono::seconds(10);
  hami::kube::ApiClient node_plugin(api);
  const auto ctx = hami::test::make_client_ctx({});
  const uint16_t port = host.extender_server().port();

  Shared s;
  for (int i = 0; i < o.pods; ++i)
    s.queue.push_back(i);

  std::vector<std::thread> binders;
  for (int b = 0; b < o.binders; ++b) {
    binders.emplace_back([&] {
      Extender extender(ctx.get(), port);
      while (true) {
        BindJob job;
        {
          std::unique_lock lock(s.mu);
          s.cv.wait(lock, [&] { return s.stop || !s.binds.empty(); });
          if (s.stop)
            return;
          job = std::move(s.binds.front());
          s.binds.pop_front();
          ++s.in_flight;
        }
        const json& pod = pods[static_cast<size_t>(job.pod)];
        const json args = {{"PodName", pod["metadata"]["name"]},
                           {"PodNamespace", "bench"},
                           {"PodUID", pod["metadata"]["uid"]},
                           {"Node", job.node}};
        const auto t0 = Clock::now();
        std::string error;
        try {
          error = json::parse(extender.post("/bind", args.dump()))["Error"];
        } catch (const std::exception& e) {
          error = e.what();
        }
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (error.empty()) {
          // HAMi's device plugin after Allocate: the pod is served, the node
          // lock released.
          const std::string path =
              "/api/v1/namespaces/bench/pods/" + pod["metadata"]["name"].get<std::string>();
          node_plugin.patch(path, hami::kube::PatchType::merge,
                            R"({"metadata":{"annotations":{"hami.io/bind-phase":"success"}}})");
          node_plugin.patch("/api/v1/nodes/" + job.node, hami::kube::PatchType::merge,
                            R"({"metadata":{"annotations":{"hami.io/mutex.lock":null}}})");
        }
        std::lock_guard lock(s.mu);
        --s.in_flight;
        if (error.empty()) {
          ++s.bound;
          s.latencies_ms.push_back(ms);
          s.last_bound = Clock::now();
        } else {
          ++s.retries;
          if (s.first_error.empty())
            s.first_error = error;
          s.queue.push_back(job.pod);
        }
        s.cv.notify_all();
      }
    });
  }

  const auto started = Clock::now();
  bool timed_out = false;
  // Time in the serial scheduling loop's two calls (the pipeline's limit
  // when binds keep up).
  double filter_ms = 0;
  double prioritize_ms = 0;
  int cycles = 0;
  {
    Extender extender(ctx.get(), port);
    // The driver stands for kube-scheduler, whose CPU is its own in a
    // cluster: its share of these two cores is kept small — bodies
    // assembled from text serialized once, replies read with RapidJSON.
    const std::string names_json = json(names).dump();
    std::vector<std::string> pod_texts;
    pod_texts.reserve(pods.size());
    for (const json& p : pods)
      pod_texts.push_back(p.dump());
    std::mt19937 random(12345);  // fixed: runs repeat
    while (true) {
      int next = -1;
      {
        std::unique_lock lock(s.mu);
        // kube-scheduler binds asynchronously, up to --binders at a time.
        s.cv.wait(lock, [&] {
          return s.bound == o.pods ||
                 (!s.queue.empty() && static_cast<int>(s.binds.size()) + s.in_flight < o.binders) ||
                 Clock::now() > deadline;
        });
        if (s.bound == o.pods)
          break;
        if (Clock::now() > deadline) {
          timed_out = true;
          break;
        }
        next = s.queue.front();
        s.queue.pop_front();
      }
      const std::string& pod = pod_texts[static_cast<size_t>(next)];
      const auto f0 = Clock::now();
      const std::string filter_reply =
          extender.post("/filter", R"({"Pod":)" + pod + R"(,"NodeNames":)" + names_json + "}");
      rapidjson::Document filter;
      filter.Parse(filter_reply.c_str());
      const auto f1 = Clock::now();
      filter_ms += std::chrono::duration<double, std::milli>(f1 - f0).count();
      ++cycles;
      std::string best;
      if (!filter.HasParseError() && filter.IsObject() && filter.HasMember("NodeNames") &&
          filter["NodeNames"].IsArray() && !filter["NodeNames"].Empty()) {
        rapidjson::StringBuffer fitting;
        rapidjson::Writer<rapidjson::StringBuffer> writer(fitting);
        filter["NodeNames"].Accept(writer);
        const std::string scores_reply = extender.post(
            "/prioritize", R"({"Pod":)" + pod + R"(,"NodeNames":)" + fitting.GetString() + "}");
        rapidjson::Document scores;
        scores.Parse(scores_reply.c_str());
        prioritize_ms += std::chrono::duration<double, std::milli>(Clock::now() - f1).count();
        // kube-scheduler's selectHost: the highest score, one of the tied
        // hosts at random (reservoir sampling).
        int64_t top = -1;
        int tied = 0;
        if (!scores.HasParseError() && scores.IsArray()) {
          for (const auto& h : scores.GetArray()) {
            const int64_t score = h["Score"].GetInt64();
            if (score > top) {
              top = score;
              tied = 1;
              best = h["Host"].GetString();
            } else if (score == top && std::uniform_int_distribution<int>(0, tied++)(random) == 0) {
              best = h["Host"].GetString();
            }
          }
        }
      }
      std::lock_guard lock(s.mu);
      if (best.empty()) {
        ++s.retries;
        s.queue.push_back(next);
      } else {
        s.binds.push_back({next, best});
      }
      s.cv.notify_all();
    }
    {
      std::unique_lock lock(s.mu);
      s.cv.wait_until(lock, deadline, [&] { return s.binds.empty() && s.in_flight == 0; });
      s.stop = true;
      s.cv.notify_all();
    }
  }
  for (std::thread& t : binders)
    t.join();

  const double seconds = std::chrono::duration<double>(s.last_bound - started).count();
  int allocated = 0;
  const auto problems = over_allocation(fake, o.pods, allocated);
  std::cout << "nodes " << o.nodes << " x " << kGpusPerNode << " GPUs, pods " << o.pods
            << ", binders " << o.binders << ", node policy " << o.node_policy << "\n"
            << "bound " << s.bound << " in " << seconds << " s: " << (s.bound / seconds)
            << " pods/s\n"
            << "bind latency ms: p50 " << percentile(s.latencies_ms, 0.50) << ", p90 "
            << percentile(s.latencies_ms, 0.90) << ", p99 " << percentile(s.latencies_ms, 0.99)
            << ", max " << percentile(s.latencies_ms, 1.0) << "\n"
            << "per scheduling cycle ms (driver side, JSON included): filter "
            << filter_ms / std::max(cycles, 1) << ", prioritize "
            << prioritize_ms / std::max(cycles, 1) << "\n"
            << "retries " << s.retries
            << (s.first_error.empty() ? "" : " (first: " + s.first_error + ")") << "\n"
            << "API requests during the run " << fake.requests().size() << "\n"
            << "over-allocation check: " << (problems.empty() ? "none" : "FAILED") << "\n";
  for (const std::string& p : problems)
    std::cout << "  " << p << "\n";
  host.shutdown(std::chrono::seconds(5));
  std::filesystem::remove_all(dir);
  return problems.empty() && !timed_out ? 0 : 1;
}
