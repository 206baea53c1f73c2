#ifndef SCHEDULERS_SOLE_REFERENCE_H
#define SCHEDULERS_SOLE_REFERENCE_H

#include <stdbool.h>
#include <stdint.h>

// Whether the native Swift object at `object` is referred to by one strong reference and by
// nothing else: no second strong reference, no unowned one, and no weak one, now or ever (a weak
// reference gives the object a side table for good). For TestScheduler's reusable disposable
// (Virtual/VirtualAction.swift): the scheduler keeps the last one it handed out, and renames it
// for the next action only when its own reference is the sole one, so that nobody can tell.
//
// The object's inline reference counts follow its metadata pointer. With one strong reference
// and nothing else they hold a strong extra count of 0 and an unowned count of 1 (the +1 the
// strong references hold together), i.e. the value 2, besides the lowest bit (whether the
// object is deallocated by Swift alone), which says nothing about references. Any other
// reference changes the word: a strong one its extra count (bits 33 and up on 64-bit), an
// unowned one the unowned count, a weak one replaces the word by a side-table pointer with its
// top bits set. A runtime with another layout would read as "not sole" and only lose the reuse.
//
// The load acquires: a reference dropped on another thread (the runtime's release decrement)
// happens before whatever the caller then writes to the object.
static inline __attribute__((always_inline)) bool schedulers_is_solely_referenced(const void *_Nonnull object) {
    uintptr_t word = __atomic_load_n((const uintptr_t *)object + 1, __ATOMIC_ACQUIRE);
    return (word & ~(uintptr_t)1) == 2;
}

#endif
