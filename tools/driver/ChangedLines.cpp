//===--- ChangedLines.cpp - lines a unified diff adds ---------------------===//

#include "ChangedLines.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace torchtidy::driver {

static bool parseNumber(llvm::StringRef S, unsigned &N) {
  return !S.getAsInteger(10, N);
}

llvm::Expected<ChangedLineMap> parseUnifiedDiff(llvm::StringRef Diff) {
  ChangedLineMap Out;
  std::string Current;
  bool SawHeader = false;
  unsigned LineNo = 0;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Diff.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    ++LineNo;
    Line = Line.rtrim('\r');
    if (Line.starts_with("+++ ")) {
      SawHeader = true;
      llvm::StringRef Path = Line.drop_front(4);
      // "+++ b/path\tdate" or "+++ /dev/null" for a deleted file.
      Path = Path.split('\t').first.rtrim();
      if (Path == "/dev/null") {
        Current.clear();
        continue;
      }
      if (Path.starts_with("b/"))
        Path = Path.drop_front(2);
      Current = Path.str();
      continue;
    }
    if (!Line.starts_with("@@ "))
      continue;
    // "@@ -a,b +c,d @@": lines c .. c+d-1 of the new file (d defaults to 1).
    const size_t Plus = Line.find(" +");
    if (Plus == llvm::StringRef::npos)
      return llvm::createStringError(
          "line %u of the diff: malformed hunk header '%s'", LineNo,
          Line.str().c_str());
    const llvm::StringRef Range = Line.drop_front(Plus + 2).split(' ').first;
    auto [StartText, CountText] = Range.split(',');
    unsigned Start = 0, Count = 1;
    if (!parseNumber(StartText, Start) ||
        (!CountText.empty() && !parseNumber(CountText, Count)))
      return llvm::createStringError(
          "line %u of the diff: malformed hunk header '%s'", LineNo,
          Line.str().c_str());
    if (Current.empty())
      continue;
    if (Count == 0)
      continue; // A pure deletion adds no line.
    Out[Current].emplace_back(Start, Start + Count - 1);
  }
  if (!SawHeader && !Diff.trim().empty())
    return llvm::createStringError(
        "the --changed-lines input is not a unified diff (no '+++ ' file "
        "header); produce it with `git diff -U0 origin/main...HEAD`");
  return Out;
}

std::string lineFilterJSON(const ChangedLineMap &Lines) {
  llvm::json::Array Files;
  for (const auto &[Name, Ranges] : Lines) {
    llvm::json::Array JR;
    for (const auto &[A, B] : Ranges)
      JR.push_back(llvm::json::Array{A, B});
    Files.push_back(
        llvm::json::Object{{"name", Name}, {"lines", std::move(JR)}});
  }
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << llvm::json::Value(std::move(Files));
  return OS.str();
}

bool isChangedFile(const ChangedLineMap &Lines, llvm::StringRef Path) {
  for (const auto &[Name, Ranges] : Lines) {
    const llvm::StringRef N(Name);
    if (Path == N)
      return true;
    if (Path.ends_with(N) && Path.size() > N.size() &&
        Path[Path.size() - N.size() - 1] == '/')
      return true;
  }
  return false;
}

} // namespace torchtidy::driver
