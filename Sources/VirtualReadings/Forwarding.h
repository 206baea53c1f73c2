#ifndef SCHEDULERS_FORWARDING_H
#define SCHEDULERS_FORWARDING_H

#define _GNU_SOURCE
#include <dlfcn.h>

// Where this binary's definitions of C library and Dispatch functions go on to.
//
// A sanitizer's runtime is linked into the executable, where its interceptors go by
// `__interceptor_<name>` (and by the public names, which ours replace). ThreadSanitizer's
// Dispatch interceptors are what tell it that a block happens after its submission: skipped,
// every block submitted through them would be reported as racing with its submitter. So each
// definition forwards to the sanitizer's interceptor where there is one (declared weak: null in
// a binary without a sanitizer), else to the next library's definition.
//
// The pointers are set once, by a constructor, before any thread of the program reads a clock
// or submits a block: a pointer set lazily from several threads is a data race (ThreadSanitizer
// reported it).
#define SCHEDULERS_NEXT(name, type) \
    (__interceptor_##name ? (type)__interceptor_##name : (type)dlsym(RTLD_NEXT, #name))

#endif
