#ifndef SCHEDULERS_CURRENT_SCHEDULER_SLOT_H
#define SCHEDULERS_CURRENT_SCHEDULER_SLOT_H

// The thread-local slot behind `Scheduler.current` (Sources/Schedulers/Core/CurrentScheduler.swift
// says what it holds). It is C because Swift has no thread-local storage of its own: a
// `_Thread_local` read or write is one instruction relative to the thread pointer once the
// linker has placed the library, where `pthread_getspecific`/`pthread_setspecific` are calls
// into libc (~10 and ~35 instructions on glibc), paid around every action a scheduler runs.
// The accessors are inline so that Swift code (including the package's @inlinable code,
// compiled into its clients) reaches the variable directly.

extern _Thread_local void *_Nullable schedulers_current_slot;

static inline __attribute__((always_inline)) void *_Nullable schedulers_current_slot_get(void) {
    return schedulers_current_slot;
}

static inline __attribute__((always_inline)) void schedulers_current_slot_set(void *_Nullable value) {
    schedulers_current_slot = value;
}

// This header is the target's umbrella header (it is named after the target), so the target's
// other headers come in through it: the other thread-local slots, the prefetch hint, and the
// sole-reference test of a reusable disposable.
#include "ImmediateRecursionSlot.h"
#include "CapturedHopSlot.h"
#include "Prefetch.h"
#include "WorldClockSlot.h"
#include "SoleReference.h"
#include "TestSupportLinkSlot.h"

#endif
