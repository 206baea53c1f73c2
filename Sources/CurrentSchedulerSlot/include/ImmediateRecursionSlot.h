#ifndef SCHEDULERS_IMMEDIATE_RECURSION_SLOT_H
#define SCHEDULERS_IMMEDIATE_RECURSION_SLOT_H

// The thread-local slot behind `Scheduler.immediate.scheduleRecursive`: the loop that is running
// on this thread right now, if any (an unretained pointer, set by the loop itself and restored
// before it returns). A `reschedule` call compares it with its own loop to learn whether it is
// being made synchronously, from inside that loop's action: one load relative to the thread
// pointer, where asking for the thread's identity (`pthread_self`) is a call into libc that
// made the whole `reschedule` a function with a stack frame (ImmediateScheduler.swift).

extern _Thread_local void *_Nullable schedulers_immediate_recursion_slot;

static inline __attribute__((always_inline)) void *_Nullable schedulers_immediate_recursion_slot_get(void) {
    return schedulers_immediate_recursion_slot;
}

static inline __attribute__((always_inline)) void schedulers_immediate_recursion_slot_set(void *_Nullable value) {
    schedulers_immediate_recursion_slot = value;
}

#endif
