#pragma once
// The owner of each GPU process over time, as spans for the history (store/process_owners.hpp):
// a process keeps one span while it runs on a GPU with the same owner from sample to sample; a
// new span starts when its owner changes (the kubelet answered, a mapping file appeared) or when
// it comes back after a sample without it. Processes with no owner found are not stored. Pure:
// the recorder hands it each snapshot and its attribution, and writes what it returns.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attribution/attribution.hpp"
#include "core/snapshot.hpp"
#include "recorder/span_book.hpp"
#include "store/process_owners.hpp"

namespace gpuwatch::recorder {

// The stored form of an attribution (every member optional both sides).
store::ProcessOwner stored_owner(const attribution::Attribution& a);

class OwnerSpans {
 public:
  // One sample: SNAPSHOT's processes and OWNERS by PID (from the attributor; a PID missing
  // there, or with an empty attribution, has no owner).
  void observe(const core::Snapshot& snapshot, const std::map<unsigned, attribution::Attribution>& owners);
  // The spans started or extended since the last written(): what a flush writes (an upsert:
  // writing one twice is harmless).
  std::vector<store::OwnerSpanRow> pending() const { return book_.pending(); }
  // The rows of pending() are in the database.
  void written() { book_.written(); }
  std::size_t open_spans() const { return book_.open_spans(); }

 private:
  SpanBook<store::OwnerSpanRow> book_;
};

}  // namespace gpuwatch::recorder
