// RUN: %check_clang_tidy %s libtorch-from-blob-lifetime %t -- -- %mock_torch

#include <torch/torch.h>
#include <array>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

// The full message once.
torch::Tensor returned() {
  std::vector<float> v(4);
  return torch::from_blob(v.data(), {4});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor from 'from_blob' over 'v' (a local 'std::vector<float>') is returned without a copy, but 'v' is destroyed when its scope ends, at the latest when the function returns: the tensor then reads freed memory (garbage values, or an illegal memory access once it is copied to CUDA); append .clone() so that the tensor owns a copy [libtorch-from-blob-lifetime]
  // CHECK-FIXES: return torch::from_blob(v.data(), {4}).clone();
}

// Through a local, and a `.to(device)` that may return the same tensor.
torch::Tensor throughTo(torch::Device d) {
  float a[4] = {1, 2, 3, 4};
  auto t = torch::from_blob(a, {4}).to(d);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor from 'from_blob' over 'a' (a local array) is returned without a copy
  // CHECK-FIXES: auto t = torch::from_blob(a, {4}).clone().to(d);
  return t;
}

// Into a member, an Example, a container that is returned.
struct Holder {
  torch::Tensor t_;
  void set() {
    double d = 1;
    t_ = torch::from_blob(&d, {1}, torch::kDouble);
    // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor from 'from_blob' over 'd' ({{.*}}) is stored in member 't_' without a copy
  }
};
torch::data::Example<> example(torch::Tensor label) {
  std::vector<float> v(4);
  return {torch::from_blob(v.data(), {4}), label};
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: tensor from 'from_blob' over 'v' (a local 'std::vector<float>') is returned (inside a 'torch::data::Example<>') without a copy
}
std::vector<torch::Tensor> batch() {
  std::vector<torch::Tensor> out;
  std::string s = "abcd";
  out.push_back(torch::from_blob(&s[0], {4}, torch::kByte));
  // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: tensor from 'from_blob' over 's' ({{.*}}) is {{.*}} without a copy
  return out;
}

void outParameter(torch::Tensor &out) {
  std::array<float, 4> a{};
  out = torch::from_blob(a.data(), {4});
  // CHECK-MESSAGES: :[[@LINE-1]]:9: warning: tensor from 'from_blob' over 'a' (a local 'std::array<float, 4>') is {{.*}} without a copy
}
std::function<torch::Tensor()> captured() {
  std::vector<float> v(4);
  auto t = torch::from_blob(v.data(), {4}).contiguous();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor from 'from_blob' over 'v' (a local 'std::vector<float>') is returned (captured by a lambda) without a copy
  return [t] { return t; };
}

// Used after delete[] / free.
torch::Tensor deleted(int n) {
  float *p = new float[n];
  auto t = torch::from_blob(p, {n});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor from 'from_blob' over the memory 'p' points to is used after 'p' is freed: the tensor then reads freed memory
  delete[] p;
  return t.sum();
}
float freed(int n) {
  float *p = static_cast<float *>(malloc(n * sizeof(float)));
  auto t = torch::from_blob(p, {n});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor from 'from_blob' over the memory 'p' points to is used after 'p' is freed
  free(p);
  return t.sum().item<float>();
}

// Not reported: a copy before the tensor escapes.
torch::Tensor cloned() {
  std::vector<float> v(4);
  return torch::from_blob(v.data(), {4}).clone();
}
torch::Tensor converted() {
  std::vector<double> v(4);
  return torch::from_blob(v.data(), {4}, torch::kDouble).to(torch::kFloat);
}
torch::Tensor toCuda() {
  float a[4] = {1, 2, 3, 4};
  return torch::from_blob(a, {4}).to(torch::kCUDA);
}
torch::Tensor arithmetic() {
  float a[4] = {1, 2, 3, 4};
  return torch::from_blob(a, {4}) * 2;
}
// Not reported: memory that outlives the tensor.
torch::Tensor ofParameter(std::vector<float> &v) {
  return torch::from_blob(v.data(), {4});
}
torch::Tensor ofStatic() {
  static float a[4] = {1, 2, 3, 4};
  return torch::from_blob(a, {4});
}
torch::Tensor withDeleter(int n) {
  float *p = new float[n];
  return torch::from_blob(p, {n}, [](void *q) { delete[] static_cast<float *>(q); });
}
// Not reported: used only while the buffer lives.
float usedLocally() {
  std::vector<float> v(4);
  auto t = torch::from_blob(v.data(), {4});
  return t.sum().item<float>();
}
float usedBeforeDelete(int n) {
  float *p = new float[n];
  float s = torch::from_blob(p, {n}).sum().item<float>();
  delete[] p;
  return s;
}
// Not reported: a user class's insert() (pytorch-cpp-rl's RolloutStorage
// copies each step into its own tensors), not a standard container.
struct Rollouts {
  void insert(torch::Tensor reward);
};
void rollouts() {
  std::vector<Rollouts> storages(2);
  for (int i = 0; i < 2; ++i) {
    std::vector<float> rewards{1};
    storages[i].insert(torch::from_blob(rewards.data(), {1, 1}));
  }
  storages[0].insert(torch::zeros({1, 1}));
}

// The buffer of a temporary that owns it: a container returned by value, a
// deep copy of an object (a class's clone() returning its own type). It is
// destroyed at the end of the from_blob's statement.
std::vector<float> readValues();
struct Frame {
  Frame();
  Frame(const Frame &);
  ~Frame();
  Frame clone() const;
  unsigned char *pixels;
  float *depth;
  int h, w;
};
torch::Tensor fromTemporaryVector() {
  auto t = torch::from_blob(readValues().data(), {3});
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: tensor from 'from_blob' over the buffer of temporary 'readValues()' is used after the temporary is destroyed at the end of its statement: the tensor then reads freed memory (garbage values, or an illegal memory access once it is copied to CUDA); append .clone() so that the tensor owns a copy [libtorch-from-blob-lifetime]
  // CHECK-FIXES: auto t = torch::from_blob(readValues().data(), {3}).clone();
  return t * 2;
}
torch::Tensor fromTemporaryCopy(const Frame &f) {
  return torch::from_blob(f.clone().depth, {f.h, f.w});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: tensor from 'from_blob' over the buffer of temporary 'f.clone()' is returned without a copy, but the temporary is destroyed at the end of its statement
  // CHECK-FIXES: return torch::from_blob(f.clone().depth, {f.h, f.w}).clone();
}
// Not reported: copied, or used, within the statement; the buffer of an
// object that is not a temporary, or a copy that does not own (a plain
// copy of the object shares what its pointer fields point to).
torch::Tensor temporariesUsedInTime(const Frame &f) {
  auto a = torch::from_blob(f.clone().pixels, {f.h, f.w}, torch::kByte).clone();
  float s = torch::from_blob(readValues().data(), {3}).sum().item<float>();
  auto b = torch::from_blob(f.depth, {f.h, f.w});
  auto c = torch::from_blob(Frame(f).depth, {f.h, f.w});
  return a + b + c + s;
}
