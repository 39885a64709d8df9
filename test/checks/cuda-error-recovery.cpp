// RUN: %check_clang_tidy %s libtorch-cuda-error-recovery %t -- -- %mock_torch

#include <torch/torch.h>

#include <cstdio>
#include <cstdlib>

extern "C" int cudaDeviceSynchronize();

namespace nn = torch::nn;

struct NetImpl : nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x; }
};
TORCH_MODULE(Net);

//===--- The handler carries on after CUDA work ----------------------------===//

void skipBatch(torch::Tensor batch) {
  try {
    auto y = batch.cuda();
  } catch (...) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of '...' catches the CUDA errors of the work in its try block and carries on: after an illegal memory access or a device-side assert the CUDA context is dead and every later CUDA call fails; rethrow or end the program, and recover only from out-of-memory (c10::OutOfMemoryError) [libtorch-cuda-error-recovery]
    std::puts("skipping the batch");
  }
}

// std::exception is a base of c10::Error; the work is a module moved to
// CUDA, called in a function the try block calls.
std::string reply(Net &net, torch::Tensor x) {
  return std::to_string(net->forward(x).size(0));
}
void serve(Net &net, torch::Tensor x) {
  for (int request = 0; request < 3; ++request) {
    std::string out;
    try {
      out = reply(net, x);
    } catch (const std::exception &e) {
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: handler of 'const std::exception &' catches the CUDA errors
      out = e.what();
    }
  }
}
torch::Device pickDevice() {
  return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}
int startServer() {
  Net net;
  torch::Device device = pickDevice();
  net->to(device);
  serve(net, torch::randn({2}));
  return 0;
}

// c10::Error and c10::CUDAError, around a CUDA factory and synchronize.
void step(int64_t n) {
  try {
    auto z = torch::zeros({n}, torch::kCUDA);
  } catch (const c10::Error &e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of 'const c10::Error &' catches the CUDA errors
  }
  try {
    torch::cuda::synchronize();
  } catch (c10::CUDAError &e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of 'c10::CUDAError &' catches the CUDA errors
  }
}

// A std::runtime_error around the CUDA runtime API, which the user's own
// wrapper may throw as such.
void wrapped() {
  try {
    if (cudaDeviceSynchronize() != 0)
      throw std::runtime_error("sync failed");
  } catch (const std::runtime_error &e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of 'const std::runtime_error &' catches the CUDA errors
    std::puts(e.what());
  }
}

//===--- The handler does CUDA work ----------------------------------------===//

void retry(torch::Tensor x) {
  try {
    x = x.to(torch::kCUDA);
  } catch (const c10::Error &e) {
    c10::cuda::CUDACachingAllocator::emptyCache();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: CUDA work in a handler of 'const c10::Error &' that catches the CUDA errors of its try block: after an illegal memory access or a device-side assert the CUDA context is dead and this fails too (emptyCache() and retries help only after out-of-memory: catch c10::OutOfMemoryError for that) [libtorch-cuda-error-recovery]
    throw;
  }
}

//===--- Not reported below. -----------------------------------------------===//

void rethrows(torch::Tensor x) {
  try {
    x = x.cuda();
  } catch (const c10::Error &e) {
    std::puts(e.what());
    throw;
  }
  try {
    x = x.cuda();
  } catch (const std::exception &e) {
    throw std::runtime_error(std::string("forward failed: ") + e.what());
  }
}

void exits(torch::Tensor x) {
  try {
    x = x.cuda();
  } catch (const c10::Error &e) {
    std::puts(e.what());
    std::exit(1);
  }
  try {
    x = x.cuda();
  } catch (...) {
    std::abort();
  }
}

int main() {
  try {
    auto x = torch::ones({2}).cuda();
  } catch (const c10::Error &e) {
    std::puts(e.what());
    return 1; // ends the program
  }
  return startServer();
}

// Out-of-memory is recoverable: by type, by an earlier handler, by message.
void outOfMemory(int64_t n) {
  try {
    auto z = torch::empty({n}, torch::kCUDA);
  } catch (const c10::OutOfMemoryError &e) {
    c10::cuda::CUDACachingAllocator::emptyCache();
  }
  try {
    auto z = torch::empty({n}, torch::kCUDA);
  } catch (const c10::Error &e) {
    if (std::string(e.what()).find("CUDA out of memory") == std::string::npos)
      throw;
    c10::cuda::CUDACachingAllocator::emptyCache();
  }
}

