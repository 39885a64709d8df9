// RUN: %check_clang_tidy %s libtorch-from-blob-dtype %t -- -- %mock_torch

#include <torch/torch.h>
#include <cstdint>
#include <vector>

// The full message once; the rest match their start.
torch::Tensor doublesAsDefault(std::vector<double> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'v', whose elements are 'double' (8 bytes), as float32, the default dtype: the bytes are reinterpreted, so the values are wrong; pass torch::kFloat64 [libtorch-from-blob-dtype]
  // CHECK-FIXES: return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::kFloat64);
}

torch::Tensor doublesAsFloat(std::vector<double> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::kFloat);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'v', whose elements are 'double' (8 bytes), as float32: the bytes are reinterpreted, so the values are wrong; use torch::kFloat64 [libtorch-from-blob-dtype]
  // A dtype that is given is not replaced: the user decides which is meant.
  // CHECK-FIXES: return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::kFloat);
}

// A smaller element than the dtype: the tensor reads past the buffer.
torch::Tensor intsAsLong(int *p, int64_t n) {
  return torch::from_blob(p, {n}, torch::kLong);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'p', whose elements are 'int' (4 bytes), as int64: the bytes are reinterpreted, so the values are wrong, and the tensor reads 2 times the buffer's size, past its end; use torch::kInt32 [libtorch-from-blob-dtype]
}

torch::Tensor bytesAsFloat(std::vector<uint8_t> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::dtype(torch::kFloat32));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'v', whose elements are 'unsigned char' (1 byte), as float32: the bytes are reinterpreted, so the values are wrong, and the tensor reads 4 times the buffer's size, past its end; use torch::kUInt8 [libtorch-from-blob-dtype]
}

torch::Tensor longsAsInt(std::vector<int64_t> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::TensorOptions().dtype(torch::kInt));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'v', whose elements are '{{.*}}' (8 bytes), as int32: the bytes are reinterpreted
}

// Casts are looked through to the buffer, also in a local pointer.
torch::Tensor castToFloat(std::vector<double> &v) {
  float *p = reinterpret_cast<float *>(v.data());
  return torch::from_blob(p, {2});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'v', whose elements are 'double' (8 bytes), as float32, the default dtype
  // CHECK-FIXES: return torch::from_blob(p, {2}, torch::kFloat64);
}
torch::Tensor newArray(int64_t n) {
  double *p = new double[n];
  return torch::from_blob(p, {n}, [](void *q) { delete[] static_cast<double *>(q); });
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'p', whose elements are 'double' (8 bytes), as float32, the default dtype
}

// A class that is not made of the dtype's fields.
struct Point {
  float x;
  double y;
};
torch::Tensor points(std::vector<Point> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size(), 2});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'v', whose elements are 'Point' (not a class of float32 fields only), as float32, the default dtype: the tensor reads the bytes of these objects as float32 values; copy the elements into a buffer of the dtype's type first [libtorch-from-blob-dtype]
}

// Fix-its where the dtype is missing: options without a dtype get one.
torch::Tensor optionsWithoutDtype(std::vector<double> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::TensorOptions().requires_grad(false));
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'v', whose elements are 'double' (8 bytes), as float32, the default dtype
  // CHECK-FIXES: return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::TensorOptions().requires_grad(false).dtype(torch::kFloat64));
}

torch::Tensor localArray() {
  double a[4] = {1, 2, 3, 4};
  return torch::from_blob(a, {4}).clone();
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'a', whose elements are 'double' (8 bytes), as float32, the default dtype
  // CHECK-FIXES: return torch::from_blob(a, {4}, torch::kFloat64).clone();
}

torch::Tensor withStrides(std::vector<double> &v) {
  return torch::from_blob(v.data(), {2, 2}, {2, 1});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'v', whose elements are 'double' (8 bytes), as float32, the default dtype
  // CHECK-FIXES: return torch::from_blob(v.data(), {2, 2}, {2, 1}, torch::kFloat64);
}

// A device converted to options: reported, no fix-it.
torch::Tensor deviceOnly(std::vector<double> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::kCPU);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'v', whose elements are 'double' (8 bytes), as float32, the default dtype
  // CHECK-FIXES: return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::kCPU);
}

// Not reported: the dtype matches.
torch::Tensor floats(std::vector<float> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()});
}
torch::Tensor doubles(double *p, int64_t n) {
  return torch::from_blob(p, {n}, torch::kFloat64);
}
torch::Tensor doublesInOptions(std::vector<double> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::TensorOptions().dtype(torch::kDouble));
}
torch::Tensor longs(std::vector<int64_t> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::kLong);
}
torch::Tensor bytes(std::vector<uint8_t> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::kByte);
}
struct Xyz {
  float x, y, z;
};
torch::Tensor floatFields(std::vector<Xyz> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size(), 3});
}
// Integers of one size: only the signedness differs.
torch::Tensor unsignedInts(std::vector<uint32_t> &v) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::kInt32);
}

// Not reported: the bytes of anything (void, char), a pointer declared as
// bytes (image buffers are `unsigned char *` whatever they hold), a dtype
// that is not known here.
torch::Tensor fromVoid(void *p, int64_t n) {
  return torch::from_blob(p, {n}, torch::kLong);
}
torch::Tensor fromChars(char *p, int64_t n) {
  return torch::from_blob(p, {n});
}
torch::Tensor fromBytePointer(uint8_t *p, int64_t n) {
  return torch::from_blob(p, {n / 4}, torch::kFloat);
}
torch::Tensor likeAnother(std::vector<double> &v, const torch::Tensor &t) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, t.options());
}
torch::Tensor ofScalarType(std::vector<double> &v, c10::ScalarType s) {
  return torch::from_blob(v.data(), {(int64_t)v.size()}, torch::dtype(s));
}
// A field's pointer is not followed (a limitation: a class's buffer field is
// often declared with another type than it holds).
struct Samples {
  double *values;
};
torch::Tensor fromField(Samples &s) {
  return torch::from_blob(s.values, {4}, torch::kFloat);
}

// CUDA's own half type is the Half dtype's element, as c10::Half is.
struct __half { unsigned short x; }; // as cuda_fp16.h declares it
torch::Tensor cudaHalvesAsDefault(__half *h, int64_t n) {
  return torch::from_blob(h, {n});
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'from_blob' wraps 'h', whose elements are '__half' (2 bytes), as float32, the default dtype: the bytes are reinterpreted, so the values are wrong, and the tensor reads 2 times the buffer's size, past its end; pass torch::kFloat16 [libtorch-from-blob-dtype]
  // CHECK-FIXES: return torch::from_blob(h, {n}, torch::kFloat16);
}
torch::Tensor cudaHalvesAsHalf(__half *h, int64_t n) {
  return torch::from_blob(h, {n}, torch::kHalf);
}
