#pragma once
// The problems of a range in the order a person should hear them (issue 23's "summary that
// reads like a person wrote it"): what may take the job or the GPU down soon first (an
// out-of-memory predicted, a leak, a lost GPU, uncorrectable ECC, a hang...), then the rest;
// within each: critical before warning, still active before ended, then by impact and share.
// Pure.
#include <span>
#include <string>
#include <vector>

#include "diagnose/finding.hpp"

namespace gpuwatch::diagnose {

// 0: urgent (the GPU or the job may fail soon, or results may be wrong); 1: costs time.
int urgency_rank(const Finding& finding);

// FINDINGS most urgent first (ties: the finding_before order).
std::vector<Finding> most_urgent_first(std::span<const Finding> findings);

// The warning and critical findings that each get one sentence, most urgent first: a
// consequence told by another finding is left out (memory almost full on a GPU whose leak is
// named), and so is a finding whose sentence would repeat one already given.
std::vector<Finding> summary_problems(std::span<const Finding> findings);

// One sentence per problem of summary_problems: "GPU 6: memory leak in 303 episodes ...".
std::vector<std::string> problem_sentences(std::span<const Finding> findings);

}  // namespace gpuwatch::diagnose
