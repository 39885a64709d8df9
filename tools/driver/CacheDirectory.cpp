//===--- CacheDirectory.cpp - one bounded directory for both caches -------===//

#include "CacheDirectory.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>
#include <vector>

namespace torchtidy::driver {

std::optional<uint64_t> parseCacheSize(llvm::StringRef Text) {
  Text = Text.trim();
  uint64_t Scale = 1;
  if (!Text.empty()) {
    switch (llvm::toUpper(Text.back())) {
    case 'K':
      Scale = static_cast<uint64_t>(1) << 10;
      break;
    case 'M':
      Scale = static_cast<uint64_t>(1) << 20;
      break;
    case 'G':
      Scale = static_cast<uint64_t>(1) << 30;
      break;
    default:
      break;
    }
    if (Scale != 1)
      Text = Text.drop_back();
  }
  uint64_t N = 0;
  if (Text.empty() || Text.getAsInteger(10, N) || N > UINT64_MAX / Scale)
    return std::nullopt;
  return N * Scale;
}

namespace {
/// Removes \p Path if it is there; another process may have been first.
void removeIfThere(llvm::StringRef Path) {
  const std::error_code EC = llvm::sys::fs::remove(Path);
  (void)EC;
}
} // namespace

bool writeFileAtomically(llvm::StringRef Path, llvm::StringRef Content) {
  const std::string Tmp =
      (Path + ".tmp." + llvm::Twine(llvm::sys::Process::getProcessId())).str();
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Tmp, EC);
    if (EC)
      return false;
    OS << Content;
    OS.close();
    if (OS.has_error()) {
      OS.clear_error();
      removeIfThere(Tmp);
      return false;
    }
  }
  if (llvm::sys::fs::rename(Tmp, Path)) {
    removeIfThere(Tmp);
    return false;
  }
  return true;
}

void markUsed(llvm::StringRef Path) {
  int FD = 0;
  if (llvm::sys::fs::openFileForWrite(Path, FD, llvm::sys::fs::CD_OpenExisting,
                                      llvm::sys::fs::OF_Append))
    return;
  // A time that cannot be set only makes the entry look older.
  std::error_code EC = llvm::sys::fs::setLastAccessAndModificationTime(
      FD, std::chrono::system_clock::now());
  EC = llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  (void)EC;
}

namespace {

struct Entry {
  std::vector<std::string> Files;
  uint64_t Bytes = 0;
  llvm::sys::TimePoint<> LastUse;
  bool Preamble = false;
};

/// A file another process is writing or holds a lock with.
bool inFlight(llvm::StringRef Name) {
  return Name.contains(".tmp.") || Name.ends_with(".lock") ||
         Name.contains(".lock-");
}

/// Adds the files of \p Dir to \p Entries: in the cache's root, a preamble's
/// files share the name before the first dot (its key); in results/, each
/// file is an entry.
void collect(llvm::StringRef Dir, bool Root, llvm::StringMap<Entry> &Entries,
             uint64_t &Total) {
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::sys::fs::file_status St;
    if (llvm::sys::fs::status(It->path(), St) ||
        St.type() != llvm::sys::fs::file_type::regular_file)
      continue;
    const llvm::StringRef Name = llvm::sys::path::filename(It->path());
    Total += St.getSize();
    if (inFlight(Name))
      continue;
    const std::string Id =
        Root ? Name.split('.').first.str() : "results/" + Name.str();
    Entry &E = Entries[Id];
    E.Files.push_back(It->path());
    E.Bytes += St.getSize();
    E.LastUse = std::max(E.LastUse, St.getLastModificationTime());
    E.Preamble = Root;
  }
}

} // namespace

EvictionResult evictLeastRecentlyUsed(llvm::StringRef Dir, uint64_t MaxBytes,
                                      std::chrono::seconds Grace) {
  EvictionResult R;
  llvm::StringMap<Entry> Entries;
  collect(Dir, /*Root=*/true, Entries, R.BytesBefore);
  llvm::SmallString<256> Results(Dir);
  llvm::sys::path::append(Results, "results");
  collect(Results, /*Root=*/false, Entries, R.BytesBefore);
  R.BytesAfter = R.BytesBefore;
  if (R.BytesBefore <= MaxBytes)
    return R;
  std::vector<Entry *> Order;
  for (auto &E : Entries)
    Order.push_back(&E.second);
  std::sort(Order.begin(), Order.end(), [](const Entry *A, const Entry *B) {
    return A->LastUse < B->LastUse;
  });
  const auto Now = std::chrono::system_clock::now();
  for (Entry *E : Order) {
    if (R.BytesAfter <= MaxBytes)
      break;
    if (E->Preamble && Now - E->LastUse < Grace)
      continue;
    for (const std::string &F : E->Files)
      removeIfThere(F);
    R.BytesAfter -= std::min(R.BytesAfter, E->Bytes);
    ++R.EntriesRemoved;
  }
  return R;
}

} // namespace torchtidy::driver
