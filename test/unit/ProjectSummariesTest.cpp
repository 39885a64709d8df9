//===--- ProjectSummariesTest.cpp - summaries, their format and links -----===//

#include "torchtidy/analysis/ProjectSummaries.h"
#include "ASTFixture.h"
#include "torchtidy/analysis/CudaErrorRecovery.h"
#include "torchtidy/analysis/CudaWork.h"
#include "torchtidy/analysis/FunctionContext.h"
#include "torchtidy/analysis/IndexGuards.h"

using namespace torchtidy;
using namespace torchtidy::test;
using namespace clang::ast_matchers;

namespace {

const FunctionSummary *find(const TranslationUnitSummary &S,
                            llvm::StringRef Name) {
  for (const FunctionSummary &F : S.Functions)
    if (F.Name == Name)
      return &F;
  return nullptr;
}

/// \p AST's summary, with no project's summaries at hand (not whatever a
/// project run left near the test).
TranslationUnitSummary summarizeAlone(clang::ASTUnit &AST) {
  ProjectSummaries::instance().clear();
  ProjectSummaries::instance().disable();
  return summarizeTranslationUnit(AST.getASTContext(), /*MaxCallDepth=*/4);
}

const char *const Unit = R"cpp(
torch::Tensor elsewhere(torch::Tensor t);
torch::Tensor gpu(torch::Tensor t) {
  return t.to(torch::kCUDA);
}
static torch::Tensor helper(torch::Tensor t) { return elsewhere(t); }
torch::Tensor via_helper(torch::Tensor t) { return helper(t); }
torch::Tensor cpu_only(torch::Tensor t) { return t * 2; }
namespace {
torch::Tensor hidden(torch::Tensor t) { return t.cuda(); }
}
template <typename T> torch::Tensor templ(T t) { return elsewhere(t); }
torch::Tensor uses_templ(torch::Tensor t) { return templ(t) + hidden(t); }
torch::Tensor configurable(torch::Tensor t, torch::Device d) { return t.to(d); }
)cpp";

TEST(ProjectSummaries, SummarisesFunctionsWithExternalLinkage) {
  auto AST = parse(Unit);
  const TranslationUnitSummary S =
      summarizeTranslationUnit(AST->getASTContext(), /*MaxCallDepth=*/4);
  // gpu does CUDA work on line 5 (parse puts the #include on line 1).
  const FunctionSummary *Gpu = find(S, "gpu");
  ASSERT_TRUE(Gpu);
  ASSERT_TRUE(Gpu->CudaWork);
  EXPECT_EQ(Gpu->CudaWork->What, "'to' moves a tensor to a CUDA device");
  EXPECT_EQ(Gpu->CudaWork->At.Line, 5U);
  EXPECT_TRUE(Gpu->CudaWork->Via.empty());
  EXPECT_FALSE(Gpu->USR.empty());
  // ...on a CUDA device for sure, which a configurable device is not.
  ASSERT_TRUE(Gpu->DefiniteCudaWork);
  EXPECT_EQ(Gpu->DefiniteCudaWork->At.Line, 5U);
  const FunctionSummary *Conf = find(S, "configurable");
  ASSERT_TRUE(Conf);
  ASSERT_TRUE(Conf->CudaWork);
  EXPECT_EQ(Conf->CudaWork->What,
            "'to' moves a tensor to a device that is not provably the CPU");
  EXPECT_FALSE(Conf->DefiniteCudaWork);
  // via_helper reaches the undefined `elsewhere` through a static helper.
  const FunctionSummary *Via = find(S, "via_helper");
  ASSERT_TRUE(Via);
  EXPECT_FALSE(Via->CudaWork);
  ASSERT_EQ(Via->Calls.size(), 1U);
  EXPECT_EQ(Via->Calls[0].Name, "elsewhere");
  EXPECT_EQ(Via->Calls[0].At.Line, 7U);
  ASSERT_EQ(Via->Calls[0].Via.size(), 1U);
  EXPECT_EQ(Via->Calls[0].Via[0].Caller, "via_helper");
  EXPECT_EQ(Via->Calls[0].Via[0].Callee, "helper");
  // CUDA work through an internal function is the caller's own.
  const FunctionSummary *Templ = find(S, "uses_templ");
  ASSERT_TRUE(Templ);
  ASSERT_TRUE(Templ->CudaWork);
  EXPECT_EQ(Templ->CudaWork->What, "'cuda' moves a tensor to the GPU");
  // Nothing to say, or no external linkage: no summary.
  EXPECT_FALSE(find(S, "cpu_only"));
  EXPECT_FALSE(find(S, "helper"));
  EXPECT_FALSE(find(S, "(anonymous namespace)::hidden"));
  EXPECT_TRUE(S.Asked.empty());
}

TEST(ProjectSummaries, CodeThatDoesNotCompileSaysNothing) {
  auto AST = clang::tooling::buildASTFromCodeWithArgs(
      "#include <torch/torch.h>\n" + std::string(Unit) +
          "\nint broken() { return nope; }\n",
      withMockPCH("c++", {"-std=c++17", "-isystem", TORCHTIDY_MOCK_TORCH_DIR}),
      "input.cpp");
  ASSERT_TRUE(AST);
  ASSERT_TRUE(AST->getDiagnostics().hasUncompilableErrorOccurred());
  const TranslationUnitSummary S =
      summarizeTranslationUnit(AST->getASTContext(), /*MaxCallDepth=*/4);
  EXPECT_TRUE(S.Functions.empty());
}

