#ifndef SCHEDULERS_TEST_SUPPORT_LINK_SLOT_H
#define SCHEDULERS_TEST_SUPPORT_LINK_SLOT_H

// How Schedulers finds the SchedulersTestSupport product in a binary that links it: the product
// lends the parts that only tests may use (where the Swift runtime's hook variables are, the test
// frameworks), so that an app, which links only Schedulers, names none of them.
//
// Set once, before main, by a constructor of the test support (Sources/VirtualReadings/
// TestSupportLink.c) to its registration function; null in every binary that does not link it.
// Schedulers calls it lazily, the first time it needs a part (TestSupportLink.swift), never from
// the constructor: a Swift function run before main could see the runtime half set up.
extern void (*_Nullable schedulers_test_support_link)(void);  // __atomic builtins only

static inline void (*_Nullable schedulers_test_support_link_get(void))(void) {
    return __atomic_load_n(&schedulers_test_support_link, __ATOMIC_ACQUIRE);
}

#endif
