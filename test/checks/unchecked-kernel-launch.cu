// RUN: %check_clang_tidy %s libtorch-unchecked-kernel-launch %t -- -- %mock_torch %mock_cuda -DTORCH_EXTENSION_NAME=example_ops

// A PyTorch extension (built with -DTORCH_EXTENSION_NAME, as
// torch.utils.cpp_extension does): its ops run on whatever stream the Python
// caller made current, so a launch on the default stream races (standalone
// programs: unchecked-kernel-launch-standalone.cu).
#include <ATen/cuda/CUDAContext.h>
#include <torch/extension.h>
#include <cmath>

__global__ void scale_kernel(float *x, int n) {}
__global__ void copy_kernel(const float *in, float *out, int n) {}
__global__ void index_kernel(const int64_t *idx, int n) {}
void resize_grid(dim3 &grid);
template <typename T> __global__ void fill_kernel(T *x, int n) {}
template <typename scalar_t>
__global__ void interp_kernel(
    torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> in,
    torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> out) {}

//===--- Unchecked launches that can fail ---------------------------------===//

// The grid is 0 when the input is empty, nothing reads the launch error,
// and the kernel runs on the legacy default stream (the tutorial pattern:
// a dim3 grid inside the dispatch macro's lambda).
torch::Tensor interp(torch::Tensor feats) {
  const int N = feats.size(0), F = feats.size(1);
  torch::Tensor out = torch::empty({N, F}, feats.options());
  const dim3 threads(16, 16);
  const dim3 blocks((N + threads.x - 1) / threads.x,
                    (F + threads.y - 1) / threads.y);
  AT_DISPATCH_FLOATING_TYPES(feats.scalar_type(), "interp", ([&] {
    interp_kernel<scalar_t><<<blocks, threads>>>(
        feats.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>(),
        out.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>());
  }));
  // CHECK-MESSAGES: :[[@LINE-4]]:5: warning: kernel launch of 'interp_kernel' has no stream argument: it runs on the legacy default stream, not on LibTorch's current stream, so it is not ordered with LibTorch's work on another stream (torch.cuda.stream, CUDAStreamGuard, DataParallel) and races with it; pass at::cuda::getCurrentCUDAStream() as the fourth launch argument [libtorch-unchecked-kernel-launch]
  // CHECK-MESSAGES: :[[@LINE-5]]:5: warning: kernel launch of 'interp_kernel' is not checked: if it fails, its error stays pending and the next unrelated CUDA call reports it, far from here; the grid's x dimension is computed from 'feats.size(0)', which is 0 for an empty tensor, and a grid of 0 blocks is an invalid configuration; add C10_CUDA_KERNEL_LAUNCH_CHECK() after it [libtorch-unchecked-kernel-launch]
  // CHECK-FIXES: {{^}}    interp_kernel<scalar_t><<<blocks, threads, 0, at::cuda::getCurrentCUDAStream()>>>({{$}}
  // CHECK-FIXES: {{^}}        out.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>());{{$}}
  // CHECK-FIXES-NEXT: {{^}}    C10_CUDA_KERNEL_LAUNCH_CHECK();{{$}}
  return out;
}

// A stream, but no launch check before the function returns (the custom-op
// tutorial's pattern).
at::Tensor muladd(const at::Tensor &a, const at::Tensor &b) {
  TORCH_CHECK(a.is_cuda());
  at::Tensor a_contig = a.contiguous();
  at::Tensor result = at::empty(a_contig.sizes(), a_contig.options());
  float *a_ptr = a_contig.data_ptr<float>();
  float *result_ptr = result.data_ptr<float>();
  int numel = a_contig.numel();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  copy_kernel<<<(numel + 255) / 256, 256, 0, stream>>>(a_ptr, result_ptr, numel);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'copy_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'a_contig.numel()', which is 0 for an empty tensor{{.*}}
  // CHECK-FIXES: {{^}}  copy_kernel<<<(numel + 255) / 256, 256, 0, stream>>>(a_ptr, result_ptr, numel);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  C10_CUDA_KERNEL_LAUNCH_CHECK();{{$}}
  return result;
}

// A launch written through a macro counts; the check goes after the macro.
#define LAUNCH_SCALE(ptr, n)                                                   \
  scale_kernel<<<((n) + 255) / 256, 256, 0,                                    \
                 at::cuda::getCurrentCUDAStream()>>>(ptr, n)