TEST(ProjectSummaries, ValuesFromOutsideTheProgram) {
  auto AST = parse(R"cpp(
#include <sstream>
#include <string>
#include <vector>
std::vector<int64_t> read_ids(const std::string &line) {
  std::vector<int64_t> ids;
  std::istringstream in(line);
  int64_t id = 0;
  while (in >> id)
    ids.push_back(id);
  return ids;
}
torch::Tensor load_ids(const std::vector<std::string> &tokens) {
  std::vector<int64_t> v;
  for (const std::string &t : tokens)
    v.push_back(std::stoll(t));
  return torch::tensor(v);
}
torch::Tensor wrapped(const std::string &line) {
  return torch::tensor(read_ids(line));
}
std::vector<int64_t> elsewhere_ids(const std::string &line);
torch::Tensor from_elsewhere(const std::string &line) {
  return torch::tensor(elsewhere_ids(line));
}
torch::Tensor made(int64_t n) { return torch::arange(n); }
std::vector<int64_t> counted(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n; ++i)
    out.push_back(i);
  return out;
}
std::vector<bool> flags(const std::string &s) {
  std::vector<bool> out;
  out.push_back(std::stoll(s) != 0);
  return out;
}
)cpp");
  const TranslationUnitSummary S = summarizeAlone(*AST);
  // A vector filled from a stream, a tensor of parsed values, and a tensor
  // of what a helper of the unit parses (lines: the #include is line 1).
  const FunctionSummary *Read = find(S, "read_ids");
  ASSERT_TRUE(Read && Read->OutsideValues);
  EXPECT_EQ(Read->OutsideValues->What, "a stream (>>)");
  EXPECT_EQ(Read->OutsideValues->At.Line, 10U);
  const FunctionSummary *Load = find(S, "load_ids");
  ASSERT_TRUE(Load && Load->OutsideValues);
  EXPECT_EQ(Load->OutsideValues->What, "std::stoll");
  EXPECT_EQ(Load->OutsideValues->At.Line, 17U);
  const FunctionSummary *Wrapped = find(S, "wrapped");
  ASSERT_TRUE(Wrapped && Wrapped->OutsideValues);
  EXPECT_EQ(Wrapped->OutsideValues->At.Line, 10U);
  // Another file's function is not followed while summarising (the linker
  // does not chain returns either), and no question is asked.
  const FunctionSummary *FromElsewhere = find(S, "from_elsewhere");
  EXPECT_TRUE(!FromElsewhere || !FromElsewhere->OutsideValues);
  EXPECT_TRUE(ProjectSummaries::instance().takeAsked().empty());
  // Values the program makes, and booleans, say nothing.
  EXPECT_FALSE(find(S, "made"));
  EXPECT_FALSE(find(S, "counted"));
  EXPECT_FALSE(find(S, "flags"));
  ProjectSummaries::instance().clear();

  // The fact is asked for by its name, and a question about it is answered
  // only by a function that has it.
  std::map<std::string, FunctionSummary> Linked;
  Linked[Read->USR] = *Read;
  TranslationUnitSummary Asking;
  Asking.Asked = {"outsideValues " + Read->USR};
  ASSERT_EQ(summariesFor(Asking, Linked).Functions.size(), 1U);
  Asking.Asked = {"cudaWork " + Read->USR};
  EXPECT_TRUE(summariesFor(Asking, Linked).Functions.empty());
  EXPECT_EQ(factName(SummaryFact::OutsideValues), "outsideValues");
}

TEST(ProjectSummaries, ParametersThatReachAnIndex) {
  auto AST = parse(R"cpp(
#include <vector>
struct Table {
  torch::Tensor rows;
  torch::Tensor lookup(const torch::Tensor &ids) const;
  torch::Tensor lists(const std::vector<std::vector<int64_t>> &l) const;
  torch::Tensor checked(const std::vector<int64_t> &ids) const;
  torch::Tensor size_only(const torch::Tensor &ids) const;
};
torch::Tensor Table::lookup(const torch::Tensor &ids) const {
  return rows.index_select(0, ids);
}
torch::Tensor Table::lists(const std::vector<std::vector<int64_t>> &l) const {
  auto ids = torch::empty({2, 2}, torch::kLong);
  ids.index_put_({torch::tensor({0})}, torch::tensor(l[0]));
  return lookup(ids);
}
torch::Tensor Table::checked(const std::vector<int64_t> &ids) const {
  for (int64_t id : ids)
    TORCH_CHECK(id < rows.size(0));
  return lookup(torch::tensor(ids));
}
torch::Tensor Table::size_only(const torch::Tensor &ids) const {
  return torch::ones({ids.size(0)});
}
torch::Tensor embed(torch::nn::Embedding &emb, torch::Tensor ids) {
  return emb(ids);
}
torch::Tensor guarded(torch::nn::Embedding &emb, torch::Tensor ids) {
  TORCH_CHECK(ids.max().item<int64_t>() < 10);
  return emb(ids);
}
)cpp");
  const TranslationUnitSummary S = summarizeAlone(*AST);
  const FunctionSummary *Lookup = find(S, "Table::lookup");
  ASSERT_TRUE(Lookup);
  ASSERT_EQ(Lookup->IndexedParams.size(), 1U);
  EXPECT_EQ(Lookup->IndexedParams[0].Param, 0U);
  EXPECT_EQ(Lookup->IndexedParams[0].Sink.What, "index_select on 'rows'");
  EXPECT_EQ(Lookup->IndexedParams[0].Sink.At.Line, 12U);
  EXPECT_TRUE(Lookup->IndexedParams[0].Sink.Via.empty());
  // Through a tensor the lists are written into, and a call of lookup.
  const FunctionSummary *Lists = find(S, "Table::lists");
  ASSERT_TRUE(Lists);
  ASSERT_EQ(Lists->IndexedParams.size(), 1U);
  EXPECT_EQ(Lists->IndexedParams[0].Sink.At.Line, 12U);
  ASSERT_EQ(Lists->IndexedParams[0].Sink.Via.size(), 1U);
  EXPECT_EQ(Lists->IndexedParams[0].Sink.Via[0].Callee, "Table::lookup");
  EXPECT_EQ(Lists->IndexedParams[0].Sink.Via[0].At.Line, 17U);
  const FunctionSummary *Embed = find(S, "embed");
  ASSERT_TRUE(Embed);
  ASSERT_EQ(Embed->IndexedParams.size(), 1U);
  EXPECT_EQ(Embed->IndexedParams[0].Param, 1U);
  EXPECT_TRUE(hasFact(*Embed, SummaryFact::IndexedParams));
  // Elements compared, a size read, a checked tensor: nothing.
  for (const char *Quiet : {"Table::checked", "Table::size_only", "guarded"}) {
    const FunctionSummary *F = find(S, Quiet);
    EXPECT_TRUE(!F || F->IndexedParams.empty()) << Quiet;
  }
  EXPECT_EQ(factName(SummaryFact::IndexedParams), "indexedParams");
  ProjectSummaries::instance().clear();
}

