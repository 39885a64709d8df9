//===--- Sarif.cpp - diagnostics as SARIF 2.1.0 ---------------------------===//

#include "Sarif.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace torchtidy::driver {

llvm::StringRef libtorchCheckSummary(llvm::StringRef Check) {
  // checks/Checks.def: the same sentence as each check's header comment and
  // docs page.
  static const std::map<std::string, std::string, std::less<>> Summaries = {
#define TORCHTIDY_CHECK(Class, Name, Finds, Summary) {Name, Summary},
#include "Checks.def"
  };
  auto It = Summaries.find(Check);
  return It == Summaries.end() ? llvm::StringRef()
                               : llvm::StringRef(It->second);
}

std::string libtorchFindsSentence() {
  static const llvm::StringRef Finds[] = {
#define TORCHTIDY_CHECK(Class, Name, Finds, Summary) Finds,
#include "Checks.def"
  };
  std::string Sentence = "Finds ";
  for (size_t I = 0; I < std::size(Finds); ++I) {
    if (I > 0)
      Sentence += I + 1 == std::size(Finds) ? " and " : ", ";
    Sentence += Finds[I].str();
  }
  return Sentence + " in LibTorch code.";
}

namespace {

/// Line and column (1-based; columns in Unicode code points, as the run's
/// columnKind says) of byte offsets in files, each file read once.
class LineTable {
public:
  bool position(const std::string &Path, unsigned Offset, unsigned &Line,
                unsigned &Column) {
    auto &F = Files[Path];
    if (!F) {
      F = std::make_unique<File>();
      if (auto Buf = llvm::MemoryBuffer::getFile(Path)) {
        F->Text = (*Buf)->getBuffer().str();
        F->Starts.push_back(0);
        for (unsigned I = 0; I < F->Text.size(); ++I)
          if (F->Text[I] == '\n')
            F->Starts.push_back(I + 1);
      }
    }
    if (F->Starts.empty() || Offset > F->Text.size())
      return false;
    auto It = std::upper_bound(F->Starts.begin(), F->Starts.end(), Offset);
    Line = It - F->Starts.begin();
    Column = 1;
    for (unsigned I = *(It - 1); I < Offset; ++I)
      if ((static_cast<unsigned char>(F->Text[I]) & 0xC0) != 0x80)
        ++Column;
    return true;
  }

private:
  struct File {
    std::string Text;
    std::vector<unsigned> Starts;
  };
  std::map<std::string, std::unique_ptr<File>> Files;
};

class SarifBuilder {
public:
  explicit SarifBuilder(const SarifOptions &O) : Opts(O) {
    if (!Opts.SourceRoot.empty() &&
        !llvm::StringRef(Opts.SourceRoot).ends_with("/"))
      Opts.SourceRoot += '/';
  }

  Value build(llvm::ArrayRef<clang::tooling::Diagnostic> Diags) {
    Array Results;
    for (const clang::tooling::Diagnostic &D : Diags)
      Results.push_back(result(D));
    Object Driver{{"name", "torch-tidy"}, {"rules", std::move(Rules)}};
    if (!Opts.LibTorchDocsBase.empty())
      Driver["informationUri"] = Opts.LibTorchDocsBase;
    if (!Opts.ToolVersion.empty())
      Driver["version"] = Opts.ToolVersion;
    Object Run{{"tool", Object{{"driver", std::move(Driver)}}},
               {"results", std::move(Results)},
               {"columnKind", "unicodeCodePoints"}};
    if (!Opts.SourceRoot.empty())
      Run["originalUriBaseIds"] =
          Object{{"%SRCROOT%", Object{{"uri", fileURI(Opts.SourceRoot)}}}};
    return Object{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                  {"version", "2.1.0"},
                  {"runs", Array{std::move(Run)}}};
  }

private:
  static std::string fileURI(llvm::StringRef Path) {
    std::string URI = "file://";
    for (const char C : Path) {
      if (llvm::isAlnum(C) || llvm::StringRef("/-._~").contains(C))
        URI += C;
      else {
        char Buf[4];
        snprintf(Buf, sizeof(Buf), "%%%02X", static_cast<unsigned char>(C));
        URI += Buf;
      }
    }
    return URI;
  }

  Object artifactLocation(llvm::StringRef Path) const {
    if (!Opts.SourceRoot.empty() && Path.starts_with(Opts.SourceRoot)) {
      std::string Rel;
      for (const char C : Path.drop_front(Opts.SourceRoot.size()))
        if (C == ' ')
          Rel += "%20";
        else
          Rel += C;
      return Object{{"uri", Rel}, {"uriBaseId", "%SRCROOT%"}};
    }
    return Object{{"uri", fileURI(Path)}};
  }

