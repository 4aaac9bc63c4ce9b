#pragma once
// /api/v1/history right after serve started: the ring buffer holds only the samples since then,
// while the store may hold the minutes before (an earlier serve or `record` on the same file).
// These decide whether the ring reaches back to a window's start, and join the store's older
// rows to the ring's, per GPU, so a chart does not start at the restart. Pure.
#include <vector>

#include "live/sample_history.hpp"

namespace gpuwatch::exporter {

// Whether LIVE (rows_since(SINCE_S): per GPU, oldest first) reaches back to SINCE_S for every GPU
// in GPUS: each has a row, the first no more than SLACK_S after SINCE_S.
bool ring_reaches(const std::vector<live::HistoryRow>& live, const std::vector<unsigned>& gpus, double since_s,
                  double slack_s);

// Per GPU: STORED's buckets (RESOLUTION_S wide, stamped with their start) that end by that GPU's
// first LIVE row (all of them when it has none), then its LIVE rows. Rows stay grouped per GPU in
// time order, as history_json reads them.
std::vector<live::HistoryRow> stored_then_live(const std::vector<live::HistoryRow>& stored, double resolution_s,
                                         const std::vector<live::HistoryRow>& live);

}  // namespace gpuwatch::exporter
