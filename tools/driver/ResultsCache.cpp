//===--- ResultsCache.cpp - the findings of unchanged files ---------------===//

#include "ResultsCache.h"
#include "CacheDirectory.h"

#include "clang/Basic/Version.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#if defined(__linux__)
#include <elf.h>
#include <link.h>
#endif

using clang::tidy::ClangTidyError;
using clang::tidy::ClangTidyStats;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace torchtidy::driver {

namespace {
/// Changes to the format of entries, or to what a key means, bump this: old
/// entries then miss.
constexpr llvm::StringLiteral Format = "torch-tidy-results 1";
constexpr llvm::StringLiteral SharedInputsMagic = "torch-tidy-inputs 1";

std::string hexDigest(llvm::BLAKE3 &H) {
  auto Digest = H.final<16>();
  return llvm::toHex(Digest, /*LowerCase=*/true);
}
} // namespace

std::string contentHash(llvm::StringRef Data) {
  llvm::BLAKE3 H;
  H.update(Data);
  return hexDigest(H);
}

//===----------------------------------------------------------------------===//
// Keys
//===----------------------------------------------------------------------===//

namespace {

#if defined(__linux__)
/// The GNU build-id notes of the executable and of the libclang and libLLVM
/// it loaded, as "name=id" lines.
int collectBuildIds(dl_phdr_info *Info, size_t, void *Data) {
  auto &Out = *static_cast<std::string *>(Data);
  const llvm::StringRef Name =
      llvm::sys::path::filename(Info->dlpi_name ? Info->dlpi_name : "");
  const bool Main = Out.empty() && Name.empty();
  if (!Main && !Name.starts_with("libclang") && !Name.starts_with("libLLVM"))
    return 0;
  for (int I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &Ph = Info->dlpi_phdr[I];
    if (Ph.p_type != PT_NOTE)
      continue;
    // The segment where the loader put it: an address it reports as a number.
    // NOLINTBEGIN(performance-no-int-to-ptr)
    const char *P =
        reinterpret_cast<const char *>(Info->dlpi_addr + Ph.p_vaddr);
    // NOLINTEND(performance-no-int-to-ptr)
    const char *End = P + Ph.p_memsz;
    while (P + sizeof(ElfW(Nhdr)) <= End) {
      const auto *Note = reinterpret_cast<const ElfW(Nhdr) *>(P);
      const char *NoteName = P + sizeof(ElfW(Nhdr));
      const char *Desc = NoteName + ((Note->n_namesz + 3) & ~3U);
      if (Note->n_type == NT_GNU_BUILD_ID && Note->n_namesz == 4 &&
          std::memcmp(NoteName, "GNU", 4) == 0 &&
          Desc + Note->n_descsz <= End) {
        Out += (Main ? llvm::StringRef("<main>") : Name).str() + "=" +
               llvm::toHex(llvm::StringRef(Desc, Note->n_descsz), true) + "\n";
        return 0;
      }
      P = Desc + ((Note->n_descsz + 3) & ~3U);
    }
  }
  if (Main)
    Out += "<main>=none\n";
  return 0;
}
#endif

std::string buildIds() {
  std::string Ids;
#if defined(__linux__)
  dl_iterate_phdr(collectBuildIds, &Ids);
#endif
  if (Ids.empty() || llvm::StringRef(Ids).starts_with("<main>=none")) {
    // No build-id note: the executable's own bytes tell builds apart.
    static int Anchor;
    const std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, &Anchor);
    auto Buf = llvm::MemoryBuffer::getFile(Exe, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    Ids += "<main-content>=" +
           (Buf ? contentHash((*Buf)->getBuffer()) : std::string("?")) + "\n";
  }
  return Ids;
}

} // namespace

std::vector<std::string> torchTidyIdentity() {
  static const std::vector<std::string> Identity = {
      TORCHTIDY_VERSION_STRING, buildIds(), clang::getClangFullVersion()};
  return Identity;
}

void CacheKey::add(llvm::StringRef Part, llvm::ArrayRef<std::string> Values) {
  llvm::BLAKE3 H;
  for (const std::string &V : Values) {
    // Length-prefixed, so that no two lists hash alike.
    H.update(std::to_string(V.size()));
    H.update(llvm::StringRef(":", 1));
    H.update(V);
  }
  Parts.emplace_back(Part.str(), hexDigest(H));
}

std::string CacheKey::hash() const {
  llvm::BLAKE3 H;
  H.update(Format);
  for (const auto &[Name, Hash] : Parts) {
    H.update(llvm::StringRef("\0", 1));
    H.update(Name);
    H.update(llvm::StringRef("=", 1));
    H.update(Hash);
  }
  return hexDigest(H);
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

void InputCollector::maybeAddDependency(llvm::StringRef Filename,
                                        bool FromModule, bool IsSystem,
                                        bool IsModuleFile, bool IsMissing) {
  if (IsMissing || IsModuleFile || Filename.starts_with("<"))
    return;
  if (Names.insert(Filename).second)
    Seen.emplace_back(Filename.str(), IsSystem);
}

bool statFile(llvm::vfs::FileSystem &FS, FileStamp &Stamp) {
  llvm::ErrorOr<llvm::vfs::Status> St = FS.status(Stamp.Path);
  if (!St || !St->isRegularFile())
    return false;
  Stamp.Size = St->getSize();
  Stamp.MTime = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    St->getLastModificationTime().time_since_epoch())
                    .count();
  return true;
}

namespace {
std::optional<std::string> hashFile(llvm::vfs::FileSystem &FS,
                                    llvm::StringRef Path) {
  auto Buf = FS.getBufferForFile(Path, /*FileSize=*/-1,
                                 /*RequiresNullTerminator=*/false);
  if (!Buf)
    return std::nullopt;
  return contentHash((*Buf)->getBuffer());
}
} // namespace

bool stampFile(llvm::vfs::FileSystem &FS, FileStamp &Stamp) {
  if (!statFile(FS, Stamp))
    return false;
  std::optional<std::string> Hash = hashFile(FS, Stamp.Path);
  if (!Hash)
    return false;
  Stamp.Hash = std::move(*Hash);
  return true;
}

int64_t racyFrom(std::chrono::system_clock::time_point Now) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             (Now - std::chrono::milliseconds(20)).time_since_epoch())
      .count();
}

