// Host entry point of the CUDA index check (raw-pointer API): validates the
// arguments, owns the per-device reduction slots and mailboxes and the
// per-thread pinned result record, and waits (sync) or not (deferred).
#include <torchtidy/cuda/index_check.h>

#include "index_check_dispatch.h"

#include <array>
#include <atomic>
#include <climits>
#include <memory>
#include <mutex>
#include <vector>

namespace torchtidy {
namespace cuda {

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

cudaError_t createDeviceState(int device, DeviceState **out) {
  auto state = std::make_unique<DeviceState>();
  cudaError_t err = cudaMalloc(reinterpret_cast<void **>(&state->slots),
                               sizeof(ReductionSlot) * detail::kReductionSlots);
  if (err != cudaSuccess)
    return err;
  std::vector<ReductionSlot> initial(detail::kReductionSlots);
  for (ReductionSlot &s : initial) {
    s.badCount = 0;
    s.firstPosition = LLONG_MAX;
    s.blocksDone = 0;
    s.unused = 0;
  }
  err = cudaMemcpy(state->slots, initial.data(),
                   sizeof(ReductionSlot) * initial.size(),
                   cudaMemcpyHostToDevice);
  if (err != cudaSuccess)
    return err;
  err = cudaHostAlloc(reinterpret_cast<void **>(&state->mailboxHost),
                      sizeof(Mailbox),
                      cudaHostAllocMapped | cudaHostAllocPortable);
  if (err != cudaSuccess)
    return err;
  *state->mailboxHost = Mailbox{};
  err = cudaHostGetDevicePointer(
      reinterpret_cast<void **>(&state->mailboxDevice), state->mailboxHost, 0);
  if (err != cudaSuccess)
    return err;
  int multiprocessors = 0;
  err = cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount,
                               device);
  if (err != cudaSuccess)
    return err;
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
    return cudaErrorInvalidDevice;
  DeviceState *state = deviceStates()[device].load(std::memory_order_acquire);
  if (!state) {
    std::lock_guard<std::mutex> lock(stateMutex());
    state = deviceStates()[device].load(std::memory_order_acquire);
    if (!state) {
      cudaError_t err = createDeviceState(device, &state);
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
    cudaError_t err =
        cudaHostAlloc(reinterpret_cast<void **>(&host), sizeof(SyncRecord),
                      cudaHostAllocMapped | cudaHostAllocPortable);
    if (err != cudaSuccess)
      return err;
    err = cudaHostGetDevicePointer(reinterpret_cast<void **>(&record.device),
                                   host, 0);
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
  if (count < 0 || bound < 0 || (count > 0 && !indices) ||
      (type != IndexType::Int32 && type != IndexType::Int64))
    return cudaErrorInvalidValue;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess)
    return err;
  err = deviceState(device, state);
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
  if (!result)
    return cudaErrorInvalidValue;
  *result = IndexRangeResult{};
  if (count == 0 && bound >= 0)
    return cudaSuccess; // nothing to look at: no device work, no sync
  KernelParams params;
  DeviceState *state = nullptr;
  cudaError_t err = prepare(indices, type, count, bound, &params, &state);
  if (err != cudaSuccess)
    return err;
  ThreadRecord *record = nullptr;
  err = threadRecord(&record);
  if (err != cudaSuccess)
    return err;
  params.syncRecord = record->device;
  bool launched = false;
  err = detail::dispatchIndexRangeCheck(
      params, type, state->maxResidentBlocks[typeSlot(type)], stream,
      &launched);
  if (err != cudaSuccess || !launched)
    return err;
  err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess)
    return err;
  const volatile SyncRecord *r = record->host;
  result->badCount = r->badCount;
  result->firstPosition = r->firstPosition;
  result->firstValue = r->firstValue;
  return cudaSuccess;
}

cudaError_t checkIndexRangeDeferred(const void *indices, IndexType type,
                                    int64_t count, int64_t bound,
                                    uint32_t siteId, cudaStream_t stream) {
  if (count == 0 && bound >= 0)
    return cudaSuccess;
  KernelParams params;
  DeviceState *state = nullptr;
  cudaError_t err = prepare(indices, type, count, bound, &params, &state);
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
  std::lock_guard<std::mutex> lock(drainMutex());
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
  int current = 0;
  cudaError_t err = cudaGetDevice(&current);
  if (err != cudaSuccess)
    return err;
  cudaError_t first = cudaSuccess;
  for (int device = 0; device < kMaxDevices; ++device) {
    DeviceState *state = deviceStates()[device].load(std::memory_order_acquire);
    if (!state || !state->ranDeferred.load(std::memory_order_acquire))
      continue;
    err = cudaSetDevice(device);
    if (err == cudaSuccess)
      err = cudaDeviceSynchronize();
    if (err != cudaSuccess && first == cudaSuccess)
      first = err;
  }
  err = cudaSetDevice(current);
  return first != cudaSuccess ? first : err;
}

bool deviceAvailable() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError(); // do not leave the error for the next launch
    return false;
  }
  return count > 0;
}

} // namespace cuda
} // namespace torchtidy
