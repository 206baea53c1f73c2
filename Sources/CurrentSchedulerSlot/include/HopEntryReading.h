#ifndef SCHEDULERS_HOP_ENTRY_READING_H
#define SCHEDULERS_HOP_ENTRY_READING_H

#include <stdint.h>

// The real clocks read when a captured task's hop entered the global-enqueue hook on this
// thread (Virtual/Capture/RealClockTimeline.swift, rule 2): nanoseconds since each clock's
// epoch, 0 when none is waiting. Read before the hook takes any lock, so that time spent
// waiting for one is known not to be the caller's.

extern _Thread_local int64_t schedulers_hop_entry_continuous;
extern _Thread_local int64_t schedulers_hop_entry_suspending;

static inline __attribute__((always_inline)) void schedulers_hop_entry_set(int64_t continuous, int64_t suspending) {
    schedulers_hop_entry_continuous = continuous;
    schedulers_hop_entry_suspending = suspending;
}

static inline __attribute__((always_inline)) int64_t schedulers_hop_entry_continuous_get(void) {
    return schedulers_hop_entry_continuous;
}

static inline __attribute__((always_inline)) int64_t schedulers_hop_entry_suspending_get(void) {
    return schedulers_hop_entry_suspending;
}

#endif