TEST(ProjectSummaries, IndexFactsWithTheCheckGuardOptions) {
  const char *const Code = R"cpp(
void validate(const torch::Tensor &ids, int64_t rows);
torch::Tensor validated(const torch::Tensor &t, const torch::Tensor &ids) {
  validate(ids, t.size(0));
  return t.index_select(0, ids);
}
)cpp";
  // Default options: nothing says what validate does.
  auto Default = parse(Code);
  const TranslationUnitSummary Before = summarizeAlone(*Default);
  const FunctionSummary *F = find(Before, "validated");
  ASSERT_TRUE(F);
  ASSERT_EQ(F->IndexedParams.size(), 1U);
  EXPECT_EQ(F->IndexedParams[0].Param, 1U);
  // The options libtorch-unchecked-index recorded for the unit name it a
  // guard function: the summary's facts use them (and its guard analysis,
  // one per configuration, is the check's).
  auto Configured = parse(Code);
  clang::ASTContext &Ctx = Configured->getASTContext();
  FunctionContexts &Contexts = FunctionContexts::of(Ctx);
  IndexGuardConfig Config;
  Config.GuardFunctions = {"validate"};
  Contexts.analysis<IndexGuardOptions>().Config = Config;
  const TranslationUnitSummary After = summarizeAlone(*Configured);
  const FunctionSummary *G = find(After, "validated");
  EXPECT_TRUE(!G || G->IndexedParams.empty());
  ProjectSummaries::instance().clear();
}

TEST(ProjectSummaries, LengthsThatReachATableOfFixedRows) {
  auto AST = parse(R"cpp(
#include <algorithm>
struct Config { int64_t vocab = 100; int64_t context = 64; };
struct Gpt : torch::nn::Module {
  explicit Gpt(const Config &config);
  torch::Tensor forward(torch::Tensor idx);
  torch::Tensor checked(torch::Tensor idx);
  torch::Tensor capped(torch::Tensor idx);
  torch::Tensor grows(torch::Tensor idx, torch::Tensor next);
  torch::nn::Embedding pos{nullptr};
  Config config_;
};
Gpt::Gpt(const Config &config) : config_(config) {
  pos = register_module("pos", torch::nn::Embedding(config.context, 8));
}
torch::Tensor Gpt::forward(torch::Tensor idx) {
  const int64_t T = idx.size(1);
  return pos(torch::arange(T + 1));
}
torch::Tensor Gpt::checked(torch::Tensor idx) {
  TORCH_CHECK(idx.size(1) <= config_.context);
  return pos(torch::arange(idx.size(1)));
}
torch::Tensor Gpt::capped(torch::Tensor idx) {
  return pos(torch::arange(std::min(idx.size(1), config_.context)));
}
torch::Tensor Gpt::grows(torch::Tensor idx, torch::Tensor next) {
  idx = torch::cat({idx, next}, 1);
  return pos(torch::arange(idx.size(1)));
}
struct Lm : torch::nn::Module {
  Lm(int64_t vocab, int64_t block);
  torch::Tensor forward(torch::Tensor x, torch::Tensor idx);
  torch::nn::Embedding pos{nullptr};
  int64_t block_;
};
Lm::Lm(int64_t vocab, int64_t block) : block_(block - 1) {
  pos = register_module("pos", torch::nn::Embedding(block_, 8));
}
torch::Tensor Lm::forward(torch::Tensor x, torch::Tensor idx) {
  return x + pos(torch::arange(idx.size(0)));
}
torch::Tensor fixed(torch::nn::Embedding &unknown, torch::Tensor idx) {
  auto table = torch::randn({32, 8});
  return table.index_select(0, torch::arange(idx.size(1)));
}
)cpp");
  const TranslationUnitSummary S = summarizeAlone(*AST);
  // A member of a config struct the constructor keeps: the constructor's
  // parameter and the field, for a caller that constructs the object.
  const FunctionSummary *Forward = find(S, "Gpt::forward");
  ASSERT_TRUE(Forward);
  ASSERT_EQ(Forward->LengthParams.size(), 1U);
  const FunctionSummary::LengthParam &G = Forward->LengthParams[0];
  EXPECT_EQ(G.Param, 0U);
  EXPECT_EQ(G.Dim, 1);
  EXPECT_EQ(G.Offset, 1);
  EXPECT_EQ(G.Sink.What, "Embedding 'pos'");
  EXPECT_EQ(G.Index, "torch::arange(T + 1)");
  EXPECT_EQ(G.Rows.Text, "config_.context");
  EXPECT_FALSE(G.Rows.Constant);
  ASSERT_EQ(G.Rows.Members.size(), 2U);
  EXPECT_EQ(G.Rows.Members[0], "c:@S@Gpt@FI@config_");
  EXPECT_EQ(G.Rows.Members[1], "c:@S@Config@FI@context");
  ASSERT_EQ(G.Rows.Constructors.size(), 1U);
  EXPECT_EQ(G.Rows.Constructors[0].Param, 0U);
  EXPECT_EQ(G.Rows.Constructors[0].Field, "c:@S@Config@FI@context");
  EXPECT_TRUE(hasFact(*Forward, SummaryFact::LengthParams));
  // A member set from a parameter minus one: the member is the argument
  // + (-1).
  const FunctionSummary *Lm = find(S, "Lm::forward");
  ASSERT_TRUE(Lm);
  ASSERT_EQ(Lm->LengthParams.size(), 1U);
  EXPECT_EQ(Lm->LengthParams[0].Param, 1U);
  EXPECT_EQ(Lm->LengthParams[0].Dim, 0);
  EXPECT_EQ(Lm->LengthParams[0].Rows.Members.size(), 1U);
  ASSERT_EQ(Lm->LengthParams[0].Rows.Constructors.size(), 1U);
  EXPECT_EQ(Lm->LengthParams[0].Rows.Constructors[0].Param, 1U);
  EXPECT_EQ(Lm->LengthParams[0].Rows.Constructors[0].Offset, -1);
  // A constant.
  const FunctionSummary *Fixed = find(S, "fixed");
  ASSERT_TRUE(Fixed);
  ASSERT_EQ(Fixed->LengthParams.size(), 1U);
  EXPECT_EQ(Fixed->LengthParams[0].Param, 1U);
  EXPECT_EQ(Fixed->LengthParams[0].Rows.Constant, std::optional<int64_t>(32));
  // Related here, capped, or a length the function makes its own: nothing.
  for (const char *Quiet : {"Gpt::checked", "Gpt::capped", "Gpt::grows"}) {
    const FunctionSummary *F = find(S, Quiet);
    EXPECT_TRUE(!F || F->LengthParams.empty()) << Quiet;
  }
  EXPECT_EQ(factName(SummaryFact::LengthParams), "lengthParams");
  ProjectSummaries::instance().clear();
}