namespace {

/// Whether \p Stamps still describe the files: the same size and time, or,
/// where only the time moved, the same content (then it counts in \p Moved,
/// and the stamp takes the new time unless it is from \p RacyFrom on, when it
/// counts in \p Unrecorded). \p Why says what changed.
bool upToDate(llvm::vfs::FileSystem &FS, std::vector<FileStamp> &Stamps,
              int64_t RacyFrom, unsigned &Moved, unsigned &Unrecorded,
              std::string &Why) {
  for (FileStamp &S : Stamps) {
    FileStamp Now;
    Now.Path = S.Path;
    if (!statFile(FS, Now)) {
      Why = S.Path + " is gone";
      return false;
    }
    if (Now.Size == S.Size && Now.MTime == S.MTime)
      continue;
    std::optional<std::string> Hash;
    if (Now.Size == S.Size)
      Hash = hashFile(FS, S.Path);
    if (!Hash || *Hash != S.Hash) {
      Why = S.Path + " changed";
      return false;
    }
    ++Moved;
    if (Now.MTime >= RacyFrom)
      ++Unrecorded;
    else
      S.MTime = Now.MTime;
  }
  return true;
}

Array stampsToJSON(const std::vector<FileStamp> &Stamps) {
  Array A;
  for (const FileStamp &S : Stamps)
    A.push_back(Array{S.Path, static_cast<int64_t>(S.Size), S.MTime, S.Hash});
  return A;
}

bool stampsFromJSON(const Value *V, std::vector<FileStamp> &Out) {
  const Array *A = V ? V->getAsArray() : nullptr;
  if (!A)
    return false;
  for (const Value &E : *A) {
    const Array *F = E.getAsArray();
    if (!F || F->size() != 4)
      return false;
    auto Path = (*F)[0].getAsString();
    auto Size = (*F)[1].getAsInteger();
    auto MTime = (*F)[2].getAsInteger();
    auto Hash = (*F)[3].getAsString();
    if (!Path || !Size || !MTime || !Hash || *Size < 0)
      return false;
    Out.push_back({Path->str(), static_cast<uint64_t>(*Size), *MTime,
                   Hash->str(), false});
  }
  return true;
}

/// Inputs in system headers are shared by most files of a project (the
/// LibTorch headers, some 4700 of them): they are stored once, in a list
/// named after their paths, sizes and times, and the entries refer to it.
std::string sharedInputsId(const std::vector<FileStamp> &Stamps) {
  std::string Text;
  for (const FileStamp &S : Stamps)
    Text += std::to_string(S.Size) + " " + std::to_string(S.MTime) + " " +
            S.Path + "\n";
  return "inputs-" + contentHash(Text);
}

std::string serializeShared(const std::vector<FileStamp> &Stamps) {
  std::string Out = SharedInputsMagic.str() + "\n";
  for (const FileStamp &S : Stamps)
    Out += std::to_string(S.Size) + " " + std::to_string(S.MTime) + " " +
           S.Hash + " " + S.Path + "\n";
  return Out;
}

std::optional<std::vector<FileStamp>> parseShared(llvm::StringRef Text) {
  llvm::StringRef Line;
  std::tie(Line, Text) = Text.split('\n');
  if (Line != SharedInputsMagic)
    return std::nullopt;
  std::vector<FileStamp> Out;
  while (!Text.empty()) {
    std::tie(Line, Text) = Text.split('\n');
    if (Line.empty())
      continue;
    FileStamp S;
    llvm::StringRef SizeS, TimeS, HashS;
    std::tie(SizeS, Line) = Line.split(' ');
    std::tie(TimeS, Line) = Line.split(' ');
    std::tie(HashS, Line) = Line.split(' ');
    if (SizeS.getAsInteger(10, S.Size) || TimeS.getAsInteger(10, S.MTime) ||
        HashS.empty() || Line.empty())
      return std::nullopt;
    S.Hash = HashS.str();
    S.Path = Line.str();
    S.System = true;
    Out.push_back(std::move(S));
  }
  return Out;
}

std::optional<std::string> readFile(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return std::nullopt;
  return (*Buf)->getBuffer().str();
}

} // namespace

