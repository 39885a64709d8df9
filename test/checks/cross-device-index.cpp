// RUN: %check_clang_tidy %s libtorch-cross-device-index %t -- -- %mock_torch

#include <torch/torch.h>

namespace F = torch::nn::functional;

// The everyday bug: a device picked at run time, an index from a factory.
void runtimeDevice() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  auto x = torch::randn({10, 4}).to(device);
  auto idx = torch::arange(3);
  auto y = x.index_select(0, idx);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: index tensor 'idx' is on the CPU but 'x' is on the device held by 'device' (CUDA when available); 'index_select' throws "Expected all tensors to be on the same device" at run time; move the index with .to(x.device()) [libtorch-cross-device-index]
  // CHECK-FIXES: auto y = x.index_select(0, idx.to(x.device()));
}

// CPU against CUDA, in the method and free forms of each op.
void everyOp(torch::Tensor src) {
  auto x = torch::zeros({8, 8}, torch::kCUDA);
  auto ids = torch::randint(0, 8, {8, 8}, torch::kLong);
  x.gather(1, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'ids' is on the CPU but 'x' is on CUDA; 'gather' throws
  // CHECK-FIXES: x.gather(1, ids.to(x.device()));
  torch::gather(x, 1, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'ids' is on the CPU but 'x' is on CUDA; 'gather' throws
  x.scatter_(1, ids, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'ids' is on the CPU but 'x' is on CUDA; 'scatter_' throws
  x.scatter_add(1, ids, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: {{.*}} 'scatter_add' throws
  x.index_add_(0, ids, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: {{.*}} 'index_add_' throws
  x.index_copy(0, ids, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: {{.*}} 'index_copy' throws
  x.index_fill_(0, ids, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: {{.*}} 'index_fill_' throws
  x.take(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: {{.*}} 'take' throws
  torch::take_along_dim(x, ids, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: {{.*}} 'take_along_dim' throws
  torch::embedding(x, ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'ids' is on the CPU but 'x' is on CUDA; 'embedding' throws
  F::embedding(ids, x);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'ids' is on the CPU but 'x' is on CUDA; 'embedding' throws
  // CHECK-FIXES: F::embedding(ids.to(x.device()), x);
  // A CUDA index into a CPU tensor fails with every op, Tensor::index too.
  auto cpu = torch::ones({8});
  auto gpu_ids = torch::arange(4).cuda();
  cpu.index_select(0, gpu_ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'gpu_ids' is on CUDA but 'cpu' is on the CPU; 'index_select' throws
  // CHECK-FIXES: cpu.index_select(0, gpu_ids.to(cpu.device()));
  cpu.index({gpu_ids});
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'gpu_ids' is on CUDA but 'cpu' is on the CPU; 'index' throws
  cpu[gpu_ids];
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'gpu_ids' is on CUDA but 'cpu' is on the CPU; 'operator[]' throws
}

// Modules: the weight is where the module was moved.
void modules(torch::Device device) {
  torch::nn::Embedding emb(100, 8);
  emb->to(device);
  auto ids = torch::tensor({1, 2, 3});
  emb(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'ids' is on the CPU but the weight of 'emb' is on the device held by 'device'; 'Embedding' throws "Expected all tensors to be on the same device" at run time; move the index with .to(emb->weight.device())
  // CHECK-FIXES: emb(ids.to(emb->weight.device()));
  emb->forward(ids);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'ids' is on the CPU but the weight of 'emb' is on the device held by 'device'
  torch::nn::EmbeddingBag bag(100, 8);
  bag->to(torch::kCUDA);
  bag(torch::arange(5));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the index tensor is on the CPU but the weight of 'bag' is on CUDA; 'EmbeddingBag' throws {{.*}}; move the index with .to(bag->weight.device())
  // CHECK-FIXES: bag(torch::arange(5).to(bag->weight.device()));
  // The output of a module is on the module's device.
  auto out = emb(ids.to(device));
  out.index_select(0, torch::arange(2));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the index tensor is on the CPU but 'out' is on the device held by 'device'
}

// Options: kCUDA, torch::Device(...), TensorOptions().device(...), x.options().
void options(torch::Tensor param) {
  auto opts = torch::TensorOptions().dtype(torch::kLong).device(torch::kCUDA);
  auto a = torch::zeros({4}, opts);
  auto b = torch::ones({4}, torch::device(torch::Device("cuda:0")));
  auto c = torch::empty({4}, b.options());
  auto i = torch::randperm(4);
  a.take(i);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'i' is on the CPU but 'a' is on CUDA
  b.take(i);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'i' is on the CPU but 'b' is on CUDA
  c.take(i);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'i' is on the CPU but 'c' is on CUDA
  // Ops that keep their input's device.
  auto d = a.clone().detach().contiguous().view({2, 2}).reshape({4}).unsqueeze(0).flatten();
  d.take(i.abs());
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the index tensor is on the CPU but 'd' is on CUDA
  // CHECK-FIXES: d.take(i.abs().to(d.device()));
  auto e = (a + a) * 2;
  e.take(i);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'i' is on the CPU but 'e' is on CUDA
}

// Macros that expand to these calls work too; the fix-it stays out of them.
#define SELECT_ROWS(t, i) (t).index_select(0, (i))
void viaMacro() {
  auto x = torch::zeros({4}).cuda();
  auto idx = torch::arange(2);
  SELECT_ROWS(x, idx);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: index tensor 'idx' is on the CPU but 'x' is on CUDA
}

// Members.
struct Lookup {
  torch::Tensor table, ids;
  void run() {
    table = torch::zeros({10}).cuda();
    ids = torch::arange(3);
    table.index_select(0, ids);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: index tensor 'ids' is on the CPU but 'table' is on CUDA
    // CHECK-FIXES: table.index_select(0, ids.to(table.device()));
  }
};

// Templates: reported once, in the instantiation.
template <typename T> void generic(T n) {
  auto x = torch::zeros({4}, torch::kCUDA);
  x.take(torch::arange(n));
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: the index tensor is on the CPU but 'x' is on CUDA
}
template void generic<int>(int);
template void generic<long>(long);

//===----------------------------------------------------------------------===//
// Correct code and look-alikes: no warnings.
//===----------------------------------------------------------------------===//

// Tensor::index and operator[] with a CPU index into a CUDA tensor are
// allowed: LibTorch copies the index over (see the WarnOnImplicitIndexCopy
// option).
void allowedIndex() {
  auto x = torch::zeros({4}).cuda();
  auto idx = torch::arange(2);
  x.index({idx});
  x[idx];
  x.index_put_({idx}, x);
}

// A dtype move is not a device move.
void dtypeMoves() {
  auto x = torch::zeros({4});
  auto idx = torch::arange(2).to(torch::kLong);
  x.index_select(0, idx);
  auto y = torch::zeros({4}).to(torch::kCUDA);
  y.index_select(0, idx.to(torch::kCUDA).to(torch::kLong));
  y.index_select(0, idx.to(y.device()));
  y.index_select(0, idx.to(y));
  y.index_select(0, torch::arange(2, y.options()));
  y.index_select(0, torch::arange(2, torch::TensorOptions(torch::kLong).device(torch::kCUDA)));
}

// The same run-time device on both sides.
void sameRuntimeDevice(torch::Device device) {
  auto x = torch::zeros({4}).to(device);
  auto idx = torch::arange(2).to(device);
  x.index_select(0, idx);
  torch::Device copy = device;
  x.index_select(0, torch::arange(2, torch::TensorOptions().device(copy)));
}

// Unknown parameters and members are never reported.
struct Holder {
  torch::Tensor weight;
  void forward(torch::Tensor x, torch::Tensor ids) {
    x.index_select(0, ids);
    x.index_select(0, torch::arange(3));
    weight.index_select(0, torch::arange(3));
    auto cuda = torch::zeros({2}).cuda();
    cuda.index_select(0, ids);
    torch::arange(3).index_select(0, ids);
  }
  void reset();
  void members() {
    weight = torch::zeros({4}).cuda();
    reset(); // may change members
    weight.index_select(0, torch::arange(2));
  }
};

// Reassignment back to the right device.
void reassigned(bool flag) {
  auto x = torch::zeros({4}).cuda();
  auto idx = torch::arange(2);
  idx = idx.to(x.device());
  x.index_select(0, idx);
  auto jdx = torch::arange(2);
  jdx = jdx.cuda();
  x.index_select(0, jdx);
  // Branches that disagree join to Unknown.
  auto kdx = torch::arange(2);
  if (flag)
    kdx = kdx.cuda();
  x.index_select(0, kdx);
  // A loop that moves it.
  auto ldx = torch::arange(2);
  for (int i = 0; i < 3; ++i)
    ldx = ldx.cuda();
  x.index_select(0, ldx);
}

// Aliases: a reference or a call through a non-const reference may move it.
void moveInPlace(torch::Tensor &t);
void aliases() {
  auto x = torch::zeros({4}).cuda();
  auto idx = torch::arange(2);
  moveInPlace(idx);
  x.index_select(0, idx);
  auto jdx = torch::arange(2);
  torch::Tensor &r = jdx;
  r = r.cuda();
  x.index_select(0, jdx);
  auto kdx = torch::arange(2);
  [&] { kdx = kdx.cuda(); }();
  x.index_select(0, kdx);
}

// A 0-dim CPU tensor is not an index.
void scalars() {
  auto x = torch::zeros({4}).cuda();
  x.index_select(0, torch::scalar_tensor(1, torch::kLong));
  auto s = torch::arange(4).sum();
  x.take(s);
}

// Module look-alikes: moved to the index's device, or unknown.
void moduleLookAlikes(torch::nn::Embedding param, torch::Device device) {
  torch::nn::Embedding emb(10, 4);
  emb(torch::arange(3));
  emb->to(device);
  emb(torch::arange(3).to(device));
  param(torch::arange(3));
  torch::nn::Embedding copy(10, 4);
  torch::nn::Embedding alias = copy;
  alias->to(torch::kCUDA);
  copy(torch::arange(3));
  emb->to(torch::kFloat); // not a device move: still on 'device'
  emb(torch::arange(3).to(device));
}

// Device variables whose value is known are not "chosen at run time".
void knownDevices() {
  torch::Device cpu(torch::kCPU);
  auto x = torch::zeros({4}).to(cpu);
  x.index_select(0, torch::arange(2));
  torch::Device gpu("cuda");
  auto y = torch::zeros({4}).to(gpu);
  y.index_select(0, torch::arange(2).cuda());
}

// set_ gives a tensor another tensor's storage, and its device with it.
void reboundStorage(torch::Tensor param) {
  auto x = torch::zeros({8}).cuda();
  auto ids = torch::arange(4);
  ids.set_(torch::arange(4).cuda());
  x.index_select(0, ids);
  auto cpu_ids = torch::arange(4);
  cpu_ids.set_(param);
  x.index_select(0, cpu_ids);
}