TEST(ProjectSummaries, DevicesThatAreCudaOnSomePath) {
  auto AST = parse(R"cpp(
torch::Device choose() {
  return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
}
torch::Device through() { return choose(); }
torch::Device assigned(bool gpu) {
  torch::Device d(torch::kCPU);
  if (gpu)
    d = torch::Device(torch::kCUDA, 1);
  return d;
}
torch::Device cached() {
  static torch::Device d = [] {
    if (torch::cuda::is_available())
      return torch::kCUDA;
    return torch::kCPU;
  }();
  return d;
}
torch::Device cpu() { return torch::kCPU; }
torch::Device passed(torch::Device d) { return d; }
torch::Device elsewhere();
torch::Device other() { return elsewhere(); }
torch::Tensor moved(torch::Tensor t) { return t.to(torch::kCUDA); }
)cpp");
  const TranslationUnitSummary S = summarizeAlone(*AST);
  const FunctionSummary *Choose = find(S, "choose");
  ASSERT_TRUE(Choose && Choose->CudaDevice);
  EXPECT_EQ(Choose->CudaDevice->What,
            "'torch::cuda::is_available() ? torch::kCUDA : torch::kCPU'");
  EXPECT_EQ(Choose->CudaDevice->At.Line, 4U);
  EXPECT_TRUE(hasFact(*Choose, SummaryFact::CudaDevice));
  // Through a function of the unit: the evidence is where it is.
  const FunctionSummary *Through = find(S, "through");
  ASSERT_TRUE(Through && Through->CudaDevice);
  EXPECT_EQ(Through->CudaDevice->At.Line, 4U);
  const FunctionSummary *Assigned = find(S, "assigned");
  ASSERT_TRUE(Assigned && Assigned->CudaDevice);
  EXPECT_EQ(Assigned->CudaDevice->What, "'torch::Device(torch::kCUDA, 1)'");
  EXPECT_EQ(Assigned->CudaDevice->At.Line, 10U);
  // A choice cached in a static local, made by a lambda called at once.
  const FunctionSummary *Cached = find(S, "cached");
  ASSERT_TRUE(Cached && Cached->CudaDevice);
  EXPECT_EQ(Cached->CudaDevice->What, "'torch::kCUDA'");
  EXPECT_EQ(Cached->CudaDevice->At.Line, 16U);
  // The CPU, a parameter, a function of another unit (not linked), and a
  // function that returns a tensor: nothing.
  for (const char *Quiet : {"cpu", "passed", "other", "moved"}) {
    const FunctionSummary *F = find(S, Quiet);
    EXPECT_TRUE(!F || !F->CudaDevice) << Quiet;
  }
  EXPECT_EQ(factName(SummaryFact::CudaDevice), "cudaDevice");
  ProjectSummaries::instance().clear();
}

TEST(ProjectSummaries, DevicesThatObjectsKeep) {
  auto AST = parse(R"cpp(
class Job {
public:
  Job(const torch::Device &d, int64_t n, torch::Device spare);
  void run();
  void inner();
  void on_gpu();
  void configured(torch::Device d);
  static void helper();
private:
  const torch::Device &device_;
  int64_t n_;
  torch::Device spare_;
  torch::Device fixed_ = torch::kCPU;
};
Job::Job(const torch::Device &d, int64_t n, torch::Device spare)
    : device_(d), n_(n), spare_(spare) {}
void Job::run() { inner(); }
void Job::inner() { auto t = torch::ones({n_}, device_); }
void Job::on_gpu() { auto t = torch::ones({n_}, torch::kCUDA); }
void Job::configured(torch::Device d) { auto t = torch::ones({n_}, d); }
void Job::helper() {}
class Movable {
public:
  explicit Movable(torch::Device d) : device_(d) {}
  void retarget(torch::Device d) { device_ = d; }
  void work() { auto t = torch::zeros({2}, device_); }
  torch::Device device_;
};
)cpp");
  const TranslationUnitSummary S = summarizeAlone(*AST);
  // The constructor keeps two devices (a reference and a value), from its
  // first and third parameters; not the integer.
  const FunctionSummary *Ctor = find(S, "Job::Job");
  ASSERT_TRUE(Ctor);
  ASSERT_EQ(Ctor->KeptDevices.size(), 2U);
  EXPECT_EQ(Ctor->KeptDevices[0].Param, 0U);
  EXPECT_EQ(Ctor->KeptDevices[0].Kept.What, "'device_'");
  EXPECT_EQ(Ctor->KeptDevices[0].Kept.At.Line, 18U);
  EXPECT_EQ(Ctor->KeptDevices[1].Param, 2U);
  EXPECT_EQ(Ctor->KeptDevices[1].Kept.What, "'spare_'");
  EXPECT_TRUE(hasFact(*Ctor, SummaryFact::KeptDevices));
  // run works on device_ through inner, a call on this.
  const FunctionSummary *Run = find(S, "Job::run");
  ASSERT_TRUE(Run && Run->MemberDeviceWork);
  EXPECT_EQ(Run->MemberDeviceWork->Member, Ctor->KeptDevices[0].Member);
  EXPECT_EQ(Run->MemberDeviceWork->Work.At.Line, 20U);
  ASSERT_EQ(Run->MemberDeviceWork->Work.Via.size(), 1U);
  EXPECT_EQ(Run->MemberDeviceWork->Work.Via[0].Callee, "Job::inner");
  EXPECT_TRUE(hasFact(*Run, SummaryFact::MemberDeviceWork));
  EXPECT_EQ(factOf(*Run, SummaryFact::MemberDeviceWork),
            &Run->MemberDeviceWork->Work);
  // Work on a CUDA device by itself is definite work, not the member's; a
  // parameter's device, a static method and a member a method assigns say
  // nothing.
  const FunctionSummary *OnGpu = find(S, "Job::on_gpu");
  ASSERT_TRUE(OnGpu && OnGpu->DefiniteCudaWork);
  EXPECT_FALSE(OnGpu->MemberDeviceWork);
  for (const char *Quiet : {"Job::configured", "Job::helper", "Movable::work",
                            "Movable::Movable"}) {
    const FunctionSummary *F = find(S, Quiet);
    EXPECT_TRUE(!F || (!F->MemberDeviceWork && F->KeptDevices.empty()))
        << Quiet;
  }
  EXPECT_EQ(factName(SummaryFact::KeptDevices), "keptDevices");
  EXPECT_EQ(factName(SummaryFact::MemberDeviceWork), "memberDeviceWork");
  ProjectSummaries::instance().clear();
}

