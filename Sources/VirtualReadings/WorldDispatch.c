// Dispatch work a world starts belongs to it, by defining libdispatch's block functions in the
// test binary.
//
// Swift code reaches libdispatch through the dynamic symbol table (`DispatchQueue.async` calls
// `dispatch_async`, `asyncAfter` calls `dispatch_after`: Platform notes), so these definitions
// see every block the code under test submits. On a thread running a world's work (its world
// clock slot is set, WorldClockSlot.h), a block for any queue but the main queue is the world's:
//
// - `dispatch_async`, `dispatch_barrier_async`, `dispatch_group_async`: counted in flight in the
//   world clock from submission until it has run, and run with the slot set, so that its
//   readings are virtual and what it submits in turn is the world's too. While anything is in
//   flight, the world's drives do not move virtual time (Schedulers' WorldDispatchWork.swift).
// - `dispatch_after`: its deadline, read in virtual time, becomes an action of the world's
//   scheduler at that virtual time, which submits the block for real as above.
// - `dispatch_group_notify`: run with the slot set; counted in flight from the moment a leave
//   made inside the world empties its group (or from its own start, if that comes first), so
//   that time cannot move between the group's last block and the notification's end.
//
// Everything else (other threads, the main queue, the `_f` variants that the concurrency
// runtime uses for its own jobs) is forwarded unchanged. A block is called through the Block
// ABI (clang's "Block Implementation Specification": the invoke pointer after the header), so
// this file needs no `-fblocks`; the special blocks of `DispatchWorkItem` honour cancellation
// when called so, though a work item's QoS and barrier flags are not kept.

#include "Forwarding.h"  // first: it defines _GNU_SOURCE

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "CurrentSchedulerSlot.h"

// libdispatch's own, declared here so that its headers (which need blocks) stay out.
typedef void (*dispatch_function)(void *);
struct schedulers_dispatch_object;
typedef struct schedulers_dispatch_object *object_t;
extern struct schedulers_dispatch_object _dispatch_main_q;
extern uint64_t dispatch_time(uint64_t when, int64_t delta);
extern uint64_t dispatch_walltime(const struct timespec *when, int64_t delta);
extern const char *dispatch_queue_get_label(object_t queue);
extern void dispatch_retain(object_t object);
extern void dispatch_release(object_t object);
extern void dispatch_group_enter(object_t group);
void dispatch_group_leave(object_t group);
long dispatch_group_wait(object_t group, uint64_t timeout);
extern void dispatch_set_context(object_t object, void *context);
extern void dispatch_set_finalizer_f(object_t object, dispatch_function finalizer);
extern long dispatch_source_testcancel(object_t source);
extern void *_Block_copy(const void *block);
extern void _Block_release(const void *block);

struct block_layout {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void *block);
    void *descriptor;
};

typedef void (*async_function)(object_t, void *);
typedef void (*async_f_function)(object_t, void *, dispatch_function);
typedef void (*after_function)(uint64_t, object_t, void *);
typedef void (*after_f_function)(uint64_t, object_t, void *, dispatch_function);
typedef void (*group_async_function)(object_t, object_t, void *);
typedef void (*group_notify_f_function)(object_t, object_t, void *, dispatch_function);
typedef void (*group_leave_function)(object_t);
typedef void (*set_timer_function)(object_t, uint64_t, uint64_t, uint64_t);
typedef void (*set_handler_function)(object_t, void *);
typedef long (*wait_function)(object_t, uint64_t);
typedef void (*set_handler_f_function)(object_t, dispatch_function);

static async_function next_dispatch_async;
static async_f_function next_dispatch_async_f;
static async_function next_dispatch_barrier_async;
static async_f_function next_dispatch_barrier_async_f;
static after_function next_dispatch_after;
static after_f_function next_dispatch_after_f;
static group_async_function next_dispatch_group_async;
static group_async_function next_dispatch_group_notify;
static group_notify_f_function next_dispatch_group_notify_f;
static group_leave_function next_dispatch_group_leave;
static set_timer_function next_dispatch_source_set_timer;
static set_handler_function next_dispatch_source_set_event_handler;
static wait_function next_dispatch_semaphore_wait;
static wait_function next_dispatch_group_wait;
static set_handler_f_function next_dispatch_source_set_event_handler_f;
// Where the concurrency runtime is loaded: its own timers (a task's delayed job) stay real.
static void *concurrency_runtime_base;

