#ifndef SCHEDULERS_PREFETCH_H
#define SCHEDULERS_PREFETCH_H

// A hint to start loading the cache line at `address`, for TestScheduler's heap
// (VirtualTimeQueue.swift): with a million actions pending, each level of the heap and each
// action's entry is a cache miss, and the next ones' addresses are known before they are needed.
// Swift has no prefetch of its own; this header-only function is inlined where Swift calls it.
// It never faults, whatever the address.

static inline __attribute__((always_inline)) void schedulers_prefetch(const void *_Nullable address) {
    __builtin_prefetch(address);
}

#endif
