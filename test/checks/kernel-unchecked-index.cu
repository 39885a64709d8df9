// RUN: %check_clang_tidy %s libtorch-kernel-unchecked-index %t -- -- %mock_torch %mock_cuda -DTORCH_EXTENSION_NAME=example_ops

#include <ATen/cuda/CUDAContext.h>
#include <torch/extension.h>

// What the CUDA headers declare for device code.
__device__ float atomicAdd(float *address, float value);
__device__ int atomicAdd(int *address, int value);
template <typename T> __device__ T __ldg(const T *address);
// Compiled out in release builds: only its arguments are left to see.
#define CUDA_KERNEL_ASSERT(cond) ((void)0)

// --- Reported: an offset computed from a value read from an index array.

__global__ void scatter_rows(const float *src, const int64_t *index,
                             float *out, int64_t n, int64_t k) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n * k)
    return;
  const int64_t row = index[i / k];
  atomicAdd(&out[row * k + i % k], src[i]);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'out[row * k + i % k]' indexes 'out' with 'row', a value read from 'index', and nothing bounds it in a kernel: {{.*}} [libtorch-kernel-unchecked-index]
  // CHECK-MESSAGES: :[[@LINE-3]]:23: note: the index value is read here from 'index', a pointer parameter of the kernel
}

__global__ void count_ids(const int *ids, int *counts, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(counts + ids[i], 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'counts + ids[i]' indexes 'counts' with 'ids[i]', a value read from 'ids', and nothing bounds it in a kernel
  // CHECK-MESSAGES: :[[@LINE-2]]:24: note: the index value is read here from 'ids'
}

// A CSR row pointer read with a row that comes from another array.
__global__ void csr_rows(const int64_t *rowptr, const int64_t *rows,
                         float *out, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    const int64_t r = __ldg(rows + i);
    out[i] = rowptr[r + 1] - rowptr[r];
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'rowptr[r + 1]' indexes 'rowptr' with 'r', a value read from 'rows'
    // CHECK-MESSAGES: :[[@LINE-3]]:23: note: the index value is read here from 'rows'
    // CHECK-MESSAGES: :[[@LINE-3]]:30: warning: 'rowptr[r]' indexes 'rowptr' with 'r', a value read from 'rows'
    // CHECK-MESSAGES: :[[@LINE-5]]:23: note: the index value is read here from 'rows'
  }
}

// A comparison with nothing of the index does not bound it.
__global__ void gather_checked_wrong(const float *src, const int64_t *index,
                                     float *out, int64_t n, int64_t rows) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n || rows <= 0)
    return;
  out[i] = src[index[i]];
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'src[index[i]]' indexes 'src' with 'index[i]', a value read from 'index'
  // CHECK-MESSAGES: :[[@LINE-2]]:16: note: the index value is read here from 'index'
}

// A shared array the kernel declares: the fix-it asserts its extent.
__global__ void histogram(const int *bins, int *out, int n) {
  __shared__ int local[64];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int b = bins[i];
    atomicAdd(&local[b], 1);
    // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'local[b]' indexes 'local' with 'b', a value read from 'bins'
    // CHECK-MESSAGES: :[[@LINE-3]]:19: note: the index value is read here from 'bins'
    // CHECK-FIXES: {{^}}    CUDA_KERNEL_ASSERT(b >= 0 && b < 64);{{$}}
    // CHECK-FIXES-NEXT: {{^}}    atomicAdd(&local[b], 1);{{$}}
  }
  out[i] = local[threadIdx.x % 64];
}

// A host loop over raw storage (the CPU twin of a scatter kernel).
void scatter_cpu(const torch::Tensor &src, const torch::Tensor &index,
                 torch::Tensor &out, int64_t k) {
  const float *src_data = src.data_ptr<float>();
  const int64_t *index_data = index.data_ptr<int64_t>();
  float *out_data = out.data_ptr<float>();
  for (int64_t i = 0; i < index.numel(); ++i) {
    const int64_t row = index_data[i];
    for (int64_t c = 0; c < k; ++c)
      out_data[row * k + c] += src_data[i * k + c];
    // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'out_data[row * k + c]' indexes 'out_data' with 'row', a value read from 'index_data', and nothing bounds it in a loop over raw storage
    // CHECK-MESSAGES: :[[@LINE-4]]:25: note: the index value is read here from 'index_data'
  }
}