// Errors LibTorch does not throw for CUDA, or no CUDA work at all.
void notCuda(torch::Tensor x, torch::Device configured) {
  try {
    x = x.cuda();
  } catch (const c10::IndexError &e) {
  } catch (const std::runtime_error &e) {
  }
  try {
    x = x.cuda();
  } catch (const c10::Error &e) {
    throw;
  } catch (...) { // c10::Error went to the first handler
  }
  try {
    auto y = x.to(torch::kCPU) + torch::zeros({2});
    auto z = x.to(configured); // not known to be CUDA
  } catch (const std::exception &e) {
  }
}

// Loading weights into, assigning and moving a module moved to CUDA: the
// errors are the file's (or no GPU at all), not a dead context.
Net makeNet();
void loadWeights(Net &net, const std::string &path) {
  try {
    torch::load(net, path);
  } catch (const std::exception &e) {
    std::puts("no weights, starting from scratch");
  }
  try {
    net = makeNet();
    net->to(torch::kCUDA);
  } catch (...) {
  }
}

// The GPU side of a choice with the CPU, from another translation unit.
torch::Device selectDevice();
struct Options {
  bool use_cuda = true;
};
struct OtherImpl : nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x; }
};
TORCH_MODULE(Other);
void reply2(Other &net, torch::Tensor x) { net->forward(x); }
void handle(Other &net, torch::Tensor x) {
  try {
    reply2(net, x);
  } catch (const std::exception &e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of 'const std::exception &' catches the CUDA errors
  }
}
void startOther(const Options &opts) {
  Other net;
  torch::Device device = opts.use_cuda ? selectDevice() : torch::Device(torch::kCPU);
  net->to(device);
  handle(net, torch::randn({2}));
}

// A tensor moved to, or made on, a device that a function of this file
// returns, or that a local is set to: the same evidence as for a module.
torch::Device gpuIfAny() {
  if (torch::cuda::is_available())
    return torch::Device(torch::kCUDA, 0);
  return torch::kCPU;
}
torch::Device cpuOnly() { return torch::Device(torch::kCPU); }
torch::Device fromConfig();
void moves(torch::Tensor x, bool use_gpu) {
  torch::Device device = gpuIfAny();
  try {
    auto y = x.to(device);
  } catch (const c10::Error &e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of 'const c10::Error &' catches the CUDA errors
    // CHECK-MESSAGES: :[[@LINE-3]]:16: note: CUDA work in the try block: this moves a tensor to a CUDA device
    // CHECK-MESSAGES: :[[@LINE-12]]:12: note: the device is CUDA here
  }
  torch::Device chosen(torch::kCPU);
  if (use_gpu)
    chosen = torch::kCUDA;
  try {
    auto z = torch::zeros({2}, chosen);
  } catch (...) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of '...' catches the CUDA errors
    // CHECK-MESSAGES: :[[@LINE-3]]:14: note: CUDA work in the try block: this creates a tensor on a CUDA device
    // CHECK-MESSAGES: :[[@LINE-6]]:14: note: the device is CUDA here
  }
  // Not known to be CUDA: a function that returns the CPU, one of another
  // file with no project summary, a parameter.
  try {
    auto a = x.to(cpuOnly());
    auto b = x.to(fromConfig());
    auto c = torch::ones({2}, torch::Device(torch::kCPU));
  } catch (const c10::Error &e) {
  }
}

