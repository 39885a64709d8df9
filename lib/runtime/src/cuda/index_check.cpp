// Host entry point of the CUDA index check (raw-pointer API): validates the
// arguments, owns the per-device reduction slots and mailboxes and the
// per-thread pinned result record, and waits (sync) or not (deferred).
#include <torchtidy/cuda/index_check.h>

#include "error_site.h"
#include "index_check_dispatch.h"

#include <array>
#include <atomic>
#include <climits>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace torchtidy::cuda {

namespace {

using detail::KernelParams;
using detail::Mailbox;
using detail::MailboxRecord;
using detail::ReductionSlot;
using detail::SyncRecord;

constexpr int kMaxDevices = 64;

/// Allocated once per device on first use and kept for the whole process
/// (kernels in flight at exit may still write to it).
struct DeviceState {
  ReductionSlot *slots = nullptr;
  Mailbox *mailboxHost = nullptr;
  Mailbox *mailboxDevice = nullptr;
  std::atomic<uint32_t> nextSlot{0};
  int maxResidentBlocks[2] = {0, 0};
  std::atomic<bool> ranDeferred{false};
  uint64_t readTicket = 0; // guarded by drainMutex()
};

std::mutex &stateMutex() {
  static std::mutex m;
  return m;
}
std::mutex &drainMutex() {
  static std::mutex m;
  return m;
}
std::array<std::atomic<DeviceState *>, kMaxDevices> &deviceStates() {
  static std::array<std::atomic<DeviceState *>, kMaxDevices> states{};
  return states;
}

/// Frees what a DeviceState that is not complete holds: a state that fails
/// half-way through its creation must not keep device or pinned memory.
struct FreePartialState {
  void operator()(DeviceState *state) const {
    if (state->slots)
      (void)cudaFree(state->slots);
    if (state->mailboxHost)
      (void)cudaFreeHost(state->mailboxHost);
    delete state;
  }
};

cudaError_t createDeviceState(int device, DeviceState **out) {
  std::unique_ptr<DeviceState, FreePartialState> state(new DeviceState);
  TORCHTIDY_CUDA_TRY(
      cudaMalloc(reinterpret_cast<void **>(&state->slots),
                 sizeof(ReductionSlot) * detail::kReductionSlots));
  std::vector<ReductionSlot> initial(detail::kReductionSlots);
  for (ReductionSlot &s : initial) {
    s.badCount = 0;
    s.firstPosition = LLONG_MAX;
    s.blocksDone = 0;
    s.unused = 0;
  }
  TORCHTIDY_CUDA_TRY(cudaMemcpy(state->slots, initial.data(),
                                sizeof(ReductionSlot) * initial.size(),
                                cudaMemcpyHostToDevice));
  TORCHTIDY_CUDA_TRY(cudaHostAlloc(
      reinterpret_cast<void **>(&state->mailboxHost), sizeof(Mailbox),
      cudaHostAllocMapped | cudaHostAllocPortable));
  *state->mailboxHost = Mailbox{};
  TORCHTIDY_CUDA_TRY(cudaHostGetDevicePointer(
      reinterpret_cast<void **>(&state->mailboxDevice), state->mailboxHost, 0));
  int multiprocessors = 0;
  TORCHTIDY_CUDA_TRY(cudaDeviceGetAttribute(
      &multiprocessors, cudaDevAttrMultiProcessorCount, device));
  state->maxResidentBlocks[0] =
      multiprocessors *
      detail::residentBlocksPerMultiprocessor(IndexType::Int32);
  state->maxResidentBlocks[1] =
      multiprocessors *
      detail::residentBlocksPerMultiprocessor(IndexType::Int64);
  *out = state.release();
  return cudaSuccess;
}

cudaError_t deviceState(int device, DeviceState **out) {
  if (device < 0 || device >= kMaxDevices)
    return TORCHTIDY_CUDA_ERROR(cudaErrorInvalidDevice,
                                "a device number outside 0 to 63");
  DeviceState *state = deviceStates()[device].load(std::memory_order_acquire);
  if (!state) {
    const std::lock_guard<std::mutex> lock(stateMutex());
    state = deviceStates()[device].load(std::memory_order_acquire);
    if (!state) {
      const cudaError_t err = createDeviceState(device, &state); // site noted
      if (err != cudaSuccess)
        return err;
      deviceStates()[device].store(state, std::memory_order_release);
    }
  }
  *out = state;
  return cudaSuccess;
}

/// Each thread waits for its own record, so concurrent sync checks from many
/// threads never share one.
struct ThreadRecord {
  SyncRecord *host = nullptr;
  SyncRecord *device = nullptr;
  ~ThreadRecord() {
    if (host)
      (void)cudaFreeHost(host); // may fail once the runtime is shut down
  }
};

cudaError_t threadRecord(ThreadRecord **out) {
  thread_local ThreadRecord record;
  if (!record.host) {
    SyncRecord *host = nullptr;
    TORCHTIDY_CUDA_TRY(
        cudaHostAlloc(reinterpret_cast<void **>(&host), sizeof(SyncRecord),
                      cudaHostAllocMapped | cudaHostAllocPortable));
    const cudaError_t err = TORCHTIDY_CUDA_ERROR(
        cudaHostGetDevicePointer(reinterpret_cast<void **>(&record.device),
                                 host, 0),
        "cudaHostGetDevicePointer(&record.device, host, 0)");
    if (err != cudaSuccess) {
      (void)cudaFreeHost(host);
      return err;
    }
    record.host = host;
  }
  *out = &record;
  return cudaSuccess;
}

cudaError_t prepare(const void *indices, IndexType type, int64_t count,
                    int64_t bound, KernelParams *params, DeviceState **state) {
  if (count < 0)
    return TORCHTIDY_CUDA_ERROR(cudaErrorInvalidValue, "a negative count");
  if (bound < 0)
    return TORCHTIDY_CUDA_ERROR(cudaErrorInvalidValue, "a negative bound");
  if (count > 0 && !indices)
    return TORCHTIDY_CUDA_ERROR(cudaErrorInvalidValue,
                                "a null index pointer with a count over 0");
  if (type != IndexType::Int32 && type != IndexType::Int64)
    return TORCHTIDY_CUDA_ERROR(cudaErrorInvalidValue,
                                "an index type other than Int32 or Int64");
  int device = 0;
  TORCHTIDY_CUDA_TRY(cudaGetDevice(&device));
  const cudaError_t err = deviceState(device, state); // site noted
  if (err != cudaSuccess)
    return err;
  *params = KernelParams{};
  params->indices = indices;
  params->count = count;
  params->bound = bound;
  params->slot = (*state)->slots +
                 (*state)->nextSlot.fetch_add(1) % detail::kReductionSlots;
  params->device = device;
  return cudaSuccess;
}

int typeSlot(IndexType type) { return type == IndexType::Int32 ? 0 : 1; }

} // namespace

