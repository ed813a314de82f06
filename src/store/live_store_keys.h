#pragma once
// Run-time updates of store keys (UPDATE_BROKER_CONFIG). Java applies an updated key to its live
// MessageStoreConfig, and its store reads most keys at each use. The scalar keys our store reads
// at each use are changed in the store's own StoreConfig by applyLiveKeys()
// (MessageStore::applyRuntimeConfig) and read by the store's threads with liveRead(): relaxed
// atomic accesses through std::atomic_ref, no lock on the hot path. deleteWhen (a string) is
// copied under a lock the retention thread takes. Every other store key takes effect at the next
// start. The list and what Java does: src/store/README.md "Run-time config".
#include <atomic>
#include <string_view>

#include "store/store_config.h"

namespace rmq::store {

// Whether the running store takes `key` from UPDATE_BROKER_CONFIG (deleteWhen included).
bool isLiveStoreKey(std::string_view key);

// A field of the store's StoreConfig that applyLiveKeys() may change while it is read.
template <class T>
T liveRead(const T& field) {
  return std::atomic_ref<T>(const_cast<T&>(field)).load(std::memory_order_relaxed);
}

// Copies the live scalar fields of `updated` into `live` (one relaxed atomic store each).
void applyLiveKeys(StoreConfig& live, const StoreConfig& updated);

}  // namespace rmq::store