TEST(ProjectSummaries, JSONRoundTripAndVersion) {
  auto AST = parse(Unit);
  TranslationUnitSummary S =
      summarizeTranslationUnit(AST->getASTContext(), /*MaxCallDepth=*/4);
  S.Asked = {"cudaWork c:@F@elsewhere"};
  S.Functions.front().OutsideValues =
      FunctionSummary::Fact{"std::stoll", {"/p/read.cpp", 3, 9}, {}};
  S.Functions.front().LaunchedParams = {
      {2, FunctionSummary::Fact{"kernel 'k'", {"/p/k.cu", 8, 3}, {}}}};
  S.Functions.front().IndexedParams = {
      {1,
       FunctionSummary::Fact{"Embedding 'emb'",
                             {"/p/model.cpp", 12, 10},
                             {{"embed", "lookup", {"/p/model.cpp", 4, 3}}}}}};
  S.Functions.front().CudaDevice =
      FunctionSummary::Fact{"'torch::kCUDA'", {"/p/device.cpp", 5, 10}, {}};
  S.Functions.front().KeptDevices = {
      {1, "c:@S@Job@FI@device_",
       FunctionSummary::Fact{"'device_'", {"/p/job.cpp", 4, 7}, {}}}};
  S.Functions.front().MemberDeviceWork = FunctionSummary::MemberWork{
      "c:@S@Job@FI@device_",
      FunctionSummary::Fact{"'zeros' creates a tensor on a CUDA device",
                            {"/p/job.cpp", 9, 12},
                            {{"Job::run", "Job::fill", {"/p/job.cpp", 6, 3}}}}};
  {
    FunctionSummary::LengthParam L;
    L.Param = 0;
    L.Dim = 1;
    L.Offset = 1;
    L.Sink =
        FunctionSummary::Fact{"Embedding 'pos'", {"/p/gpt.cpp", 9, 10}, {}};
    L.Index = "torch::arange(T + 1)";
    L.Made = {"/p/gpt.cpp", 9, 14};
    L.Rows.Text = "config_.context";
    L.Rows.At = {"/p/gpt.cpp", 4, 53};
    L.Rows.Members = {"c:@S@Gpt@FI@config_", "c:@S@Config@FI@context"};
    L.Rows.Offset = -1;
    L.Rows.Constructors = {
        {"c:@S@Gpt@F@Gpt#&1$@S@Config#", 0, "c:@S@Config@FI@context", 2}};
    S.Functions.front().LengthParams.push_back(L);
    L.Rows = SummaryRows{};
    L.Rows.Text = "32";
    L.Rows.Constant = 32;
    S.Functions.front().LengthParams.push_back(L);
  }
  std::string Text;
  llvm::raw_string_ostream(Text) << llvm::json::Value(toJSON(S));
  llvm::Expected<llvm::json::Value> V = llvm::json::parse(Text);
  ASSERT_TRUE(bool(V));
  TranslationUnitSummary Back;
  llvm::json::Path::Root Root;
  ASSERT_TRUE(fromJSON(*V, Back, Root));
  std::string Again;
  llvm::raw_string_ostream(Again) << llvm::json::Value(toJSON(Back));
  EXPECT_EQ(Text, Again);
  ASSERT_EQ(Back.Functions.front().LaunchedParams.size(), 1U);
  EXPECT_EQ(Back.Functions.front().LaunchedParams[0].Param, 2U);
  EXPECT_EQ(Back.Functions.front().LaunchedParams[0].Launch.At.File, "/p/k.cu");
  EXPECT_TRUE(hasFact(Back.Functions.front(), SummaryFact::LaunchedParams));
  ASSERT_EQ(Back.Functions.front().IndexedParams.size(), 1U);
  EXPECT_EQ(Back.Functions.front().IndexedParams[0].Param, 1U);
  EXPECT_EQ(Back.Functions.front().IndexedParams[0].Sink.Via.size(), 1U);
  EXPECT_TRUE(hasFact(Back.Functions.front(), SummaryFact::IndexedParams));
  ASSERT_TRUE(Back.Functions.front().CudaDevice);
  EXPECT_EQ(Back.Functions.front().CudaDevice->At.Line, 5U);
  EXPECT_TRUE(hasFact(Back.Functions.front(), SummaryFact::CudaDevice));
  ASSERT_EQ(Back.Functions.front().KeptDevices.size(), 1U);
  EXPECT_EQ(Back.Functions.front().KeptDevices[0].Param, 1U);
  EXPECT_EQ(Back.Functions.front().KeptDevices[0].Member,
            "c:@S@Job@FI@device_");
  ASSERT_TRUE(Back.Functions.front().MemberDeviceWork);
  EXPECT_EQ(Back.Functions.front().MemberDeviceWork->Work.Via.size(), 1U);
  ASSERT_EQ(Back.Functions.front().LengthParams.size(), 2U);
  {
    const FunctionSummary::LengthParam &L =
        Back.Functions.front().LengthParams[0];
    EXPECT_EQ(L.Dim, 1);
    EXPECT_EQ(L.Offset, 1);
    EXPECT_EQ(L.Index, "torch::arange(T + 1)");
    EXPECT_EQ(L.Made.Column, 14U);
    EXPECT_FALSE(L.Rows.Constant);
    EXPECT_EQ(L.Rows.Members.size(), 2U);
    EXPECT_EQ(L.Rows.Offset, -1);
    ASSERT_EQ(L.Rows.Constructors.size(), 1U);
    EXPECT_EQ(L.Rows.Constructors[0].Field, "c:@S@Config@FI@context");
    EXPECT_EQ(L.Rows.Constructors[0].Offset, 2);
    EXPECT_EQ(Back.Functions.front().LengthParams[1].Rows.Constant,
              std::optional<int64_t>(32));
    EXPECT_TRUE(hasFact(Back.Functions.front(), SummaryFact::LengthParams));
  }
  // What a method does to the members of its object.
  {
    TranslationUnitSummary WithEffects = Back;
    FunctionSummary::MemberEffect E;
    E.Member = "c:@S@NetImpl@FI@mask";
    E.Name = "mask";
    E.Registered = SourcePlace{"/p/model.cpp", 4, 3};
    E.Writes.push_back({"assigned", {"/p/model.cpp", 5, 3}, true});
    E.Reads = 3;
    E.MovedReads = 1;
    WithEffects.Functions.front().MemberEffects =
        FunctionSummary::MemberEffectsFact{
            {E}, {{"c:@S@NetImpl@F@more#", "NetImpl::more"}}};
    TranslationUnitSummary Read;
    llvm::json::Path::Root R;
    ASSERT_TRUE(fromJSON(toJSON(WithEffects), Read, R));
    const auto &M = Read.Functions.front().MemberEffects;
    ASSERT_TRUE(M);
    ASSERT_EQ(M->Members.size(), 1U);
    EXPECT_EQ(M->Members[0].Member, E.Member);
    EXPECT_EQ(M->Members[0].Registered, E.Registered);
    ASSERT_EQ(M->Members[0].Writes.size(), 1U);
    EXPECT_TRUE(M->Members[0].Writes[0].Null);
    EXPECT_EQ(M->Members[0].Writes[0].At.Line, 5U);
    EXPECT_EQ(M->Members[0].Reads, 3U);
    EXPECT_EQ(M->Members[0].MovedReads, 1U);
    ASSERT_EQ(M->Calls.size(), 1U);
    EXPECT_EQ(M->Calls[0].Name, "NetImpl::more");
    EXPECT_TRUE(hasFact(Read.Functions.front(), SummaryFact::MemberEffects));
    EXPECT_FALSE(hasFact(Back.Functions.front(), SummaryFact::MemberEffects));
    EXPECT_EQ(factName(SummaryFact::MemberEffects), "memberEffects");
    // More moved reads than reads is refused.
    llvm::json::Value Bad = toJSON(WithEffects);
    auto *Fn = (*Bad.getAsObject()->getArray("functions"))[0].getAsObject();
    (*(*Fn->getObject("memberEffects")->getArray("members"))[0]
          .getAsObject())["movedReads"] = 4;
    TranslationUnitSummary Refused;
    llvm::json::Path::Root BadRoot;
    EXPECT_FALSE(fromJSON(Bad, Refused, BadRoot));
  }
  // A length parameter without its rows is refused.
  {
    llvm::json::Value Bad = toJSON(Back);
    auto *Fn = (*Bad.getAsObject()->getArray("functions"))[0].getAsObject();
    (*Fn->getArray("lengthParams"))[0].getAsObject()->erase("rows");
    TranslationUnitSummary Refused;
    llvm::json::Path::Root BadRoot;
    EXPECT_FALSE(fromJSON(Bad, Refused, BadRoot));
  }
  // A kept device without its member is refused.
  {
    llvm::json::Value Bad = toJSON(Back);
    auto *Fn = (*Bad.getAsObject()->getArray("functions"))[0].getAsObject();
    (*Fn->getArray("keptDevices"))[0].getAsObject()->erase("member");
    TranslationUnitSummary Refused;
    llvm::json::Path::Root BadRoot;
    EXPECT_FALSE(fromJSON(Bad, Refused, BadRoot));
  }
  // A parameter index that cannot be one is refused.
  {
    llvm::json::Value Bad = toJSON(Back);
    auto *Fn = (*Bad.getAsObject()->getArray("functions"))[0].getAsObject();
    (*(*Fn->getArray("launchedParams"))[0].getAsObject())["param"] = -1;
    TranslationUnitSummary Refused;
    llvm::json::Path::Root BadRoot;
    EXPECT_FALSE(fromJSON(Bad, Refused, BadRoot));
  }
  {
    llvm::json::Value Bad = toJSON(Back);
    auto *Fn = (*Bad.getAsObject()->getArray("functions"))[0].getAsObject();
    (*(*Fn->getArray("indexedParams"))[0].getAsObject())["param"] = 70000;
    TranslationUnitSummary Refused;
    llvm::json::Path::Root BadRoot;
    EXPECT_FALSE(fromJSON(Bad, Refused, BadRoot));
  }
  // Another version is refused, not half read.
  (*V->getAsObject())["version"] = SummaryFormatVersion + 1;
  TranslationUnitSummary Other;
  llvm::json::Path::Root Root2;
  EXPECT_FALSE(fromJSON(*V, Other, Root2));
  LinkedSummaries L;
  llvm::json::Path::Root Root3;
  EXPECT_FALSE(
      fromJSON(llvm::json::Object{{"linked", llvm::json::Array{}}}, L, Root3));
}

