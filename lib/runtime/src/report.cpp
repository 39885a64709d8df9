// Modes, sites, messages and the reporting of deferred failures.
#include "internal.h"

#if TORCHTIDY_HAVE_CUDA_KERNELS
#include <torchtidy/cuda/index_check.h>
#endif

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>
#include <vector>

namespace torchtidy {

namespace {

Mode modeFromEnvironment() {
  const char *text = std::getenv("TORCHTIDY_MODE");
  if (!text || !*text)
    return Mode::Sync;
  try {
    return parseMode(text);
  } catch (const c10::Error &e) {
    std::fprintf(stderr, "torchtidy: %s; using sync\n",
                 e.what_without_backtrace());
    return Mode::Sync;
  }
}

std::atomic<int> &modeState() {
  static std::atomic<int> state{static_cast<int>(modeFromEnvironment())};
  return state;
}

// ---- sites -----------------------------------------------------------------

struct SiteRegistry {
  std::mutex mutex;
  // Keyed by the literal pointers: the same site always passes the same ones.
  std::map<std::tuple<const char *, int, const char *, const char *>, uint32_t>
      ids;
  std::vector<Site> sites;
};

SiteRegistry &siteRegistry() {
  static auto *registry = new SiteRegistry; // used from exit handlers
  return *registry;
}

// ---- deferred failures -----------------------------------------------------

struct DeferredQueue {
  std::mutex mutex;
  std::vector<detail::PendingFailure> failures;
  uint64_t dropped = 0;
};

DeferredQueue &deferredQueue() {
  static auto *queue = new DeferredQueue; // used from exit handlers
  return *queue;
}

std::atomic<bool> deferredPossible{false};
std::atomic<bool> deferredLaunched{false};

void drainMailboxIntoQueue() {
#if TORCHTIDY_HAVE_CUDA_KERNELS
  constexpr std::size_t kBatch = 16;
  cuda::DeferredFailure batch[kBatch];
  for (;;) {
    uint64_t dropped = 0;
    const std::size_t n = cuda::drainDeferredFailures(batch, kBatch, &dropped);
    const std::lock_guard<std::mutex> lock(deferredQueue().mutex);
    deferredQueue().dropped += dropped;
    for (std::size_t i = 0; i < n; ++i) {
      detail::PendingFailure f;
      f.siteId = batch[i].siteId;
      f.device = batch[i].device;
      f.position = batch[i].position;
      f.value = batch[i].value;
      f.bound = batch[i].bound;
      f.badCount = batch[i].badCount;
      deferredQueue().failures.push_back(f);
    }
    if (n < kBatch)
      return;
  }
#endif
}

/// Waits for the devices that ran deferred checks; returns an error text or "".
std::string synchronizeDeferred() {
#if TORCHTIDY_HAVE_CUDA_KERNELS
  const cudaError_t err = cuda::synchronizeDeferredDevices();
  if (err != cudaSuccess)
    return std::string("waiting for the GPU failed: ") +
           cudaGetErrorString(err);
#endif
  return "";
}

std::string deferredMessage(const detail::PendingFailure &f,
                            const Site &current) {
  const Site site = detail::siteById(f.siteId);
  const std::string body = detail::indexErrorMessage(
      site, {}, f.position, f.value, f.bound, f.badCount, -1);
  std::ostringstream os;
  os << body << " [deferred: found by the kernel on cuda:" << f.device
     << ", reported at ";
  if (current.line > 0)
    os << current.macro << " at " << current.file << ":" << current.line;
  else
    os << current.macro;
  os << "]";
  return os.str();
}

std::vector<detail::PendingFailure> takeQueued(uint64_t *dropped) {
  const std::lock_guard<std::mutex> lock(deferredQueue().mutex);
  std::vector<detail::PendingFailure> out;
  out.swap(deferredQueue().failures);
  *dropped = deferredQueue().dropped;
  deferredQueue().dropped = 0;
  return out;
}

void reportAtExit() {
  const std::string syncError = deferredLaunched.load(std::memory_order_acquire)
                                    ? synchronizeDeferred()
                                    : std::string();
  drainMailboxIntoQueue();
  uint64_t dropped = 0;
  const std::vector<detail::PendingFailure> left = takeQueued(&dropped);
  if (left.empty() && dropped == 0)
    return;
  Site atExit;
  atExit.macro = "exit";
  std::fprintf(stderr,
               "torchtidy: %zu deferred index failure(s) were not reported "
               "before exit (call torchtidy::flush() to throw them):\n",
               left.size());
  for (const detail::PendingFailure &f : left)
    std::fprintf(stderr, "  %s\n", deferredMessage(f, atExit).c_str());
  if (dropped)
    std::fprintf(stderr, "  and %llu more lost to a full mailbox\n",
                 static_cast<unsigned long long>(dropped));
  if (!syncError.empty())
    std::fprintf(stderr, "  (%s)\n", syncError.c_str());
}

void ensureExitReport() {
  static std::once_flag once;
  std::call_once(once, [] { std::atexit(reportAtExit); });
}

/// "ids.size(0)" -> 0, "table.weight.size(-1)" -> -1; otherwise false.
bool dimensionFromSizeText(const char *text, long *dimension) {
  if (!text)
    return false;
  std::string s(text);
  s.erase(std::remove_if(s.begin(), s.end(),
                         [](unsigned char c) { return std::isspace(c); }),
          s.end());
  const std::string open = "size(";
  const std::size_t at = s.rfind(open);
  if (at == std::string::npos || s.empty() || s.back() != ')')
    return false;
  if (at != 0 && s[at - 1] != '.' && s[at - 1] != '>')
    return false;
  const std::string number =
      s.substr(at + open.size(), s.size() - 1 - (at + open.size()));
  if (number.empty())
    return false;
  char *end = nullptr;
  const long value = std::strtol(number.c_str(), &end, 10);
  if (*end != '\0')
    return false;
  *dimension = value;
  return true;
}

} // namespace

// ---- public API ------------------------------------------------------------

Mode mode() {
  return static_cast<Mode>(modeState().load(std::memory_order_relaxed));
}

void setMode(Mode m) {
  modeState().store(static_cast<int>(m), std::memory_order_relaxed);
}

Mode parseMode(const std::string &text) {
  std::string lower(text);
  std::transform(
      lower.begin(), lower.end(), lower.begin(),
      [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "sync")
    return Mode::Sync;
  if (lower == "deferred")
    return Mode::Deferred;
  if (lower == "off")
    return Mode::Off;
  TORCH_CHECK_VALUE(
      false, "TORCHTIDY_MODE must be sync, deferred or off, got '", text, "'");
  return Mode::Sync; // unreachable
}

const char *modeName(Mode m) {
  switch (m) {
  case Mode::Sync:
    return "sync";
  case Mode::Deferred:
    return "deferred";
  case Mode::Off:
    return "off";
  }
  return "?";
}

void flush() {
  if (!detail::deferredFailuresPossible())
    return;
  const std::string syncError = deferredLaunched.load(std::memory_order_acquire)
                                    ? synchronizeDeferred()
                                    : std::string();
  Site here;
  here.macro = "torchtidy::flush()";
  detail::reportDeferredFailures(here);
  TORCH_CHECK(syncError.empty(), "torchtidy::flush(): ", syncError);
}

bool builtWithCudaKernels() { return TORCHTIDY_HAVE_CUDA_KERNELS != 0; }
bool builtWithTorchCuda() { return TORCHTIDY_TORCH_CUDA != 0; }

IndexOutOfRangeError::IndexOutOfRangeError(const Site &site,
                                           std::string message,
                                           int64_t position, int64_t value,
                                           int64_t bound, uint64_t badCount,
                                           bool deferred)
    : c10::IndexError(detail::sourceLocation(site), std::move(message)),
      site_(site), position_(position), value_(value), bound_(bound),
      badCount_(badCount), deferred_(deferred) {}

DeviceMismatchError::DeviceMismatchError(const Site &site, std::string message)
    : c10::Error(detail::sourceLocation(site), std::move(message)),
      site_(site) {}

namespace detail {

std::string describeSite(const Site &site) {
  std::ostringstream os;
  os << site.macro << "(" << site.firstArg;
  if (site.secondArg && *site.secondArg)
    os << ", " << site.secondArg;
  os << ") failed at " << site.file << ":" << site.line << " in "
     << site.function << "()";
  return os.str();
}

c10::SourceLocation sourceLocation(const Site &site) {
  return c10::SourceLocation{site.function, site.file,
                             static_cast<uint32_t>(site.line)};
}

uint32_t siteId(const Site &site) {
  SiteRegistry &r = siteRegistry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const auto key =
      std::make_tuple(site.file, site.line, site.macro, site.firstArg);
  auto it = r.ids.find(key);
  if (it != r.ids.end())
    return it->second;
  r.sites.push_back(site);
  const auto id = static_cast<uint32_t>(r.sites.size());
  r.ids.emplace(key, id);
  return id;
}

Site siteById(uint32_t id) {
  SiteRegistry &r = siteRegistry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  if (id == 0 || id > r.sites.size()) {
    Site unknown;
    unknown.macro = "TORCHTIDY_CHECK_INDEX";
    unknown.firstArg = "<unknown site>";
    unknown.secondArg = "";
    return unknown;
  }
  return r.sites[id - 1];
}

std::string indexErrorMessage(const Site &site, c10::IntArrayRef shape,
                              int64_t position, int64_t value, int64_t bound,
                              uint64_t badCount, int64_t count) {
  std::ostringstream os;
  os << describeSite(site) << ": index " << value << " is out of bounds for ";
  long dimension = 0;
  if (dimensionFromSizeText(site.secondArg, &dimension))
    os << "dimension " << dimension << " with size " << bound;
  else
    os << "a dimension with size " << bound;
  os << ". `" << site.firstArg << "` has " << badCount;
  if (count >= 0)
    os << " of " << count;
  os << (badCount == 1 ? " value" : " values") << " outside [0, " << bound
     << "); the first is " << value << " at position " << position;
  if (shape.size() > 1) {
    os << " (element [";
    int64_t rest = position;
    std::vector<int64_t> coordinates(shape.size());
    for (std::size_t d = shape.size(); d-- > 0;) {
      coordinates[d] = shape[d] ? rest % shape[d] : 0;
      rest = shape[d] ? rest / shape[d] : 0;
    }
    for (std::size_t d = 0; d < coordinates.size(); ++d)
      os << (d ? ", " : "") << coordinates[d];
    os << "] of shape [";
    for (std::size_t d = 0; d < shape.size(); ++d)
      os << (d ? ", " : "") << shape[d];
    os << "])";
  }
  os << ".";
  if (bound == 0)
    os << " The size is 0, so no index is valid: handle the empty case "
          "before indexing.";
  else
    os << " Indexing with it reads or writes outside the tensor (on CUDA a "
          "device-side assert or silent corruption); validate or clamp the "
          "indices where they are produced.";
  return os.str();
}

void throwIndexError(const Site &site, c10::IntArrayRef shape, int64_t position,
                     int64_t value, int64_t bound, uint64_t badCount,
                     int64_t count) {
  throw IndexOutOfRangeError(
      site,
      indexErrorMessage(site, shape, position, value, bound, badCount, count),
      position, value, bound, badCount, /*deferred=*/false);
}

void enqueueDeferredFailure(const PendingFailure &failure) {
  ensureExitReport();
  {
    const std::lock_guard<std::mutex> lock(deferredQueue().mutex);
    deferredQueue().failures.push_back(failure);
  }
  deferredPossible.store(true, std::memory_order_release);
}

void noteDeferredLaunch() {
  if (deferredLaunched.load(std::memory_order_acquire))
    return;
  ensureExitReport();
  deferredLaunched.store(true, std::memory_order_release);
  deferredPossible.store(true, std::memory_order_release);
}

bool deferredFailuresPossible() {
  return deferredPossible.load(std::memory_order_acquire);
}

void reportDeferredFailures(const Site &current) {
  drainMailboxIntoQueue();
  uint64_t dropped = 0;
  std::vector<PendingFailure> failures = takeQueued(&dropped);
  if (failures.empty()) {
    if (dropped) {
      std::ostringstream os;
      os << "torchtidy: " << dropped
         << " deferred index failure(s) were lost to a full mailbox";
      throw c10::IndexError(sourceLocation(current), os.str());
    }
    return;
  }
  const PendingFailure &first = failures.front();
  std::ostringstream os;
  os << deferredMessage(first, current);
  if (failures.size() > 1 || dropped) {
    os << "\n"
       << (failures.size() - 1 + dropped) << " more deferred failure(s):";
    for (std::size_t i = 1; i < failures.size(); ++i)
      os << "\n  " << deferredMessage(failures[i], current);
    if (dropped)
      os << "\n  and " << dropped << " lost to a full mailbox";
  }
  throw IndexOutOfRangeError(siteById(first.siteId), os.str(), first.position,
                             first.value, first.bound, first.badCount,
                             /*deferred=*/true);
}

bool beginCheck(const Site &site) {
  if (mode() == Mode::Off)
    return false;
  if (deferredFailuresPossible())
    reportDeferredFailures(site);
  return true;
}

} // namespace detail

} // namespace torchtidy
