#ifndef SCHEDULERS_WORLD_CLOCK_SLOT_H
#define SCHEDULERS_WORLD_CLOCK_SLOT_H

#include <stdint.h>

// The virtual clock of the world whose work the calling thread runs, if any: a TestScheduler
// that has captured sets it around each action and job it runs (TestScheduler's `runNext`,
// WorldClock.swift), and clears it after. The Schedulers module only keeps it; nothing in it
// reads a clock through it. A test binary that links SchedulersTestSupport defines the C
// library's `clock_gettime` (Sources/VirtualReadings), which answers from this slot while it is
// set, so that `ContinuousClock.now`, `Date()` and `DispatchTime.now()` read virtual time on
// that thread and real time everywhere else.

// One world's clock, shared by every thread that runs its work. Times are whole nanoseconds.
struct schedulers_world_clock {
    // The world's virtual now, since 2001-01-01 00:00:00 UTC; moves when the scheduler's does.
    int64_t now;  // read and written with __atomic builtins only
    // The virtual time the monotonic readings count from (the scheduler's now when it began
    // capturing), and the real readings of CLOCK_MONOTONIC and CLOCK_BOOTTIME at that moment:
    // inside the world those clocks read `base + (now - start)`.
    int64_t start;
    int64_t monotonic_base;
    int64_t boottime_base;
};

extern _Thread_local struct schedulers_world_clock *_Nullable schedulers_world_clock_slot;

static inline __attribute__((always_inline)) struct schedulers_world_clock *_Nullable schedulers_world_clock_get(void) {
    return schedulers_world_clock_slot;
}

static inline __attribute__((always_inline)) void schedulers_world_clock_set(struct schedulers_world_clock *_Nullable clock) {
    schedulers_world_clock_slot = clock;
}

static inline void schedulers_world_clock_publish(struct schedulers_world_clock *_Nonnull clock, int64_t now) {
    __atomic_store_n(&clock->now, now, __ATOMIC_RELEASE);
}

// Set to 1, once, before any world runs, by the definition of `clock_gettime` that answers from
// the slot (Sources/VirtualReadings): then a real-clock instant read in a world is virtual.
extern int schedulers_virtual_readings_installed;  // __atomic builtins only

static inline int schedulers_virtual_readings_are_installed(void) {
    return __atomic_load_n(&schedulers_virtual_readings_installed, __ATOMIC_ACQUIRE);
}

#endif