FunctionSummary fn(const std::string &USR,
                   const std::vector<std::string> &Calls, bool Work = false) {
  FunctionSummary F;
  F.USR = USR;
  F.Name = USR;
  F.Defined = {USR + ".cpp", 1, 1};
  if (Work)
    F.CudaWork = FunctionSummary::Fact{
        "'cuda' moves a tensor to the GPU", {USR + ".cpp", 7, 3}, {}};
  for (const std::string &C : Calls)
    F.Calls.push_back({C, C, {USR + ".cpp", 5, 10}, {}});
  return F;
}

TEST(ProjectSummaries, LinksCudaWorkAcrossUnits) {
  std::vector<TranslationUnitSummary> Units(3);
  Units[0].Functions = {fn("f", {"g"}), fn("lone", {"unknown"})};
  Units[1].Functions = {fn("g", {"h", "f"})}; // a cycle back to f
  Units[2].Functions = {fn("h", {}, /*Work=*/true)};
  Units[2].Functions[0].DefiniteCudaWork = Units[2].Functions[0].CudaWork;
  auto Linked = linkSummaries(Units, /*MaxLinkDepth=*/4);
  // Both facts are linked, each on its own.
  ASSERT_TRUE(Linked.at("f").DefiniteCudaWork);
  EXPECT_EQ(Linked.at("f").DefiniteCudaWork->Via.size(), 2U);
  ASSERT_TRUE(Linked.count("f"));
  const FunctionSummary &F = Linked.at("f");
  ASSERT_TRUE(F.CudaWork);
  EXPECT_EQ(F.CudaWork->At.File, "h.cpp");
  EXPECT_EQ(F.CudaWork->At.Line, 7U);
  ASSERT_EQ(F.CudaWork->Via.size(), 2U);
  EXPECT_EQ(F.CudaWork->Via[0].Caller, "f");
  EXPECT_EQ(F.CudaWork->Via[0].Callee, "g");
  EXPECT_EQ(F.CudaWork->Via[0].At.File, "f.cpp");
  EXPECT_EQ(F.CudaWork->Via[1].Caller, "g");
  EXPECT_EQ(F.CudaWork->Via[1].Callee, "h");
  EXPECT_TRUE(Linked.at("g").CudaWork);
  EXPECT_FALSE(Linked.at("lone").CudaWork);
  // Bounded: one call between units is not enough for f.
  auto Short = linkSummaries(Units, /*MaxLinkDepth=*/1);
  EXPECT_FALSE(Short.at("f").CudaWork);
  EXPECT_TRUE(Short.at("g").CudaWork);

  // What a unit is analysed again with: what it asked about, with a fact.
  TranslationUnitSummary Asking;
  Asking.Asked = {"cudaWork f", "cudaWork lone", "cudaWork missing",
                  "definiteCudaWork f"};
  LinkedSummaries For = summariesFor(Asking, Linked);
  ASSERT_EQ(For.Functions.size(), 1U);
  EXPECT_EQ(For.Functions[0].USR, "f");
  EXPECT_TRUE(For.Functions[0].Calls.empty());
  Asking.Asked = {"cudaWork lone"};
  EXPECT_TRUE(summariesFor(Asking, Linked).Functions.empty());
  // A question of another fact than the function has is no reason to
  // analyse the file again.
  Units[2].Functions[0].DefiniteCudaWork.reset();
  auto Partly = linkSummaries(Units, /*MaxLinkDepth=*/4);
  Asking.Asked = {"definiteCudaWork f"};
  EXPECT_TRUE(summariesFor(Asking, Partly).Functions.empty());
  Asking.Asked = {"cudaWork f"};
  EXPECT_EQ(summariesFor(Asking, Partly).Functions.size(), 1U);
}