extern void __interceptor_dispatch_async(object_t, void *) __attribute__((weak));
extern void __interceptor_dispatch_async_f(object_t, void *, dispatch_function) __attribute__((weak));
extern void __interceptor_dispatch_barrier_async(object_t, void *) __attribute__((weak));
extern void __interceptor_dispatch_barrier_async_f(object_t, void *, dispatch_function) __attribute__((weak));
extern void __interceptor_dispatch_after(uint64_t, object_t, void *) __attribute__((weak));
extern void __interceptor_dispatch_after_f(uint64_t, object_t, void *, dispatch_function) __attribute__((weak));
extern void __interceptor_dispatch_group_async(object_t, object_t, void *) __attribute__((weak));
extern void __interceptor_dispatch_group_notify(object_t, object_t, void *) __attribute__((weak));
extern void __interceptor_dispatch_group_notify_f(object_t, object_t, void *, dispatch_function) __attribute__((weak));
extern void __interceptor_dispatch_group_leave(object_t) __attribute__((weak));
extern void __interceptor_dispatch_source_set_timer(object_t, uint64_t, uint64_t, uint64_t) __attribute__((weak));
extern void __interceptor_dispatch_source_set_event_handler(object_t, void *) __attribute__((weak));
extern long __interceptor_dispatch_semaphore_wait(object_t, uint64_t) __attribute__((weak));
extern long __interceptor_dispatch_group_wait(object_t, uint64_t) __attribute__((weak));
extern void __interceptor_dispatch_source_set_event_handler_f(object_t, dispatch_function) __attribute__((weak));

static void describe_in_flight(struct schedulers_world_clock *clock, char *buffer, long size);

__attribute__((constructor)) static void schedulers_world_dispatch_install(void) {
    next_dispatch_async = SCHEDULERS_NEXT(dispatch_async, async_function);
    next_dispatch_async_f = SCHEDULERS_NEXT(dispatch_async_f, async_f_function);
    next_dispatch_barrier_async = SCHEDULERS_NEXT(dispatch_barrier_async, async_function);
    next_dispatch_barrier_async_f = SCHEDULERS_NEXT(dispatch_barrier_async_f, async_f_function);
    next_dispatch_after = SCHEDULERS_NEXT(dispatch_after, after_function);
    next_dispatch_after_f = SCHEDULERS_NEXT(dispatch_after_f, after_f_function);
    next_dispatch_group_async = SCHEDULERS_NEXT(dispatch_group_async, group_async_function);
    next_dispatch_group_notify = SCHEDULERS_NEXT(dispatch_group_notify, group_async_function);
    next_dispatch_group_notify_f = SCHEDULERS_NEXT(dispatch_group_notify_f, group_notify_f_function);
    next_dispatch_group_leave = SCHEDULERS_NEXT(dispatch_group_leave, group_leave_function);
    next_dispatch_source_set_timer = SCHEDULERS_NEXT(dispatch_source_set_timer, set_timer_function);
    next_dispatch_source_set_event_handler = SCHEDULERS_NEXT(dispatch_source_set_event_handler, set_handler_function);
    next_dispatch_source_set_event_handler_f =
        SCHEDULERS_NEXT(dispatch_source_set_event_handler_f, set_handler_f_function);
    next_dispatch_semaphore_wait = SCHEDULERS_NEXT(dispatch_semaphore_wait, wait_function);
    next_dispatch_group_wait = SCHEDULERS_NEXT(dispatch_group_wait, wait_function);
    __atomic_store_n(&schedulers_world_describe_in_flight, describe_in_flight, __ATOMIC_RELEASE);
    Dl_info info;
    void *runtime = dlsym(RTLD_DEFAULT, "swift_task_enqueueGlobal");
    if (runtime && dladdr(runtime, &info)) concurrency_runtime_base = info.dli_fbase;
}

// The world whose work the calling thread runs, if a block it submits to `queue` is the world's.
static struct schedulers_world_clock *world_for(object_t queue) {
    struct schedulers_world_clock *world = schedulers_world_clock_get();
    if (world == NULL || queue == &_dispatch_main_q || world->schedule_at == NULL) return NULL;
    return world;
}