void scale(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous());
  int n = x.numel();
  LAUNCH_SCALE(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} computed from 'x.numel()'{{.*}}
  // CHECK-FIXES: {{^}}  LAUNCH_SCALE(x.data_ptr<float>(), n);{{$}}
  // CHECK-FIXES-NEXT: {{^}}  C10_CUDA_KERNEL_LAUNCH_CHECK();{{$}}
  x.fill_(2);
}

// A block of 2048 threads never starts.
void too_many_threads(float *p, cudaStream_t stream) {
  scale_kernel<<<1, dim3(64, 32), 0, stream>>>(p, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}}; its block has 2048 threads, more than the 1024 a block can have; add C10_CUDA_KERNEL_LAUNCH_CHECK() after it [libtorch-unchecked-kernel-launch]
}

// The next statement is not a check: a later one does not count.
void late_check(torch::Tensor x, cudaStream_t stream) {
  int n = x.size(0);
  scale_kernel<<<(n + 127) / 128, 128, 0, stream>>>(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}}'x.size(0)'{{.*}}
  x += x;
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

//===--- Streams ----------------------------------------------------------===//

// A null stream is the legacy default stream too.
void null_stream(float *p) {
  scale_kernel<<<1, 256, 0, 0>>>(p, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' passes a default stream: it runs on the legacy default stream{{.*}}
  // CHECK-FIXES: {{^}}  scale_kernel<<<1, 256, 0, at::cuda::getCurrentCUDAStream()>>>(p, 1);{{$}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  scale_kernel<<<1, 256, 0, cudaStreamLegacy>>>(p, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' passes a default stream{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  scale_kernel<<<1, 256, 64>>>(p, 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' has no stream argument{{.*}}
  // CHECK-FIXES: {{^}}  scale_kernel<<<1, 256, 64, at::cuda::getCurrentCUDAStream()>>>(p, 1);{{$}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

//===--- Arguments: not on CUDA, not contiguous, another dtype ------------===//

void cpu_output(torch::Tensor x, cudaStream_t stream) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous());
  auto out = torch::zeros({x.numel()});
  copy_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), out.data_ptr<float>(), 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:59: warning: 'out.data_ptr<float>()' passes the storage of 'out' to kernel 'copy_kernel', but 'out' is a CPU tensor: the kernel dereferences a host pointer on the GPU (an illegal memory access); create it with the options of the kernel's other inputs or move it with .cuda() [libtorch-unchecked-kernel-launch]
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto back = x.cpu();
  copy_kernel<<<1, 256, 0, stream>>>(back.data_ptr<float>(), x.data_ptr<float>(), 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'back.data_ptr<float>()' passes the storage of 'back' to kernel 'copy_kernel', but 'back' is a CPU tensor{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void strided_input(torch::Tensor x, cudaStream_t stream) {
  TORCH_CHECK(x.is_cuda());
  auto xt = x.transpose(0, 1);
  auto out = torch::empty_like(x);
  copy_kernel<<<1, 256, 0, stream>>>(xt.data_ptr<float>(), out.data_ptr<float>(), 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'xt.data_ptr<float>()' passes the storage of 'xt' to kernel 'copy_kernel' as a raw pointer, but 'xt' is not contiguous: the kernel reads it as a dense array and gets the wrong elements{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void wrong_dtype(torch::Tensor x, cudaStream_t stream) {
  auto idx = torch::zeros({4}, x.options().dtype(torch::kLong));
  copy_kernel<<<1, 4, 0, stream>>>((const float *)idx.data_ptr(), x.data_ptr<float>(), 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:51: warning: 'idx.data_ptr()' passes the storage of 'idx', which holds Long values, to kernel 'copy_kernel' as 'const float' elements: the kernel reinterprets their bytes{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto ids = torch::zeros({4}, x.options().dtype(torch::kInt));
  index_kernel<<<1, 4, 0, stream>>>(ids.data_ptr<int64_t>(), 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'ids.data_ptr<int64_t>()' asks for 'int64_t' elements of 'ids', which holds Int values: it throws 'expected scalar type' before the launch{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// CUDA's own half types hold the Half and BFloat16 dtypes as LibTorch's do,
// and a complex dtype holds complex elements: one model of which C++ type
// each dtype is, shared with libtorch-from-blob-dtype.
struct __half { unsigned short x; };        // as cuda_fp16.h declares it
struct __nv_bfloat16 { unsigned short x; }; // as cuda_bf16.h declares it
__global__ void half_kernel(const __half *in, int n) {}
__global__ void bf16_kernel(const __nv_bfloat16 *in, int n) {}
__global__ void cfloat_kernel(const c10::complex<float> *in, int n) {}

void half_and_complex(torch::Tensor x, cudaStream_t stream) {
  auto h = torch::zeros({4}, x.options().dtype(torch::kHalf));
  half_kernel<<<1, 4, 0, stream>>>((const __half *)h.data_ptr(), 4);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto b = torch::zeros({4}, x.options().dtype(torch::kBFloat16));
  bf16_kernel<<<1, 4, 0, stream>>>((const __nv_bfloat16 *)b.data_ptr(), 4);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  half_kernel<<<1, 4, 0, stream>>>((const __half *)b.data_ptr(), 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:52: warning: 'b.data_ptr()' passes the storage of 'b', which holds BFloat16 values, to kernel 'half_kernel' as 'const __half' elements: the kernel reinterprets their bytes{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto c = torch::zeros({4}, x.options().dtype(torch::kComplexFloat));
  cfloat_kernel<<<1, 4, 0, stream>>>((const c10::complex<float> *)c.data_ptr(), 4);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  copy_kernel<<<1, 4, 0, stream>>>((const float *)c.data_ptr(), x.data_ptr<float>(), 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:51: warning: 'c.data_ptr()' passes the storage of 'c', which holds ComplexFloat values, to kernel 'copy_kernel' as 'const float' elements: the kernel reinterprets their bytes{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Bytes allocated for objects of the kernel's type (the sizes written with
// its sizeof) and cast to it: storage by design, no dtype to match. Bytes
// sized otherwise, or for another type, are still reinterpreted.
struct RandState { unsigned s[4]; };
__global__ void seed_kernel(RandState *states, int n) {}
void byte_storage(int64_t n, cudaStream_t stream) {
  auto states = torch::zeros({(int64_t)(n * sizeof(RandState))},
                             torch::TensorOptions().dtype(torch::kChar).device(torch::kCUDA));
  seed_kernel<<<1, 4, 0, stream>>>((RandState *)states.data_ptr(), 4);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto unsized = torch::zeros({n * 16},
                              torch::TensorOptions().dtype(torch::kChar).device(torch::kCUDA));
  seed_kernel<<<1, 4, 0, stream>>>((RandState *)unsized.data_ptr(), 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: 'unsized.data_ptr()' passes the storage of 'unsized', which holds Char values, to kernel 'seed_kernel' as 'RandState' elements: the kernel reinterprets their bytes{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto other = torch::zeros({(int64_t)(n * sizeof(double))},
                            torch::TensorOptions().dtype(torch::kChar).device(torch::kCUDA));
  seed_kernel<<<1, 4, 0, stream>>>((RandState *)other.data_ptr(), 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:49: warning: 'other.data_ptr()' passes the storage of 'other', which holds Char values, to kernel 'seed_kernel' as 'RandState' elements{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Through a launcher function of the file, and one only declared here that
// takes a stream (defined in another .cu file).
void launch_scale(float *p, int n, cudaStream_t stream) {
  scale_kernel<<<1, 256, 0, stream>>>(p, n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
void launch_copy(const float *in, float *out, int n, cudaStream_t stream);
void through_launchers(torch::Tensor x, cudaStream_t stream) {
  auto host = torch::ones({8}, torch::kFloat);
  launch_scale(host.data_ptr<float>(), 8, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'host.data_ptr<float>()' passes the storage of 'host' to 'launch_scale', which launches a kernel with it, but 'host' is a CPU tensor{{.*}}
  launch_copy(x.data_ptr<float>(), host.data_ptr<float>(), 8, stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'host.data_ptr<float>()' passes the storage of 'host' to 'launch_copy', which launches a kernel with it, but 'host' is a CPU tensor{{.*}}
}

// A check proves a property only on the side that goes on: returning when
// a tensor is on CUDA leaves it on the CPU, and a test under `||` or in the
// branch that exits proves nothing.
void wrong_side_checks(torch::Tensor x, cudaStream_t stream) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous());
  auto h = torch::zeros({8});
  if (h.is_cuda())
    return;
  copy_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), h.data_ptr<float>(), 8);
  // CHECK-MESSAGES: :[[@LINE-1]]:59: warning: 'h.data_ptr<float>()' passes the storage of 'h' to kernel 'copy_kernel', but 'h' is a CPU tensor{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto t = x.transpose(0, 1);
  TORCH_CHECK(t.is_contiguous() || x.dim() == 1);
  copy_kernel<<<1, 256, 0, stream>>>(t.data_ptr<float>(), x.data_ptr<float>(), 8);
  // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 't.data_ptr<float>()' passes the storage of 't' to kernel 'copy_kernel' as a raw pointer, but 't' is not contiguous{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto l = torch::zeros({4}, x.options().dtype(torch::kLong));
  TORCH_CHECK(!(l.scalar_type() == torch::kFloat) || x.dim() == 1);
  copy_kernel<<<1, 4, 0, stream>>>((const float *)l.data_ptr(), x.data_ptr<float>(), 4);
  // CHECK-MESSAGES: :[[@LINE-1]]:51: warning: 'l.data_ptr()' passes the storage of 'l', which holds Long values{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto c = torch::zeros({8});
  if (!c.is_cuda()) {
    scale_kernel<<<1, 256, 0, stream>>>(c.data_ptr<float>(), 8);
    // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'c.data_ptr<float>()' passes the storage of 'c' to kernel 'scale_kernel', but 'c' is a CPU tensor{{.*}}
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return;
  }
}

// The else branch of a test has it false; a break leaves only its loop; a
// helper's test counts only when its other branch never returns to the
// caller (a return is a normal return: the caller goes on), and only before
// the helper may return.
void checks_contiguous_unless_cuda(const torch::Tensor &t) {
  if (t.is_cuda())
    return;
  TORCH_CHECK(t.is_contiguous());
}
void logs_if_cuda(torch::Tensor t) {
  if (!t.is_cuda())
    return;
  t.fill_(1);
}
void checks_nonempty_ones(const torch::Tensor &t) {
  if (t.numel() == 0)
    return;
  TORCH_CHECK(t.is_cuda());
}
void wrong_side_branches(torch::Tensor x, cudaStream_t stream) {
  auto h = torch::zeros({8});
  if (h.device().type() == torch::kCUDA) {
    x.fill_(0);
  } else {
    scale_kernel<<<1, 256, 0, stream>>>(h.data_ptr<float>(), 8);
    // CHECK-MESSAGES: :[[@LINE-1]]:41: warning: 'h.data_ptr<float>()' passes the storage of 'h' to kernel 'scale_kernel', but 'h' is a CPU tensor{{.*}}
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
  auto k = torch::zeros({8});
  for (int i = 0; i < 3; ++i)
    if (!k.is_cuda())
      break;
  scale_kernel<<<1, 256, 0, stream>>>(k.data_ptr<float>(), 8);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'k.data_ptr<float>()' passes the storage of 'k' to kernel 'scale_kernel', but 'k' is a CPU tensor{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto g = torch::zeros({8});
  checks_contiguous_unless_cuda(g);
  scale_kernel<<<1, 256, 0, stream>>>(g.data_ptr<float>(), 8);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'g.data_ptr<float>()' passes the storage of 'g' to kernel 'scale_kernel', but 'g' is a CPU tensor{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto m = torch::zeros({8});
  logs_if_cuda(m);
  scale_kernel<<<1, 256, 0, stream>>>(m.data_ptr<float>(), 8);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'm.data_ptr<float>()' passes the storage of 'm' to kernel 'scale_kernel', but 'm' is a CPU tensor{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto e = torch::zeros({8});
  checks_nonempty_ones(e);
  scale_kernel<<<1, 256, 0, stream>>>(e.data_ptr<float>(), 8);
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'e.data_ptr<float>()' passes the storage of 'e' to kernel 'scale_kernel', but 'e' is a CPU tensor{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

//===--- Correct code: no diagnostics -------------------------------------===//

// A helper whose failing branch throws checks its argument for the caller.
void requires_cuda(torch::Tensor t) {
  if (!t.is_cuda())
    throw std::runtime_error("expected a CUDA tensor");
  t.fill_(0);
}

// Checks on the side that goes on: the launch never runs with a CPU or a
// strided tensor (the else branch of `!= kCUDA`, a continue that skips the
// rest of the loop's body, `!(a || b)` false).
void right_side_checks(torch::Tensor x, cudaStream_t stream) {
  auto h = torch::zeros({8});
  if (!h.is_cuda())
    return;
  scale_kernel<<<1, 256, 0, stream>>>(h.data_ptr<float>(), 8);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto g = torch::zeros({8});
  if (g.device().type() != torch::kCUDA) {
    x.fill_(0);
  } else {
    scale_kernel<<<1, 256, 0, stream>>>(g.data_ptr<float>(), 8);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
  for (int i = 0; i < 3; ++i) {
    auto k = torch::zeros({8});
    if (!k.is_cuda())
      continue;
    scale_kernel<<<1, 256, 0, stream>>>(k.data_ptr<float>(), 8);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  }
  auto r = torch::zeros({8});
  requires_cuda(r);
  scale_kernel<<<1, 256, 0, stream>>>(r.data_ptr<float>(), 8);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto t = x.transpose(0, 1);
  TORCH_CHECK(!(!t.is_contiguous() || !x.is_cuda()));
  copy_kernel<<<1, 256, 0, stream>>>(t.data_ptr<float>(), x.data_ptr<float>(), 8);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void checked(torch::Tensor x, cudaStream_t stream) {
  TORCH_CHECK(x.is_cuda() && x.is_contiguous());
  int n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  AT_CUDA_CHECK(cudaGetLastError());
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  TORCH_CHECK(cudaPeekAtLastError() == cudaSuccess);
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  cudaError_t err = cudaGetLastError();
  TORCH_CHECK(err == cudaSuccess, cudaGetErrorString(err));
}

// Launches one after another, or in the branches of an if, share a check.
void one_check_for_several(torch::Tensor x, int k, cudaStream_t stream) {
  int n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  if (k == 1)
    scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  else
    scale_kernel<<<(n + 127) / 128, 128, 0, stream>>>(x.data_ptr<float>(), n);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// The check after the dispatch macro that calls the lambda.
void checked_after_dispatch(torch::Tensor feats, torch::Tensor out) {
  const int N = feats.size(0);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES(feats.scalar_type(), "interp", [&] {
    interp_kernel<scalar_t><<<(N + 255) / 256, 256, 0, stream>>>(
        feats.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>(),
        out.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>());
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Empty inputs return early (or skip the launch): the grid cannot be 0, and
// an unchecked launch has no evidence of failing.
torch::Tensor empty_guarded(torch::Tensor x, cudaStream_t stream) {
  auto out = torch::empty_like(x);
  if (x.numel() == 0)
    return out;
  int n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(out.data_ptr<float>(), n);
  return out;
}
void empty_skipped(torch::Tensor x, cudaStream_t stream) {
  int n = x.numel();
  if (n > 0) {
    scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  }
}
void empty_checked(torch::Tensor x, cudaStream_t stream) {
  int n = x.size(0);
  TORCH_CHECK(n > 0, "empty input");
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
}
void empty_nonzero(torch::Tensor x, cudaStream_t stream) {
  if (x.numel() != 0) {
    scale_kernel<<<(x.numel() + 255) / 256, 256, 0, stream>>>(
        x.data_ptr<float>(), x.numel());
  }
}
void empty_negated(torch::Tensor x, cudaStream_t stream) {
  if (!x.numel())
    return;
  int n = x.size(0);
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
}
void at_least_one_block(torch::Tensor x, cudaStream_t stream) {
  int n = x.numel();
  scale_kernel<<<std::max((n + 255) / 256, 1), 256, 0, stream>>>(
      x.data_ptr<float>(), n);
  scale_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), n);
}

// A check against 0 guards an empty grid only when it tests what the grid
// is computed from: not an unrelated count, not another tensor's size.
void empty_other_count(torch::Tensor x, int64_t dim, cudaStream_t stream) {
  TORCH_CHECK(dim >= 1, "dim must be at least 1");
  int n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.numel()', which is 0 for an empty tensor{{.*}}
}
void empty_other_tensor(torch::Tensor x, torch::Tensor y, cudaStream_t stream) {
  TORCH_CHECK(y.numel() > 0, "y is empty");
  int n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.numel()', which is 0 for an empty tensor{{.*}}
}

// The side of the check counts: what is known past it, or in the branch
// that holds the launch.
void empty_either_side(torch::Tensor x, bool fast, cudaStream_t stream) {
  int n = x.numel();
  if (n == 0 || fast)
    return;
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
}
void empty_else_side(torch::Tensor x, cudaStream_t stream) {
  int n = x.numel();
  if (x.numel() == 0) {
    return;
  } else {
    scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  }
}
// A continue leaves one turn of its loop: the launch later in the loop is
// past the check, one after the loop, or after a break, is not.
void empty_in_loop(torch::Tensor x, int turns, cudaStream_t stream) {
  int n = x.numel();
  for (int i = 0; i < turns; ++i) {
    if (n == 0)
      continue;
    scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  }
  do {
    if (n == 0)
      break;
    x.fill_(0);
  } while (false);
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.numel()', which is 0 for an empty tensor{{.*}}
}
// C10_LIKELY's form of a condition.
void empty_expected(torch::Tensor x, cudaStream_t stream) {
  int n = x.numel();
  if (__builtin_expect(static_cast<bool>(n > 0), 1)) {
    scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  }
}
// A tensor given another value after its check is not the one checked; a
// checked count in std::min does not keep the other one from being 0.
void empty_replaced(torch::Tensor x, torch::Tensor y, cudaStream_t stream) {
  if (x.numel() == 0)
    return;
  x = y;
  scale_kernel<<<(x.numel() + 255) / 256, 256, 0, stream>>>(
      x.data_ptr<float>(), 1);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.numel()', which is 0 for an empty tensor{{.*}}
}
void empty_min(torch::Tensor x, torch::Tensor y, cudaStream_t stream) {
  if (x.numel() == 0)
    return;
  scale_kernel<<<std::min(x.numel(), y.size(0)), 256, 0, stream>>>(
      x.data_ptr<float>(), 1);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'y.size(0)', which is 0 for an empty tensor{{.*}}
}
void empty_wrong_side(torch::Tensor x, bool fast, cudaStream_t stream) {
  int n = x.numel();
  if (n > 0)
    return;
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.numel()', which is 0 for an empty tensor{{.*}}
}
void empty_inside_exit(torch::Tensor x, cudaStream_t stream) {
  int n = x.numel();
  if (n == 0) {
    scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.numel()', which is 0 for an empty tensor{{.*}}
    return;
  }
}
void empty_branch_side(torch::Tensor x, cudaStream_t stream) {
  int n = x.size(0);
  if (n != 0) {
  } else {
    scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.size(0)', which is 0 for an empty tensor{{.*}}
  }
}
void empty_both_needed(torch::Tensor x, bool fast, cudaStream_t stream) {
  int n = x.numel();
  if (n == 0 && fast)
    return;
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.numel()', which is 0 for an empty tensor{{.*}}
}

// A check of a size at a dim that is not a constant: a test of the tensor's
// numel() covers it, a test of the dim does not.
void empty_any_dim(torch::Tensor x, int64_t dim, cudaStream_t stream) {
  if (x.numel() == 0)
    return;
  int n = x.size(dim);
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
}
void empty_any_dim_checked_dim(torch::Tensor x, int64_t dim,
                               cudaStream_t stream) {
  TORCH_CHECK(dim >= 1, "dim must be at least 1");
  int n = x.size(dim);
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.size(dim)', which is 0 for an empty tensor{{.*}}
}

// An integer division by the count before the launch: the host dies of a
// division by 0 first, so the count is not 0 at the launch, and neither is
// a grid that is 0 only through it.
torch::Tensor empty_divided(torch::Tensor x, torch::Tensor y,
                            cudaStream_t stream) {
  auto rows = x.size(0);
  auto per_row = y.numel() / rows;
  scale_kernel<<<(rows + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(),
                                                       per_row);
  auto cols = x.size(1);
  per_row %= cols;
  scale_kernel<<<cols, 256, 0, stream>>>(x.data_ptr<float>(), per_row);
  scale_kernel<<<(rows + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(),
                                                       per_row);
  return x;
}
void empty_divided_in_dispatch(torch::Tensor x, torch::Tensor out,
                               cudaStream_t stream) {
  if (x.numel() == 0)
    return;
  auto rows = x.size(0) * out.size(1);
  auto cols = out.numel() / rows;
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "divided", [&] {
    fill_kernel<scalar_t><<<(rows * 4 + 255) / 256, 256, 0, stream>>>(
        out.data_ptr<scalar_t>(), cols);
  });
}
// Not a proof for the grid: a divisor that is not 0 on an empty input, a
// floating division, a division on one path, a division by one factor of
// the grid when another can be 0, a division after the launch.
void empty_divided_elsewhere(torch::Tensor x, torch::Tensor y, bool split,
                             cudaStream_t stream) {
  int threads = 256;
  int n = x.numel();
  int per_thread = y.numel() / threads;
  scale_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(
      x.data_ptr<float>(), per_thread);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.numel()', which is 0 for an empty tensor{{.*}}
  double share = 1.0 / n;
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(),
                                                    static_cast<int>(share));
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.numel()', which is 0 for an empty tensor{{.*}}
  int m = x.size(0);
  if (split)
    per_thread = y.numel() / m;
  scale_kernel<<<(m + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(),
                                                    per_thread);
  // CHECK-MESSAGES: :[[@LINE-2]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.size(0)', which is 0 for an empty tensor{{.*}}
  int cols = x.size(1);
  int blocks = x.size(0) * cols;
  int per_col = y.numel() / cols;
  scale_kernel<<<blocks, 256, 0, stream>>>(x.data_ptr<float>(), per_col);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.size(0)', which is 0 for an empty tensor{{.*}}
}
void empty_divided_after(torch::Tensor x, torch::Tensor y,
                         cudaStream_t stream) {
  int n = x.size(0);
  scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.size(0)', which is 0 for an empty tensor{{.*}}
  int per_row = y.numel() / n;
  scale_kernel<<<1, 256, 0, stream>>>(x.data_ptr<float>(), per_row);
}

// Grids the evaluator follows to 0 on an empty input: a floating division
// rounded up, a product with an unknown factor, a dim3 given in branches.
void empty_ceil(torch::Tensor x, cudaStream_t stream) {
  int n = x.numel();
  int blocks = std::ceil((double)n / 256);
  scale_kernel<<<blocks, 256, 0, stream>>>(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.numel()', which is 0 for an empty tensor{{.*}}
}
void empty_product(torch::Tensor x, int per_row, cudaStream_t stream) {
  scale_kernel<<<per_row * x.size(0), 256, 0, stream>>>(x.data_ptr<float>(), 1);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.size(0)', which is 0 for an empty tensor{{.*}}
}
void empty_branches(torch::Tensor x, bool wide, cudaStream_t stream) {
  int n = x.size(0);
  dim3 grid;
  if (wide)
    grid = dim3((n + 511) / 512);
  else
    grid = dim3((n + 255) / 256);
  scale_kernel<<<grid, 256, 0, stream>>>(x.data_ptr<float>(), n);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: kernel launch of 'scale_kernel' is not checked: {{.*}} the grid's x dimension is computed from 'x.size(0)', which is 0 for an empty tensor{{.*}}
}
// Not reported: a rounding that is 1 on an empty input, a branch value
// that never reaches the launch, a dim3 a call, a reference or a lambda may
// change.
void not_empty_grids(torch::Tensor x, bool wide, cudaStream_t stream) {
  int n = x.numel();
  int blocks = std::ceil((n + 255) / 256.0);
  scale_kernel<<<blocks, 256, 0, stream>>>(x.data_ptr<float>(), n);
  dim3 grid;
  if (wide) {
    grid = dim3(n / 512);
    grid = dim3(std::max(n / 512, 1));
  } else {
    grid = dim3(4);
  }
  scale_kernel<<<grid, 256, 0, stream>>>(x.data_ptr<float>(), n);
  dim3 other(1);
  if (wide)
    other = dim3(n / 256);
  resize_grid(other);
  scale_kernel<<<other, 256, 0, stream>>>(x.data_ptr<float>(), n);
  // Its definitions reach the launch, but a reference to it and a lambda
  // that captures it change it too.
  dim3 viewed;
  if (wide)
    viewed = dim3(n / 512);
  else
    viewed = dim3(4);
  dim3 &view = viewed;
  view = dim3(std::max(n / 512, 1));
  scale_kernel<<<viewed, 256, 0, stream>>>(x.data_ptr<float>(), n);
  dim3 captured;
  if (wide)
    captured = dim3(n / 512);
  else
    captured = dim3(4);
  auto at_least_one = [&] { captured = dim3(std::max(n / 512, 1)); };
  at_least_one();
  scale_kernel<<<captured, 256, 0, stream>>>(x.data_ptr<float>(), n);
}

// A lambda kept for later is not followed.
void stored_lambda(torch::Tensor x, cudaStream_t stream) {
  int n = x.numel();
  auto run = [&] {
    scale_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), n);
  };
  run();
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Tensors made on the device of the inputs, moved to CUDA, made contiguous,
// of the pointer's dtype, or checked: nothing to report.
void good_arguments(torch::Tensor x, cudaStream_t stream) {
  auto a = torch::zeros({8}, x.options());
  auto b = torch::zeros({8}).cuda();
  auto c = torch::empty({8}, torch::TensorOptions().device(torch::kCUDA));
  auto d = x.transpose(0, 1).contiguous();
  auto e = torch::zeros_like(x);
  copy_kernel<<<1, 8, 0, stream>>>(a.data_ptr<float>(), b.data_ptr<float>(), 8);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  copy_kernel<<<1, 8, 0, stream>>>(c.data_ptr<float>(), d.data_ptr<float>(), 8);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  copy_kernel<<<1, 8, 0, stream>>>(e.data_ptr<float>(), x.data_ptr<float>(), 8);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  auto ids = torch::zeros({8}, x.options().dtype(torch::kLong));
  index_kernel<<<1, 8, 0, stream>>>(ids.data_ptr<int64_t>(), 8);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  // A packed accessor carries its strides.
  auto xt = x.transpose(0, 1);
  interp_kernel<float><<<1, 8, 0, stream>>>(
      xt.packed_accessor32<float, 2, torch::RestrictPtrTraits>(),
      a.packed_accessor32<float, 2, torch::RestrictPtrTraits>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  // A CPU tensor that is checked first never reaches the kernel.
  auto host = torch::zeros({8});
  TORCH_CHECK(host.is_cuda(), "expected a CUDA tensor");
  scale_kernel<<<1, 8, 0, stream>>>(host.data_ptr<float>(), 8);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// The dispatch macro's scalar_t is the dispatched tensor's dtype.
void dispatched_dtype(torch::Tensor x, cudaStream_t stream) {
  auto y = torch::zeros({8}, x.options().dtype(torch::kDouble));
  AT_DISPATCH_FLOATING_TYPES(y.scalar_type(), "y", [&] {
    fill_kernel<<<1, 8, 0, stream>>>(y.data_ptr<scalar_t>(), 8);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// A view typed with the dispatch's scalar_t over a tensor whose dtype is
// fixed: each copy of the lambda for another dtype throws before the launch,
// and the dispatched tensor's dtype is not restricted.
void dispatch_over_fixed_dtype(torch::Tensor x, cudaStream_t stream) {
  auto y = torch::zeros({8}, x.options().dtype(torch::kFloat));
  AT_DISPATCH_ALL_TYPES(x.scalar_type(), "fill", [&] {
    fill_kernel<<<1, 8, 0, stream>>>(y.data_ptr<scalar_t>(), 8);
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'y.data_ptr<scalar_t>()' asks for elements of the type that the dispatch on 'x' picks, but 'y' holds Float values: whenever 'x' is not Float it throws 'expected scalar type' before the launch; make 'y' with the options of 'x', or check that 'x' is Float [libtorch-unchecked-kernel-launch]
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  // The dispatch macro of the older form switches on the dtype directly.
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "fill", [&] {
    fill_kernel<<<1, 8, 0, stream>>>(static_cast<scalar_t *>(y.data_ptr()), 8);
    // CHECK-MESSAGES: :[[@LINE-1]]:62: warning: 'y.data_ptr()' reads the storage of 'y' as elements of the type that the dispatch on 'x' picks, but 'y' holds Float values: whenever 'x' is not Float it passes the kernel bytes of another type{{.*}}
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  // A dispatched tensor of a known dtype runs only its own copy.
  auto d = x.to(torch::kDouble);
  AT_DISPATCH_ALL_TYPES(d.scalar_type(), "fill", [&] {
    fill_kernel<<<1, 8, 0, stream>>>(y.data_ptr<scalar_t>(), 8);
    // CHECK-MESSAGES: :[[@LINE-1]]:38: warning: 'y.data_ptr<scalar_t>()' asks for elements of the type that the dispatch on 'd' picks, but 'y' holds Float values{{.*}}
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Launched from a macro of the program: the message quotes the macro's text.
#define FILL_Y(n) fill_kernel<<<1, n, 0, stream>>>(y.data_ptr<scalar_t>(), n)
void dispatch_in_macro(torch::Tensor x, cudaStream_t stream) {
  auto y = torch::zeros({8}, x.options().dtype(torch::kFloat));
  AT_DISPATCH_ALL_TYPES(x.scalar_type(), "fill", [&] { FILL_Y(8); });
  // CHECK-MESSAGES: :[[@LINE-1]]:56: warning: 'y.data_ptr<scalar_t>()' asks for elements of the type that the dispatch on 'x' picks, but 'y' holds Float values{{.*}}
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
#undef FILL_Y

void dispatch_over_matching_dtype(torch::Tensor x, cudaStream_t stream) {
  // Made with the dispatched tensor's options: its dtype by construction.
  auto same = torch::zeros({8}, x.options());
  AT_DISPATCH_ALL_TYPES(x.scalar_type(), "fill", [&] {
    fill_kernel<<<1, 8, 0, stream>>>(same.data_ptr<scalar_t>(), 8);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  // The dispatched tensor converted to the fixed dtype runs that copy only.
  auto y = torch::zeros({8}, x.options().dtype(torch::kFloat));
  auto f = x.to(torch::kFloat);
  AT_DISPATCH_ALL_TYPES(f.scalar_type(), "fill", [&] {
    fill_kernel<<<1, 8, 0, stream>>>(y.data_ptr<scalar_t>(), 8);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  // A checked dtype restricts the dispatch the same way.
  TORCH_CHECK(x.scalar_type() == torch::kFloat, "float only");
  AT_DISPATCH_ALL_TYPES(x.scalar_type(), "fill", [&] {
    fill_kernel<<<1, 8, 0, stream>>>(y.data_ptr<scalar_t>(), 8);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