cudaError_t checkIndexRange(const void *indices, IndexType type, int64_t count,
                            int64_t bound, cudaStream_t stream,
                            IndexRangeResult *result) {
  detail::currentErrorSite() = ErrorSite{};
  if (!result)
    return TORCHTIDY_CUDA_ERROR(cudaErrorInvalidValue, "a null result");
  *result = IndexRangeResult{};
  if (count == 0 && bound >= 0)
    return cudaSuccess; // nothing to look at: no device work, no sync
  KernelParams params;
  DeviceState *state = nullptr;
  cudaError_t err = prepare(indices, type, count, bound, &params, &state);
  if (err != cudaSuccess)
    return err;
  ThreadRecord *record = nullptr;
  err = threadRecord(&record); // site noted
  if (err != cudaSuccess)
    return err;
  params.syncRecord = record->device;
  bool launched = false;
  err = detail::dispatchIndexRangeCheck(
      params, type, state->maxResidentBlocks[typeSlot(type)], stream,
      &launched);
  if (err != cudaSuccess || !launched)
    return err;
  TORCHTIDY_CUDA_TRY(cudaStreamSynchronize(stream));
  const volatile SyncRecord *r = record->host;
  result->badCount = r->badCount;
  result->firstPosition = r->firstPosition;
  result->firstValue = r->firstValue;
  return cudaSuccess;
}

cudaError_t checkIndexRangeDeferred(const void *indices, IndexType type,
                                    int64_t count, int64_t bound,
                                    uint32_t siteId, cudaStream_t stream) {
  detail::currentErrorSite() = ErrorSite{};
  if (count == 0 && bound >= 0)
    return cudaSuccess;
  KernelParams params;
  DeviceState *state = nullptr;
  const cudaError_t err = prepare(indices, type, count, bound, &params, &state);
  if (err != cudaSuccess)
    return err;
  params.mailbox = state->mailboxDevice;
  params.siteId = siteId;
  state->ranDeferred.store(true, std::memory_order_release);
  bool launched = false;
  return detail::dispatchIndexRangeCheck(
      params, type, state->maxResidentBlocks[typeSlot(type)], stream,
      &launched);
}