// Through LibTorch's packed accessors: the index and the table are both
// accessors of the kernel's tensors.
__global__ void gather_accessors(at::PackedTensorAccessor32<float, 1> table,
                                 at::PackedTensorAccessor32<int64_t, 1> index,
                                 at::PackedTensorAccessor32<float, 1> out,
                                 int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = table[index[i]];
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'table[index[i]]' indexes 'table' with 'index[i]', a value read from 'index', and nothing bounds it in a kernel
  // CHECK-MESSAGES: :[[@LINE-2]]:20: note: the index value is read here from 'index', a parameter of the kernel that holds a pointer to them
}

// --- Not reported.

// A class of the user's is not one of LibTorch's accessors, whatever its
// name: its operator[] may check the index it is given.
struct CheckedTensorAccessor {
  __device__ float operator[](int64_t i) const;
};
__global__ void gather_own_accessor(CheckedTensorAccessor table,
                                    const int64_t *index, float *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = table[index[i]];
}

// Offsets from threadIdx, blockIdx and loop counters (the grid-stride loop).
__global__ void scale(const float *in, float *out, float f, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(blockDim.x) * gridDim.x)
    out[i] = in[i] * f;
}

// Compared before use: an early return, an enclosing if, an assert that
// release builds compile out.
__global__ void gather_guarded(const float *src, const int64_t *index,
                               float *out, int64_t n, int64_t rows) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  const int64_t j = index[i];
  if (j < 0 || j >= rows)
    return;
  out[i] = src[j];
}

__global__ void gather_if(const float *src, const int64_t *index, float *out,
                          int64_t n, int64_t rows) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    const int64_t j = index[i];
    if (j >= 0 && j < rows)
      out[i] = src[j];
  }
}

__global__ void gather_asserted(const float *src, const int64_t *index,
                                float *out, int64_t n, int64_t rows) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    const int64_t j = index[i];
    CUDA_KERNEL_ASSERT(j >= 0 && j < rows);
    out[i] = src[j * 2 + 1];
  }
}

// Clamped.
__device__ int64_t clamp_row(int64_t v, int64_t hi);
__global__ void gather_clamped(const float *src, const int64_t *index,
                               float *out, int64_t n, int64_t rows) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = src[std::min(std::max(index[i], int64_t(0)), rows - 1)];
}

// Bounded on the host before every launch of the kernel in the file.
__global__ void lookup(const float *table, const int64_t *ids, float *out,
                       int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = table[ids[i]];
}

torch::Tensor lookup_op(const torch::Tensor &table, const torch::Tensor &ids) {
  TORCH_CHECK(ids.min().item<int64_t>() >= 0 &&
              ids.max().item<int64_t>() < table.size(0));
  auto out = torch::empty({ids.numel()}, table.options());
  auto stream = at::cuda::getCurrentCUDAStream();
  lookup<<<1, 256, 0, stream>>>(table.data_ptr<float>(),
                                ids.data_ptr<int64_t>(),
                                out.data_ptr<float>(), ids.numel());
  return out;
}

// Index arrays produced by code that bounds them (argsort of the input).
__global__ void permute(const float *in, const int64_t *order, float *out,
                        int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = in[order[i]];
}

torch::Tensor sorted(const torch::Tensor &x) {
  auto order = x.argsort();
  auto out = torch::empty_like(x);
  auto stream = at::cuda::getCurrentCUDAStream();
  permute<<<1, 256, 0, stream>>>(x.data_ptr<float>(),
                                 order.data_ptr<int64_t>(),
                                 out.data_ptr<float>(), x.numel());
  return out;
}

// Loads of float data, and arrays the kernel fills itself.
__global__ void local_table(const float *weights, float *out, int n) {
  int slots[8];
  for (int s = 0; s < 8; ++s)
    slots[s] = s;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = weights[slots[i % 8]] * weights[i];
}

// Host code outside loops, and host loops over containers.
int64_t first_row(const torch::Tensor &index, const std::vector<float> &rows) {
  const int64_t *index_data = index.data_ptr<int64_t>();
  return static_cast<int64_t>(rows.size()) + index_data[0];
}

// --- Reported: patterns of segment and scatter code.

// A CSR segment: the loop runs between two values read from the row
// pointers, which bound nothing.
__global__ void segment_sum(const float *src, const int64_t *indptr,
                            float *out, int64_t rows) {
  const int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r >= rows)
    return;
  const int64_t start = indptr[r], end = indptr[r + 1];
  float sum = 0;
  for (int64_t e = start; e < end; ++e)
    sum += src[e];
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'src[e]' indexes 'src' with 'start', a value read from 'indptr'
  // CHECK-MESSAGES: :[[@LINE-5]]:25: note: the index value is read here from 'indptr'
  out[r] = sum;
}

