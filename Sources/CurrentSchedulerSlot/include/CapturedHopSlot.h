#ifndef SCHEDULERS_CAPTURED_HOP_SLOT_H
#define SCHEDULERS_CAPTURED_HOP_SLOT_H

// The thread-local slot behind a captured job's hop (Virtual/Capture/CapturedJobRun.swift): while
// a TestScheduler runs a captured job on this thread it holds 1; when the running task enqueues
// itself again for the global executor (a hop to nonisolated code, which a captured task makes
// because it runs with the scheduler as its task executor and prefers none), the hook parks that
// job here instead of queuing it behind everything else, and the run goes on with it at once.
// One load and store relative to the thread pointer, paid around every captured job.

extern _Thread_local void *_Nullable schedulers_captured_hop_slot;

static inline __attribute__((always_inline)) void *_Nullable schedulers_captured_hop_slot_get(void) {
    return schedulers_captured_hop_slot;
}

static inline __attribute__((always_inline)) void schedulers_captured_hop_slot_set(void *_Nullable value) {
    schedulers_captured_hop_slot = value;
}

#endif
