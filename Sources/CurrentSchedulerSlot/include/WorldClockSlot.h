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
// Reference counted: the scheduler holds one reference, and each Dispatch block the world has
// submitted and not yet finished holds one (Sources/VirtualReadings), so a block that outlives
// its test still finds the clock it runs with.
struct schedulers_world_clock {
    // The world's virtual now, since 2001-01-01 00:00:00 UTC; moves when the scheduler's does.
    int64_t now;  // read and written with __atomic builtins only
    // The virtual time the monotonic readings count from (the scheduler's now when it began
    // capturing), and the real readings of CLOCK_MONOTONIC and CLOCK_BOOTTIME at that moment:
    // inside the world those clocks read `base + (now - start)`.
    int64_t start;
    int64_t monotonic_base;
    int64_t boottime_base;
    // Dispatch blocks the world submitted that have not finished: while there are any, virtual
    // time holds (the scheduler's drives wait for them).
    int64_t in_flight;  // __atomic builtins only
    int64_t references;  // __atomic builtins only
    // Set once, before the clock is shared, by the scheduler that owns it (WorldClock.swift).
    void *_Nullable owner;
    // Called when `in_flight` drops to zero, on the thread that finished the last block.
    void (*_Nullable drained)(void *_Nullable owner);
    // Runs `fire(context)` as an action of the world's scheduler at the virtual time `due`
    // (nanoseconds since 2001-01-01); returns 0 if the scheduler is gone (then nothing runs).
    int (*_Nullable schedule_at)(void *_Nullable owner, int64_t due, void (*_Nonnull fire)(void *_Nullable), void *_Nullable context);
    // Frees the clock and the owner's reference, when the last reference goes.
    void (*_Nullable destroy)(struct schedulers_world_clock *_Nonnull clock);
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

static inline void schedulers_world_clock_retain(struct schedulers_world_clock *_Nonnull clock) {
    __atomic_add_fetch(&clock->references, 1, __ATOMIC_RELAXED);
}

static inline void schedulers_world_clock_release(struct schedulers_world_clock *_Nonnull clock) {
    if (__atomic_sub_fetch(&clock->references, 1, __ATOMIC_ACQ_REL) == 0) clock->destroy(clock);
}

// A Dispatch block of the world begins its flight (submitted) / ends it (finished running).
static inline void schedulers_world_work_begin(struct schedulers_world_clock *_Nonnull clock) {
    schedulers_world_clock_retain(clock);
    __atomic_add_fetch(&clock->in_flight, 1, __ATOMIC_ACQ_REL);
}

static inline void schedulers_world_work_end(struct schedulers_world_clock *_Nonnull clock) {
    if (__atomic_sub_fetch(&clock->in_flight, 1, __ATOMIC_ACQ_REL) == 0 && clock->drained) clock->drained(clock->owner);
    schedulers_world_clock_release(clock);
}

static inline int64_t schedulers_world_work_in_flight(struct schedulers_world_clock *_Nonnull clock) {
    return __atomic_load_n(&clock->in_flight, __ATOMIC_ACQUIRE);
}

// Writes into `buffer` (at most `size` bytes, NUL-terminated) what the world of `clock` has in
// flight: each block's kind and queue label. Set once, before any world runs, by the test
// support's Dispatch definitions (Sources/VirtualReadings); null where there are none.
extern void (*_Nullable schedulers_world_describe_in_flight)(
    struct schedulers_world_clock *_Nonnull clock, char *_Nonnull buffer, long size);  // __atomic only

// Calls it; 0, with nothing written, where it is not set.
static inline int schedulers_world_describe(struct schedulers_world_clock *_Nonnull clock, char *_Nonnull buffer, long size) {
    void (*describe)(struct schedulers_world_clock *_Nonnull, char *_Nonnull, long) =
        __atomic_load_n(&schedulers_world_describe_in_flight, __ATOMIC_ACQUIRE);
    if (describe == 0) return 0;
    describe(clock, buffer, size);
    return 1;
}

// Set to 1, once, before any world runs, by the definition of `clock_gettime` that answers from
// the slot (Sources/VirtualReadings): then a real-clock instant read in a world is virtual.
extern int schedulers_virtual_readings_installed;  // __atomic builtins only

static inline int schedulers_virtual_readings_are_installed(void) {
    return __atomic_load_n(&schedulers_virtual_readings_installed, __ATOMIC_ACQUIRE);
}

#endif
