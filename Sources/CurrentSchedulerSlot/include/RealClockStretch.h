#ifndef SCHEDULERS_REAL_CLOCK_STRETCH_H
#define SCHEDULERS_REAL_CLOCK_STRETCH_H

#include <stdint.h>
#include <string.h>
#include <time.h>

// The stretch of work a TestScheduler's captured task runs on this thread, in segments ended by
// its hops (Virtual/Capture/RealClockTimeline.swift, rule 2): where a real-clock sleep's caller
// read `now`. Thread-local, because a stretch is one thread's by definition: beginning one, a hop
// ending its segment and the sleep reading it all happen on the thread running the task, so
// none of it takes a lock or allocates. It is paid around every job of a scheduler that
// captures, and at every hop of a captured task.
//
// Times are nanoseconds since each real clock's epoch, read as the Swift runtime reads them on
// Linux (swift_get_time): ContinuousClock is CLOCK_BOOTTIME, SuspendingClock CLOCK_MONOTONIC
// (RealClockSleepTests checks it). Elsewhere the stretch is never used.

typedef struct {
    int64_t continuous;
    int64_t suspending;
} schedulers_moment;

typedef struct {
    schedulers_moment start;
    // Zero while the segment runs.
    schedulers_moment end;
} schedulers_segment;

// The latest four segments: they cover a sleep's path (a job, then the hops into a closure, into
// `sleep(until:)`, into the runtime's sleep), and the reading is in one of the last.
#define SCHEDULERS_STRETCH_SEGMENTS 4

typedef struct {
    // The address of the job running the last segment (its task's); 0: no stretch.
    uintptr_t job;
    // How many segments are held, oldest first; the last one runs.
    uint32_t count;
    schedulers_segment segments[SCHEDULERS_STRETCH_SEGMENTS];
} schedulers_stretch;

// The stretch running on this thread.
extern _Thread_local schedulers_stretch schedulers_stretch_running;
// The stretches that jobs running inside jobs interrupted (a job that drives the scheduler),
// innermost last: SCHEDULERS_STRETCH_NESTING deep, deeper ones are not kept (their sleeps count
// from their arrival). job 0: none was running.
#define SCHEDULERS_STRETCH_NESTING 4
extern _Thread_local schedulers_stretch schedulers_stretch_outer[SCHEDULERS_STRETCH_NESTING];
extern _Thread_local uint32_t schedulers_stretch_depth;
// The job of a hop the running task made on this thread that the run goes on with at once (a
// parked hop, Virtual/Capture/CapturedJobRun.swift): the running stretch waits for it. 0: none.
extern _Thread_local uintptr_t schedulers_stretch_parked_job;
// Where the running task's last hop entered the global-enqueue hook, before the hook did anything
// else: the end of its segment. continuous 0: none waiting.
extern _Thread_local schedulers_moment schedulers_stretch_hop_entry;

static inline __attribute__((always_inline)) schedulers_moment schedulers_real_clocks_now(void) {
    schedulers_moment now = {0, 0};
#if defined(__linux__)
    struct timespec value;
    clock_gettime(CLOCK_BOOTTIME, &value);
    now.continuous = (int64_t)value.tv_sec * 1000000000 + value.tv_nsec;
    clock_gettime(CLOCK_MONOTONIC, &value);
    now.suspending = (int64_t)value.tv_sec * 1000000000 + value.tv_nsec;
#endif
    return now;
}

// A hop of the running task enters the global-enqueue hook: its segment ends now.
static inline __attribute__((always_inline)) void schedulers_stretch_hop_enters(void) {
    schedulers_stretch_hop_entry = schedulers_real_clocks_now();
}

// A hop that no capture takes: the reading is not this thread's segment end.
static inline __attribute__((always_inline)) void schedulers_stretch_hop_forgotten(void) {
    schedulers_stretch_hop_entry.continuous = 0;
}

// The job at `job` begins on this thread: the stretch it continues (`continued`, a hop queued
// elsewhere; else the hop parked here for it), else a new one. Pair with schedulers_stretch_end.
static inline void schedulers_stretch_begin(uintptr_t job, const schedulers_stretch *_Nullable continued) {
    schedulers_moment now = schedulers_real_clocks_now();
    schedulers_stretch *running = &schedulers_stretch_running;
    uint32_t depth = schedulers_stretch_depth++;
    if (continued == 0 && job != 0 && schedulers_stretch_parked_job == job) {
        // The running stretch is the one its hop ended (schedulers_stretch_end kept it), and
        // what it interrupted is still kept at this depth.
    } else {
        if (depth < SCHEDULERS_STRETCH_NESTING) {
            if (running->job != 0) {
                schedulers_stretch_outer[depth] = *running;
            } else {
                schedulers_stretch_outer[depth].job = 0;
            }
        }
        if (continued != 0) {
            *running = *continued;
        } else {
            running->count = 0;
        }
    }
    // A parked hop runs right after the job that made it, or not as one.
    schedulers_stretch_parked_job = 0;
    running->job = job;
    if (running->count == SCHEDULERS_STRETCH_SEGMENTS) {
        memmove(&running->segments[0], &running->segments[1],
                sizeof(schedulers_segment) * (SCHEDULERS_STRETCH_SEGMENTS - 1));
        running->count -= 1;
    }
    schedulers_segment *segment = &running->segments[running->count];
    segment->start = now;
    segment->end.continuous = 0;
    segment->end.suspending = 0;
    running->count += 1;
}

// The job schedulers_stretch_begin began returned: its parked hop goes on with the stretch next,
// else the stretch it interrupted goes on.
static inline void schedulers_stretch_end(void) {
    schedulers_stretch *running = &schedulers_stretch_running;
    uint32_t depth = --schedulers_stretch_depth;
    if (schedulers_stretch_parked_job != 0 && schedulers_stretch_parked_job == running->job) return;
    if (depth < SCHEDULERS_STRETCH_NESTING && schedulers_stretch_outer[depth].job != 0) {
        *running = schedulers_stretch_outer[depth];
    } else {
        running->job = 0;
        running->count = 0;
    }
}

// `job` is being enqueued. If it is the running task (a hop), its segment ends where its hop
// entered the hook (else now), and: `parked`, the stretch waits here for the job; else it is
// copied to `hop` for the caller to keep, and the result is 1. Otherwise 0.
static inline int schedulers_stretch_hop_made(uintptr_t job, int parked, schedulers_stretch *_Nullable hop) {
    schedulers_moment end = schedulers_stretch_hop_entry;
    schedulers_stretch_hop_entry.continuous = 0;
    schedulers_stretch *running = &schedulers_stretch_running;
    if (running->job != job || job == 0 || running->count == 0) return 0;
    if (end.continuous == 0) end = schedulers_real_clocks_now();
    running->segments[running->count - 1].end = end;
    if (parked) {
        schedulers_stretch_parked_job = job;
        return 0;
    }
    if (hop != 0) *hop = *running;
    return 1;
}

// The running stretch, copied (a sleep's arrival reads it).
static inline __attribute__((always_inline)) schedulers_stretch schedulers_stretch_get(void) {
    return schedulers_stretch_running;
}

#endif