//===----------------------------------------------------------------------===//
// Diagnostics as JSON
//===----------------------------------------------------------------------===//

// Every field of these structs is written below; one added upstream changes
// their size, and then this fails until it is written too.
static_assert(sizeof(clang::tooling::FileByteRange) ==
                  sizeof(std::string) + 2 * sizeof(unsigned),
              "FileByteRange has a field the results cache does not store");
static_assert(sizeof(ClangTidyStats) == 5 * sizeof(unsigned),
              "ClangTidyStats has a field the results cache does not store");

namespace {

Value messageToJSON(const clang::tooling::DiagnosticMessage &M) {
  Array Fix;
  // StringMap order, which printing and exporting follow.
  for (const auto &[File, Reps] : M.Fix) {
    Array R;
    for (const clang::tooling::Replacement &Rep : Reps)
      R.push_back(Array{Rep.getFilePath().str(), Rep.getOffset(),
                        Rep.getLength(), Rep.getReplacementText().str()});
    Fix.push_back(Array{File.str(), std::move(R)});
  }
  Array Ranges;
  for (const clang::tooling::FileByteRange &R : M.Ranges)
    Ranges.push_back(Array{R.FilePath, R.FileOffset, R.Length});
  return Object{{"text", M.Message},
                {"path", M.FilePath},
                {"offset", M.FileOffset},
                {"fix", std::move(Fix)},
                {"ranges", std::move(Ranges)}};
}

bool readString(const Value *V, std::string &Out) {
  std::optional<llvm::StringRef> S = V ? V->getAsString() : std::nullopt;
  if (!S)
    return false;
  Out = S->str();
  return true;
}

bool readUnsigned(const Value *V, unsigned &Out) {
  std::optional<int64_t> I = V ? V->getAsInteger() : std::nullopt;
  if (!I || *I < 0 || *I > UINT32_MAX)
    return false;
  Out = static_cast<unsigned>(*I);
  return true;
}

/// The elements of \p V when it is an array of \p Size of them.
const Array *tuple(const Value &V, size_t Size) {
  const Array *A = V.getAsArray();
  return A && A->size() == Size ? A : nullptr;
}

/// Rebuilds \p Fix so that it iterates its files in \p Order. A StringMap's
/// order depends on how its keys were inserted; the order they come out in
/// is almost always it, and with up to seven files every other is tried.
bool rebuildFix(
    llvm::StringMap<clang::tooling::Replacements> &Fix,
    std::vector<std::pair<std::string, clang::tooling::Replacements>> Files) {
  std::vector<std::string> Order;
  Order.reserve(Files.size());
  for (const auto &F : Files)
    Order.push_back(F.first);
  std::vector<size_t> Perm(Files.size());
  for (size_t I = 0; I < Perm.size(); ++I)
    Perm[I] = I;
  do {
    llvm::StringMap<clang::tooling::Replacements> Map;
    for (const size_t I : Perm)
      Map[Files[I].first] = Files[I].second;
    std::vector<std::string> Got;
    for (const auto &E : Map)
      Got.push_back(E.first().str());
    if (Got == Order) {
      Fix = std::move(Map);
      return true;
    }
  } while (Files.size() <= 7 &&
           std::next_permutation(Perm.begin(), Perm.end()));
  return false;
}

bool messageFromJSON(const Value *V, clang::tooling::DiagnosticMessage &M) {
  const Object *O = V ? V->getAsObject() : nullptr;
  const Array *Fix = O ? O->getArray("fix") : nullptr;
  const Array *Ranges = O ? O->getArray("ranges") : nullptr;
  if (!Fix || !Ranges || !readString(O->get("text"), M.Message) ||
      !readString(O->get("path"), M.FilePath) ||
      !readUnsigned(O->get("offset"), M.FileOffset))
    return false;
  std::vector<std::pair<std::string, clang::tooling::Replacements>> Files;
  for (const Value &F : *Fix) {
    const Array *FA = tuple(F, 2);
    const Array *Reps = FA ? (*FA)[1].getAsArray() : nullptr;
    std::string File;
    if (!Reps || !readString(FA->data(), File))
      return false;
    clang::tooling::Replacements Replacements;
    for (const Value &R : *Reps) {
      const Array *RA = tuple(R, 4);
      std::string Path, Text;
      unsigned Offset = 0, Length = 0;
      if (!RA || !readString(RA->data(), Path) ||
          !readUnsigned(&(*RA)[1], Offset) ||
          !readUnsigned(&(*RA)[2], Length) || !readString(&(*RA)[3], Text))
        return false;
      if (llvm::Error E = Replacements.add(
              clang::tooling::Replacement(Path, Offset, Length, Text))) {
        llvm::consumeError(std::move(E));
        return false;
      }
    }
    Files.emplace_back(std::move(File), std::move(Replacements));
  }
  if (!rebuildFix(M.Fix, std::move(Files)))
    return false;
  for (const Value &R : *Ranges) {
    const Array *RA = tuple(R, 3);
    clang::tooling::FileByteRange B;
    if (!RA || !readString(RA->data(), B.FilePath) ||
        !readUnsigned(&(*RA)[1], B.FileOffset) ||
        !readUnsigned(&(*RA)[2], B.Length))
      return false;
    M.Ranges.push_back(std::move(B));
  }
  return true;
}

} // namespace

