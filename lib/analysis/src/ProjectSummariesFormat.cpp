//===--- ProjectSummariesFormat.cpp - the summaries' JSON format ----------===//
//
// The versioned JSON of ProjectSummaries.h: a translation unit's summary,
// the linked summaries a worker is given, their facts. Text of another
// version is refused whole (docs/summaries.md, "The format").
//
//===----------------------------------------------------------------------===//

#include "torchtidy/analysis/ProjectSummaries.h"

#include <cstdint>
#include <optional>

namespace torchtidy {

//===----------------------------------------------------------------------===//
// The format
//===----------------------------------------------------------------------===//

llvm::json::Value toJSON(const SourcePlace &P) {
  return llvm::json::Object{
      {"file", P.File}, {"line", P.Line}, {"column", P.Column}};
}

llvm::json::Value toJSON(const SummaryStep &S) {
  return llvm::json::Object{
      {"caller", S.Caller}, {"callee", S.Callee}, {"at", toJSON(S.At)}};
}

template <typename T> static llvm::json::Array arrayOf(const T &Items) {
  llvm::json::Array A;
  for (const auto &I : Items)
    A.push_back(toJSON(I));
  return A;
}

llvm::json::Value toJSON(const SummaryRows &R) {
  llvm::json::Object O{
      {"text", R.Text}, {"at", toJSON(R.At)}, {"offset", R.Offset}};
  if (R.Constant)
    O["constant"] = *R.Constant;
  if (!R.Members.empty())
    O["members"] = llvm::json::Array(R.Members);
  if (!R.Constructors.empty()) {
    llvm::json::Array Ctors;
    for (const SummaryRows::FromConstructor &C : R.Constructors)
      Ctors.push_back(llvm::json::Object{{"ctor", C.Ctor},
                                         {"param", C.Param},
                                         {"field", C.Field},
                                         {"offset", C.Offset}});
    O["constructors"] = std::move(Ctors);
  }
  return O;
}

llvm::json::Value toJSON(const FunctionSummary &F) {
  llvm::json::Object O{
      {"usr", F.USR}, {"name", F.Name}, {"defined", toJSON(F.Defined)}};
  auto Fact = [](const FunctionSummary::Fact &W) {
    return llvm::json::Object{
        {"what", W.What}, {"at", toJSON(W.At)}, {"via", arrayOf(W.Via)}};
  };
  if (F.CudaWork)
    O["cudaWork"] = Fact(*F.CudaWork);
  if (F.DefiniteCudaWork)
    O["definiteCudaWork"] = Fact(*F.DefiniteCudaWork);
  if (F.OutsideValues)
    O["outsideValues"] = Fact(*F.OutsideValues);
  if (F.CudaDevice)
    O["cudaDevice"] = Fact(*F.CudaDevice);
  // A list of facts about parameters: each item's fact (the member \p Of),
  // its "param", and the fields of its own that \p More adds.
  auto ParamFacts = [&](llvm::StringRef Key, const auto &List, auto Of,
                        auto More) {
    if (List.empty())
      return;
    llvm::json::Array Items;
    for (const auto &Item : List) {
      llvm::json::Object P = Fact(Item.*Of);
      P["param"] = Item.Param;
      More(Item, P);
      Items.push_back(std::move(P));
    }
    O[Key] = std::move(Items);
  };
  auto Nothing = [](const auto &, llvm::json::Object &) {};
  ParamFacts("launchedParams", F.LaunchedParams,
             &FunctionSummary::LaunchedParam::Launch, Nothing);
  ParamFacts("indexedParams", F.IndexedParams,
             &FunctionSummary::IndexedParam::Sink, Nothing);
  ParamFacts("keptDevices", F.KeptDevices, &FunctionSummary::KeptDevice::Kept,
             [](const FunctionSummary::KeptDevice &K, llvm::json::Object &P) {
               P["member"] = K.Member;
             });
  ParamFacts("lengthParams", F.LengthParams,
             &FunctionSummary::LengthParam::Sink,
             [](const FunctionSummary::LengthParam &L, llvm::json::Object &P) {
               P["dim"] = L.Dim;
               P["offset"] = L.Offset;
               P["index"] = L.Index;
               P["made"] = toJSON(L.Made);
               P["rows"] = toJSON(L.Rows);
             });
  if (F.MemberDeviceWork) {
    llvm::json::Object W = Fact(F.MemberDeviceWork->Work);
    W["member"] = F.MemberDeviceWork->Member;
    O["memberDeviceWork"] = std::move(W);
  }
  if (F.MemberEffects) {
    llvm::json::Array Effects;
    for (const FunctionSummary::MemberEffect &E : F.MemberEffects->Members) {
      llvm::json::Object M{{"member", E.Member},
                           {"name", E.Name},
                           {"reads", E.Reads},
                           {"movedReads", E.MovedReads}};
      if (E.Registered)
        M["registered"] = toJSON(*E.Registered);
      llvm::json::Array Writes;
      for (const FunctionSummary::MemberEffect::Write &W : E.Writes) {
        llvm::json::Object Write{{"how", W.How}, {"at", toJSON(W.At)}};
        if (W.Null)
          Write["null"] = true;
        Writes.push_back(std::move(Write));
      }
      M["writes"] = std::move(Writes);
      Effects.push_back(std::move(M));
    }
    llvm::json::Array Calls;
    for (const FunctionSummary::MemberEffectsFact::Call &C :
         F.MemberEffects->Calls)
      Calls.push_back(llvm::json::Object{{"usr", C.USR}, {"name", C.Name}});
    O["memberEffects"] = llvm::json::Object{{"members", std::move(Effects)},
                                            {"calls", std::move(Calls)}};
  }
  llvm::json::Array Calls;
  for (const FunctionSummary::ExternalCall &C : F.Calls)
    Calls.push_back(llvm::json::Object{{"usr", C.USR},
                                       {"name", C.Name},
                                       {"at", toJSON(C.At)},
                                       {"via", arrayOf(C.Via)}});
  if (!Calls.empty())
    O["calls"] = std::move(Calls);
  return O;
}

llvm::json::Value toJSON(const TranslationUnitSummary &S) {
  llvm::json::Array Asked;
  for (const std::string &U : S.Asked)
    Asked.push_back(U);
  return llvm::json::Object{{"version", SummaryFormatVersion},
                            {"file", S.File},
                            {"functions", arrayOf(S.Functions)},
                            {"asked", std::move(Asked)}};
}

llvm::json::Value toJSON(const LinkedSummaries &S) {
  return llvm::json::Object{{"version", SummaryFormatVersion},
                            {"linked", arrayOf(S.Functions)}};
}

/// \p V as an unsigned number no greater than \p Max; none when it is
/// negative or greater (the reader of a number reports it).
static std::optional<unsigned> bounded(int64_t V, int64_t Max) {
  if (V < 0 || V > Max)
    return std::nullopt;
  return static_cast<unsigned>(V);
}

bool fromJSON(const llvm::json::Value &V, SourcePlace &P,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  int64_t Line = 0, Column = 0;
  if (!M || !M.map("file", P.File) || !M.map("line", Line) ||
      !M.map("column", Column))
    return false;
  const std::optional<unsigned> L = bounded(Line, UINT32_MAX),
                                C = bounded(Column, UINT32_MAX);
  if (!L || !C) {
    Path.report("a line or column out of range");
    return false;
  }
  P.Line = *L;
  P.Column = *C;
  return true;
}

bool fromJSON(const llvm::json::Value &V, SummaryStep &S,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && M.map("caller", S.Caller) && M.map("callee", S.Callee) &&
         M.map("at", S.At);
}

bool fromJSON(const llvm::json::Value &V, FunctionSummary::Fact &F,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && M.map("what", F.What) && M.map("at", F.At) && M.map("via", F.Via);
}
bool fromJSON(const llvm::json::Value &V, FunctionSummary::ExternalCall &C,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && M.map("usr", C.USR) && M.map("name", C.Name) &&
         M.map("at", C.At) && M.map("via", C.Via);
}

/// The "param" of \p V: a parameter's index, refused when it cannot be one.
static bool paramIndex(const llvm::json::Value &V, unsigned &Param,
                       llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  int64_t Index = -1;
  if (!M || !M.map("param", Index))
    return false;
  const std::optional<unsigned> I = bounded(Index, UINT16_MAX);
  if (!I) {
    Path.field("param").report("a parameter index out of range");
    return false;
  }
  Param = *I;
  return true;
}

/// A fact about one parameter: its index and the fact.
static bool paramFact(const llvm::json::Value &V, unsigned &Param,
                      FunctionSummary::Fact &F, llvm::json::Path Path) {
  return paramIndex(V, Param, Path) && fromJSON(V, F, Path);
}

bool fromJSON(const llvm::json::Value &V, FunctionSummary::LaunchedParam &L,
              llvm::json::Path Path) {
  return paramFact(V, L.Param, L.Launch, Path);
}

bool fromJSON(const llvm::json::Value &V, FunctionSummary::IndexedParam &P,
              llvm::json::Path Path) {
  return paramFact(V, P.Param, P.Sink, Path);
}

bool fromJSON(const llvm::json::Value &V, FunctionSummary::KeptDevice &K,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return paramFact(V, K.Param, K.Kept, Path) && M.map("member", K.Member);
}

bool fromJSON(const llvm::json::Value &V, FunctionSummary::MemberWork &W,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && fromJSON(V, W.Work, Path) && M.map("member", W.Member);
}

bool fromJSON(const llvm::json::Value &V, SummaryRows::FromConstructor &C,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && paramIndex(V, C.Param, Path) && M.map("ctor", C.Ctor) &&
         M.map("field", C.Field) && M.map("offset", C.Offset);
}

bool fromJSON(const llvm::json::Value &V, SummaryRows &R,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && M.map("text", R.Text) && M.map("at", R.At) &&
         M.map("offset", R.Offset) && M.mapOptional("constant", R.Constant) &&
         M.mapOptional("members", R.Members) &&
         M.mapOptional("constructors", R.Constructors);
}

bool fromJSON(const llvm::json::Value &V, FunctionSummary::LengthParam &L,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return paramFact(V, L.Param, L.Sink, Path) && M.map("dim", L.Dim) &&
         M.map("offset", L.Offset) && M.map("index", L.Index) &&
         M.map("made", L.Made) && M.map("rows", L.Rows);
}

bool fromJSON(const llvm::json::Value &V,
              FunctionSummary::MemberEffect::Write &W, llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && M.map("how", W.How) && M.map("at", W.At) &&
         M.mapOptional("null", W.Null);
}

bool fromJSON(const llvm::json::Value &V, FunctionSummary::MemberEffect &E,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  int64_t Reads = 0, Moved = 0;
  if (!M || !M.map("member", E.Member) || !M.map("name", E.Name) ||
      !M.mapOptional("registered", E.Registered) ||
      !M.map("writes", E.Writes) || !M.map("reads", Reads) ||
      !M.map("movedReads", Moved))
    return false;
  // A read that moves the member is a read: no more of them than reads.
  const std::optional<unsigned> R = bounded(Reads, UINT32_MAX),
                                Mv = bounded(Moved, Reads);
  if (!R || !Mv) {
    Path.report("read counts out of range");
    return false;
  }
  E.Reads = *R;
  E.MovedReads = *Mv;
  return true;
}

bool fromJSON(const llvm::json::Value &V,
              FunctionSummary::MemberEffectsFact::Call &C,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && M.map("usr", C.USR) && M.map("name", C.Name);
}

bool fromJSON(const llvm::json::Value &V, FunctionSummary::MemberEffectsFact &E,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && M.map("members", E.Members) && M.map("calls", E.Calls);
}

namespace {
/// Whether \p V is an object of this format's version.
bool ofThisVersion(const llvm::json::Value &V, llvm::json::Path Path) {
  const llvm::json::Object *O = V.getAsObject();
  std::optional<int64_t> Version = O ? O->getInteger("version") : std::nullopt;
  if (Version && *Version == SummaryFormatVersion)
    return true;
  Path.report("not a summary of this format's version");
  return false;
}
} // namespace

bool fromJSON(const llvm::json::Value &V, FunctionSummary &F,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && M.map("usr", F.USR) && M.map("name", F.Name) &&
         M.map("defined", F.Defined) && M.mapOptional("cudaWork", F.CudaWork) &&
         M.mapOptional("definiteCudaWork", F.DefiniteCudaWork) &&
         M.mapOptional("outsideValues", F.OutsideValues) &&
         M.mapOptional("cudaDevice", F.CudaDevice) &&
         M.mapOptional("launchedParams", F.LaunchedParams) &&
         M.mapOptional("indexedParams", F.IndexedParams) &&
         M.mapOptional("keptDevices", F.KeptDevices) &&
         M.mapOptional("memberDeviceWork", F.MemberDeviceWork) &&
         M.mapOptional("lengthParams", F.LengthParams) &&
         M.mapOptional("memberEffects", F.MemberEffects) &&
         M.mapOptional("calls", F.Calls);
}

bool fromJSON(const llvm::json::Value &V, TranslationUnitSummary &S,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && ofThisVersion(V, Path) && M.map("file", S.File) &&
         M.map("functions", S.Functions) && M.map("asked", S.Asked);
}

bool fromJSON(const llvm::json::Value &V, LinkedSummaries &S,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && ofThisVersion(V, Path) && M.map("linked", S.Functions);
}

llvm::json::Value toJSON(const ProjectSummariesFile &F) {
  llvm::json::Object Hashes;
  for (const auto &[Path, Hash] : F.FileHashes)
    Hashes[Path] = Hash;
  return llvm::json::Object{{"version", SummaryFormatVersion},
                            {"linked", arrayOf(F.Linked.Functions)},
                            {"files", std::move(Hashes)}};
}

bool fromJSON(const llvm::json::Value &V, ProjectSummariesFile &F,
              llvm::json::Path Path) {
  llvm::json::ObjectMapper M(V, Path);
  return M && ofThisVersion(V, Path) && M.map("linked", F.Linked.Functions) &&
         M.map("files", F.FileHashes);
}

} // namespace torchtidy
