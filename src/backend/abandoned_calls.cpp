#include "backend/abandoned_calls.hpp"

#include <atomic>

namespace gpuwatch::backend {
namespace {
std::atomic<int> g_abandoned{0};
}  // namespace

void note_abandoned_call() { g_abandoned.fetch_add(1); }
void note_abandoned_call_returned() { g_abandoned.fetch_sub(1); }
int abandoned_calls() { return g_abandoned.load(); }

}  // namespace gpuwatch::backend