Value toJSON(const ClangTidyError &E) {
  Array Notes;
  for (const auto &N : E.Notes)
    Notes.push_back(messageToJSON(N));
  Array Aliases;
  for (const std::string &A : E.EnabledDiagnosticAliases)
    Aliases.push_back(A);
  return Object{{"name", E.DiagnosticName},
                {"level", static_cast<int64_t>(E.DiagLevel)},
                {"build_dir", E.BuildDirectory},
                {"warning_as_error", E.IsWarningAsError},
                {"aliases", std::move(Aliases)},
                {"message", messageToJSON(E.Message)},
                {"notes", std::move(Notes)}};
}

bool fromJSON(const Value &V, ClangTidyError &E) {
  const Object *O = V.getAsObject();
  const Array *Aliases = O ? O->getArray("aliases") : nullptr;
  const Array *Notes = O ? O->getArray("notes") : nullptr;
  std::optional<int64_t> Level = O ? O->getInteger("level") : std::nullopt;
  std::optional<bool> WError =
      O ? O->getBoolean("warning_as_error") : std::nullopt;
  std::string Name, Dir;
  if (!Aliases || !Notes || !Level || !WError ||
      !readString(O->get("name"), Name) ||
      !readString(O->get("build_dir"), Dir))
    return false;
  if (*Level != ClangTidyError::Remark && *Level != ClangTidyError::Warning &&
      *Level != ClangTidyError::Error)
    return false;
  E = ClangTidyError(Name, static_cast<ClangTidyError::Level>(*Level), Dir,
                     *WError);
  for (const Value &A : *Aliases)
    if (!readString(&A, E.EnabledDiagnosticAliases.emplace_back()))
      return false;
  if (!messageFromJSON(O->get("message"), E.Message))
    return false;
  for (const Value &N : *Notes)
    if (!messageFromJSON(&N, E.Notes.emplace_back()))
      return false;
  return true;
}

