// Tells Schedulers, before main, that this binary links SchedulersTestSupport, and how to ask
// it for its parts (TestSupportLinkSlot.h). Only a pointer is stored here: the registration
// itself is Swift (SchedulersTestSupport's TestSupportRegistration.swift) and runs the first time
// Schedulers needs a part.

#include "CurrentSchedulerSlot.h"

// Defined with @_cdecl by SchedulersTestSupport, which every binary that links this file links.
extern void schedulers_test_support_register(void);

__attribute__((constructor)) static void schedulers_test_support_link_install(void) {
    __atomic_store_n(&schedulers_test_support_link, &schedulers_test_support_register, __ATOMIC_RELEASE);
}