TEST(ProjectSummaries, TheFinderReadsThemAndRecordsTheQuestion) {
  auto AST = parse(R"cpp(
torch::Tensor elsewhere(torch::Tensor t);
torch::Tensor hook(torch::Tensor t) { return elsewhere(t); }
)cpp");
  auto M = match(functionDecl(hasName("hook"), isDefinition()).bind("f"),
                 AST->getASTContext());
  ASSERT_EQ(M.size(), 1U);
  const auto *Hook = M.front().getNodeAs<clang::FunctionDecl>("f");
  auto E =
      match(functionDecl(hasName("elsewhere")).bind("f"), AST->getASTContext());
  const std::string USR = usrOf(E.front().getNodeAs<clang::FunctionDecl>("f"));
  ASSERT_FALSE(USR.empty());

  ProjectSummaries &P = ProjectSummaries::instance();
  P.clear();
  P.disable(); // not whatever a project run left near the test
  // Without summaries: nothing, as without a project run; the question is
  // recorded.
  EXPECT_TRUE(CudaWorkFinder(4).find(Hook).empty());
  EXPECT_EQ(P.takeAsked(), std::vector<std::string>{"cudaWork " + USR});
  // A finder that summarises its unit does not ask.
  EXPECT_TRUE(CudaWorkFinder(4, /*FollowSummaries=*/false).find(Hook).empty());
  EXPECT_TRUE(P.takeAsked().empty());

  FunctionSummary S = fn(USR, {}, /*Work=*/true);
  P.set(LinkedSummaries{{S}});
  std::vector<CudaWorkFinding> Found = CudaWorkFinder(4).find(Hook);
  ASSERT_EQ(Found.size(), 1U);
  ASSERT_TRUE(Found[0].External);
  EXPECT_EQ(Found[0].External->USR, USR);
  ASSERT_EQ(Found[0].Chain.size(), 1U);
  EXPECT_EQ(Found[0].Chain[0].Callee->getName(), "elsewhere");
  // Depth 0 follows no call, in this unit or out of it.
  EXPECT_TRUE(CudaWorkFinder(0).find(Hook).empty());
  // The error-recovery evidence reads the definite fact only.
  const clang::Stmt *Body = Hook->getBody();
  CudaEvidenceFinder Evidence(AST->getASTContext(), 4);
  EXPECT_FALSE(Evidence.find(Body, Hook));
  S.DefiniteCudaWork = S.CudaWork;
  P.set(LinkedSummaries{{S}});
  std::optional<CudaEvidence> Ev = Evidence.find(Body, Hook);
  ASSERT_TRUE(Ev);
  EXPECT_EQ(Ev->K, CudaEvidence::Summary);
  ASSERT_TRUE(Ev->External);
  EXPECT_EQ(Ev->External->USR, USR);
  EXPECT_FALSE(CudaEvidenceFinder(AST->getASTContext(), 4,
                                  /*FollowSummaries=*/false)
                   .find(Body, Hook));
  P.clear();
  P.disable();
}

} // namespace

