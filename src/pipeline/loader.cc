#include "segfeed/loader.h"

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "pipeline/loader_runtime.h"

namespace segfeed {

Loader::Loader(const DatasetSpec& dataset, const LoaderOptions& options)
    : runtime_(std::make_unique<pipeline::LoaderRuntime>(dataset, options)) {}

Loader::~Loader() = default;

void Loader::StartEpoch(int64_t epoch, int64_t first_batch) {
  runtime_->StartEpoch(epoch, first_batch);
}

LoaderPosition Loader::StartNextEpoch() { return runtime_->StartNextEpoch(); }
void Loader::AbandonEpoch() { runtime_->AbandonEpoch(); }
void Loader::PauseEpoch() { runtime_->PauseEpoch(); }

void Loader::GiveBack(Lease lease) {
  if (lease.buffers_ != runtime_->buffers() || lease.buffer_ < 0) {
    throw std::logic_error("Loader::GiveBack(): a lease of another loader, or an empty one");
  }
  --lease.buffers_->outstanding_leases;
  runtime_->GiveBack(std::exchange(lease.buffer_, -1));
}

std::optional<Lease> Loader::Next() {
  std::optional<int> buffer = runtime_->NextBuffer(std::nullopt);
  if (!buffer) return std::nullopt;
  return Lease(runtime_->buffers(), *buffer);
}

std::optional<Lease> Loader::Next(std::chrono::milliseconds timeout) {
  std::optional<int> buffer = runtime_->NextBuffer(timeout);
  if (!buffer) return std::nullopt;
  return Lease(runtime_->buffers(), *buffer);
}

void Loader::Close() { runtime_->Close(); }
int64_t Loader::batches_per_epoch() const { return runtime_->batches_per_epoch(); }
int64_t Loader::samples_per_epoch() const { return runtime_->samples_per_epoch(); }
int64_t Loader::batches_in_epoch() const { return runtime_->BatchesInEpoch(); }
const Dataset& Loader::dataset() const { return runtime_->dataset(); }
const std::vector<std::string>& Loader::class_names() const { return runtime_->class_names(); }
const MemoryPlan& Loader::plan() const { return runtime_->memory_plan(); }
LoaderStats Loader::stats() const { return runtime_->Stats(); }
LoaderPosition Loader::position() const { return runtime_->Position(); }
LoaderState Loader::State() const { return runtime_->State(); }
void Loader::Restore(const LoaderState& state) { runtime_->Restore(state); }

}  // namespace segfeed
