//===--- Limits.h - Bounds on every walk the analyses make ------*- C++ -*-===//
//
// Each recursive or iterative walk over code stops at a bound, so that odd
// or machine-written code (deep templates, generated expressions, macro
// towers) cannot hang a check or overflow its stack. Past a bound the
// analysis says "unknown" and the check stays silent. Real code stays far
// below each of them; the reasons say how far.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_LIMITS_H
#define TORCHTIDY_ANALYSIS_LIMITS_H

namespace torchtidy::limits {

/// Implicit casts, temporaries, copies and moves peeled off one value before
/// it is recognised: a handful in real code, a few more through templates.
constexpr unsigned PeeledWrappers = 16;

/// Wrapper nodes peel::peel looks through, one at a time: a handful around
/// each value, a few more for each op of a chain the set looks through.
constexpr unsigned PeeledNodes = 64;

/// Definitions followed from an index to where its values come from
/// (`ids` <- `raw.view(-1)` <- `load(...)`): a few assignments deep.
constexpr unsigned OriginDepth = 16;

/// Macro expansions looked through for TORCHTIDY_CHECK_INDEX: the macro and
/// the few it expands to.
constexpr unsigned MacroDepth = 16;

/// Nested sub-expressions the device model follows to find a value's
/// device (`a.to(d).view(...).index_select(...)`): chains of ops are short,
/// but generated code can nest arithmetic deeply.
constexpr unsigned DeviceExprDepth = 48;

/// Steps through the initialisers of locals and nested device expressions
/// when classifying a device (`auto d = cond ? kCUDA : kCPU; Device(d)`).
constexpr unsigned DeviceValueSteps = 8;

/// Sub-statements searched for a call of one kind (is_available(), an
/// index op): conditions and expressions are shallow.
constexpr unsigned SearchDepth = 32;

/// Base classes and overridden methods followed up a hierarchy: LibTorch's
/// module and dataset hierarchies are four or five deep.
constexpr unsigned HierarchyDepth = 32;

/// Overrides followed from a method to the data hook it implements.
constexpr unsigned OverrideDepth = 16;

/// Statements nested in one function body when a fix-it looks for the
/// statement around a call: blocks in blocks, far more than code nests.
constexpr unsigned StatementNesting = 256;

/// Statements nested while the returns of a helper are collected.
constexpr unsigned ReturnSearchDepth = 64;
/// Returns of one helper looked at; a helper with more is not followed.
constexpr unsigned MaxReturns = 16;

/// Helpers followed through calls (a helper returning a helper's result),
/// and constructions followed to an embedding's size.
constexpr unsigned HelperDepth = 4;

/// Operands of an expression that can be repeated in a fix-it
/// (`this->cfg.emb`): names and member chains are short.
constexpr unsigned RepeatableDepth = 8;

/// Calls followed within a translation unit when it summarises a function
/// for the project (ProjectSummaries.h): libtorch-cuda-in-dataset-get's
/// default MaxCallDepth.
constexpr unsigned SummaryCallDepth = 4;
/// Calls followed from one translation unit into another when the
/// project's summaries are linked.
constexpr unsigned SummaryLinkDepth = 4;
/// The writes of one member a summary's `memberEffects` keeps (the notes of
/// a finding name them; the first non-null one decides).
constexpr unsigned SummarisedWrites = 4;
/// The building functions of other files one class's analysis reads from
/// their summaries (Registration.h): constructors, reset() and the member
/// functions they call.
constexpr unsigned SummarisedBuilders = 16;

} // namespace torchtidy::limits

#endif