// A struct that holds the index tensor's pointer (as TensorInfo does): its
// data is index values, its sizes are not.
struct IndexInfo {
  int64_t *data;
  int64_t sizes[4];
};
__global__ void scatter_info(const float *src, IndexInfo info, float *out,
                             int64_t n, int64_t k) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n && k < info.sizes[0])
    atomicAdd(out + info.data[i] * k, src[i]);
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'out + info.data[i] * k' indexes 'out' with 'info.data[i]', a value read from 'info'
  // CHECK-MESSAGES: :[[@LINE-2]]:21: note: the index value is read here from 'info'
}

// The host loop inside a lambda (the shape of an AT_DISPATCH body), reading
// locals of the function around it.
template <typename F> void dispatch(F &&Body) { Body(); }
void gather_cpu(const torch::Tensor &src, const torch::Tensor &index,
                torch::Tensor &out) {
  const int64_t *index_data = index.data_ptr<int64_t>();
  dispatch([&] {
    const float *src_data = src.data_ptr<float>();
    float *out_data = out.data_ptr<float>();
    for (int64_t i = 0; i < index.numel(); ++i)
      out_data[i] = src_data[index_data[i]];
    // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'src_data[index_data[i]]' indexes 'src_data' with 'index_data[i]', a value read from 'index_data', and nothing bounds it in a loop over raw storage
    // CHECK-MESSAGES: :[[@LINE-2]]:30: note: the index value is read here from 'index_data'
  });
}

// An assert that compares the index with another loaded index bounds
// nothing.
__global__ void runs(const int64_t *sorted, float *out, const float *src,
                     int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i + 1 >= n)
    return;
  const int64_t a = sorted[i], b = sorted[i + 1];
  CUDA_KERNEL_ASSERT(a <= b);
  out[a] += src[i];
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'out[a]' indexes 'out' with 'a', a value read from 'sorted'
  // CHECK-MESSAGES: :[[@LINE-4]]:21: note: the index value is read here from 'sorted'
}

// Two loaded parts: the row is checked, the batch is not.
__global__ void block_gather(const float *x, const int *blocks, float *out,
                             int H, int W) {
  const int b = blocks[blockIdx.x * 2], h = blocks[blockIdx.x * 2 + 1];
  const int hh = h + int(threadIdx.y);
  if (hh < 0 || hh >= H)
    return;
  out[blockIdx.x * W + threadIdx.x] = x[(b * H + hh) * W + threadIdx.x];
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'x[(b * H + hh) * W + threadIdx.x]' indexes 'x' with 'b', a value read from 'blocks'
  // CHECK-MESSAGES: :[[@LINE-6]]:17: note: the index value is read here from 'blocks'
}

// Not reported: the same loop after the index tensor is checked.
void gather_cpu_checked(const torch::Tensor &src, const torch::Tensor &index,
                        torch::Tensor &out) {
  TORCH_CHECK(index.min().item<int64_t>() >= 0 &&
              index.max().item<int64_t>() < src.numel());
  const int64_t *index_data = index.data_ptr<int64_t>();
  const float *src_data = src.data_ptr<float>();
  float *out_data = out.data_ptr<float>();
  for (int64_t i = 0; i < index.numel(); ++i)
    out_data[i] = src_data[index_data[i]];
}

// A remainder by a bound that is not loaded keeps a value that cannot be
// negative within [0, n): a hash of a loaded id folded into the table.
__device__ int64_t mix(int64_t a, int64_t b) {
  return (a * 2654435761ull + b) % 1000000007ull;
}
__device__ int64_t mix_signed(int64_t a) { return a * 31 + 7; }
__global__ void hashed_lookup(const float *table, const int64_t *ids,
                              float *out, int64_t n, int64_t rows) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n)
    return;
  const int64_t slot = mix(ids[i], threadIdx.x) % rows;
  out[i] = table[slot] + table[(unsigned)ids[i] % rows];
  // A signed value keeps its sign through %: -7 % rows is -7.
  out[i] += table[ids[i] % rows];
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'table[ids[i] % rows]' indexes 'table' with 'ids[i]', a value read from 'ids'
  out[i] += table[mix_signed(ids[i]) % rows];
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'table[mix_signed(ids[i]) % rows]' indexes 'table' with 'ids[i]', a value read from 'ids'
  // A remainder by a loaded value bounds nothing.
  out[i] += table[mix(ids[i], 0) % ids[0]];
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'table[mix(ids[i], 0) % ids[0]]' indexes 'table' with 'ids[i]', a value read from 'ids'
}