std::size_t drainDeferredFailures(DeferredFailure *out, std::size_t capacity,
                                  uint64_t *dropped) {
  const std::lock_guard<std::mutex> lock(drainMutex());
  std::size_t written = 0;
  uint64_t lost = 0;
  for (auto &slot : deviceStates()) {
    DeviceState *state = slot.load(std::memory_order_acquire);
    if (!state || !state->ranDeferred.load(std::memory_order_acquire))
      continue;
    volatile Mailbox *box = state->mailboxHost;
    const uint64_t tickets = box->tickets;
    if (tickets - state->readTicket > detail::kMailboxCapacity) {
      // The ring wrapped: the oldest records were overwritten.
      const uint64_t first = tickets - detail::kMailboxCapacity;
      lost += first - state->readTicket;
      state->readTicket = first;
    }
    while (state->readTicket < tickets && written < capacity) {
      volatile MailboxRecord *r =
          &box->records[state->readTicket % detail::kMailboxCapacity];
      const uint64_t sequence = r->sequence;
      if (sequence < state->readTicket + 1)
        break; // still being written by a kernel; read it next time
      std::atomic_thread_fence(std::memory_order_acquire);
      if (sequence == state->readTicket + 1) {
        DeferredFailure &f = out[written++];
        f.siteId = r->siteId;
        f.device = r->device;
        f.position = r->position;
        f.value = r->value;
        f.bound = r->bound;
        f.badCount = r->badCount;
      } else {
        ++lost; // overwritten by a later ticket before we read it
      }
      ++state->readTicket;
    }
  }
  if (dropped)
    *dropped = lost;
  return written;
}

cudaError_t synchronizeDeferredDevices() {
  detail::currentErrorSite() = ErrorSite{};
  int current = 0;
  TORCHTIDY_CUDA_TRY(cudaGetDevice(&current));
  cudaError_t first = cudaSuccess;
  ErrorSite firstSite;
  for (int device = 0; device < kMaxDevices; ++device) {
    DeviceState *state = deviceStates()[device].load(std::memory_order_acquire);
    if (!state || !state->ranDeferred.load(std::memory_order_acquire))
      continue;
    cudaError_t err =
        TORCHTIDY_CUDA_ERROR(cudaSetDevice(device), "cudaSetDevice(device)");
    if (err == cudaSuccess)
      err = TORCHTIDY_CUDA_ERROR(cudaDeviceSynchronize(),
                                 "cudaDeviceSynchronize()");
    if (err != cudaSuccess && first == cudaSuccess) {
      first = err;
      firstSite = detail::currentErrorSite();
    }
  }
  TORCHTIDY_CUDA_TRY(cudaSetDevice(current));
  if (first != cudaSuccess)
    detail::currentErrorSite() =
        firstSite; // the first failure is the one returned
  return first;
}

namespace detail {

ErrorSite &currentErrorSite() {
  thread_local ErrorSite site;
  return site;
}

cudaError_t noteError(cudaError_t err, const char *file, int line,
                      const char *call) {
  if (err != cudaSuccess) {
    const char *slash = std::strrchr(file, '/');
    ErrorSite &site = currentErrorSite();
    site.file = slash ? slash + 1 : file;
    site.line = line;
    site.call = call;
    site.error = err;
  }
  return err;
}

} // namespace detail

ErrorSite lastErrorSite() { return detail::currentErrorSite(); }

std::string describeError(cudaError_t err) {
  std::string message = cudaGetErrorString(err);
  const ErrorSite &r = detail::currentErrorSite();
  if (err == cudaSuccess || r.error != err || !r.call)
    return message;
  // The call up to its argument list: "cudaMalloc", not its arguments.
  const char *paren = std::strchr(r.call, '(');
  const std::string call =
      paren ? std::string(r.call, paren) : std::string(r.call);
  return message + " (" + call + " at " + r.file + ":" +
         std::to_string(r.line) + ")";
}

bool deviceAvailable() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError(); // do not leave the error for the next launch
    return false;
  }
  return count > 0;
}

} // namespace torchtidy::cuda
