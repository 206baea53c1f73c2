#ifndef SCHEDULERS_VIRTUAL_READINGS_H
#define SCHEDULERS_VIRTUAL_READINGS_H

// A test binary's own definitions of C library and Dispatch functions, so that a thread running
// a virtual world's work reads that world's time (VirtualReadings.c says how and why). Linked
// only into binaries that link SchedulersTestSupport; an app never links it.

// Whether this binary's readings are virtual inside a world (the definitions are installed).
int schedulers_virtual_readings_active(void);

// Tests only: `hook(context)` runs on the calling thread inside each of its Dispatch group
// leaves made in a world, after the group is left and before the leave looks for the
// notifications that it sent (WorldDispatch.c), so that a test can let one start first. Null
// clears it.
void schedulers_after_group_leave_for_tests(void (*_Nullable hook)(void *_Nullable), void *_Nullable context);

#endif