// Index arrays that host code makes in range: a permutation of an arange
// made by a function of the file, and a counting fill over the whole array
// that Thrust sorts. What Thrust declares, as far as these use it:
namespace thrust {
struct device_execution_policy {};
static const device_execution_policy device{};
template <typename T> struct device_ptr {
  explicit device_ptr(T *p) : p(p) {}
  device_ptr operator+(int64_t n) const { return device_ptr(p + n); }
  T *p;
};
template <typename T> struct counting_iterator {
  explicit counting_iterator(T start) : v(start) {}
  counting_iterator operator+(int64_t n) const { return counting_iterator(v + n); }
  T v;
};
template <typename It, typename Cmp>
void sort(const device_execution_policy &, It first, It last, Cmp cmp);
template <typename K, typename V> void sort_by_key(K first, K last, V values);
template <typename In, typename Out> Out copy(In first, In last, Out out);
template <typename It> void sequence(It first, It last);
template <typename It, typename T> void fill(It first, It last, T value);
} // namespace thrust

struct ByKey {
  const int *keys;
  __host__ __device__ bool operator()(int a, int b) const {
    return keys[a] < keys[b];
  }
};

__global__ void gather_points(const float *points, const int *order,
                              float *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = points[order[i]];
}

// A permutation of 0..n-1, made by a function of this file.
torch::Tensor sorted_order(const torch::Tensor &keys) {
  const int n = keys.size(0);
  torch::Tensor order = torch::arange(0, n, torch::kInt);
  int *order_ptr = order.data_ptr<int>();
  thrust::sort(thrust::device, order_ptr, order_ptr + n,
               ByKey{keys.data_ptr<int>()});
  return order;
}

void gather_sorted(const torch::Tensor &points, const torch::Tensor &keys,
                   torch::Tensor &out) {
  torch::Tensor order = sorted_order(keys);
  gather_points<<<1, 256>>>(points.data_ptr<float>(), order.data_ptr<int>(),
                            out.data_ptr<float>(), keys.size(0));
}

// A counting fill over the whole of an array made like a flattened tensor,
// sorted by key; launched from a lambda, as AT_DISPATCH does.
__global__ void gather_rows64(const float *src, const int64_t *order,
                              float *out, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = src[order[i]];
}

void gather_by_key(const torch::Tensor &src, const torch::Tensor &keys,
                   torch::Tensor &out) {
  torch::Tensor flat = keys.flatten();
  int64_t numel = flat.size(0);
  auto sorted_keys = torch::empty_like(flat);
  auto order = torch::empty_like(flat);
  auto order_data = thrust::device_ptr<int64_t>(order.data_ptr<int64_t>());
  auto count = thrust::counting_iterator<int64_t>(0);
  thrust::copy(count, count + numel, order_data);
  auto keys_data = thrust::device_ptr<int64_t>(sorted_keys.data_ptr<int64_t>());
  thrust::sort_by_key(keys_data, keys_data + numel, order_data);
  [&] {
    gather_rows64<<<1, 256>>>(src.data_ptr<float>(), order.data_ptr<int64_t>(),
                              out.data_ptr<float>(), numel);
  }();
}

// Reported: a fill that leaves the last element as it was, a fill of
// another value, and a kernel that writes through the array it is given.
__global__ void gather_rows64_b(const float *src, const int64_t *order,
                                float *out, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = src[order[i]];
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'src[order[i]]' indexes 'src' with 'order[i]', a value read from 'order'
}

void gather_partly_filled(const torch::Tensor &src, const torch::Tensor &keys,
                          torch::Tensor &out) {
  torch::Tensor flat = keys.flatten();
  int64_t numel = flat.size(0);
  auto order = torch::empty_like(flat);
  auto order_data = thrust::device_ptr<int64_t>(order.data_ptr<int64_t>());
  auto count = thrust::counting_iterator<int64_t>(0);
  thrust::copy(count, count + (numel - 1), order_data);
  gather_rows64_b<<<1, 256>>>(src.data_ptr<float>(), order.data_ptr<int64_t>(),
                              out.data_ptr<float>(), numel);
}