// A block of the world on its way: what runs it needs.
struct world_block {
    struct schedulers_world_clock *clock;
    void *block;        // copied
    object_t queue;     // retained while a deadline waits (`dispatch_after`)
    object_t group;     // the group to leave after it ran (`dispatch_group_async`), or null
    int counted;        // `dispatch_group_notify`'s: in flight (see run_world_notify)
    struct world_block *next_notify;
    // Which registration: once run and freed, a notify's address can be the next one's.
    unsigned long notify_serial;
    // What it is, for the report of a block that does not finish (describe_in_flight).
    const char *kind;
    char label[64];
    struct world_block *previous_in_flight, *next_in_flight;
};

// The blocks in flight, every world's, for the report of one that does not finish.
static pthread_mutex_t in_flight_lock = PTHREAD_MUTEX_INITIALIZER;
static struct world_block *in_flight;

static struct world_block *world_block_make(
    struct schedulers_world_clock *clock, void *block, object_t queue, const char *kind
) {
    struct world_block *item = calloc(1, sizeof *item);
    if (item == NULL) abort();
    item->clock = clock;
    item->block = _Block_copy(block);
    item->kind = kind;
    const char *label = queue ? dispatch_queue_get_label(queue) : NULL;
    snprintf(item->label, sizeof item->label, "%s", label && *label ? label : "(no label)");
    return item;
}

static void in_flight_add(struct world_block *item) {
    pthread_mutex_lock(&in_flight_lock);
    item->next_in_flight = in_flight;
    if (in_flight) in_flight->previous_in_flight = item;
    in_flight = item;
    pthread_mutex_unlock(&in_flight_lock);
}

static void in_flight_remove(struct world_block *item) {
    pthread_mutex_lock(&in_flight_lock);
    if (item->previous_in_flight) item->previous_in_flight->next_in_flight = item->next_in_flight;
    else if (in_flight == item) in_flight = item->next_in_flight;
    if (item->next_in_flight) item->next_in_flight->previous_in_flight = item->previous_in_flight;
    item->previous_in_flight = item->next_in_flight = NULL;
    pthread_mutex_unlock(&in_flight_lock);
}

static void describe_in_flight(struct schedulers_world_clock *clock, char *buffer, long size) {
    long used = 0;
    buffer[0] = 0;
    pthread_mutex_lock(&in_flight_lock);
    for (struct world_block *each = in_flight; each && used < size - 1; each = each->next_in_flight) {
        if (each->clock != clock) continue;
        int wrote = snprintf(buffer + used, (size_t)(size - used), "%s%s on '%s'", used ? "; " : "", each->kind,
                             each->label);
        if (wrote < 0) break;
        used += wrote;
    }
    pthread_mutex_unlock(&in_flight_lock);
}

static void world_block_invoke(struct world_block *item) {
    struct schedulers_world_clock *outer = schedulers_world_clock_get();
    schedulers_world_clock_set(item->clock);
    struct block_layout *block = item->block;
    block->invoke(block);
    _Block_release(block);
    schedulers_world_clock_set(outer);
}

// Runs a block counted in flight; its flight ends after it (and the group's leave) ran.
static void run_world_block(void *context) {
    struct world_block *item = context;
    struct schedulers_world_clock *clock = item->clock;
    world_block_invoke(item);
    if (item->group) {
        // Still in flight, and still on the world's clock: a notification this leave sends is
        // counted before time can move (dispatch_group_leave below).
        struct schedulers_world_clock *outer = schedulers_world_clock_get();
        schedulers_world_clock_set(clock);
        dispatch_group_leave(item->group);
        schedulers_world_clock_set(outer);
        dispatch_release(item->group);
    }
    in_flight_remove(item);
    free(item);
    schedulers_world_work_end(clock);
}

static void submit_in_flight(
    struct schedulers_world_clock *clock, object_t queue, void *block, async_f_function submit, const char *kind
) {
    struct world_block *item = world_block_make(clock, block, queue, kind);
    schedulers_world_work_begin(clock);
    in_flight_add(item);
    submit(queue, item, run_world_block);
}

void dispatch_async(object_t queue, void *block) {
    struct schedulers_world_clock *world = world_for(queue);
    if (world == NULL) return next_dispatch_async(queue, block);
    submit_in_flight(world, queue, block, next_dispatch_async_f, "async");
}