Value toJSON(const CachedRun &R) {
  Array Errors;
  for (const ClangTidyError &E : R.Errors)
    Errors.push_back(toJSON(E));
  const ClangTidyStats &S = R.Stats;
  return Object{
      {"errors", std::move(Errors)},
      {"stats", Array{S.ErrorsDisplayed, S.ErrorsIgnoredCheckFilter,
                      S.ErrorsIgnoredNOLINT, S.ErrorsIgnoredNonUserCode,
                      S.ErrorsIgnoredLineFilter}},
      {"frontend_output", R.FrontendOutput},
      {"summary", R.Summary}};
}

bool fromJSON(const Value &V, CachedRun &R) {
  const Object *O = V.getAsObject();
  const Array *Errors = O ? O->getArray("errors") : nullptr;
  const Value *StatsValue = O ? O->get("stats") : nullptr;
  const Array *Stats = StatsValue ? tuple(*StatsValue, 5) : nullptr;
  if (!Errors || !Stats ||
      !readString(O->get("frontend_output"), R.FrontendOutput) ||
      !readString(O->get("summary"), R.Summary))
    return false;
  for (const Value &E : *Errors) {
    R.Errors.emplace_back("", ClangTidyError::Warning, "", false);
    if (!fromJSON(E, R.Errors.back()))
      return false;
  }
  unsigned *Fields[] = {
      &R.Stats.ErrorsDisplayed, &R.Stats.ErrorsIgnoredCheckFilter,
      &R.Stats.ErrorsIgnoredNOLINT, &R.Stats.ErrorsIgnoredNonUserCode,
      &R.Stats.ErrorsIgnoredLineFilter};
  for (size_t I = 0; I < 5; ++I)
    if (!readUnsigned(&(*Stats)[I], *Fields[I]))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// The cache
//===----------------------------------------------------------------------===//

ResultsCache::ResultsCache(llvm::StringRef Dir,
                           llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS)
    : FS(std::move(FS)) {
  llvm::SmallString<256> P(Dir);
  llvm::sys::path::append(P, "results");
  Results = std::string(P);
}

std::string ResultsCache::entryPath(llvm::StringRef Key) const {
  return (Results + "/" + Key + ".json").str();
}

std::string ResultsCache::lastPath(llvm::StringRef File) const {
  return Results + "/" + contentHash(File) + ".last";
}

void ResultsCache::recordLastKey(const CacheKey &Key,
                                 llvm::StringRef File) const {
  Object Parts;
  for (const auto &[Name, PartHash] : Key.parts())
    Parts[Name] = PartHash;
  std::string Last;
  llvm::raw_string_ostream OS(Last);
  OS << Value(Object{{"key", Key.hash()}, {"parts", std::move(Parts)}});
  OS.flush();
  const std::string Path = lastPath(File);
  if (readFile(Path) != Last)
    writeFileAtomically(Path, Last);
}

std::string ResultsCache::whyNoEntry(const CacheKey &Key,
                                     llvm::StringRef File) const {
  std::optional<std::string> Text = readFile(lastPath(File));
  llvm::Expected<Value> Last = Text ? llvm::json::parse(*Text) : Value(nullptr);
  const Object *O = Last ? Last->getAsObject() : nullptr;
  if (!Last)
    llvm::consumeError(Last.takeError());
  const Object *Parts = O ? O->getObject("parts") : nullptr;
  if (!Parts)
    return "no entry (no run of this file before)";
  std::string Changed;
  for (const auto &[Name, Hash] : Key.parts()) {
    auto Before = Parts->getString(Name);
    if (Before && *Before == Hash)
      continue;
    Changed += (Changed.empty() ? "" : ", ") + Name;
  }
  if (Changed.empty())
    return "no entry (evicted)";
  return "no entry: " + Changed + " changed since this file's last run";
}

ResultsCache::Lookup ResultsCache::lookup(const CacheKey &Key,
                                          llvm::StringRef File) {
  Lookup L;
  const std::string Hash = Key.hash();
  const std::string Path = entryPath(Hash);
  std::optional<std::string> Text = readFile(Path);
  if (!Text) {
    L.Why = whyNoEntry(Key, File);
    return L;
  }
  llvm::Expected<Value> Entry = llvm::json::parse(*Text);
  if (!Entry) {
    llvm::consumeError(Entry.takeError());
    L.Why = "unreadable entry " + Hash;
    return L;
  }
  const Object *O = Entry->getAsObject();
  std::vector<FileStamp> Own, Shared;
  auto SharedId = O ? O->getString("shared_inputs") : std::nullopt;
  CachedRun Run;
  auto EntryFormat = O ? O->getString("format") : std::nullopt;
  if (!EntryFormat || *EntryFormat != Format || !SharedId ||
      !stampsFromJSON(O->get("inputs"), Own) || !O->get("run") ||
      !fromJSON(*O->get("run"), Run)) {
    L.Why = "unreadable entry " + Hash;
    return L;
  }
  std::string SharedPath;
  if (!SharedId->empty()) {
    SharedPath = (Results + "/" + *SharedId + ".txt").str();
    std::optional<std::string> SharedText = readFile(SharedPath);
    std::optional<std::vector<FileStamp>> Parsed =
        SharedText ? parseShared(*SharedText) : std::nullopt;
    if (!Parsed) {
      L.Why = "the list of system headers it read, " + SharedId->str() +
              ", is gone";
      return L;
    }
    Shared = std::move(*Parsed);
  }
  unsigned Moved = 0;
  const int64_t RacyFrom = racyFrom(std::chrono::system_clock::now());
  if (!upToDate(*FS, Own, RacyFrom, Moved, L.Unrecorded, L.Why) ||
      !upToDate(*FS, Shared, RacyFrom, Moved, L.Unrecorded, L.Why))
    return L;
  if (Moved > L.Unrecorded) {
    // Same contents under new times (a fresh checkout): record the times,
    // so that the next run needs no hashing.
    std::vector<FileStamp> Inputs = std::move(Own);
    for (FileStamp &S : Shared)
      Inputs.push_back(std::move(S));
    store(Key, File, Run, std::move(Inputs));
  } else {
    markUsed(Path);
    if (!SharedPath.empty())
      markUsed(SharedPath);
    recordLastKey(Key, File);
  }
  L.Retimed = Moved;
  L.Run = std::move(Run);
  return L;
}

bool ResultsCache::store(const CacheKey &Key, llvm::StringRef File,
                         const CachedRun &Run, std::vector<FileStamp> Inputs) {
  if (llvm::sys::fs::create_directories(Results))
    return false;
  std::vector<FileStamp> Own, Shared;
  for (FileStamp &S : Inputs)
    (S.System ? Shared : Own).push_back(std::move(S));
  auto ByPath = [](const FileStamp &A, const FileStamp &B) {
    return A.Path < B.Path;
  };
  std::sort(Own.begin(), Own.end(), ByPath);
  std::sort(Shared.begin(), Shared.end(), ByPath);
  for (FileStamp &S : Own)
    if (S.Hash.empty() && !stampFile(*FS, S))
      return false;
  std::string SharedId;
  if (!Shared.empty()) {
    SharedId = sharedInputsId(Shared);
    const std::string SharedPath = Results + "/" + SharedId + ".txt";
    if (llvm::sys::fs::exists(SharedPath)) {
      markUsed(SharedPath);
    } else {
      for (FileStamp &S : Shared)
        if (S.Hash.empty() && !stampFile(*FS, S))
          return false;
      if (!writeFileAtomically(SharedPath, serializeShared(Shared)))
        return false;
    }
  }
  const std::string Hash = Key.hash();
  Object Entry{{"format", Format},
               {"file", File.str()},
               {"inputs", stampsToJSON(Own)},
               {"shared_inputs", SharedId},
               {"run", toJSON(Run)}};
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << Value(std::move(Entry));
  OS.flush();
  if (!writeFileAtomically(entryPath(Hash), Text))
    return false;
  recordLastKey(Key, File);
  return true;
}

} // namespace torchtidy::driver