namespace {

TEST(ProjectSummaries, AnObjectOfAClassOfAnotherUnit) {
  auto AST = parse(R"cpp(
class Job {
public:
  Job(int64_t n, torch::Device d);
  void run();
  torch::Device device_;
};
torch::Device pick();
void hook() {
  Job job(4, pick());
  try {
    job.run();
  } catch (...) {
  }
}
)cpp");
  auto &Ctx = AST->getASTContext();
  auto USROf = [&](const char *Name) {
    auto M = match(namedDecl(hasName(Name)).bind("d"), Ctx);
    return M.empty() ? std::string()
                     : usrOf(M.front().getNodeAs<clang::Decl>("d"));
  };
  auto M = match(functionDecl(hasName("hook"), isDefinition()).bind("f"), Ctx);
  ASSERT_EQ(M.size(), 1U);
  const auto *Hook = M.front().getNodeAs<clang::FunctionDecl>("f");
  const std::string Run = USROf("Job::run"), Pick = USROf("pick"),
                    Member = USROf("Job::device_");
  auto C = match(cxxConstructorDecl(ofClass(hasName("Job"))).bind("c"), Ctx);
  ASSERT_FALSE(C.empty());
  const std::string Ctor = usrOf(C.front().getNodeAs<clang::Decl>("c"));

  ProjectSummaries &P = ProjectSummaries::instance();
  P.clear();
  P.disable();
  // A first pass answers nothing, and asks all that the second needs: the
  // method's work, the constructor's kept devices, and the device of each
  // argument that carries one.
  CudaEvidenceFinder Evidence(Ctx, 4);
  EXPECT_FALSE(Evidence.find(Hook->getBody(), Hook));
  std::vector<std::string> Asked = P.takeAsked();
  for (const std::string &Q :
       {"memberDeviceWork " + Run, "keptDevices " + Ctor, "cudaDevice " + Pick})
    EXPECT_TRUE(llvm::is_contained(Asked, Q)) << Q;

  FunctionSummary RunS = fn(Run, {});
  RunS.MemberDeviceWork = FunctionSummary::MemberWork{
      Member, FunctionSummary::Fact{"'zeros' creates a tensor on a CUDA device",
                                    {"/p/job.cpp", 9, 12},
                                    {}}};
  FunctionSummary CtorS = fn(Ctor, {});
  CtorS.KeptDevices = {{1, Member, {"'device_'", {"/p/job.cpp", 3, 5}, {}}}};
  FunctionSummary PickS = fn(Pick, {});
  PickS.CudaDevice = {"'torch::kCUDA'", {"/p/pick.cpp", 2, 10}, {}};
  // The device a construction gives, the member the constructor keeps it
  // in, and the method's work on that member: all three are needed.
  for (int Left = 0; Left < 3; ++Left) {
    std::vector<FunctionSummary> Some;
    for (int I = 0; I < 3; ++I)
      if (I != Left)
        Some.push_back(I == 0 ? RunS : I == 1 ? CtorS : PickS);
    P.set(LinkedSummaries{Some});
    EXPECT_FALSE(Evidence.find(Hook->getBody(), Hook)) << Left;
  }
  P.set(LinkedSummaries{{RunS, CtorS, PickS}});
  std::optional<CudaEvidence> Ev = Evidence.find(Hook->getBody(), Hook);
  ASSERT_TRUE(Ev);
  EXPECT_EQ(Ev->K, CudaEvidence::Summary);
  ASSERT_TRUE(Ev->externalWork());
  EXPECT_EQ(Ev->externalWork()->At.Line, 9U);
  ASSERT_TRUE(Ev->Operation.ReceivedMember);
  EXPECT_EQ(Ev->Operation.ReceivedMember->getName(), "device_");
  ASSERT_TRUE(Ev->Operation.ReceivedAt);
  ASSERT_TRUE(Ev->DeviceExternal && Ev->DeviceExternal->CudaDevice);
  EXPECT_EQ(Ev->DeviceExternal->USR, Pick);
  // The constructor keeps another parameter: nothing.
  CtorS.KeptDevices[0].Param = 0;
  P.set(LinkedSummaries{{RunS, CtorS, PickS}});
  EXPECT_FALSE(Evidence.find(Hook->getBody(), Hook));
  P.clear();
  P.disable();
}

TEST(ProjectSummaries, TheProjectFileLeavesOutStaleSummaries) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("summaries", Dir));
  auto Write = [&](llvm::StringRef Name, llvm::StringRef Text) {
    llvm::SmallString<128> P(Dir);
    llvm::sys::path::append(P, Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    OS << Text;
    return std::string(P);
  };
  const std::string A = Write("a.cpp", "void f() { g(); }\n");
  const std::string B = Write("b.cpp", "void g() { cuda(); }\n");
  FunctionSummary F = fn("f", {}), G = fn("g", {}, /*Work=*/true);
  F.Defined.File = A;
  G.Defined.File = B;
  G.CudaWork->At.File = B;
  F.CudaWork = G.CudaWork;
  F.CudaWork->Via = {{"f", "g", {A, 1, 12}}};
  const std::map<std::string, FunctionSummary> Linked{
      {"f", F}, {"g", G}, {"h", fn("h", {"g"})}};
  ProjectSummariesFile File = projectSummariesFile(Linked);
  // Only what says something; every file it names hashed.
  ASSERT_EQ(File.Linked.Functions.size(), 2U);
  EXPECT_EQ(File.FileHashes.size(), 2U);
  EXPECT_EQ(File.FileHashes[A], contentHashOf(A));
  std::string Text;
  llvm::raw_string_ostream(Text) << llvm::json::Value(toJSON(File));
  llvm::SmallString<128> Cache(Dir);
  llvm::sys::path::append(Cache, "build", "torch-tidy-cache");
  ASSERT_FALSE(llvm::sys::fs::create_directories(Cache));
  const std::string Path = Write(
      std::string("build/torch-tidy-cache/") + ProjectSummariesFileName, Text);

  // Found from a file of the project, in a directory below.
  llvm::SmallString<128> Sub(Dir);
  llvm::sys::path::append(Sub, "src", "deep");
  ASSERT_FALSE(llvm::sys::fs::create_directories(Sub));
  llvm::sys::path::append(Sub, "x.cpp");
  EXPECT_EQ(findProjectSummaries(Sub), Path);

  std::string Error;
  std::optional<LinkedSummaries> Read = readProjectSummaries(Path, Error);
  ASSERT_TRUE(Read) << Error;
  EXPECT_EQ(Read->Functions.size(), 2U);
  // a.cpp changes: f's summary, which names it, is stale; g's holds.
  Write("a.cpp", "void f() { }\n");
  Read = readProjectSummaries(Path, Error);
  ASSERT_TRUE(Read) << Error;
  ASSERT_EQ(Read->Functions.size(), 1U);
  EXPECT_EQ(Read->Functions[0].USR, "g");
  // Not JSON: an error, no summaries.
  Write(std::string("build/torch-tidy-cache/") + ProjectSummariesFileName, "{");
  EXPECT_FALSE(readProjectSummaries(Path, Error));
  EXPECT_FALSE(Error.empty());
  (void)llvm::sys::fs::remove_directories(Dir);
}

} // namespace