void dispatch_barrier_async(object_t queue, void *block) {
    struct schedulers_world_clock *world = world_for(queue);
    if (world == NULL) return next_dispatch_barrier_async(queue, block);
    submit_in_flight(world, queue, block, next_dispatch_barrier_async_f, "async(flags: .barrier)");
}

void dispatch_group_async(object_t group, object_t queue, void *block) {
    struct schedulers_world_clock *world = world_for(queue);
    if (world == NULL) return next_dispatch_group_async(group, queue, block);
    // Entered here and left by run_world_block, while the block is still in flight.
    dispatch_group_enter(group);
    dispatch_retain(group);
    struct world_block *item = world_block_make(world, block, queue, "async(group:)");
    item->group = group;
    schedulers_world_work_begin(world);
    in_flight_add(item);
    next_dispatch_async_f(queue, item, run_world_block);
}

// MARK: Group notifications

// World notifications registered and not yet run, with their groups: a leave inside the world
// that empties a group counts that group's notifications in flight before it returns, so that
// time holds from the group's last work to the notification's end.
static pthread_mutex_t notifies_lock = PTHREAD_MUTEX_INITIALIZER;  // timer sources too
static struct world_block *notifies;
static unsigned long last_notify_serial;

// A notification is counted in flight (`counted` set, under notifies_lock) by whichever comes
// first after libdispatch submits it: the leave that emptied its group (or its registration on
// an empty group), looking once the leave returned, or its own start. The leaver holds time
// until it looks (its block is in flight, or its job runs), and a notification that started
// first holds it itself, so there is no moment in between when virtual time could move.
static void run_world_notify(void *context) {
    struct world_block *item = context;
    pthread_mutex_lock(&notifies_lock);
    for (struct world_block **link = &notifies; *link; link = &(*link)->next_notify) {
        if (*link == item) {
            *link = item->next_notify;
            break;
        }
    }
    if (!item->counted) {
        item->counted = 1;
        schedulers_world_work_begin(item->clock);
        in_flight_add(item);
    }
    pthread_mutex_unlock(&notifies_lock);
    struct schedulers_world_clock *clock = item->clock;
    world_block_invoke(item);
    in_flight_remove(item);
    dispatch_release(item->group);
    free(item);
    schedulers_world_work_end(clock);
    // The registration's own reference (dispatch_group_notify).
    schedulers_world_clock_release(clock);
}

void dispatch_group_notify(object_t group, object_t queue, void *block) {
    struct schedulers_world_clock *world = world_for(queue);
    if (world == NULL) return next_dispatch_group_notify(group, queue, block);
    struct world_block *item = world_block_make(world, block, queue, "a group's notify");
    item->group = group;
    dispatch_retain(group);
    schedulers_world_clock_retain(world);
    pthread_mutex_lock(&notifies_lock);
    unsigned long serial = ++last_notify_serial;
    item->notify_serial = serial;
    item->next_notify = notifies;
    notifies = item;
    pthread_mutex_unlock(&notifies_lock);
    next_dispatch_group_notify_f(group, queue, item, run_world_notify);
    // An empty group notifies at once: counted like a leave that empties it.
    if (dispatch_group_wait(group, 0) == 0) {
        pthread_mutex_lock(&notifies_lock);
        // Only while still registered: once run_world_notify has taken it off (under this
        // lock), it may be freed, and its address given to another world's notify.
        for (struct world_block *each = notifies; each; each = each->next_notify) {
            if (each == item && each->notify_serial == serial) {
                if (item->counted == 0) {
                    item->counted = 1;
                    schedulers_world_work_begin(world);
                    in_flight_add(item);
                }
                break;
            }
        }
        pthread_mutex_unlock(&notifies_lock);
    }
}

// Tests only (VirtualReadings.h): what this thread's leaves run between leaving and looking.
static _Thread_local void (*after_group_leave_for_tests)(void *);
static _Thread_local void *after_group_leave_for_tests_context;

void schedulers_after_group_leave_for_tests(void (*hook)(void *), void *context) {
    after_group_leave_for_tests = hook;
    after_group_leave_for_tests_context = context;
}