__global__ void gather_rows64_c(const float *src, const int64_t *order,
                                float *out, int64_t n) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n)
    out[i] = src[order[i]];
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'src[order[i]]' indexes 'src' with 'order[i]', a value read from 'order'
}

void gather_filled_with(const torch::Tensor &src, int64_t numel, int64_t v,
                        torch::Tensor &out) {
  auto order = torch::empty({numel}, torch::kLong);
  auto order_data = thrust::device_ptr<int64_t>(order.data_ptr<int64_t>());
  thrust::sequence(order_data, order_data + numel);
  thrust::fill(order_data, order_data + numel, v);
  gather_rows64_c<<<1, 256>>>(src.data_ptr<float>(), order.data_ptr<int64_t>(),
                              out.data_ptr<float>(), numel);
}

__global__ void shift_then_gather(const float *src, int *order, float *out,
                                  int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  order[i] += 1;
  out[i] = src[order[i]];
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'src[order[i]]' indexes 'src' with 'order[i]', a value read from 'order'
}

void gather_shifted(const torch::Tensor &src, const torch::Tensor &keys,
                    torch::Tensor &out) {
  torch::Tensor order = sorted_order(keys);
  shift_then_gather<<<1, 256>>>(src.data_ptr<float>(), order.data_ptr<int>(),
                                out.data_ptr<float>(), keys.size(0));
}

// The position within a segment capped at k elements, i - start for i in
// [start, min(end, start + k)), is in [0, k): bounded like a comparison
// with k. Without the cap, the position reaches end - start, a difference
// of two loaded values, and so does a body that moves the counter (here
// through a reference parameter).
__device__ int min(int a, int b);
__device__ void skip_padding(int &i);
__global__ void pack_segments(const float *src, const int *offsets,
                              float *packed, int segments, int k) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= segments)
    return;
  const int start = offsets[s], end = offsets[s + 1];
  for (int i = start; i < min(end, start + k); ++i)
    packed[s * k + (i - start)] = 1.0f;
  for (int i = start; i < end; ++i)
    packed[s * k + (i - start)] = 2.0f;
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'packed[s * k + (i - start)]' indexes 'packed' with 'start', a value read from 'offsets'
  for (int i = start; i < min(end, start + k); ++i) {
    skip_padding(i);
    packed[s * k + (i - start)] = 3.0f;
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'packed[s * k + (i - start)]' indexes 'packed' with 'start', a value read from 'offsets'
  }
}

// A host helper that receives a tensor's raw storage as a pointer: the
// loop reads its indices as host code that took data_ptr() itself would.
template <typename T>
void gather_rows_cpu(const T *src, const int *rows, T *out, int n, int k) {
  for (int i = 0; i < n; ++i) {
    const int r = rows[i];
    for (int j = 0; j < k; ++j)
      out[i * k + j] = src[r * k + j];
    // CHECK-MESSAGES: :[[@LINE-1]]:24: warning: 'src[r * k + j]' indexes 'src' with 'r', a value read from 'rows', and nothing bounds it in a loop over raw storage
    // CHECK-MESSAGES: :[[@LINE-4]]:19: note: the index value is read here from 'rows'
    // CHECK-MESSAGES: :[[@LINE+7]]:49: note: the call passes 'rows.data_ptr<int>()' for it
  }
}

torch::Tensor gather_rows_op(const torch::Tensor &src,
                             const torch::Tensor &rows) {
  auto out = torch::empty({rows.numel(), src.size(1)}, src.options());
  gather_rows_cpu<float>(src.data_ptr<float>(), rows.data_ptr<int>(),
                         out.data_ptr<float>(), rows.numel(), src.size(1));
  return out;
}

// The same helper shape, called with indices checked before the call.
template <typename T>
void gather_rows_checked_cpu(const T *src, const int *rows, T *out, int n,
                             int k) {
  for (int i = 0; i < n; ++i) {
    const int r = rows[i];
    for (int j = 0; j < k; ++j)
      out[i * k + j] = src[r * k + j];
  }
}

torch::Tensor gather_rows_checked_op(const torch::Tensor &src,
                                     const torch::Tensor &rows) {
  TORCH_CHECK(rows.min().item<int64_t>() >= 0 &&
              rows.max().item<int64_t>() < src.size(0));
  auto out = torch::empty({rows.numel(), src.size(1)}, src.options());
  gather_rows_checked_cpu<float>(src.data_ptr<float>(), rows.data_ptr<int>(),
                                 out.data_ptr<float>(), rows.numel(),
                                 src.size(1));
  return out;
}