  Object region(const std::string &Path, unsigned Offset,
                std::optional<unsigned> EndOffset = std::nullopt) {
    unsigned Line = 0, Col = 0;
    if (!Lines.position(Path, Offset, Line, Col))
      return Object{{"charOffset", Offset}};
    Object R{{"startLine", Line}, {"startColumn", Col}};
    if (EndOffset) {
      unsigned EL = 0, EC = 0;
      if (Lines.position(Path, *EndOffset, EL, EC)) {
        R["endLine"] = EL;
        R["endColumn"] = EC;
      }
    }
    return R;
  }

  Object physicalLocation(const clang::tooling::DiagnosticMessage &M) {
    return Object{{"artifactLocation", artifactLocation(M.FilePath)},
                  {"region", region(M.FilePath, M.FileOffset)}};
  }

  unsigned ruleIndex(llvm::StringRef Check,
                     clang::tooling::Diagnostic::Level L) {
    auto It = RuleIndex.find(Check);
    if (It != RuleIndex.end())
      return It->second;
    // json::Value keeps a StringRef by reference: give it copies.
    Object Rule{{"id", Check.str()}, {"name", Check.str()}};
    const llvm::StringRef Summary = libtorchCheckSummary(Check);
    std::string Help;
    if (!Summary.empty()) {
      // Checks.def writes Markdown's code quotes; plain text has none.
      Help = Summary.str();
      Help.erase(std::remove(Help.begin(), Help.end(), '`'), Help.end());
      if (!Opts.LibTorchDocsBase.empty())
        Rule["helpUri"] = Opts.LibTorchDocsBase +
                          Check.drop_front(strlen("libtorch-")).str() + ".md";
    } else if (Check.starts_with("clang-diagnostic-")) {
      Help = "A diagnostic of the compiler (" + Check.str() + ").";
    } else {
      Help = "The clang-tidy check " + Check.str() + ".";
      auto [Module, Rest] = Check.split('-');
      if (!Rest.empty())
        Rule["helpUri"] = "https://clang.llvm.org/extra/clang-tidy/checks/" +
                          Module.str() + "/" + Rest.str() + ".html";
    }
    Rule["shortDescription"] = Object{{"text", Help}};
    Object HelpText{{"text", Help}};
    if (!Summary.empty())
      HelpText["markdown"] = Summary.str();
    Rule["help"] = std::move(HelpText);
    Rule["defaultConfiguration"] =
        Object{{"level",
                L == clang::tooling::Diagnostic::Error ? "error" : "warning"}};
    const unsigned Index = Rules.size();
    Rules.push_back(std::move(Rule));
    RuleIndex[Check] = Index;
    return Index;
  }

  Value result(const clang::tooling::Diagnostic &D) {
    const auto &M = D.Message;
    const char *Level =
        D.DiagLevel == clang::tooling::Diagnostic::Error    ? "error"
        : D.DiagLevel == clang::tooling::Diagnostic::Remark ? "note"
                                                            : "warning";
    Object R{{"ruleId", D.DiagnosticName},
             {"ruleIndex", ruleIndex(D.DiagnosticName, D.DiagLevel)},
             {"level", Level},
             {"message", Object{{"text", M.Message}}}};
    if (!M.FilePath.empty())
      R["locations"] = Array{Object{{"physicalLocation", physicalLocation(M)}}};
    Array Related;
    unsigned Id = 0;
    for (const auto &N : D.Notes) {
      if (N.FilePath.empty())
        continue;
      Related.push_back(Object{{"id", Id++},
                               {"message", Object{{"text", N.Message}}},
                               {"physicalLocation", physicalLocation(N)}});
    }
    if (!Related.empty())
      R["relatedLocations"] = std::move(Related);
    Array Changes;
    for (const auto &[File, Replacements] : M.Fix) {
      Array Reps;
      for (const clang::tooling::Replacement &Rep : Replacements) {
        const std::string Path = Rep.getFilePath().str();
        Reps.push_back(
            Object{{"deletedRegion", region(Path, Rep.getOffset(),
                                            Rep.getOffset() + Rep.getLength())},
                   {"insertedContent",
                    Object{{"text", Rep.getReplacementText().str()}}}});
      }
      if (!Reps.empty())
        Changes.push_back(Object{{"artifactLocation", artifactLocation(File)},
                                 {"replacements", std::move(Reps)}});
    }
    if (!Changes.empty())
      R["fixes"] = Array{
          Object{{"description",
                  Object{{"text", "Apply the fix-it of " + D.DiagnosticName}}},
                 {"artifactChanges", std::move(Changes)}}};
    return R;
  }

  SarifOptions Opts;
  Array Rules;
  llvm::StringMap<unsigned> RuleIndex;
  LineTable Lines;
};

} // namespace

Value buildSarif(llvm::ArrayRef<clang::tooling::Diagnostic> Diagnostics,
                 const SarifOptions &Options) {
  return SarifBuilder(Options).build(Diagnostics);
}

} // namespace torchtidy::driver