void dispatch_group_leave(object_t group) {
    if (schedulers_world_clock_get() == NULL) return next_dispatch_group_leave(group);
    // The group's reference that its last leave drops can be the only one (the enter took
    // it), so the group is held for the look at it afterwards.
    dispatch_retain(group);
    next_dispatch_group_leave(group);
    if (after_group_leave_for_tests) after_group_leave_for_tests(after_group_leave_for_tests_context);
    if (dispatch_group_wait(group, 0) == 0) {
        // The group is empty: libdispatch has submitted its notifications. Count the world's
        // that have not started, on their own world's clock.
        pthread_mutex_lock(&notifies_lock);
        for (struct world_block *each = notifies; each; each = each->next_notify) {
            if (each->group == group && each->counted == 0) {
                each->counted = 1;
                schedulers_world_work_begin(each->clock);
                in_flight_add(each);
            }
        }
        pthread_mutex_unlock(&notifies_lock);
    }
    dispatch_release(group);
}

// MARK: Deadlines

// The distance from the world's virtual now to `when`, read on the world's thread; 0 for
// DISPATCH_TIME_NOW. `known` is 0 for a deadline of a kind this does not read.
static int64_t virtual_distance(uint64_t when, int *known) {
    *known = 1;
    if (when == 0) return 0;
    uint64_t kind = when >> 62;
    if (kind == 0) return (int64_t)(when - dispatch_time(0, 0));         // `DispatchTime`
    if (kind == 3) return (int64_t)dispatch_walltime(NULL, 0) - (int64_t)when;  // `DispatchWallTime`
    *known = 0;
    return 0;
}

// Libdispatch reads the clock itself, through the calling thread's slot: the time left until a
// deadline (`dispatch_after` runs a block at once if none is left), and on Linux a semaphore's
// timed wait turns its deadline into a wall-clock one. So a call that forwards a real deadline
// from world code is made with real readings. Measured before: `wait(timeout: .now() + 1 s)` on
// a semaphore in world code returned at once (its deadline put in 2001), a group's waited 1.3 s.
static struct schedulers_world_clock *real_readings_begin(void) {
    struct schedulers_world_clock *world = schedulers_world_clock_get();
    schedulers_world_clock_set(NULL);
    return world;
}

static void real_readings_end(struct schedulers_world_clock *world) {
    schedulers_world_clock_set(world);
}

// The real Dispatch deadline as far from the real now as `when` is from the virtual now, for a
// deadline made on a thread running a world's work; any other unchanged.
static uint64_t real_deadline(uint64_t when) {
    struct schedulers_world_clock *world = schedulers_world_clock_get();
    // DISPATCH_TIME_NOW and DISPATCH_TIME_FOREVER mean the same in both.
    if (world == NULL || when == 0 || when == ~0ULL) return when;
    int known;
    int64_t distance = virtual_distance(when, &known);
    if (!known) return when;
    uint64_t kind = when >> 62;
    real_readings_begin();
    uint64_t real = kind == 0 ? dispatch_time(0, distance) : dispatch_walltime(NULL, distance);
    real_readings_end(world);
    return real;
}

// A wait with a timeout, in world code, blocks its thread for real: its deadline, made from a
// virtual `.now()`, is turned back into the real one the same distance away.
long dispatch_semaphore_wait(object_t semaphore, uint64_t timeout) {
    uint64_t real = real_deadline(timeout);
    struct schedulers_world_clock *world = real_readings_begin();
    long result = next_dispatch_semaphore_wait(semaphore, real);
    real_readings_end(world);
    return result;
}

long dispatch_group_wait(object_t group, uint64_t timeout) {
    uint64_t real = real_deadline(timeout);
    struct schedulers_world_clock *world = real_readings_begin();
    long result = next_dispatch_group_wait(group, real);
    real_readings_end(world);
    return result;
}

// `dispatch_after` for a deadline that stays real (another queue's, or the world gone).
static void forward_after(uint64_t when, object_t queue, void *block) {
    uint64_t real = real_deadline(when);
    struct schedulers_world_clock *world = real_readings_begin();
    next_dispatch_after(real, queue, block);
    real_readings_end(world);
}

