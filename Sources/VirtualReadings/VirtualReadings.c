// Virtual clock readings inside a world, by defining the C library's `clock_gettime` in the test
// binary.
//
// On Linux, `ContinuousClock.now`, `SuspendingClock.now`, `Date()`, `DispatchTime.now()` and
// `ProcessInfo.systemUptime` all read `clock_gettime` through the dynamic symbol table, so a
// definition in the executable comes first for every library in the process (Platform notes,
// "Clock readings and Dispatch calls"). This one answers from the calling thread's world clock
// (WorldClockSlot.h), which a capturing TestScheduler sets while the thread runs its work, and
// forwards every other reading to the next definition: a sanitizer's interceptor where the
// binary has one (it forwards to the C library in turn), else the C library's.
//
// The Dispatch work a world starts is the world's too: WorldDispatch.c.
//
// The forwarding pointers are set once, by a constructor, before any thread of the program
// reads a clock: a pointer set lazily from several threads is a data race (ThreadSanitizer
// reported it). A reading before then goes to the kernel directly.

#include "Forwarding.h"  // first: it defines _GNU_SOURCE

#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "CurrentSchedulerSlot.h"
#include "VirtualReadings.h"

typedef int (*clock_gettime_function)(clockid_t, struct timespec *);

static clock_gettime_function next_clock_gettime;

extern int __interceptor_clock_gettime(clockid_t, struct timespec *) __attribute__((weak));

__attribute__((constructor)) static void schedulers_virtual_readings_install(void) {
    next_clock_gettime = SCHEDULERS_NEXT(clock_gettime, clock_gettime_function);
    __atomic_store_n(&schedulers_virtual_readings_installed, 1, __ATOMIC_RELEASE);
}

int schedulers_virtual_readings_active(void) {
    return schedulers_virtual_readings_are_installed();
}

static int forward_clock_gettime(clockid_t clock, struct timespec *value) {
    if (next_clock_gettime) return next_clock_gettime(clock, value);
    return (int)syscall(SYS_clock_gettime, clock, value);
}

// Nanoseconds between 1970-01-01 and 2001-01-01 (the virtual time's reference date).
static const int64_t reference_date_since_1970 = 978307200LL * 1000000000LL;

static int64_t saturating_add(int64_t a, int64_t b) {
    int64_t sum;
    if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? INT64_MAX : INT64_MIN;
    return sum;
}

int clock_gettime(clockid_t clock, struct timespec *value) {
    struct schedulers_world_clock *world = schedulers_world_clock_get();
    if (world == NULL) return forward_clock_gettime(clock, value);
    int64_t now = __atomic_load_n(&world->now, __ATOMIC_ACQUIRE);
    int64_t nanoseconds;
    switch (clock) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
        nanoseconds = saturating_add(now, reference_date_since_1970);
        break;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
        nanoseconds = saturating_add(world->monotonic_base, now - world->start);
        break;
    case CLOCK_BOOTTIME:
        nanoseconds = saturating_add(world->boottime_base, now - world->start);
        break;
    default:
        // Thread and process CPU time, and the rest: real.
        return forward_clock_gettime(clock, value);
    }
    int64_t seconds = nanoseconds / 1000000000LL;
    int64_t remainder = nanoseconds % 1000000000LL;
    if (remainder < 0) {
        seconds -= 1;
        remainder += 1000000000LL;
    }
    value->tv_sec = (time_t)seconds;
    value->tv_nsec = (long)remainder;
    return 0;
}
