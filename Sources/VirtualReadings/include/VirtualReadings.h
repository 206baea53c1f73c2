#ifndef SCHEDULERS_VIRTUAL_READINGS_H
#define SCHEDULERS_VIRTUAL_READINGS_H

// A test binary's own definitions of C library and Dispatch functions, so that a thread running
// a virtual world's work reads that world's time (VirtualReadings.c says how and why). Linked
// only into binaries that link SchedulersTestSupport; an app never links it.

// Whether this binary's readings are virtual inside a world (the definitions are installed).
int schedulers_virtual_readings_active(void);

#endif