// A deadline of the world reached in virtual time: the block goes to its queue, in flight.
static void fire_world_after(void *context) {
    struct world_block *item = context;
    // Read before the submission: the block may run, and free `item`, at once.
    struct schedulers_world_clock *clock = item->clock;
    object_t queue = item->queue;
    schedulers_world_work_begin(clock);
    in_flight_add(item);
    next_dispatch_async_f(queue, item, run_world_block);
    dispatch_release(queue);
    // The reference the deadline held; the flight holds its own.
    schedulers_world_clock_release(clock);
}

void dispatch_after(uint64_t when, object_t queue, void *block) {
    struct schedulers_world_clock *world = world_for(queue);
    int known = 0;
    int64_t distance = world && when != ~0ULL ? virtual_distance(when, &known) : 0;
    if (!known) return forward_after(when, queue, block);
    struct world_block *item = world_block_make(world, block, queue, "asyncAfter");
    item->queue = queue;
    dispatch_retain(queue);
    schedulers_world_clock_retain(world);
    int64_t now = __atomic_load_n(&world->now, __ATOMIC_ACQUIRE);
    int64_t due;
    if (__builtin_add_overflow(now, distance < 0 ? 0 : distance, &due)) due = INT64_MAX;
    if (!world->schedule_at(world->owner, due, fire_world_after, item)) {
        // The world's scheduler is gone: a real deadline after all.
        dispatch_release(queue);
        schedulers_world_clock_release(world);
        forward_after(when, queue, item->block);
        _Block_release(item->block);
        free(item);
    }
}

void dispatch_after_f(uint64_t when, object_t queue, void *context, dispatch_function work) {
    uint64_t real = real_deadline(when);
    struct schedulers_world_clock *world = real_readings_begin();
    next_dispatch_after_f(real, queue, context, work);
    real_readings_end(world);
}

// MARK: Timer sources

// A timer source whose handler or timer world code set. Its timer is virtual: the real one is
// set never to fire, and a tick, an action of the world's scheduler at each virtual deadline,
// makes it fire once, for real, at once, counted in flight until the handler has run.
struct world_source {
    struct schedulers_world_clock *clock;  // a reference
    object_t source;
    void *handler;          // copied; run with the world's clock; null if set outside the world
    uint64_t generation;    // bumped by each set_timer: an older timer's ticks do nothing
    int counted;            // ticks counted in flight whose handler has not run yet
    struct world_source *next;
};

static struct world_source *sources;  // under notifies_lock

// A pending tick of a virtual timer; it holds a reference to its source.
struct world_tick {
    struct world_source *entry;
    uint64_t generation;
    int64_t due;
    int64_t interval;  // nanoseconds; 0 for a timer that fires once
};

static void world_source_finalize(void *context) {
    struct world_source *entry = context;
    pthread_mutex_lock(&notifies_lock);
    for (struct world_source **link = &sources; *link; link = &(*link)->next) {
        if (*link == entry) {
            *link = entry->next;
            break;
        }
    }
    pthread_mutex_unlock(&notifies_lock);
    if (entry->handler) _Block_release(entry->handler);
    schedulers_world_clock_release(entry->clock);
    free(entry);
}

// The entry of `source` (made on the world's clock if new). Call under notifies_lock.
static struct world_source *world_source_entry(object_t source, struct schedulers_world_clock *world) {
    for (struct world_source *each = sources; each; each = each->next) {
        if (each->source == source) return each;
    }
    struct world_source *entry = calloc(1, sizeof *entry);
    if (entry == NULL) abort();
    entry->clock = world;
    schedulers_world_clock_retain(world);
    entry->source = source;
    entry->next = sources;
    sources = entry;
    // The source's context is the entry from now on (the Swift overlay sets none), and frees
    // it with the source.
    dispatch_set_context(source, entry);
    dispatch_set_finalizer_f(source, world_source_finalize);
    return entry;
}

static void run_world_source_handler(void *context) {
    struct world_source *entry = context;
    pthread_mutex_lock(&notifies_lock);
    int counted = entry->counted > 0;
    if (counted) entry->counted -= 1;
    void *handler = entry->handler ? _Block_copy(entry->handler) : NULL;
    struct schedulers_world_clock *clock = entry->clock;
    pthread_mutex_unlock(&notifies_lock);
    if (handler) {
        struct schedulers_world_clock *outer = schedulers_world_clock_get();
        schedulers_world_clock_set(clock);
        ((struct block_layout *)handler)->invoke(handler);
        schedulers_world_clock_set(outer);
        _Block_release(handler);
    }
    if (counted) schedulers_world_work_end(clock);
}

