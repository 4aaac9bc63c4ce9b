#pragma once
// Rows recorded before schema 5 have the SM clock but not its maximum (clocks.max.sm became a
// history column in schema 5), so the diagnose engine, fed from such rows, could not tell how
// much clock a throttled GPU lost ("SM clock -0 %"). The stand-in for them: the highest SM
// clock recorded for each GPU in the window. It can only understate the loss (a GPU never at
// full clock in the window), never overstate it; a recorded maximum, when there is one, is kept.
#include <cstdint>
#include <map>

#include "core/snapshot.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::history {

// Per GPU index, the reading of its highest clocks.current.sm in [FROM_MS, TO_MS] (one pass
// over the hourly maxima, aggregated on the fly from raw samples). Empty when unreadable.
std::map<unsigned, core::FieldReading> highest_sm_clock(const store::HistoryDatabase& db, std::int64_t from_ms,
                                                        std::int64_t to_ms);

// Sets clocks.max.sm of every GPU of SNAPSHOT that has no maximum clock from HIGHEST.
void fill_max_sm_clock(core::Snapshot& snapshot, const std::map<unsigned, core::FieldReading>& highest);

}  // namespace gpuwatch::history
