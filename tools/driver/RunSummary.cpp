//===--- RunSummary.cpp - the line that ends every run --------------------===//

#include "RunSummary.h"
#include "CacheDirectory.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

namespace torchtidy::driver {

namespace {
std::string plural(unsigned N, llvm::StringRef One, llvm::StringRef Many) {
  return std::to_string(N) + " " + (N == 1 ? One : Many).str();
}
} // namespace

std::string formatSummary(const RunSummary &S) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "torch-tidy: " << plural(S.Files, "file", "files") << " analysed";
  for (const std::string &Q : S.Qualifiers)
    OS << (llvm::StringRef(Q).starts_with("(") ? " " : ", ") << Q;
  unsigned Total = 0;
  for (const auto &[Name, N] : S.FindingsByCheck)
    Total += N;
  OS << "; " << plural(Total, "finding", "findings");
  if (!S.FindingsByCheck.empty()) {
    OS << " (";
    bool First = true;
    for (const auto &[Name, N] : S.FindingsByCheck) {
      OS << (First ? "" : ", ") << Name << ": " << N;
      First = false;
    }
    OS << ")";
  }
  if (S.CompilerErrors)
    OS << "; " << plural(S.CompilerErrors, "compiler error", "compiler errors");
  if (S.FilesWithErrors)
    OS << "; "
       << plural(S.FilesWithErrors, "file with compiler errors",
                 "files with compiler errors");
  if (S.Crashes)
    OS << "; " << plural(S.Crashes, "worker", "workers") << " failed";
  OS << llvm::formatv("; {0:f1} s", S.Seconds);
  if (S.ResultsHits + S.ResultsMisses == 0)
    OS << "; no results cache";
  else
    OS << "; results cache: " << plural(S.ResultsHits, "hit", "hits") << ", "
       << plural(S.ResultsMisses, "miss", "misses");
  return Out;
}

void writeWorkerReport(llvm::StringRef Path, const FastRunSummary &S) {
  // The summary is one line of JSON (no newline inside).
  writeFileAtomically(Path, "results-cache " + std::to_string(S.ResultsHits) +
                                " " + std::to_string(S.ResultsMisses) +
                                "\nsummary " + S.UnitSummary + "\n");
}

std::string readWorkerSummary(llvm::StringRef Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return "";
  llvm::StringRef Line = (*Buf)->getBuffer().split('\n').second;
  Line = Line.split('\n').first;
  return Line.consume_front("summary ") ? Line.str() : "";
}

void readWorkerReport(llvm::StringRef Path, RunSummary &Into) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return;
  llvm::StringRef Line = (*Buf)->getBuffer().split('\n').first;
  unsigned Hits = 0, Misses = 0;
  if (!Line.consume_front("results-cache "))
    return;
  auto [H, M] = Line.split(' ');
  if (H.getAsInteger(10, Hits) || M.getAsInteger(10, Misses))
    return;
  Into.ResultsHits += Hits;
  Into.ResultsMisses += Misses;
}

} // namespace torchtidy::driver