void dispatch_source_set_event_handler(object_t source, void *handler) {
    struct schedulers_world_clock *world = schedulers_world_clock_get();
    pthread_mutex_lock(&notifies_lock);
    struct world_source *known = NULL;
    for (struct world_source *each = sources; each; each = each->next) {
        if (each->source == source) known = each;
    }
    if (world == NULL && known == NULL) {
        pthread_mutex_unlock(&notifies_lock);
        return next_dispatch_source_set_event_handler(source, handler);
    }
    struct world_source *entry = known ? known : world_source_entry(source, world);
    void *old = entry->handler;
    entry->handler = handler ? _Block_copy(handler) : NULL;
    pthread_mutex_unlock(&notifies_lock);
    if (old) _Block_release(old);
    next_dispatch_source_set_event_handler_f(source, handler ? run_world_source_handler : NULL);
}

static void schedule_tick(struct schedulers_world_clock *world, struct world_tick *tick);

static void fire_world_tick(void *context) {
    struct world_tick *tick = context;
    struct world_source *entry = tick->entry;
    object_t source = entry->source;
    pthread_mutex_lock(&notifies_lock);
    int live = tick->generation == entry->generation && !dispatch_source_testcancel(source);
    if (live && entry->handler) {
        entry->counted += 1;
        schedulers_world_work_begin(entry->clock);
    }
    pthread_mutex_unlock(&notifies_lock);
    if (live) {
        // Fire once, for real, now; the next tick sets it again. Real readings: a virtual
        // "now" would put the virtual time that has passed into the real future.
        struct schedulers_world_clock *world = real_readings_begin();
        next_dispatch_source_set_timer(source, 0, ~0ULL, 0);
        real_readings_end(world);
        if (tick->interval > 0) {
            if (__builtin_add_overflow(tick->due, tick->interval, &tick->due)) tick->due = INT64_MAX;
            return schedule_tick(entry->clock, tick);
        }
    }
    dispatch_release(source);
    free(tick);
}

static void schedule_tick(struct schedulers_world_clock *world, struct world_tick *tick) {
    if (!world->schedule_at(world->owner, tick->due, fire_world_tick, tick)) {
        dispatch_release(tick->entry->source);
        free(tick);
    }
}

void dispatch_source_set_timer(object_t source, uint64_t start, uint64_t interval, uint64_t leeway) {
    struct schedulers_world_clock *world = schedulers_world_clock_get();
    int known = 0;
    int64_t distance = 0;
    if (world && world->schedule_at && start != ~0ULL) {
        // The concurrency runtime's own timers (delayed jobs) keep their real delay.
        Dl_info info;
        if (!dladdr(__builtin_return_address(0), &info) || info.dli_fbase != concurrency_runtime_base) {
            distance = virtual_distance(start, &known);
        }
    }
    if (!known) {
        uint64_t real = real_deadline(start);
        struct schedulers_world_clock *outer = real_readings_begin();
        next_dispatch_source_set_timer(source, real, interval, leeway);
        return real_readings_end(outer);
    }
    pthread_mutex_lock(&notifies_lock);
    struct world_source *entry = world_source_entry(source, world);
    entry->generation += 1;
    struct world_tick *tick = calloc(1, sizeof *tick);
    if (tick == NULL) abort();
    tick->entry = entry;
    tick->generation = entry->generation;
    pthread_mutex_unlock(&notifies_lock);
    int64_t now = __atomic_load_n(&world->now, __ATOMIC_ACQUIRE);
    if (__builtin_add_overflow(now, distance < 0 ? 0 : distance, &tick->due)) tick->due = INT64_MAX;
    // DISPATCH_TIME_FOREVER (Swift's `.never`) and 0: once.
    tick->interval = interval == ~0ULL || interval > (uint64_t)INT64_MAX ? 0 : (int64_t)interval;
    // Never for real; the ticks fire it.
    next_dispatch_source_set_timer(source, ~0ULL, ~0ULL, leeway);
    dispatch_retain(source);
    schedule_tick(world, tick);
}