// The device behind a shared_ptr made of one, through TensorOptions' setters.
void throughOptions(int64_t n) {
  std::shared_ptr<torch::Device> device = std::make_shared<torch::Device>(
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  try {
    auto a = torch::rand({n}, torch::TensorOptions().device(*device).dtype(torch::kHalf));
  } catch (const std::exception &e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of 'const std::exception &' catches the CUDA errors
    // CHECK-MESSAGES: :[[@LINE-3]]:14: note: CUDA work in the try block: this creates a tensor on a CUDA device
    // CHECK-MESSAGES: :[[@LINE-6]]:7: note: the device is CUDA here
  }
  // A pointer to a CPU device: nothing.
  torch::Device cpu = torch::kCPU;
  torch::Device *p = &cpu;
  try {
    auto b = torch::rand({n}, torch::TensorOptions().device(*p));
  } catch (const std::exception &e) {
  }
}

// A device member that a method sets to a CUDA device, and a module moved to
// it in another method.
struct HeadImpl : nn::Module {
  torch::Tensor forward(torch::Tensor x) { return x; }
};
TORCH_MODULE(Head);
struct Predictor {
  void init(int gpu) {
    if (gpu >= 0)
      device_ = torch::Device(torch::kCUDA, gpu);
    net_->to(device_);
  }
  void predict(torch::Tensor x) {
    try {
      net_->forward(x.to(device_));
    } catch (const std::exception &e) {
      // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: handler of 'const std::exception &' catches the CUDA errors
      // CHECK-MESSAGES: :[[@LINE-3]]:13: note: CUDA work in the try block: a module of class 'HeadImpl'
      // CHECK-MESSAGES: :[[@LINE-8]]:11: note: which is moved to a CUDA device here
      // CHECK-MESSAGES: :[[@LINE-10]]:17: note: the device is CUDA here
    }
  }
  torch::Device device_ = torch::kCPU;
  Head net_;
};
// A device member only ever set from a parameter: nothing.
struct Configured {
  explicit Configured(torch::Device d) : device_(d) {}
  void step(torch::Tensor x) {
    try {
      auto y = x.to(device_);
    } catch (const std::exception &e) {
    }
  }
  torch::Device device_;
};

// An object constructed with a CUDA device, whose method works on the device
// member its constructor keeps: the device is CUDA for that object.
struct Worker {
  explicit Worker(torch::Device d, int64_t n) : device_(d), n_(n) {}
  void step() { run(); }
  void run() { auto y = torch::zeros({n_}, torch::TensorOptions().device(device_)); }
  void move(torch::Tensor x) { auto y = x.to(device_); }
  torch::Device device_;
  int64_t n_;
};
void workOnGpu(torch::Tensor x) {
  Worker w(torch::Device(torch::kCUDA), 4);
  try {
    w.step();
  } catch (const std::exception &e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of 'const std::exception &' catches the CUDA errors
    // CHECK-MESSAGES: :[[@LINE-3]]:7: note: 'step' is called here
    // CHECK-MESSAGES: :[[@LINE-13]]:17: note: 'run' is called here
    // CHECK-MESSAGES: :[[@LINE-13]]:25: note: CUDA work in the try block: this creates a tensor on a CUDA device
    // CHECK-MESSAGES: :[[@LINE-8]]:12: note: the device is 'device_', which the object's constructor sets from this argument
    // CHECK-MESSAGES: :[[@LINE-9]]:12: note: the device is CUDA here
  }
  torch::Device device = pickDevice();
  Worker chosen(device, 2);
  try {
    chosen.move(x);
  } catch (const std::exception &e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of 'const std::exception &' catches the CUDA errors
    // CHECK-MESSAGES: :[[@LINE-3]]:12: note: 'move' is called here
    // CHECK-MESSAGES: :[[@LINE-23]]:43: note: CUDA work in the try block: this moves a tensor to a CUDA device
    // CHECK-MESSAGES: :[[@LINE-7]]:17: note: the device is 'device_', which the object's constructor sets from this argument
  }
}
// No evidence: constructed with the CPU, with a parameter, or a device
// member that a method sets again.
struct Reset {
  explicit Reset(torch::Device d) : device_(d) {}
  void toCpu() { device_ = torch::Device(torch::kCPU); }
  void move(torch::Tensor x) { auto y = x.to(device_); }
  torch::Device device_;
};
void workOnCpu(torch::Tensor x, torch::Device configured) {
  Worker cpu(torch::Device(torch::kCPU), 4);
  try {
    cpu.step();
  } catch (const std::exception &e) {
  }
  Worker param(configured, 4);
  try {
    param.move(x);
  } catch (const std::exception &e) {
  }
  Reset reset{torch::Device(torch::kCUDA)};
  try {
    reset.move(x);
  } catch (const std::exception &e) {
  }
}

// A construction in the try block whose constructor works on the device
// member it has just set from its argument.
struct Staging {
  Staging(torch::Device d, int64_t n) : device_(d) {
    buffer_ = torch::empty({n}, torch::TensorOptions().device(device_));
  }
  torch::Device device_;
  torch::Tensor buffer_;
};
void stage(int64_t n) {
  try {
    Staging s(torch::Device(torch::kCUDA), n);
  } catch (const c10::Error &e) {
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: handler of 'const c10::Error &' catches the CUDA errors
    // CHECK-MESSAGES: :[[@LINE-3]]:13: note: 'Staging' is called here
    // CHECK-MESSAGES: :[[@LINE-11]]:15: note: CUDA work in the try block: this creates a tensor on a CUDA device
    // CHECK-MESSAGES: :[[@LINE-5]]:15: note: the device is 'device_', which the object's constructor sets from this argument
    // CHECK-MESSAGES: :[[@LINE-6]]:15: note: the device is CUDA here
  }
  // The CPU: no CUDA work.
  try {
    Staging s(torch::Device(torch::kCPU), n);
  } catch (const c10::Error &e) {
  }
}
