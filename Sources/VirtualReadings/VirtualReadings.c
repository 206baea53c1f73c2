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
// Dispatch deadlines made from virtual readings: `asyncAfter(deadline: .now() + d)` in world
// code reads `.now()` in virtual time, but libdispatch's timers fire against real readings on
// threads outside the world. So a deadline handed to `dispatch_after`, `dispatch_after_f` or
// `dispatch_source_set_timer` from a world thread is turned back into the real deadline the
// same distance away: Dispatch work keeps its real delay, as it did before readings were
// virtual. (Making it virtual too is the next step: the Dispatch issue.)
//
// The forwarding pointers are set once, by a constructor, before any thread of the program
// reads a clock: a pointer set lazily from several threads is a data race (ThreadSanitizer
// reported it). A reading before then goes to the kernel directly.

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "CurrentSchedulerSlot.h"
#include "VirtualReadings.h"

typedef int (*clock_gettime_function)(clockid_t, struct timespec *);
typedef void (*dispatch_after_function)(uint64_t, void *, void *);
typedef void (*dispatch_after_f_function)(uint64_t, void *, void *, void (*)(void *));
typedef void (*dispatch_source_set_timer_function)(void *, uint64_t, uint64_t, uint64_t);

// libdispatch's own, declared here so that its headers (which need blocks) stay out.
extern uint64_t dispatch_time(uint64_t when, int64_t delta);
extern uint64_t dispatch_walltime(const struct timespec *when, int64_t delta);

static clock_gettime_function next_clock_gettime;
static dispatch_after_function next_dispatch_after;
static dispatch_after_f_function next_dispatch_after_f;
static dispatch_source_set_timer_function next_dispatch_source_set_timer;

// A sanitizer's runtime is linked into the executable, where its interceptors go by these names
// (and by the public ones, which ours replace). ThreadSanitizer's Dispatch interceptors are what
// tell it that a block happens after its submission: skipped, every block submitted through
// `dispatch_after` would be reported as racing with its submitter. So each definition forwards
// to the sanitizer's interceptor where there is one, else to the next library's definition.
// Weak: null in a binary without a sanitizer.
extern int __interceptor_clock_gettime(clockid_t, struct timespec *) __attribute__((weak));
extern void __interceptor_dispatch_after(uint64_t, void *, void *) __attribute__((weak));
extern void __interceptor_dispatch_after_f(uint64_t, void *, void *, void (*)(void *)) __attribute__((weak));
extern void __interceptor_dispatch_source_set_timer(void *, uint64_t, uint64_t, uint64_t) __attribute__((weak));

// The definition a call of `name` goes on to: the sanitizer's interceptor, else the next library's.
#define SCHEDULERS_NEXT(name, type) \
    (__interceptor_##name ? (type)__interceptor_##name : (type)dlsym(RTLD_NEXT, #name))

__attribute__((constructor)) static void schedulers_virtual_readings_install(void) {
    next_clock_gettime = SCHEDULERS_NEXT(clock_gettime, clock_gettime_function);
    next_dispatch_after = SCHEDULERS_NEXT(dispatch_after, dispatch_after_function);
    next_dispatch_after_f = SCHEDULERS_NEXT(dispatch_after_f, dispatch_after_f_function);
    next_dispatch_source_set_timer = SCHEDULERS_NEXT(dispatch_source_set_timer, dispatch_source_set_timer_function);
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

// The real Dispatch deadline as far from the real now as `when` is from the virtual now, for a
// deadline made on a thread running a world's work; any other unchanged.
static uint64_t real_deadline(uint64_t when) {
    struct schedulers_world_clock *world = schedulers_world_clock_get();
    // DISPATCH_TIME_NOW and DISPATCH_TIME_FOREVER mean the same in both.
    if (world == NULL || when == 0 || when == ~0ULL) return when;
    uint64_t kind = when >> 62;
    uint64_t real = when;
    if (kind == 0) {
        // The uptime clock (`DispatchTime`): nanoseconds, no flag bits.
        int64_t distance = (int64_t)(when - dispatch_time(0, 0));
        schedulers_world_clock_set(NULL);
        real = dispatch_time(0, distance);
        schedulers_world_clock_set(world);
    } else if (kind == 3) {
        // The wall clock (`DispatchWallTime`): minus the nanoseconds since 1970.
        int64_t distance = (int64_t)dispatch_walltime(NULL, 0) - (int64_t)when;
        schedulers_world_clock_set(NULL);
        real = dispatch_walltime(NULL, distance);
        schedulers_world_clock_set(world);
    }
    return real;
}

void dispatch_after(uint64_t when, void *queue, void *block) {
    next_dispatch_after(real_deadline(when), queue, block);
}

void dispatch_after_f(uint64_t when, void *queue, void *context, void (*work)(void *)) {
    next_dispatch_after_f(real_deadline(when), queue, context, work);
}

void dispatch_source_set_timer(void *source, uint64_t start, uint64_t interval, uint64_t leeway) {
    next_dispatch_source_set_timer(source, real_deadline(start), interval, leeway);
}
